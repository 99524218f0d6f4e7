"""Live matches in Redis: a record (a hash) and a move log (a stream), changed only by compare-and-set scripts.

Keys of match ``m`` (the braces keep both in one Redis Cluster slot)::

    ct:match:{m}         hash    meta (JSON, fixed at creation), version (moves played), position (JSON, the
                                 engine's position after ``version`` moves), replay_id (once the match is over)
    ct:match:{m}:moves   stream  one entry per move, id "<move number>-0", field m = "<seat>:<action int>"

Every change goes through one Lua script that checks the version first, so two server processes (or a retried
request) can never apply two moves on the same version: the loser gets ``False`` and nothing changes.

>>> store = GameStore(redis.asyncio.Redis.from_url("redis://127.0.0.1:6379", decode_responses=True))
>>> stored = await store.load("a1b2c3")   # None when there is no such match
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio

KEY_PREFIX = "ct:match:"

# KEYS: record, moves. ARGV: expected version, new position JSON, then the moves "<seat>:<action>".
# An expected version of "" creates the match (ARGV[3] is then its meta) and fails if it exists.
_COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
local first = 3
if ARGV[1] == '' then
  if version then return 0 end
  version = '0'
  redis.call('HSET', KEYS[1], 'meta', ARGV[3])
  first = 4
elseif not version then
  return -1
elseif version ~= ARGV[1] then
  return 0
end
local n = tonumber(version)
for i = first, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[2], n .. '-0', 'm', ARGV[i])
end
redis.call('HSET', KEYS[1], 'version', n, 'position', ARGV[2])
return 1
"""

Move = tuple[int, int]  # (seat, action int)


@dataclass
class StoredMatch:
    """A match as Redis holds it: the meta, the version, the position after ``version`` moves and the move log."""

    match_id: str
    meta: dict[str, Any]
    version: int
    position: dict[str, Any]
    moves: list[Move]
    replay_id: str


class GameStore:
    """Reads and writes matches; the only place that knows the Redis layout above."""

    def __init__(self, client: redis.asyncio.Redis, prefix: str = KEY_PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self._commit = client.register_script(_COMMIT)

    def _keys(self, match_id: str) -> tuple[str, str]:
        record = f"{self.prefix}{{{match_id}}}"
        return record, f"{record}:moves"

    async def create(self, match_id: str, meta: dict[str, Any], position: dict[str, Any],
                     moves: Sequence[Move]) -> bool:
        """Store a new match with the moves already played (bots first to act); False if the id is taken."""
        args = ["", json.dumps(position), json.dumps(meta), *(_entry(m) for m in moves)]
        return await self._commit(keys=self._keys(match_id), args=args) == 1

    async def commit(self, match_id: str, expected_version: int, position: dict[str, Any],
                     moves: Sequence[Move]) -> bool:
        """Append ``moves`` and store the position after them, only if the match is still at ``expected_version``."""
        args = [str(expected_version), json.dumps(position), *(_entry(m) for m in moves)]
        return await self._commit(keys=self._keys(match_id), args=args) == 1

    async def load(self, match_id: str) -> StoredMatch | None:
        """The match as one consistent snapshot (record and log read in one transaction), or None."""
        record, log = self._keys(match_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hmget(record, "meta", "version", "position", "replay_id")
            pipe.xrange(log)
            (meta, version, position, replay_id), entries = await pipe.execute()
        if meta is None or version is None:
            return None
        return StoredMatch(match_id, json.loads(meta), int(version), json.loads(position),
                           [_parse(fields["m"]) for _, fields in entries], replay_id or "")

    async def moves_after(self, match_id: str, version: int, block_ms: int) -> list[tuple[int, Move]]:
        """The moves numbered above ``version`` as (number, move), waiting up to ``block_ms`` for the first one."""
        _, log = self._keys(match_id)
        found = await self.client.xread({log: f"{version}-0"}, block=block_ms)
        if not found:
            return []
        return [(int(entry_id.split("-")[0]), _parse(fields["m"])) for entry_id, fields in found[0][1]]

    async def set_replay_id(self, match_id: str, replay_id: str) -> None:
        record, _ = self._keys(match_id)
        await self.client.hset(record, "replay_id", replay_id)

    async def replay_id(self, match_id: str) -> str:
        record, _ = self._keys(match_id)
        return await self.client.hget(record, "replay_id") or ""


def _entry(move: Move) -> str:
    return f"{move[0]}:{move[1]}"


def _parse(entry: str) -> Move:
    seat, action = entry.split(":")
    return int(seat), int(action)
