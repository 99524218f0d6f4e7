"""The replay store: replays in Redis, grouped by collection, laid out for memory and written in pipelined batches.

Keys (``P`` is the prefix, default ``cardtable:replay`` in the key namespace of :mod:`replay.namespace`; ``{...}``
a Redis Cluster hash tag: the keys with the same tag share a slot):

- ``P:{C|s}:b:<k>``: a hash holding the replays ``100k .. 100k+99`` of collection C, field ``i mod 100`` -> replay
  bytes. A bucket of small fields stays a listpack (Redis's compact encoding: a few bytes of overhead per replay
  instead of a dict entry and two objects). Bucket k lies in shard ``s = k mod 64``: a collection's buckets spread
  over 64 hash tags, so over a cluster's slots and nodes, and one huge collection does not fill one node.
- ``P:{C|s}:count``: how many replays shard s holds (the collection's count is the sum).
- ``P:{C}:meta``: a hash with ``layout`` (64: the shards above), ``next`` (one past the highest index written) and
  ``indexed`` (``P:{C}:buckets`` lists every bucket; collections written before that index existed get it on first
  read).
- ``P:{C}:buckets``: a sorted set of the collection's bucket numbers, so that a sparse collection (a sample of 100
  replays over a million deals) pages by replay without visiting ten thousand empty buckets.
- ``P:{C}:times``: when replays were written, run-length coded: member ``"<index>:<minute>"`` scored by the index
  says that the replays from that index on were written in that minute (Unix minutes), until the next member. A
  write adds a member only when its minute differs from the one in force, so its size follows the minutes of
  activity, not the number of replays.
- ``P:collections``: the set of collection names.

Collections written before the shards (their meta has a ``count`` and no ``layout``) keep the first layout, in which
every key is tagged ``{C}``: the buckets are ``P:{C}:b:<k>`` and the count is the meta's ``count``. They are read
and written as they are; the store tells the layouts apart by the meta.

A replay's id is ``"<collection>/<index>"``; a collection name is letters, digits and ``_.:-``.
Writes go in one round trip per batch, through server-side scripts that set a bucket's fields and keep the count
exact even when an index is written twice (a retried simulation chunk overwrites its own replays): each script
touches the keys of one hash tag only, as a Redis Cluster requires.

>>> store = ReplayStore(redis.Redis.from_url("redis://127.0.0.1:6379"))  # doctest: +SKIP
>>> store.put_many("sim:job1", [(0, data0), (1, data1)]); store.count("sim:job1")  # doctest: +SKIP
2
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from .clients import Client, bytes_client, confirm_replicated, queued_commands
from .codec import check_bytes
from .errors import ReplayError
from .namespace import namespaced

DEFAULT_PREFIX = "cardtable:replay"
BUCKET = 100
SHARDS = 64
FIRST_LAYOUT = 0  # the layout of the collections written before the shards: every key in the collection's own tag
LIVE_COLLECTION = "live"
WRITE_BATCH = 5000

_COLLECTION = re.compile(r"[A-Za-z0-9_.:\-]{1,128}")

# KEYS: bucket, shard count. ARGV: field, value, field, value... Returns how many fields are new: HSET's count keeps
# the count exact when fields are overwritten.
_PUT_SHARDED = """
local added = redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('INCRBY', KEYS[2], added)
return added
"""

# The first layout's (the count is a field of the meta, in the bucket's slot): KEYS: bucket, meta. ARGV: likewise.
_PUT_FIRST_LAYOUT = """
local added = redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('HINCRBY', KEYS[2], 'count', added)
return added
"""

# KEYS: meta, buckets index, times. ARGV: next (one past the highest index of the write), the lowest index written,
# the minute (Unix minutes), the layout ('' for the first layout's collections, which exist already), then the bucket
# numbers written. A new collection's buckets index is complete from the start.
_NOTE_WRITE = """
if ARGV[4] ~= '' then
  redis.call('HSETNX', KEYS[1], 'layout', ARGV[4])
  redis.call('HSETNX', KEYS[1], 'indexed', 1)
end
for i = 5, #ARGV do redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i]) end
local top = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if tonumber(ARGV[1]) > top then redis.call('HSET', KEYS[1], 'next', ARGV[1]) end
local current = redis.call('ZREVRANGEBYSCORE', KEYS[3], ARGV[2], '-inf', 'LIMIT', 0, 1)[1]
local minute = current and string.match(current, ':(%d+)$')
if minute ~= ARGV[3] then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], ARGV[2], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[2] .. ':' .. ARGV[3])
end
return 0
"""

# KEYS: bucket, shard count. ARGV: field. Returns 1 if a replay was deleted. (The bucket stays in the buckets index,
# which is in another slot: an empty bucket listed costs a page one empty read.)
_DELETE_SHARDED = """
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
if removed == 1 then redis.call('DECR', KEYS[2]) end
return removed
"""

# The first layout's. KEYS: bucket, meta, buckets index. ARGV: bucket number, field. Returns 1 if a replay was deleted.
_DELETE_ONE = """
local removed = redis.call('HDEL', KEYS[1], ARGV[2])
if removed == 1 then
  redis.call('HINCRBY', KEYS[2], 'count', -1)
  if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[3], ARGV[1]) end
end
return removed
"""
# A page visits at most this many buckets per round trip (it starts with as few as the page can need).
MAX_BUCKETS_PER_TRIP = 256


class StoreError(ReplayError):
    """Bad data under a replay store key (a foreign key, a corrupt value)."""


def check_collection(name: str) -> str:
    if not isinstance(name, str) or not _COLLECTION.fullmatch(name):
        raise ValueError(f"a collection name is 1 to 128 letters, digits or _.:- characters, got {name!r}")
    return name


def parse_id(replay_id: str) -> tuple[str, int]:
    """``"sim:job1/17"`` -> ``("sim:job1", 17)``; ValueError for anything else."""
    collection, sep, index = str(replay_id).rpartition("/")
    if not sep or not index.isdigit() or not _COLLECTION.fullmatch(collection):
        raise ValueError(f"a replay id is <collection>/<index>, such as 'live/17', got {replay_id!r}")
    return collection, int(index)


def format_id(collection: str, index: int) -> str:
    return f"{collection}/{index}"


@dataclass
class Page:
    """Some replays of a collection, by index; ``next_start`` continues the listing (None at the end)."""

    collection: str
    items: list[tuple[int, bytes]]
    next_start: int | None


class ReplayStore:
    """Replays in Redis or a Redis Cluster (a client of :mod:`replay.clients`; one that decodes replies to str is
    given a bytes twin).

    >>> store = ReplayStore(client, prefix="test:replay")  # doctest: +SKIP
    >>> replay_id = store.save(data)                         # doctest: +SKIP
    >>> store.get(replay_id) == data                         # doctest: +SKIP
    True
    """

    def __init__(self, client: Client, prefix: str | None = None) -> None:
        self.redis = bytes_client(client)
        self.prefix = namespaced(DEFAULT_PREFIX) if prefix is None else prefix
        self._put_first_layout = self.redis.register_script(_PUT_FIRST_LAYOUT)
        self._delete_one = self.redis.register_script(_DELETE_ONE)
        self._put_sharded = self.redis.register_script(_PUT_SHARDED)
        self._note_write = self.redis.register_script(_NOTE_WRITE)
        self._delete_sharded = self.redis.register_script(_DELETE_SHARDED)
        self._layouts: dict[str, int] = {}  # collection -> its layout, once known (a collection keeps its layout)

    # ---- keys ---------------------------------------------------------------------------------------------------

    def bucket_key(self, collection: str, bucket: int, layout: int = SHARDS) -> str:
        """The key of a bucket (in the layout of the collections written today unless ``layout`` says otherwise)."""
        if layout == FIRST_LAYOUT:
            return f"{self.prefix}:{{{collection}}}:b:{bucket}"
        return f"{self.prefix}:{{{collection}|{bucket % layout}}}:b:{bucket}"

    def shard_count_key(self, collection: str, shard: int) -> str:
        return f"{self.prefix}:{{{collection}|{shard}}}:count"

    def meta_key(self, collection: str) -> str:
        return f"{self.prefix}:{{{collection}}}:meta"

    def buckets_key(self, collection: str) -> str:
        return f"{self.prefix}:{{{collection}}}:buckets"

    def times_key(self, collection: str) -> str:
        return f"{self.prefix}:{{{collection}}}:times"

    @property
    def collections_key(self) -> str:
        return f"{self.prefix}:collections"

    # ---- writing ------------------------------------------------------------------------------------------------

    def put_many(self, collection: str, items: Iterable[tuple[int, bytes]], batch: int = WRITE_BATCH) -> int:
        """Store replays under the given indexes (an index written again is replaced); one round trip per batch.

        Returns how many replays were new. Each value is checked (magic, version, CRC) before anything is sent.
        """
        check_collection(collection)
        added = 0
        pending: list[tuple[int, bytes]] = []
        for index, data in items:
            if not isinstance(index, int) or index < 0:
                raise ValueError(f"a replay index is a non-negative int, got {index!r}")
            check_bytes(data)
            pending.append((index, data if type(data) is bytes else bytes(data)))
            if len(pending) >= batch:
                added += self._write(collection, pending)
                pending = []
        if pending:
            added += self._write(collection, pending)
        return added

    def add(self, collection: str, replays: Sequence[bytes]) -> list[int]:
        """Append replays to a collection under fresh indexes; returns the indexes."""
        check_collection(collection)
        for data in replays:
            check_bytes(data)
        if not replays:
            return []
        top = self._hincrby_next(collection, len(replays))
        indexes = list(range(top - len(replays), top))
        self.put_many(collection, zip(indexes, replays, strict=True))
        return indexes

    def save(self, data: bytes, collection: str = LIVE_COLLECTION) -> str:
        """Append one replay (e.g. a finished live match); returns its id, such as ``"live/17"``."""
        return format_id(collection, self.add(collection, [data])[0])

    def _hincrby_next(self, collection: str, count: int) -> int:
        key = self.meta_key(collection)
        try:
            return int(self.redis.hincrby(key, "next", count))
        except redis.ResponseError as exc:
            raise StoreError(f"cannot allocate replay indexes: {exc}", key=key) from None

    def _layout(self, collection: str) -> int:
        """The collection's layout: its meta's ``layout``; the first layout for a collection with a ``count`` and no
        ``layout``; :data:`SHARDS` for a new one (its first write notes it)."""
        if collection not in self._layouts:
            layout, count = self._safe(self.redis.hmget, self.meta_key(collection), "layout", "count")
            if layout is not None:
                self._layouts[collection] = self._meta_int(layout, collection, "layout")
            else:  # not remembered while the collection is new: another process may write it first
                return FIRST_LAYOUT if count is not None else SHARDS
        return self._layouts[collection]

    def _write(self, collection: str, items: list[tuple[int, bytes]]) -> int:
        layout = self._layout(collection)
        fields: dict[int, list[int | bytes]] = {}
        for index, data in items:
            fields.setdefault(index // BUCKET, []).extend((index % BUCKET, data))
        lowest, top = min(index for index, _ in items), max(index for index, _ in items) + 1
        meta = [self.meta_key(collection), self.buckets_key(collection), self.times_key(collection)]
        note = [top, lowest, int(time.time() // 60), "" if layout == FIRST_LAYOUT else layout, *sorted(fields)]
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(self.collections_key, collection)
        self._note_write(keys=meta, args=note, client=pipe)
        keys = [self.collections_key, *meta]
        for bucket, args in sorted(fields.items()):
            bucket_key = self.bucket_key(collection, bucket, layout)
            if layout == FIRST_LAYOUT:
                self._put_first_layout(keys=[bucket_key, meta[0]], args=args, client=pipe)
            else:
                count_key = self.shard_count_key(collection, bucket % layout)
                self._put_sharded(keys=[bucket_key, count_key], args=args, client=pipe)
                keys += [bucket_key, count_key]
        confirm_replicated(pipe, keys)
        results = self._execute(pipe, f"the keys of {collection!r}")
        return sum(int(n) for n in results[2:])

    # ---- reading ------------------------------------------------------------------------------------------------

    def get(self, replay_id: str) -> bytes:
        """One replay's bytes (checked: magic, version, CRC); KeyError if there is none."""
        found = self.get_many([replay_id])[0]
        if found is None:
            raise KeyError(f"no replay {replay_id!r}")
        return found

    def get_many(self, replay_ids: Sequence[str]) -> list[bytes | None]:
        """Several replays in one round trip, in the order asked (None where there is none)."""
        where = [parse_id(replay_id) for replay_id in replay_ids]
        pipe = self.redis.pipeline(transaction=False)
        asked = []  # (position, layout): a collection whose layout is not known yet is looked up in both
        for position, (collection, index) in enumerate(where):
            for layout in self._readable_layouts(collection):
                pipe.hget(self.bucket_key(collection, index // BUCKET, layout), index % BUCKET)
                asked.append((position, layout))
        found: list[tuple[bytes, int] | None] = [None] * len(where)
        for (position, layout), data in zip(asked, self._execute(pipe, "the requested buckets"), strict=True):
            if data is not None:
                found[position] = (data, layout)
        return [None if hit is None else self._checked(hit[0], collection, index, hit[1])
                for (collection, index), hit in zip(where, found, strict=True)]

    def _readable_layouts(self, collection: str) -> tuple[int, ...]:
        known = self._layouts.get(collection)
        return (SHARDS, FIRST_LAYOUT) if known is None else (known,)

    def page(self, collection: str, start: int = 0, count: int = 1000, checked: bool = True) -> Page:
        """Up to ``count`` replays of a collection, the lowest indexes from ``start`` on; ``next_start`` (one past
        the last one given) continues the listing when more follow. Buckets never written are never visited, so a
        sample of 100 replays over a million deals pages like 100 replays in a row. Each replay's bytes are
        ``checked`` (magic, version, CRC: a StoreError for the page), unless a listing marks the bad ones itself."""
        check_collection(collection)
        if start < 0 or count <= 0:
            raise ValueError(f"start must be >= 0 and count > 0, got start={start}, count={count}")
        found: list[tuple[int, bytes]] = []
        first = start // BUCKET
        trip = min(MAX_BUCKETS_PER_TRIP, -(-count // BUCKET) + 1)
        layout, buckets = self._buckets_from(collection, first, trip)
        while buckets:
            pipe = self.redis.pipeline(transaction=False)
            for bucket in buckets:
                pipe.hgetall(self.bucket_key(collection, bucket, layout))
            results = self._execute(pipe, f"the buckets of {collection!r}")
            for bucket, fields in zip(buckets, results, strict=True):
                key = self.bucket_key(collection, bucket, layout)
                found += [(index, data) for field, data in fields.items()
                          if (index := bucket * BUCKET + _field_index(field, key)) >= start]
            if len(found) > count or len(buckets) < trip:
                break
            trip = min(MAX_BUCKETS_PER_TRIP, trip * 2)
            layout, buckets = self._buckets_from(collection, buckets[-1] + 1, trip)
        found.sort()
        items = [(index, self._checked(data, collection, index, layout) if checked else data)
                 for index, data in found[:count]]
        more = len(found) > count
        return Page(collection, items, items[-1][0] + 1 if more else None)

    def _buckets_from(self, collection: str, first: int, limit: int) -> tuple[int, list[int]]:
        """The collection's layout, and up to ``limit`` of its bucket numbers from ``first`` on (the index is built
        first if it is missing)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(self.meta_key(collection), "indexed", "next", "layout", "count")
        pipe.zrangebyscore(self.buckets_key(collection), first, "+inf", start=0, num=limit)
        (indexed, top, layout, count), buckets = self._execute(pipe, self.meta_key(collection))
        if layout is not None:
            self._layouts[collection] = number = self._meta_int(layout, collection, "layout")
        else:
            number = FIRST_LAYOUT if count is not None else SHARDS
        if indexed is None and top is not None:
            self._build_index(collection, self._meta_int(top, collection, "next"), number)
            return self._buckets_from(collection, first, limit)
        return number, [int(b) for b in buckets]

    def _build_index(self, collection: str, top: int, layout: int) -> None:
        """List the non-empty buckets of a collection written before the buckets index existed."""
        numbers = range((top + BUCKET - 1) // BUCKET)
        present: list[int] = []
        for start in range(0, len(numbers), 1000):
            part = numbers[start:start + 1000]
            pipe = self.redis.pipeline(transaction=False)
            for bucket in part:
                pipe.exists(self.bucket_key(collection, bucket, layout))
            present += [b for b, exists in zip(part, self._execute(pipe, "the buckets"), strict=True) if exists]
        pipe = self.redis.pipeline(transaction=False)
        if present:
            pipe.zadd(self.buckets_key(collection), {str(b): b for b in present})
        pipe.hset(self.meta_key(collection), "indexed", 1)
        self._execute(pipe, self.buckets_key(collection))

    def written(self, collection: str, indexes: Sequence[int]) -> dict[int, float | None]:
        """When the replays at ``indexes`` were written (Unix seconds, to the minute); None where it is not known
        (replays written before the store kept the time)."""
        check_collection(collection)
        if not indexes:
            return {}
        low, high = min(indexes), max(indexes)
        key = self.times_key(collection)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrevrangebyscore(key, low, "-inf", start=0, num=1)
        pipe.zrangebyscore(key, f"({low}", high)
        before, within = self._execute(pipe, key)
        runs = sorted(_time_run(member, key) for member in [*before, *within])
        starts = [index for index, _minute in runs]
        out: dict[int, float | None] = {}
        for index in indexes:
            at = bisect.bisect_right(starts, index) - 1
            out[index] = runs[at][1] * 60.0 if at >= 0 else None
        return out

    def iter_collection(self, collection: str, page_size: int = 1000) -> Iterable[tuple[int, bytes]]:
        """Every replay of a collection, a page (one round trip) at a time."""
        start: int | None = 0
        while start is not None:
            page = self.page(collection, start, page_size)
            yield from page.items
            start = page.next_start

    def count(self, collection: str) -> int:
        check_collection(collection)
        return self._counts([collection])[0]

    def collections(self) -> list[tuple[str, int]]:
        """Every collection with its replay count, sorted by name."""
        names = sorted(n.decode() for n in self._safe(self.redis.smembers, self.collections_key))
        return list(zip(names, self._counts(names), strict=True))

    def _counts(self, collections: Sequence[str]) -> list[int]:
        """The replay counts of collections in one round trip: the meta's count (the first layout) plus the shards'
        counts (of the layout in force when a collection's is not known yet)."""
        pipe = self.redis.pipeline(transaction=False)
        asked = []
        for position, collection in enumerate(collections):
            layouts = self._readable_layouts(collection)
            if FIRST_LAYOUT in layouts:
                pipe.hget(self.meta_key(collection), "count")
                asked.append((position, collection, "count"))
            for shards in set(layouts) - {FIRST_LAYOUT}:
                for shard in range(shards):
                    pipe.get(self.shard_count_key(collection, shard))
                    asked.append((position, collection, "shard count"))
        counts = [0] * len(collections)
        for (position, collection, what), value in zip(asked, self._execute(pipe, "the counts"), strict=True):
            counts[position] += self._meta_int(value, collection, what)
        return counts

    def delete(self, replay_id: str) -> None:
        """Delete one replay; KeyError if there is none. The collection stays, even when it is left empty."""
        collection, index = parse_id(replay_id)
        bucket = index // BUCKET
        layout, _ = self._buckets_from(collection, bucket, 1)  # a collection written before the index gets it first
        if layout == FIRST_LAYOUT:
            keys = [self.bucket_key(collection, bucket, layout), self.meta_key(collection),
                    self.buckets_key(collection)]
            script, args = self._delete_one, [bucket, index % BUCKET]
        else:
            keys = [self.bucket_key(collection, bucket, layout), self.shard_count_key(collection, bucket % layout)]
            script, args = self._delete_sharded, [index % BUCKET]
        try:
            removed = script(keys=keys, args=args)
        except redis.ResponseError as exc:
            raise StoreError(f"Redis refused to delete a replay: {exc}", key=keys[0]) from None
        if not removed:
            raise KeyError(f"no replay {replay_id!r}")

    def exists(self, collection: str) -> bool:
        """The collection is listed (it may be empty once its replays are deleted one by one)."""
        check_collection(collection)
        return bool(self._safe(self.redis.sismember, self.collections_key, collection))

    def delete_collection(self, collection: str) -> int:
        """Delete a collection and every replay in it; returns how many replays it held."""
        held = self.count(collection)
        layout, _ = self._buckets_from(collection, 0, 1)
        top = self._meta_int(self._safe(self.redis.hget, self.meta_key(collection), "next"), collection, "next")
        keys = [self.bucket_key(collection, b, layout) for b in range((top + BUCKET - 1) // BUCKET)]
        keys += [self.shard_count_key(collection, shard) for shard in range(layout)]
        keys += [self.meta_key(collection), self.buckets_key(collection), self.times_key(collection)]
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.unlink(key)  # one key a command: a cluster pipeline sends each to the node holding it
        pipe.srem(self.collections_key, collection)
        self._execute(pipe, f"the keys of {collection!r}")
        self._layouts.pop(collection, None)
        return held

    # ---- checks -------------------------------------------------------------------------------------------------

    def _checked(self, data: bytes, collection: str, index: int, layout: int) -> bytes:
        try:
            check_bytes(data)
        except ReplayError as exc:
            where = f"{self.bucket_key(collection, index // BUCKET, layout)} field {index % BUCKET}"
            raise StoreError(f"replay {format_id(collection, index)} is unreadable: {exc.reason}", key=where) from None
        return data

    def _meta_int(self, value: bytes | None, collection: str, field: str) -> int:
        if value is None:
            return 0
        try:
            return int(value)
        except ValueError:
            raise StoreError(f"the {field} of collection {collection!r} is not an integer: {value!r}",
                             key=f"{self.meta_key(collection)} field {field}") from None

    def _execute(self, pipe: Any, where: str) -> list[Any]:  # a plain or a cluster pipeline
        commands = queued_commands(pipe)
        try:
            results: list[Any] = pipe.execute(raise_on_error=False)
        except redis.ResponseError as exc:
            raise StoreError(f"Redis refused a replay store command: {exc}", key=where) from None
        for args, result in zip(commands, results, strict=True):
            if isinstance(result, redis.ResponseError):
                raise StoreError(f"Redis refused {args[0]}: {result}", key=_key_of(args, where))
        return results

    def _safe(self, call: Callable[..., Any], key: str, *args: Any) -> Any:
        try:
            return call(key, *args)
        except redis.ResponseError as exc:
            raise StoreError(f"Redis refused a replay store command: {exc}", key=key) from None


def _key_of(args: tuple[Any, ...], fallback: str) -> str:
    if args and args[0] in ("EVALSHA", "EVAL") and len(args) > 3:
        return str(args[3])
    return str(args[1]) if len(args) > 1 else fallback


def _time_run(member: bytes, key: str) -> tuple[int, int]:
    """A ``"<index>:<minute>"`` member of the times key as two ints."""
    try:
        index, minute = member.split(b":")
        return int(index), int(minute)
    except ValueError:
        raise StoreError(f"member {member!r} is not <index>:<minute>", key=key) from None


def _field_index(field: bytes, key: str) -> int:
    try:
        index = int(field)
    except ValueError:
        index = -1
    if not 0 <= index < BUCKET:
        raise StoreError(f"field {field!r} is not a replay slot 0..{BUCKET - 1} (a foreign key?)", key=key)
    return index


