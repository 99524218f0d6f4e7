"""How one big replay collection spreads over a Redis Cluster's primaries: the first layout (every key in the
collection's hash tag) against today's (buckets over 64 tags). Starts a loopback cluster of its own (three primaries,
each with a replica), writes DEALS replays into each layout, and prints each primary's keys and bytes (MEMORY USAGE).

    .venv/bin/python tests/tools/cluster_spread.py            # 100,000 replays per collection
    .venv/bin/python tests/tools/cluster_spread.py 20000
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from redis_cluster import LoopbackCluster  # noqa: E402

import replay  # noqa: E402
from replay.clients import sync_client  # noqa: E402
from replay.store import ReplayStore  # noqa: E402

PREFIX = "spread"


def per_primary(client, collection: str) -> dict[int, tuple[int, int]]:
    """Port -> (keys, bytes) of the collection on each primary."""
    found = {}
    for node in client.get_primaries():
        keys = list(client.scan_iter(match=f"{PREFIX}:{{{collection}*", count=1000, target_nodes=node))
        used = sum(client.memory_usage(key, samples=0, target_nodes=node) or 0 for key in keys)
        found[node.port] = (len(keys), used)
    return found


def main(deals: int) -> None:
    replays = [replay.record_deal("belote", seed=seed) for seed in range(200)]
    with tempfile.TemporaryDirectory() as folder, LoopbackCluster(Path(folder)) as cluster:
        client = sync_client(cluster.url)
        store = ReplayStore(client, prefix=PREFIX)
        for collection, first_layout in (("sim-first-layout", True), ("sim-1a2b3c4d5e6f", False),
                                         ("sim-0123456789ab", False)):
            if first_layout:  # a collection that has a count and no layout is one of the first layout
                client.hset(store.meta_key(collection), "count", 0)
            store.put_many(collection, [(index, replays[index % len(replays)]) for index in range(deals)])
            assert store.count(collection) == deals
            shares = per_primary(client, collection)
            total = sum(used for _, used in shares.values())
            print(f"{collection} ({'first layout, {C}' if first_layout else '64 tags'}): " + ", ".join(
                f"primary :{port} {keys} keys {used / 1e6:.2f} MB ({used / total:.0%})"
                for port, (keys, used) in sorted(shares.items())))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
