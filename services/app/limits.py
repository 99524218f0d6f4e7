"""Per-client limits, counted in Redis so that they hold across server processes: unfinished jobs (and tournaments),
matches in play, and match creations a minute. A client is an API key's name, else an address (see
:func:`services.app.auth.client_of`). Beyond a limit the call ends with RESOURCE_EXHAUSTED (HTTP 429 on the web), whose
message names the limit, its value and the server flag that sets it.

Keys of client ``c`` (``P`` is the prefix, ``ct:client:`` by default; the braces keep a client's keys in one Redis
Cluster slot)::

    P{c}:jobs      sorted set: the client's job and tournament ids (and reservations), scored by when they came
    P{c}:matches   sorted set: the ids of the matches the client created (and reservations), likewise
    P{c}:rate      hash: a token bucket of match creations (tokens left, when counted), gone after a quiet minute

A new job or match first reserves its place (one script: it is added only while the set holds fewer than the limit,
so two processes cannot both take the last place), then takes its id. The sets are pruned when they are full: ids of
jobs that are over and of matches that are over or expired are dropped, and reservations older than a minute (a
process that stopped between the two steps). The sets expire when a client has been quiet long enough for all of its
members to be over (jobs: ``JOBS_TTL_S``; matches: with an abandoned match's expiry).

    quotas = Quotas(redis_client, ClientLimits(jobs=4))
    async with quotas.job_place("key:alice", unfinished) as place:
        place.take(job_id)
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import redis.asyncio

from replay.namespace import namespaced

from .auth import ApiKeys, client_of, peer_host
from .errors import ResourceExhausted

KEY_PREFIX = "ct:client:"
JOBS_TTL_S = 7 * 86_400
RESERVATION_S = 60  # a reservation not turned into an id within this long is dropped when the set is pruned
RATE_PERIOD_S = 60

# Still running: which of these ids are unfinished (jobs) or in play (matches).
StillOn = Callable[[list[str]], Awaitable[list[bool]]]

# KEYS: the set. ARGV: limit, member, now (ms), expiry (ms, 0: none). -1 when the member was added, else the count.
_RESERVE = """
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[1]) then return count end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
if ARGV[4] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return -1
"""

# KEYS: the set. ARGV: reservation, id, now (ms). The reservation becomes the id (if it is still there).
_TAKE = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2]) end
return 1
"""

# A token bucket: ARGV[1] tokens at most, refilled at ARGV[1] per ARGV[2] ms; KEYS: its hash. 0 when a token was
# taken, else the milliseconds until the next one.
_RATE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local capacity, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or capacity)
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or now_ms)
tokens = math.min(capacity, tokens + (now_ms - at) * capacity / period)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * period / capacity) end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', now_ms)
redis.call('PEXPIRE', KEYS[1], period)
return wait
"""


@dataclass(frozen=True)
class ClientLimits:
    """What one client may have at once; 0 turns a limit off."""

    jobs: int = 0  # unfinished jobs and tournaments (--max-jobs-per-client)
    live_matches: int = 0  # matches in play that it created (--max-live-matches)
    matches_per_minute: int = 0  # match creations a minute, in bursts of as many (--max-matches-per-minute)

    def __post_init__(self) -> None:
        if min(self.jobs, self.live_matches, self.matches_per_minute) < 0:
            raise ValueError(f"a per-client limit is 0 (none) or more, got {self}")

    def __bool__(self) -> bool:
        """Some limit is set."""
        return bool(self.jobs or self.live_matches or self.matches_per_minute)


# What `cardtable serve` and `cardtable web` enforce unless told otherwise.
DEFAULT_LIMITS = ClientLimits(jobs=4, live_matches=100, matches_per_minute=60)


class Place:
    """A reserved place in one of a client's sets, for the id that :meth:`take` gives it."""

    def __init__(self, quotas: Quotas | None = None, key: str = "", reservation: str = "") -> None:
        self._quotas, self._key, self._reservation = quotas, key, reservation
        self.taken = ""

    def take(self, member: str) -> None:
        self.taken = member

    async def _settle(self) -> None:
        if self._quotas is None:
            return
        client = self._quotas.client
        if self.taken:
            await self._quotas._take(keys=[self._key], args=[self._reservation, self.taken, _now_ms()], client=client)
        else:  # the job or match was not made after all: its place is free again
            await client.zrem(self._key, self._reservation)


class Quotas:
    """The per-client limits of one server process, over the Redis its matches and jobs are in."""

    def __init__(self, client: redis.asyncio.Redis, limits: ClientLimits, prefix: str | None = None,
                 matches_ttl_s: float = 0) -> None:
        self.client = client
        self.limits = limits
        self.prefix = namespaced(KEY_PREFIX) if prefix is None else prefix
        self.matches_ttl_s = matches_ttl_s  # 0: the match set never expires (abandoned matches are never forgotten)
        self._reserve = client.register_script(_RESERVE)
        self._take = client.register_script(_TAKE)
        self._rate = client.register_script(_RATE)

    def key(self, client_id: str, kind: str) -> str:
        safe = client_id.replace("{", "(").replace("}", ")")
        return f"{self.prefix}{{{safe}}}:{kind}"

    @asynccontextmanager
    async def job_place(self, client_id: str, unfinished: StillOn) -> AsyncIterator[Place]:
        """A place for a new job or tournament of ``client_id`` (``place.take(its id)`` once made); ResourceExhausted
        when the client has as many unfinished as the limit."""
        limit = self.limits.jobs
        async with self._place(client_id, "jobs", limit, JOBS_TTL_S, unfinished,
                               lambda count: f"this client has {count} jobs running, the limit is {limit} "
                                             "(--max-jobs-per-client)") as place:
            yield place

    @asynccontextmanager
    async def match_place(self, client_id: str, in_play: StillOn) -> AsyncIterator[Place]:
        """A place for a new match of ``client_id``: ResourceExhausted past the creation rate or when the client
        has as many matches in play as the limit."""
        await self._check_rate(client_id)
        limit = self.limits.live_matches
        async with self._place(client_id, "matches", limit, self.matches_ttl_s, in_play,
                               lambda count: f"this client has {count} matches in play, the limit is {limit} "
                                             "(--max-live-matches)") as place:
            yield place

    @asynccontextmanager
    async def _place(self, client_id: str, kind: str, limit: int, ttl_s: float, still_on: StillOn,
                     refusal: Callable[[int], str]) -> AsyncIterator[Place]:
        if not limit:
            yield Place()
            return
        key = self.key(client_id, kind)
        reservation = f"reserved:{secrets.token_hex(6)}"
        args: list[str | int] = [limit, reservation, _now_ms(), round(ttl_s * 1000)]
        count = await self._reserve(keys=[key], args=args, client=self.client)
        if count >= 0:  # full: drop what is over, then try once more
            await self._prune(key, still_on)
            count = await self._reserve(keys=[key], args=args, client=self.client)
        if count >= 0:
            raise ResourceExhausted(refusal(count))
        place = Place(self, key, reservation)
        try:
            yield place
        finally:
            await place._settle()

    async def _prune(self, key: str, still_on: StillOn) -> None:
        members: dict[str, float] = {_text(member): float(score)
                                     for member, score in await self.client.zrange(key, 0, -1, withscores=True)}
        stale = _now_ms() - RESERVATION_S * 1000
        ids = [member for member in members if not member.startswith("reserved:")]
        over = [member for member, score in members.items() if member.startswith("reserved:") and score < stale]
        over += [member for member, on in zip(ids, await still_on(ids), strict=True) if not on]
        if over:
            await self.client.zrem(key, *over)

    async def _check_rate(self, client_id: str) -> None:
        limit = self.limits.matches_per_minute
        if not limit:
            return
        wait_ms = await self._rate(keys=[self.key(client_id, "rate")], args=[limit, RATE_PERIOD_S * 1000],
                                   client=self.client)
        if wait_ms:
            raise ResourceExhausted(f"this client creates matches faster than the limit of {limit} a minute "
                                    f"(--max-matches-per-minute): the next one may be created in "
                                    f"{int(wait_ms) / 1000:.1f} s")


def _now_ms() -> int:
    return round(time.time() * 1000)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass
class Clients:
    """Who calls (by API key, else by address) and, with ``quotas``, what each client may have: one per server
    process, for its gRPC services and its web app alike."""

    keys: ApiKeys | None = None
    quotas: Quotas | None = None

    def of_call(self, context: Any) -> str:
        """The client of a gRPC call (its ``grpc.aio.ServicerContext``)."""
        return client_of(self.keys, context.invocation_metadata(), peer_host(context.peer()))

    def of_request(self, headers: Any, host: str | None) -> str:
        """The client of a web request: its headers (lower-case names, as Starlette gives them) and address."""
        return client_of(self.keys, headers.items(), host or "unknown")

    def job_place(self, client_id: str, unfinished: StillOn) -> Any:
        """See :meth:`Quotas.job_place`; a place that counts nothing when there are no limits."""
        return self.quotas.job_place(client_id, unfinished) if self.quotas else _unlimited()

    def match_place(self, client_id: str, in_play: StillOn) -> Any:
        """See :meth:`Quotas.match_place`; a place that counts nothing when there are no limits."""
        return self.quotas.match_place(client_id, in_play) if self.quotas else _unlimited()


@asynccontextmanager
async def _unlimited() -> AsyncIterator[Place]:
    yield Place()
