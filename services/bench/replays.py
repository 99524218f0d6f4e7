"""The replay benchmark: bytes per replay against the information bound, Redis memory per stored replay, pipelined
write throughput and the time to read a page.

>>> figures = replay_benchmark(count=2_000, sample_deals=50)  # doctest: +SKIP
>>> figures["sizes"]["tablanette"]["mean_bytes"]              # doctest: +SKIP
23.1
"""

from __future__ import annotations

import math
import secrets
import time
from pathlib import Path
from typing import Any

import engine
from replay.connect import open_redis
from replay.namespace import namespaced
from replay.record import Replayer, record_deal
from replay.store import BUCKET, SHARDS, ReplayStore

BENCH_GAMES = ("german_whist", "tablanette")


def size_figures(game: str, deals: int, seed: int = 1) -> tuple[dict[str, Any], list[bytes]]:
    """Random-play deals of ``game``: mean bytes, mean information bound (bytes) and the worst excess over it."""
    replays = [record_deal(game, seed=seed + i) for i in range(deals)]
    bounds = [math.ceil(sum(math.log2(step.legal_count) for step in Replayer(data)) / 8) for data in replays]
    excess = [len(data) - bound for data, bound in zip(replays, bounds, strict=True)]
    figures = {
        "deals": deals,
        "mean_bytes": round(sum(map(len, replays)) / deals, 2),
        "mean_bound_bytes": round(sum(bounds) / deals, 2),
        "mean_excess_bytes": round(sum(excess) / deals, 2),
        "max_excess_bytes": max(excess),
        "target_max_excess_bytes": 24,
    }
    return figures, replays


def collection_memory(store: ReplayStore, collection: str, count: int) -> int:
    """The bytes the server holds for a collection of ``count`` replays: MEMORY USAGE of each of its keys, counted
    exactly (SAMPLES 0). Unlike the server's used_memory, other clients of a shared server do not change it."""
    keys = [store.bucket_key(collection, b) for b in range((count + BUCKET - 1) // BUCKET)]
    keys += [store.shard_count_key(collection, shard) for shard in range(SHARDS)]
    keys += [store.meta_key(collection), store.buckets_key(collection), store.times_key(collection)]
    pipe = store.redis.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
    return sum(size or 0 for size in pipe.execute())


def store_figures(store: ReplayStore, replays: list[bytes], count: int) -> dict[str, Any]:
    """Write ``count`` replays (cycling through ``replays``) in pipelined batches; memory, throughput, a page read."""
    collection = f"bench-{secrets.token_hex(4)}"
    items = [(i, replays[i % len(replays)]) for i in range(count)]
    client = store.redis
    started = time.perf_counter()
    store.put_many(collection, items)
    write_seconds = time.perf_counter() - started
    try:
        used = collection_memory(store, collection, count)
        page_started = time.perf_counter()
        page = store.page(collection, 0, 1000)
        page_ms = (time.perf_counter() - page_started) * 1000
        encoding = client.object("encoding", store.bucket_key(collection, 0))
    finally:
        store.delete_collection(collection)
    mean_size = sum(len(data) for _, data in items) / count
    return {
        "replays": count,
        "mean_replay_bytes": round(mean_size, 2),
        "memory_per_replay_bytes": round(used / count, 2),
        "memory_overhead_bytes": round(used / count - mean_size, 2),
        "target_memory_overhead_bytes": 32,
        "bucket_encoding": encoding.decode() if isinstance(encoding, bytes) else encoding,
        "writes_per_second": round(count / write_seconds),
        "target_writes_per_second": 50_000,
        "page_replays": len(page.items),
        "page_read_ms": round(page_ms, 2),
        "page_round_trips": 1,
    }


def replay_benchmark(redis_url: str | None = None, count: int = 100_000, sample_deals: int = 1000,
                     data_dir: Path | None = None) -> dict[str, Any]:
    """Every replay figure of the benchmark, as a dict (``cardtable bench --replays`` prints it)."""
    sizes, samples = {}, []
    for game in BENCH_GAMES:
        if game in engine.list_games():
            sizes[game], replays = size_figures(game, sample_deals)
            samples += replays
    with open_redis(redis_url, data_dir) as client:
        server = client.info("server")
        store = ReplayStore(client, prefix=namespaced(f"cardtable:bench:{secrets.token_hex(4)}"))
        figures = store_figures(store, samples, count)
        figures["server"] = f"{server.get('server_name', 'redis')} {server.get('redis_version')}"
        figures["hash_max_listpack_value"] = client.config_get("hash-max-listpack-value").get(
            "hash-max-listpack-value")
    return {"sizes": sizes, "store": figures}


if __name__ == "__main__":
    import json

    print(json.dumps(replay_benchmark(), indent=2))
