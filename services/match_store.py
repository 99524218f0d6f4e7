"""Live matches in Redis: a record (a hash) and a move log (a stream), changed only by compare-and-set scripts.

Keys of match ``m`` (the braces keep them in one Redis Cluster slot)::

    ct:match:{m}         hash    meta (JSON, fixed at creation), version (moves played), position (JSON, the
                                 engine's position at the last checkpoint), position_log (the log's length then),
                                 replay_id (once the match is over)
    ct:match:{m}:log     string  the move log: "<seat>,<action int>," per move, in order (read in one piece)
    ct:match:{m}:moves   stream  the moves as events for watchers: id "<move number>-0", field m = "<seat>,<action>"

and an index of the matches in play, for ``ListMatches`` (one Redis Cluster slot of its own, ``{live}``)::

    ct:match:{live}:order  zset    match id -> its number in the order of creation (pages run newest first)
    ct:match:{live}:until  zset    match id -> when it is abandoned (ms since the epoch; inf: never)
    ct:match:{live}:seq    string  the last number given

A match joins the index when it is created in play and leaves it when its last move is played; a move costs the
index nothing. A listing first looks at the matches whose deadline has passed: one whose keys have expired (it was
abandoned) leaves, one that moved since gets the deadline of its keys' expiry. It also drops any match it lists
whose record says it is over or gone.

The position is written at creation, at the end and at least every ``POSITION_EVERY`` moves (a checkpoint), not on
every move: writing it (building it, encoding it, sending it) cost more than the rest of a move. A load reads the
checkpoint and the moves logged after it (``StoredMatch.after_position``, fewer than ``POSITION_EVERY`` but for one
request's moves), which the engine replays.

Every change goes through one Lua script that checks the version first, so two server processes (or a retried
request) can never apply two moves on the same version: the loser gets ``False`` and nothing changes. The script
also publishes the new move number on the channel named like the moves key (watchers subscribe to it, see
:mod:`services.app.watchers`) and sets the keys' expiry (:class:`Retention`): a match in play lives ``abandoned_after``
past its last move, a finished match ``finished`` past its end (its replay stays in the replay store).

>>> store = MatchStore(redis.asyncio.Redis.from_url("redis://127.0.0.1:6379", decode_responses=True))  # doctest: +SKIP
>>> stored = asyncio.run(store.load("a1b2c3"))  # None when there is no such match  # doctest: +SKIP
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio

from replay.namespace import namespaced

from .pipelined_redis import PipelinedRedis

KEY_PREFIX = "ct:match:"

POSITION_EVERY = 16  # a checkpoint of the position at least every so many moves (and at creation and at the end)
# (8 cost ~28k instructions per Act more, in building and encoding positions; a load replays up to 8 moves more)

DAY_S = 86_400.0
HOUR_S = 3600.0

# KEYS: record, log, moves. ARGV: expected version, expiry in ms (0: none), the position JSON after the moves ("":
# keep the last checkpoint), then the moves "<seat>,<action>". An expected version of "" creates the match (ARGV[4]
# is then its meta) and fails if it exists. A record without position_log (written before checkpoints) holds the
# position after all its logged moves.
_COMMIT = """
local record = redis.call('HMGET', KEYS[1], 'version', 'position_log')
local version = record[1]
local first = 4
if ARGV[1] == '' then
  if version then return 0 end
  version = '0'
  redis.call('HSET', KEYS[1], 'meta', ARGV[4])
  first = 5
elseif not version then
  return -1
elseif version ~= ARGV[1] then
  return 0
elseif not record[2] then
  redis.call('HSET', KEYS[1], 'position_log', redis.call('STRLEN', KEYS[2]))
end
local n = tonumber(version)
for i = first, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[3], n .. '-0', 'm', ARGV[i])
  redis.call('APPEND', KEYS[2], ARGV[i] .. ',')
end
if ARGV[3] == '' then
  redis.call('HSET', KEYS[1], 'version', n)
else
  redis.call('HSET', KEYS[1], 'version', n, 'position', ARGV[3], 'position_log', redis.call('STRLEN', KEYS[2]))
end
for i = 1, 3 do
  if ARGV[2] == '0' then redis.call('PERSIST', KEYS[i]) else redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
redis.call('PUBLISH', KEYS[3], n)
return 1
"""

# KEYS: record, log. ARGV: "1" to read the whole log, else only the moves after the position. One atomic read of
# everything a request needs: meta, version, position, replay id, the log (or its tail) and where the tail starts.
_LOAD = """
local record = redis.call('HMGET', KEYS[1], 'meta', 'version', 'position', 'replay_id', 'position_log')
if not record[1] then return false end
local at = tonumber(record[5] or redis.call('STRLEN', KEYS[2]))
local log
if ARGV[1] == '1' then log = redis.call('GET', KEYS[2]) or '' else log = redis.call('GETRANGE', KEYS[2], at, -1) end
return {record[1], record[2], record[3], record[4] or '', log, at}
"""

# KEYS: record. ARGV: replay id. Only a match still stored gets it: one that expired meanwhile (a short retention, a
# slow replay build) must not come back as a record that never expires.
_SET_REPLAY_ID = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], 'replay_id', ARGV[1])
"""

# KEYS: seq, order, until. ARGV: match id, its deadline.
_INDEX_ADD = """
local n = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], n, ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return n
"""

Move = tuple[int, int]  # (seat, action int)

# What engine data is (dicts with str keys, lists, str, int within 64 bits, bool, None) orjson writes as json.dumps
# with these settings does, byte for byte (tests/services/test_service_units.py checks every view of every game),
# for about a fifth of the C encoder's instructions; anything else (an int key, a bigger int) goes to that encoder:
# json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode's, built once, without its check for circular
# containers (engine data is plain trees).
_compact_encoder = json.encoder.c_make_encoder(None, json.JSONEncoder().default, json.encoder.encode_basestring,
                                               None, ":", ",", False, False, True)


def compact_json(value: Any) -> str:
    """``value`` as json.dumps(value, ensure_ascii=False, separators=(",", ":")) writes it (plain data: no cycles;
    floats, never in engine data, keep their value but may be spelt otherwise: 1e-05 as 0.00001)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError: a key that is not a str, an int beyond 64 bits, another type
        return "".join(_compact_encoder(value, 0))



@dataclass(frozen=True)
class Retention:
    """How long Redis keeps a match: ``finished`` seconds after its last move, ``abandoned_after`` seconds after the
    last move of a match still in play (nobody moved: it is abandoned). 0 keeps it forever."""

    finished: float = 7 * DAY_S
    abandoned_after: float = 6 * HOUR_S

    def __post_init__(self) -> None:
        if self.finished < 0 or self.abandoned_after < 0:
            raise ValueError(f"retention times are 0 (forever) or more seconds, got {self}")

    def expiry_ms(self, finished: bool) -> str:
        return str(round(1000 * (self.finished if finished else self.abandoned_after)))

    def abandoned_at_ms(self, now: float) -> str:
        """When a match that moved at ``now`` (seconds since the epoch) is abandoned, as the index scores it."""
        return "inf" if not self.abandoned_after else str(round(1000 * (now + self.abandoned_after)))


@dataclass
class StoredMatch:
    """A match as Redis holds it: the meta, the version, the position at the last checkpoint and the moves played
    after it (``version`` moves in all), the whole move log (``None`` when it was not asked for)."""

    match_id: str
    meta: dict[str, Any]
    version: int
    position: dict[str, Any]
    after_position: list[Move]
    moves: list[Move] | None
    replay_id: str


class MatchStore:
    """Reads and writes matches; the only place that knows the Redis layout above."""

    def __init__(self, client: redis.asyncio.Redis, prefix: str | None = None,
                 retention: Retention | None = None) -> None:
        self.client = client
        self.prefix = namespaced(KEY_PREFIX) if prefix is None else prefix
        self.retention = retention or Retention()
        self._commit = client.register_script(_COMMIT)
        self._load = client.register_script(_LOAD)
        self._set_replay_id = client.register_script(_SET_REPLAY_ID)
        self._index_add = client.register_script(_INDEX_ADD)
        self._pipe = PipelinedRedis.of(client)  # a move's scripts go through it (None: through the client)
        index = f"{self.prefix}{{live}}"  # match ids are hex: never "live"
        self._seq, self._order, self._until = f"{index}:seq", f"{index}:order", f"{index}:until"

    def _keys(self, match_id: str) -> tuple[str, str, str]:
        record = f"{self.prefix}{{{match_id}}}"
        return record, f"{record}:log", f"{record}:moves"

    async def create(self, match_id: str, meta: dict[str, Any], position: dict[str, Any], moves: Sequence[Move],
                     finished: bool = False) -> bool:
        """Store a new match with the moves already played (bots first to act); False if the id is taken.
        ``finished``: those moves ended the match (its keys then expire as a finished match's)."""
        args = ["", self.retention.expiry_ms(finished), compact_json(position), compact_json(meta),
                *(_entry(m) for m in moves)]
        if await self._run(self._commit, self._keys(match_id), args) != 1:
            return False
        if not finished:
            await self._run(self._index_add, (self._seq, self._order, self._until),
                            [match_id, self.retention.abandoned_at_ms(time.time())])
        return True

    async def commit(self, match_id: str, expected_version: int, position: Callable[[], dict[str, Any]],
                     moves: Sequence[Move], finished: bool = False) -> bool:
        """Append ``moves``, only if the match is still at ``expected_version``; ``finished``: these moves ended the
        match. ``position()`` (the position after the moves) is asked for only where a checkpoint falls."""
        checkpoint = finished or expected_version // POSITION_EVERY != (expected_version + len(moves)) // POSITION_EVERY
        encoded = compact_json(position()) if checkpoint else ""
        args = [str(expected_version), self.retention.expiry_ms(finished), encoded, *(_entry(m) for m in moves)]
        if await self._run(self._commit, self._keys(match_id), args) != 1:
            return False
        if finished:
            await self._unindex([match_id])
        return True

    async def _run(self, script: Any, keys: Sequence[str], args: list[str]) -> Any:
        """A script call, on the pipelined connection where there is one (:mod:`services.pipelined_redis`)."""
        if self._pipe is None:
            return await script(keys=keys, args=args)
        return await self._pipe.evalsha(script, keys, args)

    async def close(self) -> None:
        """Close the pipelined connection (the client is its owner's to close)."""
        if self._pipe is not None:
            await self._pipe.aclose()

    async def _unindex(self, match_ids: Sequence[str]) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.zrem(self._order, *match_ids)
            pipe.zrem(self._until, *match_ids)
            await pipe.execute()

    async def live(self, size: int, before: int | None = None) -> tuple[list[StoredMatch], int | None]:
        """Up to ``size`` matches in play, newest first, from number ``before`` down (None: the newest), without
        their logs; and the number where the next page starts (None: no more). Matches found over or gone on the
        way leave the index."""
        await self._drop_abandoned()
        found: list[StoredMatch] = []
        start = "+inf" if before is None else str(before)
        while True:
            want = size + 1 - len(found)  # one beyond the page says where the next one starts
            entries = [(match_id, int(number)) for match_id, number in
                       await self.client.zrevrangebyscore(self._order, start, "-inf", 0, want, withscores=True)]
            stale = []
            next_start = None
            for (match_id, number), record in zip(entries, await self._records([m for m, _ in entries]), strict=True):
                if record is None or record.position.get("current_player") is None:
                    stale.append(match_id)
                elif len(found) == size:
                    next_start = number
                    break
                else:
                    found.append(record)
            if stale:
                await self._unindex(stale)
            if next_start is not None or len(entries) < want:
                return found, next_start
            start = f"({entries[-1][1]}"

    async def _drop_abandoned(self, batch: int = 1000) -> None:
        """Of the matches past their deadline (a batch of them), drop those whose keys have expired; give the others
        (they have moved since) the time their keys expire."""
        now_ms = round(1000 * time.time())
        due = await self.client.zrangebyscore(self._until, "-inf", f"({now_ms}", 0, batch)
        if not due:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for match_id in due:
                pipe.pttl(self._keys(match_id)[0])
            ttls = await pipe.execute()
        gone = [match_id for match_id, ttl in zip(due, ttls, strict=True) if ttl == -2]
        moved = {match_id: "inf" if ttl == -1 else now_ms + ttl
                 for match_id, ttl in zip(due, ttls, strict=True) if ttl != -2}
        if gone:
            await self._unindex(gone)
        if moved:  # XX: one finished (and dropped) meanwhile does not come back
            await self.client.zadd(self._until, moved, xx=True)

    async def _records(self, match_ids: list[str]) -> list[StoredMatch | None]:
        """The matches without their logs (one round trip; on a cluster, one per node)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                await self._load(keys=self._keys(match_id)[:2], args=["0"], client=pipe)
            rows = await pipe.execute()
        return [_stored(match_id, row, with_log=False) for match_id, row in zip(match_ids, rows, strict=True)]

    async def load(self, match_id: str, with_log: bool = True) -> StoredMatch | None:
        """The match as one consistent snapshot (one script reads record and log), or None.

        A move needs no log (its history is in the log already); a view with the history, a watch and a replay do.
        """
        found = await self._run(self._load, self._keys(match_id)[:2], ["1" if with_log else "0"])
        return _stored(match_id, found, with_log)

    async def log(self, match_id: str) -> list[Move]:
        """The whole move log."""
        _, log, _ = self._keys(match_id)
        return parse_moves(await self.client.get(log) or "")

    def channel(self, match_id: str) -> str:
        """The channel on which every commit to the match publishes its new move number."""
        return self._keys(match_id)[2]

    async def version(self, match_id: str) -> int:
        """The number of moves played (0 for no such match)."""
        record, *_ = self._keys(match_id)
        return int(await self.client.hget(record, "version") or 0)

    async def moves_after(self, match_id: str, version: int) -> list[tuple[int, Move]]:
        """The moves numbered above ``version`` as (number, move), in order (without waiting)."""
        *_, events = self._keys(match_id)
        found = await self.client.xrange(events, f"{version + 1}-0")
        return [(int(entry_id.split("-")[0]), parse_moves(fields["m"] + ",")[0]) for entry_id, fields in found]

    async def set_replay_id(self, match_id: str, replay_id: str) -> None:
        """Note where a finished match's replay is kept (nothing, if the match has expired meanwhile)."""
        record, *_ = self._keys(match_id)
        await self._set_replay_id(keys=[record], args=[replay_id])

    async def in_play(self, match_ids: list[str]) -> list[bool]:
        """Whether each match is still stored and not over (one round trip)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hget(self._keys(match_id)[0], "position")
            positions = await pipe.execute()
        return [position is not None and json.loads(position).get("current_player") is not None
                for position in positions]

    async def replay_id(self, match_id: str) -> str:
        record, *_ = self._keys(match_id)
        return await self.client.hget(record, "replay_id") or ""


def _stored(match_id: str, found: list[Any] | None, with_log: bool) -> StoredMatch | None:
    """A match from what the load script read (None: no such match)."""
    if not found:
        return None
    meta, version, position, replay_id, log, at = found
    moves = parse_moves(log) if with_log else None
    after = parse_moves(log[at:] if with_log else log)
    return StoredMatch(match_id, json.loads(meta), int(version), json.loads(position), after, moves, replay_id)


def _entry(move: Move) -> str:
    return f"{move[0]},{move[1]}"


def parse_moves(log: str) -> list[Move]:
    """``"0,17,1,5,"`` -> ``[(0, 17), (1, 5)]`` (parsed as JSON: long logs are read on every request)."""
    numbers = iter(json.loads(f"[{log[:-1]}]"))
    return list(zip(numbers, numbers, strict=True))
