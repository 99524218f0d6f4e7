"""The one client factory (replay/clients.py): plain and cluster URLs, and the WAIT that keeps a write through a
failover."""

from __future__ import annotations

import asyncio

import click
import pytest
import redis

from replay.clients import async_client, cluster_node_url, confirm_replicated, is_cluster, is_failover, sync_client
from services.cli.redis_url import REDIS_URL


@pytest.mark.parametrize(("url", "node"), [
    ("redis+cluster://127.0.0.1:7000", "redis://127.0.0.1:7000"),
    ("rediss+cluster://user:secret@cache.example:6380/0", "rediss://user:secret@cache.example:6380/0"),
    ("REDIS+CLUSTER://h:1", "redis://h:1"),
    ("redis://127.0.0.1:6379", None),
    ("unix:///run/redis.sock", None),
])
def test_a_cluster_url_names_one_node(url: str, node: str | None) -> None:
    assert cluster_node_url(url) == node


@pytest.mark.parametrize(("url", "words"), [
    ("redis+cluster://127.0.0.1:7000/3", "database 0 alone"),
    ("redis+clustr://127.0.0.1:7000", "redis://"),
])
def test_the_redis_url_option_refuses_what_a_cluster_cannot_be(url: str, words: str) -> None:
    with pytest.raises(click.BadParameter, match=words):
        REDIS_URL.convert(url, None, None)


def test_a_cluster_that_nobody_answers_for_is_a_connection_error() -> None:
    with pytest.raises(redis.ConnectionError, match="cannot reach the Redis Cluster at redis://127.0.0.1:1"):
        sync_client("redis+cluster://127.0.0.1:1", socket_connect_timeout=1)


def test_errors_of_a_failover_are_told_from_the_others() -> None:
    refused = redis.ConnectionError("refused")
    try:
        raise redis.exceptions.RedisClusterException("cannot be connected") from refused
    except redis.exceptions.RedisClusterException as exc:
        assert is_failover(exc)
    assert is_failover(redis.exceptions.ClusterDownError("CLUSTERDOWN")) and is_failover(refused)
    assert not is_failover(redis.exceptions.RedisClusterException("keys in different slots"))
    assert not is_failover(redis.ResponseError("WRONGTYPE"))


@pytest.mark.cluster_too
def test_a_confirmed_pipeline_waits_for_a_replica_of_each_primary_it_wrote_to(redis_url: str) -> None:
    client = sync_client(redis_url)
    keys = [f"cttest:wait:{{{tag}}}" for tag in ("a", "b", "c", "d", "e")]
    waits = _waits(client)
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, 1, ex=60)
    confirm_replicated(pipe, keys)
    assert pipe.execute() == [True] * len(keys)  # the WAITs' answers are not the caller's
    if is_cluster(client):
        holders = {client.get_node_from_key(key).name for key in keys}
        after = _waits(client)
        assert {name for name in after if after[name] > waits.get(name, 0)} == holders
    else:
        assert _waits(client) == waits  # a plain Redis: nothing to wait for


@pytest.mark.cluster_too
def test_a_confirmed_transaction_waits_for_a_replica_of_its_primary_after_its_exec(redis_url: str) -> None:
    client = sync_client(redis_url)
    keys = [f"cttest:wait:{{t}}:{n}" for n in range(3)]  # one slot
    waits = _waits(client)
    pipe = client.pipeline(transaction=True)
    for key in keys:
        pipe.incr(key)
        pipe.expire(key, 60)
    confirm_replicated(pipe, keys)
    first = pipe.execute()
    assert first[0::2] == [first[0]] * 3 and first[1::2] == [True] * 3  # MULTI/EXEC's answers alone
    after = _waits(client)
    if is_cluster(client):
        assert {name for name in after if after[name] > waits.get(name, 0)} == {client.get_node_from_key(keys[0]).name}
    else:
        assert after == waits


_ECHO = "return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}"


@pytest.mark.cluster_too
def test_scripts_go_in_one_pipeline_even_to_nodes_that_do_not_know_them(redis_url: str) -> None:
    """A pipeline of script calls over many slots (on a cluster: every primary), sent once the nodes have forgotten
    the script (a promoted replica that never loaded it): the script is loaded and the stack sent again."""
    keys = [f"cttest:script:{{{n}}}" for n in range(12)]

    async def run() -> tuple[list[object], list[object]]:
        client = async_client(redis_url, decode_responses=True)
        try:
            script = client.register_script(_ECHO)
            for key in keys:
                await client.delete(key)
            await client.script_flush()
            async with client.pipeline(transaction=False) as pipe:
                for number, key in enumerate(keys):
                    await script(keys=[key], args=[number], client=pipe)
                first = await pipe.execute()
            async with client.pipeline(transaction=False) as pipe:
                for number, key in enumerate(keys):
                    await script(keys=[key], args=[number], client=pipe)
                again = await pipe.execute()
            for key in keys:
                await client.delete(key)
            return first, again
        finally:
            await client.aclose()

    first, again = asyncio.run(run())
    assert first == [[key, str(n), 1] for n, key in enumerate(keys)]
    assert again == [[key, str(n), 2] for n, key in enumerate(keys)]


def _waits(client) -> dict[str, int]:
    """The WAIT commands each primary has run."""
    if not is_cluster(client):
        return {"server": client.info("commandstats").get("cmdstat_wait", {}).get("calls", 0)}
    return {node.name: client.info("commandstats", target_nodes=node).get("cmdstat_wait", {}).get("calls", 0)
            for node in client.get_primaries()}


@pytest.mark.cluster_too
def test_the_grpc_bench_counts_the_redis_cpu_of_every_primary(redis_url: str) -> None:
    from services.bench.grpc import _redis_cpu_s

    client = sync_client(redis_url)
    nodes = client.get_primaries() if is_cluster(client) else [None]
    before = [client.info("cpu", **({} if node is None else {"target_nodes": node})) for node in nodes]
    assert _redis_cpu_s(redis_url) >= sum(info["used_cpu_user"] + info["used_cpu_sys"] for info in before)
