"""`cardtable serve` beside another Ray on the machine (issue 27): its jobs run on a local Ray of its own (started
in its own process, workers/ray_head.py), whatever the file where Ray looks for a cluster to join says; a local Ray
that cannot start fails each job with Ray's reason in one line (it said "no address after 180 s", after 9 s)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_harness import ServerProcess
from other_ray import OtherRay, other_ray_head

from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.generated.cardtable.v1 import simulation_service_pb2_grpc
from workers.chunk import play_chunk
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import comparable, summarize, total

SPEC = sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=300, seed=5)


@pytest.fixture(scope="module")
def other_ray() -> Iterator[OtherRay]:
    with other_ray_head() as head:
        yield head


def server_env(tmp_path: Path, other_ray: OtherRay, **more: str) -> dict[str, str | None]:
    """Its own embedded Valkey; Ray's temp folder (RAY_TMPDIR/ray) the other head's, whose ray_current_cluster
    names it; no RAY_ADDRESS, no token of the other head's."""
    return {"CARDTABLE_DATA_DIR": str(tmp_path), "REDIS_URL": None, "RAY_ADDRESS": None, "RAY_AUTH_TOKEN": None,
            "RAY_AUTH_MODE": None, "RAY_TMPDIR": str(other_ray.tmpdir), **more}


def final_job(server: ServerProcess) -> sim_pb2.Job:
    with grpc.insecure_channel(server.target) as channel:
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        job_id = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=SPEC)).job.job_id
        return [u.job for u in jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=job_id), timeout=300)][-1]


def test_a_server_runs_its_jobs_on_its_own_ray_beside_another(tmp_path, other_ray):
    sessions = sorted(path.name for path in (other_ray.tmpdir / "ray").glob("session_2*"))
    with ServerProcess(env=server_env(tmp_path, other_ray)) as server:
        job = final_job(server)
        assert server.terminate(timeout=90) == 0
    assert job.state == sim_pb2.JOB_STATE_SUCCEEDED, job.error
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=300, seed=5))
    without_ray = comparable(summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], 2), 1.0))
    assert comparable(json.loads(job.results.json)) == without_ray
    assert sorted(path.name for path in (other_ray.tmpdir / "ray").glob("session_2*")) == sessions
    assert list(other_ray.tmpdir.glob("ct-ray-*")) == []  # the head's own temp folder, gone with it


def test_a_local_ray_that_cannot_start_fails_the_job_with_rays_reason(tmp_path, other_ray):
    """Its GCS port taken (RAY_GCS_SERVER_PORT names the other head's)."""
    port = other_ray.gcs.rpartition(":")[2]
    with ServerProcess(env=server_env(tmp_path, other_ray, RAY_GCS_SERVER_PORT=port)) as server:
        started = time.monotonic()
        job = final_job(server)
        seconds = time.monotonic() - started
        assert server.terminate(timeout=60) == 0
    print(f"the job failed after {seconds:.1f} s: {job.error}")
    assert job.state == sim_pb2.JOB_STATE_FAILED
    assert job.error == ("the job's driver failed: the local Ray did not start: Failed to start GCS: Failed to start "
                         f"the grpc server. The specified port is {port}.")
