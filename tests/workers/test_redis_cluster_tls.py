"""``rediss+cluster://``: a Redis Cluster whose nodes speak TLS alone (to clients, to each other and to their replicas)
runs a job with its replays on Ray, the replay CLI and the servers' asyncio client, with a certificate made for the
test (its own CA)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis
from click.testing import CliRunner
from redis_cluster import LoopbackCluster

from replay.clients import async_client, sync_client
from replay.store import ReplayStore
from services.cli.main import cli
from workers.chunk import play_chunk
from workers.jobstore import SUCCEEDED, JobStore
from workers.plan import job_chunks
from workers.runner import run_job
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable, side_seats, summarize, total

pytestmark = pytest.mark.usefixtures("local_ray")


@pytest.fixture(scope="module")
def tls_cluster(certificate, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackCluster]:
    with LoopbackCluster(tmp_path_factory.mktemp("tls-cluster"), tls=certificate) as cluster:
        yield cluster


def test_the_nodes_speak_tls_alone(tls_cluster: LoopbackCluster) -> None:
    assert tls_cluster.url.startswith("rediss+cluster://")
    with pytest.raises(redis.ConnectionError):
        sync_client(f"redis+cluster://127.0.0.1:{tls_cluster.ports[0]}", patience=0, socket_timeout=2).ping()


def test_a_job_logs_every_replay_on_a_tls_cluster(tls_cluster: LoopbackCluster, monkeypatch) -> None:
    client = sync_client(tls_cluster.url)
    store = JobStore(client)
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=400, seed=3, chunk_size=50,
                            log=LogSpec("all")))
    record = run_job(store, store.create(spec).job_id, tls_cluster.url, max_workers=2)
    assert record.state == SUCCEEDED, record.error
    played = total([play_chunk(spec, chunk) for chunk in job_chunks(spec)], len(side_seats(spec)))
    one_process = summarize(spec, played, 1.0)
    assert comparable(record.results) == {**comparable(one_process), "replays": 400}  # logged by the job alone
    replays = ReplayStore(client)
    assert replays.count(record.replay_collection) == 400
    # The replays' buckets lie on every primary, and the replicas have them (replication over TLS).
    for port in tls_cluster.primaries():
        with tls_cluster.node(port) as node:
            assert node.dbsize() > 0
    replicas = [port for port in tls_cluster.live_ports() if port not in tls_cluster.primaries()]
    for port in replicas:
        with tls_cluster.node(port) as node:
            node.execute_command("READONLY")
            assert node.dbsize() > 0

    monkeypatch.setenv("REDIS_URL", tls_cluster.url)
    listed = CliRunner().invoke(cli, ["replay", "list", record.replay_collection, "--count", "2"],
                                catch_exceptions=False)
    assert listed.exit_code == 0 and f"{record.replay_collection}/1 " in listed.output

    async def read_back() -> list[object]:
        reader = async_client(tls_cluster.url)
        try:
            count = reader.register_script("return redis.call('GET', KEYS[1])")
            async with reader.pipeline(transaction=False) as pipe:
                for shard in range(4):
                    await count(keys=[replays.shard_count_key(record.replay_collection, shard)], client=pipe)
                return list(await pipe.execute())
        finally:
            await reader.aclose()

    counts = asyncio.run(read_back())
    assert all(int(c) > 0 for c in counts)  # type: ignore[call-overload]
