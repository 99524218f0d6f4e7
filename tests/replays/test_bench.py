"""The replay benchmark runs end to end on a small scale, and the size target holds for the deals it plays."""

from __future__ import annotations

from services.bench.replays import replay_benchmark


def test_small_benchmark(replay_redis_url: str) -> None:
    figures = replay_benchmark(replay_redis_url, count=3_000, sample_deals=30)
    for game in ("german_whist", "tablanette"):
        sizes = figures["sizes"][game]
        assert sizes["max_excess_bytes"] <= sizes["target_max_excess_bytes"]
        assert sizes["mean_bytes"] > sizes["mean_bound_bytes"] > 0
    store = figures["store"]
    assert store["replays"] == 3_000 and store["page_replays"] == 1000
    assert store["bucket_encoding"] in ("listpack", "ziplist")
    assert 0 < store["memory_per_replay_bytes"] < store["mean_replay_bytes"] + 64
