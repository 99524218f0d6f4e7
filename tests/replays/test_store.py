"""The replay store against a real Redis: collections, paging, counts, batches, deletion, and bad data."""

from __future__ import annotations

import pytest

import replay
from replay.clients import sync_client
from replay.store import BUCKET, ReplayStore, StoreError, parse_id

pytestmark = pytest.mark.cluster_too

REPLAYS = [replay.record_deal("tablanette", seed=seed) for seed in range(260)]


def test_put_many_page_count_get(store: ReplayStore) -> None:
    assert store.put_many("sim:job1", enumerate(REPLAYS), batch=70) == len(REPLAYS)
    assert store.count("sim:job1") == len(REPLAYS)
    first = store.page("sim:job1", 0, 100)
    assert [i for i, _ in first.items] == list(range(100)) and first.next_start == 100
    last = store.page("sim:job1", 200, 100)
    assert [data for _, data in last.items] == REPLAYS[200:] and last.next_start is None
    assert list(store.iter_collection("sim:job1", page_size=64)) == list(enumerate(REPLAYS))
    assert store.get("sim:job1/137") == REPLAYS[137]
    assert replay.decode(store.get("sim:job1/5")).moves == replay.decode(REPLAYS[5]).moves


def test_rewriting_an_index_keeps_the_count_exact(store: ReplayStore) -> None:
    store.put_many("c", [(0, REPLAYS[0]), (1, REPLAYS[1])])
    assert store.put_many("c", [(1, REPLAYS[2]), (2, REPLAYS[3])]) == 1
    assert store.count("c") == 3
    assert store.get("c/1") == REPLAYS[2]


def test_get_many_is_one_round_trip_in_order(store: ReplayStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.put_many("a", enumerate(REPLAYS[:30]))
    store.put_many("b", enumerate(REPLAYS[30:60]))
    calls = []
    pipeline = type(store.redis.pipeline())  # a plain or a cluster pipeline
    original = pipeline.execute

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pipeline, "execute", counted)
    found = store.get_many(["b/3", "a/29", "a/500", "b/0"])
    assert found == [REPLAYS[33], REPLAYS[29], None, REPLAYS[30]]
    page = store.page("a", 0, 1000)
    assert len(page.items) == 30 and len(calls) == 3  # the page: its buckets from the index, then the buckets


def test_a_sparse_collection_pages_by_replay(store: ReplayStore) -> None:
    """A sample of 12 replays over 100,000 deals: a page of 5 holds 5 replays, not the 5 deal numbers from start."""
    sample = [(index * 8333, REPLAYS[index]) for index in range(12)]
    store.put_many("sim:sparse", sample, batch=5)
    first = store.page("sim:sparse", 0, 5)
    assert [i for i, _ in first.items] == [0, 8333, 16666, 24999, 33332] and first.next_start == 33333
    second = store.page("sim:sparse", first.next_start, 5)
    assert [i for i, _ in second.items] == [41665, 49998, 58331, 66664, 74997]
    last = store.page("sim:sparse", second.next_start, 5)
    assert [i for i, _ in last.items] == [83330, 91663] and last.next_start is None
    assert [i for i, _ in store.iter_collection("sim:sparse", page_size=3)] == [i for i, _ in sample]


def test_a_collection_written_before_the_index_gets_it_on_first_read(store: ReplayStore) -> None:
    store.put_many("old", [(index * 250, REPLAYS[index]) for index in range(6)])
    store.redis.delete(store.buckets_key("old"))
    store.redis.hdel(store.meta_key("old"), "indexed")
    assert [i for i, _ in store.page("old", 0, 4).items] == [0, 250, 500, 750]
    store.add("old", [REPLAYS[7]])  # an append to an old collection keeps the index whole
    assert [i for i, _ in store.page("old", 1000, 10).items] == [1000, 1250, 1251]


def test_written_times_are_kept_per_run_of_replays(store: ReplayStore, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_800_000_000.0]
    monkeypatch.setattr("replay.store.time.time", lambda: clock[0])
    store.put_many("t", enumerate(REPLAYS[:150]))
    clock[0] += 3600
    store.add("t", REPLAYS[150:152])
    times = store.written("t", [0, 99, 149, 150, 151])
    minute = 1_800_000_000 // 60 * 60
    assert times == {0: minute, 99: minute, 149: minute, 150: minute + 3600, 151: minute + 3600}
    assert store.redis.zcard(store.times_key("t")) == 2  # one member per minute of writing, not per replay
    store.redis.delete(store.times_key("t"))
    assert store.written("t", [3]) == {3: None}


def test_delete_one_replay(store: ReplayStore) -> None:
    store.put_many("d", [(0, REPLAYS[0]), (150, REPLAYS[1]), (151, REPLAYS[2])])
    store.delete("d/150")
    assert store.count("d") == 2 and [i for i, _ in store.page("d").items] == [0, 151]
    store.delete("d/151")
    assert not store.redis.exists(store.bucket_key("d", 1)) and [i for i, _ in store.page("d").items] == [0]
    with pytest.raises(KeyError, match="no replay 'd/151'"):
        store.delete("d/151")
    assert store.exists("d") and not store.exists("nothing")


def test_add_and_save_allocate_fresh_indexes(store: ReplayStore) -> None:
    assert store.add("live", REPLAYS[:3]) == [0, 1, 2]
    replay_id = store.save(REPLAYS[3])
    assert replay_id == "live/3" and store.get(replay_id) == REPLAYS[3]
    assert store.collections() == [("live", 4)]


def test_missing_replay_and_bad_ids(store: ReplayStore) -> None:
    with pytest.raises(KeyError, match="no replay 'nothing/1'"):
        store.get("nothing/1")
    for bad in ("no-index", "a b/1", "x/-1", "/3"):
        with pytest.raises(ValueError, match="replay id"):
            parse_id(bad)
    with pytest.raises(ValueError, match="collection name"):
        store.put_many("has space", [(0, REPLAYS[0])])


def test_put_rejects_bytes_that_are_not_replays(store: ReplayStore) -> None:
    with pytest.raises(replay.ReplayError, match="not a cardtable replay"):
        store.put_many("c", [(0, b"hello world")])
    assert store.count("c") == 0


def test_delete_collection(store: ReplayStore) -> None:
    store.put_many("gone", enumerate(REPLAYS))
    store.put_many("kept", enumerate(REPLAYS[:5]))
    assert store.delete_collection("gone") == len(REPLAYS)
    assert store.count("gone") == 0 and store.page("gone").items == []
    assert store.collections() == [("kept", 5)]
    assert not list(store.redis.scan_iter(match=f"{store.prefix}:{{gone}}*"))


def test_corrupt_value_names_the_key(store: ReplayStore) -> None:
    store.put_many("c", enumerate(REPLAYS[:120]))
    key = store.bucket_key("c", 1)
    store.redis.hset(key, "7", REPLAYS[0][:-1] + b"\x00")
    with pytest.raises(StoreError, match=r"replay c/107 is unreadable: corrupt.*CRC") as err:
        store.page("c", 100, 50)
    assert err.value.key == f"{key} field 7"
    with pytest.raises(StoreError, match=key):
        store.get("c/107")


def test_foreign_keys_are_named(store: ReplayStore) -> None:
    store.put_many("c", enumerate(REPLAYS[:150]))
    key = store.bucket_key("c", 1)
    store.redis.delete(key)
    store.redis.set(key, "not a hash")
    with pytest.raises(StoreError, match="WRONGTYPE") as err:
        store.page("c", 0, 200)
    assert err.value.key == key
    store.redis.delete(key)
    store.redis.hset(key, "junk", REPLAYS[0])
    with pytest.raises(StoreError, match="'junk'.*not a replay slot"):
        store.page("c", 100, 10)
    store.redis.set(store.shard_count_key("c", 1), "many")
    with pytest.raises(StoreError, match="count of collection 'c' is not an integer"):
        store.count("c")


def test_buckets_use_the_compact_encoding(store: ReplayStore) -> None:
    store.put_many("c", enumerate(REPLAYS[:BUCKET]))
    assert store.redis.object("encoding", store.bucket_key("c", 0)) in (b"listpack", b"ziplist")


def test_a_client_that_decodes_responses_still_gets_bytes(store: ReplayStore, replay_redis_url: str) -> None:
    store.put_many("c", [(0, REPLAYS[0])])
    text_client = sync_client(replay_redis_url, decode_responses=True)
    assert ReplayStore(text_client, store.prefix).get("c/0") == REPLAYS[0]
