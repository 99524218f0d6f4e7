"""A collection holding one bad replay among good ones, as the listing tests store it (gRPC, web, CLI): a forged
replay (a valid CRC around a header whose move count passes 2**32, as an attacker writes it) or a corrupt one (a
byte flipped in Redis, its CRC wrong)."""

from __future__ import annotations

from dataclasses import dataclass

import replay
from replay.codec import Header, encode
from replay.store import BUCKET, ReplayStore

FORGED_MOVES = 2**32 + 7
GOOD = 6  # good replays around the bad one (it is the fourth of seven)
# What each bad replay's listing and GetReplay say (the codec's words).
REASONS = {
    "forged": f"corrupt replay: it holds {FORGED_MOVES:,} moves, more moves than a tablic match can take",
    "corrupt": "corrupt or truncated replay: CRC-32 is",
}


def forged_replay() -> bytes:
    return encode(Header(game="tablic", players=2, seed=99, policies=("random", "random")), [], FORGED_MOVES)


@dataclass
class BadCollection:
    ids: list[str]  # every replay, in index order
    good: dict[str, bytes]  # the good ones' ids and bytes
    bad_id: str
    bad_size: int


def store_one_bad_replay(store: ReplayStore, collection: str, kind: str) -> BadCollection:
    """``GOOD`` tablic deals and, fourth, a ``kind`` ("forged" or "corrupt") replay in ``collection``."""
    good = [replay.record_deal("tablic", seed=seed) for seed in range(GOOD)]
    bad = forged_replay() if kind == "forged" else good[0]
    indexes = store.add(collection, [*good[:3], bad, *good[3:]])
    ids = [f"{collection}/{index}" for index in indexes]
    if kind == "corrupt":  # bit rot, or a hand in Redis: the store never writes such bytes itself
        flipped = bytearray(bad)
        flipped[len(flipped) // 2] ^= 0xFF
        bad = bytes(flipped)
        store.redis.hset(store.bucket_key(collection, indexes[3] // BUCKET), indexes[3] % BUCKET, bad)
    return BadCollection(ids, dict(zip(ids[:3] + ids[4:], good, strict=True)), ids[3], len(bad))
