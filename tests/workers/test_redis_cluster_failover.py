"""A Redis Cluster primary crashes (SIGKILL) in the middle of a simulation job that logs every replay: its replica
takes over, and the job ends with the results of a run without a fault, every replay stored, bit for bit."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis_cluster import LoopbackCluster

import replay
from replay.clients import sync_client
from replay.store import ReplayStore
from workers.jobstore import SUCCEEDED, JobStore, PatientStore
from workers.plan import match_seed
from workers.runner import run_job
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable

pytestmark = pytest.mark.usefixtures("local_ray")
DEALS = 6000
CHUNK = 500
SEED = 33


@pytest.fixture
def cluster(redis_cluster: LoopbackCluster, tmp_path: Path) -> Iterator[LoopbackCluster]:
    """A cluster of this test's own (it loses a node), once the session's shows the machine can run one."""
    with LoopbackCluster(tmp_path / "cluster") as own:
        yield own


def wait_for(condition, what: str, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)
    return value


def test_a_primary_killed_mid_job_loses_no_replay_and_no_deal_count(cluster: LoopbackCluster) -> None:
    client = sync_client(cluster.url)
    store = PatientStore(JobStore(client))
    replays = ReplayStore(client)
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=DEALS, seed=SEED, chunk_size=CHUNK,
                            log=LogSpec("all")))
    record = store.create(spec)
    outcome: dict = {}
    driver = threading.Thread(target=lambda: outcome.update(record=run_job(store, record.job_id, cluster.url)))
    driver.start()
    try:
        # The primary that every client first asked (the URL's), once some chunks are stored and others are being
        # played: it holds a third of the replays' buckets, and some of the job's keys.
        wait_for(lambda: 2 <= store.get(record.job_id).chunks_done <= DEALS // CHUNK - 4, "chunks half-way through")
        victim = cluster.ports[0]
        assert victim in cluster.primaries()
        before = store.get(record.job_id).chunks_done
        killed_at = time.monotonic()
        cluster.kill(victim)
        wait_for(lambda: victim not in cluster.primaries() and len(cluster.primaries()) == 3, "the replica's promotion")
        promoted_s = time.monotonic() - killed_at
        wait_for(lambda: store.get(record.job_id).chunks_done > before, "a chunk stored after the failover")
        resumed_s = time.monotonic() - killed_at
    finally:
        driver.join(timeout=300)
    faulted = outcome["record"]
    assert faulted.state == SUCCEEDED, faulted.error
    assert faulted.results["deals"] == faulted.results["replays"] == DEALS
    assert (faulted.chunks_done, faulted.units_done) == (DEALS // CHUNK, DEALS)
    assert replays.count(faulted.replay_collection) == DEALS

    calm = run_job(store, store.create(spec).job_id, cluster.url)
    assert comparable(faulted.results) == comparable(calm.results)
    stored = list(replays.iter_collection(faulted.replay_collection, page_size=5000))
    assert stored == list(replays.iter_collection(calm.replay_collection, page_size=5000))
    assert [index for index, _ in stored] == list(range(DEALS))
    assert all(replay.decode(data).header.seed == match_seed(SEED, index) for index, data in stored)
    seconds = faulted.results["seconds"], calm.results["seconds"]
    print(f"\nfailover: primary :{victim} killed after {before} of {DEALS // CHUNK} chunks, replica promoted in "
          f"{promoted_s:.1f} s, a chunk stored {resumed_s:.1f} s after the kill; the job took {seconds[0]:.1f} s "
          f"with {faulted.retries} chunk retries, {seconds[1]:.1f} s without the fault")
