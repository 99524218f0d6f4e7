"""Live matches in Redis: a record (a hash) and a move log (a stream), changed only by compare-and-set scripts.

Keys of match ``m`` (the braces keep them in one Redis Cluster slot)::

    ct:match:{m}         hash    meta (JSON, fixed at creation), version (moves played), position (JSON, the
                                 engine's position after ``version`` moves), replay_id (once the match is over)
    ct:match:{m}:log     string  the move log: "<seat>,<action int>," per move, in order (read in one piece)
    ct:match:{m}:moves   stream  the moves as events for watchers: id "<move number>-0", field m = "<seat>,<action>"

Every change goes through one Lua script that checks the version first, so two server processes (or a retried
request) can never apply two moves on the same version: the loser gets ``False`` and nothing changes. The script
also publishes the new move number on the channel named like the moves key (watchers subscribe to it, see
:mod:`services.watchers`) and sets the keys' expiry (:class:`Retention`): a match in play lives ``abandoned_after``
past its last move, a finished match ``finished`` past its end (its replay stays in the replay store).

>>> store = GameStore(redis.asyncio.Redis.from_url("redis://127.0.0.1:6379", decode_responses=True))  # doctest: +SKIP
>>> stored = asyncio.run(store.load("a1b2c3"))  # None when there is no such match  # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio

from replay.namespace import namespaced

KEY_PREFIX = "ct:match:"

DAY_S = 86_400.0
HOUR_S = 3600.0

# KEYS: record, log, moves. ARGV: expected version, expiry in ms (0: none), new position JSON, then the moves
# "<seat>,<action>". An expected version of "" creates the match (ARGV[4] is then its meta) and fails if it exists.
_COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
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
end
local n = tonumber(version)
for i = first, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[3], n .. '-0', 'm', ARGV[i])
  redis.call('APPEND', KEYS[2], ARGV[i] .. ',')
end
redis.call('HSET', KEYS[1], 'version', n, 'position', ARGV[3])
for i = 1, 3 do
  if ARGV[2] == '0' then redis.call('PERSIST', KEYS[i]) else redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
redis.call('PUBLISH', KEYS[3], n)
return 1
"""

# KEYS: record, log. ARGV: "1" to read the log too. One atomic read of everything a request needs.
_LOAD = """
local record = redis.call('HMGET', KEYS[1], 'meta', 'version', 'position', 'replay_id')
if not record[1] then return false end
local log = ''
if ARGV[1] == '1' then log = redis.call('GET', KEYS[2]) or '' end
return {record[1], record[2], record[3], record[4] or '', log}
"""

# KEYS: record. ARGV: replay id. Only a match still stored gets it: one that expired meanwhile (a short retention, a
# slow replay build) must not come back as a record that never expires.
_SET_REPLAY_ID = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], 'replay_id', ARGV[1])
"""

Move = tuple[int, int]  # (seat, action int)

# Compact, and without escaping to ASCII (the faster C path): a position is written on every move.
_to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


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


@dataclass
class StoredMatch:
    """A match as Redis holds it: the meta, the version, the position after ``version`` moves and the move log
    (``None`` when it was not asked for)."""

    match_id: str
    meta: dict[str, Any]
    version: int
    position: dict[str, Any]
    moves: list[Move] | None
    replay_id: str


class GameStore:
    """Reads and writes matches; the only place that knows the Redis layout above."""

    def __init__(self, client: redis.asyncio.Redis, prefix: str | None = None,
                 retention: Retention | None = None) -> None:
        self.client = client
        self.prefix = namespaced(KEY_PREFIX) if prefix is None else prefix
        self.retention = retention or Retention()
        self._commit = client.register_script(_COMMIT)
        self._load = client.register_script(_LOAD)
        self._set_replay_id = client.register_script(_SET_REPLAY_ID)

    def _keys(self, match_id: str) -> tuple[str, str, str]:
        record = f"{self.prefix}{{{match_id}}}"
        return record, f"{record}:log", f"{record}:moves"

    async def create(self, match_id: str, meta: dict[str, Any], position: dict[str, Any], moves: Sequence[Move],
                     finished: bool = False) -> bool:
        """Store a new match with the moves already played (bots first to act); False if the id is taken.
        ``finished``: those moves ended the match (its keys then expire as a finished match's)."""
        args = ["", self.retention.expiry_ms(finished), _to_json(position), _to_json(meta),
                *(_entry(m) for m in moves)]
        return await self._commit(keys=self._keys(match_id), args=args) == 1

    async def commit(self, match_id: str, expected_version: int, position: dict[str, Any], moves: Sequence[Move],
                     finished: bool = False) -> bool:
        """Append ``moves`` and store the position after them, only if the match is still at ``expected_version``;
        ``finished``: these moves ended the match."""
        args = [str(expected_version), self.retention.expiry_ms(finished), _to_json(position),
                *(_entry(m) for m in moves)]
        return await self._commit(keys=self._keys(match_id), args=args) == 1

    async def load(self, match_id: str, with_log: bool = True) -> StoredMatch | None:
        """The match as one consistent snapshot (one script reads record and log), or None.

        A move needs no log (its history is in the log already); a view with the history, a watch and a replay do.
        """
        record, log, _ = self._keys(match_id)
        found = await self._load(keys=(record, log), args=["1" if with_log else "0"])
        if not found:
            return None
        meta, version, position, replay_id, moves = found
        return StoredMatch(match_id, json.loads(meta), int(version), json.loads(position),
                           parse_moves(moves) if with_log else None, replay_id)

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


def _entry(move: Move) -> str:
    return f"{move[0]},{move[1]}"


def parse_moves(log: str) -> list[Move]:
    """``"0,17,1,5,"`` -> ``[(0, 17), (1, 5)]`` (parsed as JSON: long logs are read on every request)."""
    numbers = iter(json.loads(f"[{log[:-1]}]"))
    return list(zip(numbers, numbers, strict=True))
