"""The replay store's two layouts: a collection's buckets spread over 64 hash tags (so over a Redis Cluster's nodes),
and collections written before that, every key in the collection's tag, which read and write as they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from keyspace import wipe

import replay
from replay.clients import is_cluster
from replay.store import BUCKET, FIRST_LAYOUT, SHARDS, ReplayStore

pytestmark = pytest.mark.cluster_too

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replays"
PINNED = [path.read_bytes() for path in sorted(FIXTURES.glob("*.ctr"))]
REPLAYS = [replay.record_deal("tablanette", seed=seed) for seed in range(50)]


def write_first_layout(store: ReplayStore, collection: str, items: list[tuple[int, bytes]]) -> None:
    """The keys of a collection as the store wrote them before the shards: raw commands, not the store's code."""
    prefix = f"{store.prefix}:{{{collection}}}"
    for index, data in items:
        store.redis.hset(f"{prefix}:b:{index // BUCKET}", str(index % BUCKET), data)
        store.redis.zadd(f"{prefix}:buckets", {str(index // BUCKET): index // BUCKET})
    top = max(index for index, _ in items) + 1
    store.redis.hset(f"{prefix}:meta", mapping={"count": len(items), "next": top, "indexed": 1})
    store.redis.sadd(store.collections_key, collection)


def test_the_pinned_replays_stored_in_the_first_layout_still_load(store: ReplayStore) -> None:
    items = [(index * 70, data) for index, data in enumerate(PINNED)]  # over several buckets
    write_first_layout(store, "pinned", items)
    assert store.count("pinned") == len(PINNED) and ("pinned", len(PINNED)) in store.collections()
    assert list(store.iter_collection("pinned", page_size=7)) == items
    assert store.get_many([f"pinned/{index}" for index, _ in items]) == PINNED
    assert [replay.decode(data).header.seed for _, data in items] == [replay.decode(p).header.seed for p in PINNED]


def test_a_collection_in_the_first_layout_is_written_and_deleted_in_it(store: ReplayStore) -> None:
    write_first_layout(store, "old", [(0, REPLAYS[0]), (1, REPLAYS[1])])
    assert store.put_many("old", [(1, REPLAYS[2]), (150, REPLAYS[3])]) == 1
    assert store.add("old", [REPLAYS[4]]) == [151]
    assert store.redis.hget(store.bucket_key("old", 1, FIRST_LAYOUT), "50") == REPLAYS[3]
    assert not any(store.redis.exists(store.shard_count_key("old", shard)) for shard in range(SHARDS))
    assert store.count("old") == 4 and store.get("old/1") == REPLAYS[2]
    store.delete("old/150")
    store.delete("old/151")
    assert [i for i, _ in store.page("old").items] == [0, 1]
    assert store.redis.zcard(store.buckets_key("old")) == 1  # the emptied bucket left the index
    assert store.delete_collection("old") == 2
    assert not list(store.redis.scan_iter(match=f"{store.prefix}:{{old*"))


def test_a_new_collections_buckets_spread_over_64_tags(store: ReplayStore) -> None:
    items = [(index, REPLAYS[index % len(REPLAYS)]) for index in range(0, 2 * SHARDS * BUCKET, 50)]
    assert store.put_many("big", items) == len(items)
    assert store.redis.hget(store.meta_key("big"), "layout") == str(SHARDS).encode()
    buckets = [store.bucket_key("big", bucket) for bucket in range(2 * SHARDS)]
    assert len({key.partition("{")[2].partition("}")[0] for key in buckets}) == SHARDS
    assert all(store.redis.exists(key) for key in buckets)
    assert store.count("big") == len(items) and list(store.iter_collection("big", page_size=33)) == items
    if is_cluster(store.redis):  # every primary holds a share of the collection
        holders = {store.redis.get_node_from_key(key).name for key in buckets}
        assert holders == {node.name for node in store.redis.get_primaries()}
    assert store.delete_collection("big") == len(items)
    assert not list(store.redis.scan_iter(match=f"{store.prefix}:{{big*"))


def test_a_store_that_met_a_collection_first_reads_it_after_another_deleted_and_wrote_it_again(
        store: ReplayStore) -> None:
    other = ReplayStore(store.redis, store.prefix)
    write_first_layout(store, "again", [(0, REPLAYS[0])])
    assert store.get("again/0") == REPLAYS[0]
    other.delete_collection("again")
    other.put_many("again", [(0, REPLAYS[1])])
    assert store.get("again/0") == REPLAYS[1] and store.count("again") == 1
    wipe(store.redis, f"{store.prefix}:")
