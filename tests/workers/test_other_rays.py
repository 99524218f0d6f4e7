"""Another Ray on the machine (issue 27): a real ``ray start --head`` on loopback that asks for a token
(tests/other_ray.py). ``cardtable simulate`` starts a local Ray of its own beside it, and beside a stale
``ray_current_cluster`` file, and says in one line why a local Ray could not start; over ``ray://`` a user's own bot
plays as it does anywhere, a policy that cannot be imported on the workers fails the job in seconds, and a wrong or
missing token is one line at once. `cardtable serve` beside it (moved here from tests/services/
test_serve_beside_other_rays.py, to share the other head, whose start takes 15-20 s): its jobs run on a local Ray of
its own (started in its own process, workers/ray_head.py), whatever the file where Ray looks for a cluster to join
says; a local Ray that cannot start fails each job with Ray's reason in one line (it said "no address after 180 s",
after 9 s)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_harness import ServerProcess
from other_ray import OtherRay, free_port, other_ray_head, short_temp_dir

from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.generated.cardtable.v1 import simulation_service_pb2_grpc
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import comparable, summarize, total

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
# Ray gives up on a Ray Client server that refuses its token after 30 s, saying "ray client connection timeout".
REFUSED_WITHIN_S = 5
OWN_BOT = '''"""A user's own bot: the lowest legal action a third of the time, else a random one."""
from engine.bots import Policy


class Mostly(Policy):
    def choose(self, observation):
        legal = observation["legal_actions"]
        return legal[0] if self.rng.below(3) == 0 else legal[self.rng.below(len(legal))]
'''
# Imports a module of the user's folder that is not shipped with it (only the policy's own module is).
UNSHIPPED_HELPER = '''import ct27_helper  # noqa: F401
from engine.bots import Policy


class First(Policy):
    def choose(self, observation):
        return observation["legal_actions"][0]
'''


@pytest.fixture(scope="module")
def other_ray() -> Iterator[OtherRay]:
    with other_ray_head() as head:
        yield head


@pytest.fixture
def stale_tmpdir() -> Iterator[Path]:
    """A RAY_TMPDIR whose ray/ray_current_cluster names a head that is gone (nothing listens at its address)."""
    folder = short_temp_dir("ctst-")
    (folder / "ray").mkdir()
    (folder / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{free_port()}")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def simulate(args: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[subprocess.CompletedProcess,
                                                                                      float]:
    started = time.monotonic()
    run = subprocess.run([CARDTABLE, "simulate", *args], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=300)
    return run, time.monotonic() - started


def without_ray(spec: JobSpec) -> dict:
    return comparable(summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], 2), seconds=1.0))


@pytest.mark.parametrize("beside", ["another head", "a stale ray_current_cluster"])
def test_simulate_starts_its_own_ray_beside_another(other_ray, stale_tmpdir, redis_url, redis_client, beside):
    """Where Ray looks for a cluster to join (RAY_TMPDIR/ray/ray_current_cluster, as /tmp/ray's), the other head's
    address or a dead one's: the simulation runs on a Ray of its own all the same, in a temp folder of its own that
    it removes, and leaves the other head's folder as it was."""
    tmpdir = other_ray.tmpdir if beside == "another head" else stale_tmpdir
    sessions = sorted(path.name for path in (other_ray.tmpdir / "ray").glob("session_2*"))
    env = {**other_ray.client_env(token=None), "RAY_TMPDIR": str(tmpdir)}
    run, _ = simulate(["german_whist", "--deals", "300", "--policies", "random", "--seed", "5", "--workers", "1",
                       "--redis-url", redis_url, "--json"], env)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    JobStore(redis_client).delete(report["job_id"])
    assert report["state"] == "succeeded" and report["units"] == 300
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=300, seed=5))
    assert comparable({k: v for k, v in report.items() if k in without_ray(spec)}) == without_ray(spec)
    assert sorted(path.name for path in (other_ray.tmpdir / "ray").glob("session_2*")) == sessions
    assert list(tmpdir.glob("ct-ray-*")) == []  # its own temp folder, gone with it


def test_a_local_ray_that_cannot_start_says_why_in_one_line(other_ray, redis_url):
    """Its GCS port taken (RAY_GCS_SERVER_PORT names the other head's): one line with Ray's reason, no traceback."""
    port = other_ray.gcs.rpartition(":")[2]
    env = {**other_ray.client_env(token=None), "RAY_GCS_SERVER_PORT": port}
    run, seconds = simulate(["german_whist", "--deals", "20", "--policies", "random", "--redis-url", redis_url], env)
    print(f"local Ray start failed in {seconds:.1f} s: {run.stderr.strip()}")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"Error: the local Ray did not start: Failed to start GCS: Failed to start the grpc server. The specified port "
        f"is {port}."]


@pytest.mark.parametrize("driver", ["cardtable simulate", "a server's"])
def test_a_users_own_bot_plays_on_a_ray_client_cluster_as_here(other_ray, tmp_path, redis_url, redis_client,
                                                                test_prefix, monkeypatch, driver):
    """The policy's module, in the user's folder only, goes to the cluster's workers (ray://): with the Ray job
    (simulate), or with each task of a driver that joined Ray before it knew the job (the server's, RayHost)."""
    (tmp_path / "ct27_ownbot.py").write_text(OWN_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = validate(JobSpec(game="german_whist", policies=("ct27_ownbot:Mostly", "random"), count=200, seed=3,
                            chunk_size=50))
    if driver == "cardtable simulate":
        run, _ = simulate(["german_whist", "--deals", "200", "--policies", "ct27_ownbot:Mostly,random", "--seed", "3",
                           "--chunk-size", "50", "--address", other_ray.client, "--redis-url", redis_url, "--json"],
                          other_ray.client_env(), cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        report = json.loads(run.stdout)
        JobStore(redis_client).delete(report["job_id"])
        assert report["state"] == "succeeded"
    else:
        run = subprocess.run([sys.executable, str(Path(__file__).with_name("ray_host_job.py")), other_ray.client,
                              redis_url, test_prefix, json.dumps(spec.to_dict())], cwd=tmp_path,
                             env={**other_ray.client_env(), "PYTHONPATH": str(tmp_path)}, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        record = json.loads(run.stdout)
        assert record["state"] == "succeeded", record["error"]
        report = record["results"]
    assert report["units"] == 200
    assert comparable({k: v for k, v in report.items() if k in without_ray(spec)}) == without_ray(spec)


def test_a_policy_the_workers_cannot_import_fails_the_job_at_once(other_ray, tmp_path, redis_url):
    """Its module imports one of the user's folder that is not shipped: the job fails in seconds, in one line
    naming the policy and the import error (it used to wait at 0% for ever)."""
    (tmp_path / "ct27_badbot.py").write_text(UNSHIPPED_HELPER)
    (tmp_path / "ct27_helper.py").write_text("")
    run, seconds = simulate(["german_whist", "--deals", "2000", "--policies", "ct27_badbot:First,random",
                             "--address", other_ray.client, "--redis-url", redis_url], other_ray.client_env(),
                            cwd=tmp_path)
    print(f"unimportable policy: failed after {seconds:.1f} s: {run.stderr.strip()}")
    assert run.returncode == 1
    [line] = run.stderr.strip().splitlines()
    assert line.startswith("Error: job sim-") and " failed before any chunk finished: policy 'ct27_badbot:First' " \
        "cannot be loaded on worker " in line
    assert "No module named 'ct27_helper'" in line
    assert seconds < 60


# How each server says it refused a token: the Ray Client server, the GCS.
REFUSALS = {"client": "Invalid or missing authentication token",
            "gcs": "InvalidAuthToken: Authentication token is missing or incorrect"}


@pytest.mark.parametrize(("case", "token", "said"), [
    ("wrong token", "not-the-token", "refused this process's authentication token (RAY_AUTH_TOKEN): {refusal}"),
    ("no token sent", None, "wants an authentication token: set RAY_AUTH_MODE=token and the cluster's token in "
                            "RAY_AUTH_TOKEN (or a file named by RAY_AUTH_TOKEN_PATH)"),
], ids=["wrong token", "no token sent"])
def test_a_wrong_or_missing_token_is_one_line_at_once(other_ray, tmp_path, redis_url, case, token, said):
    env = {**other_ray.client_env(token=token), "HOME": str(tmp_path)}  # no ~/.ray/auth_token to fall back on
    for kind, address in (("client", other_ray.client), ("gcs", other_ray.gcs)):
        run, seconds = simulate(["german_whist", "--deals", "20", "--policies", "random", "--address", address,
                                 "--redis-url", redis_url], env)
        print(f"{case} at {address}: refused after {seconds:.1f} s (the whole command)")
        assert run.returncode == 1
        assert run.stderr.strip().splitlines() == [f"Error: Ray at {address} {said.format(refusal=REFUSALS[kind])}"]
        assert seconds < 30  # Ray alone gave up after 30 s, with no reason


def test_token_mode_with_no_token_at_all_is_one_line(other_ray, tmp_path, redis_url):
    env = {**other_ray.client_env(), "HOME": str(tmp_path)}
    del env["RAY_AUTH_TOKEN"]
    run, _ = simulate(["german_whist", "--deals", "20", "--policies", "random", "--address", other_ray.client,
                       "--redis-url", redis_url], env)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"Error: cannot join Ray at {other_ray.client}: Token authentication is enabled but Ray couldn't find an "
        "authentication token: set RAY_AUTH_TOKEN to the cluster's token (or RAY_AUTH_TOKEN_PATH to a file that "
        "holds it)"]


@pytest.mark.usefixtures("local_ray")
def test_the_token_check_itself_answers_within_5_s(other_ray):
    """This process sends its own Ray's token (token mode, ~/.ray/auth_token), not the other head's."""
    from workers.cluster import RayRefused, check_admitted

    for address in (other_ray.client, other_ray.gcs):
        started = time.monotonic()
        with pytest.raises(RayRefused, match="refused this process's authentication token"):
            check_admitted(address)
        assert time.monotonic() - started < REFUSED_WITHIN_S


SERVED_SPEC = sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=300, seed=5)


def serve_env(tmp_path: Path, other_ray: OtherRay, **more: str) -> dict[str, str | None]:
    """Its own embedded Valkey; Ray's temp folder (RAY_TMPDIR/ray) the other head's, whose ray_current_cluster
    names it; no RAY_ADDRESS, no token of the other head's."""
    return {"CARDTABLE_DATA_DIR": str(tmp_path), "REDIS_URL": None, "RAY_ADDRESS": None, "RAY_AUTH_TOKEN": None,
            "RAY_AUTH_MODE": None, "RAY_TMPDIR": str(other_ray.tmpdir), **more}


def served_job(server: ServerProcess) -> sim_pb2.Job:
    with grpc.insecure_channel(server.target) as channel:
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        job_id = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=SERVED_SPEC)).job.job_id
        return [u.job for u in jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=job_id), timeout=300)][-1]


def test_a_server_runs_its_jobs_on_its_own_ray_beside_another(tmp_path, other_ray):
    sessions = sorted(path.name for path in (other_ray.tmpdir / "ray").glob("session_2*"))
    with ServerProcess(env=serve_env(tmp_path, other_ray)) as server:
        job = served_job(server)
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
    with ServerProcess(env=serve_env(tmp_path, other_ray, RAY_GCS_SERVER_PORT=port)) as server:
        started = time.monotonic()
        job = served_job(server)
        seconds = time.monotonic() - started
        assert server.terminate(timeout=60) == 0
    print(f"the job failed after {seconds:.1f} s: {job.error}")
    assert job.state == sim_pb2.JOB_STATE_FAILED
    assert job.error == ("the job's driver failed: the local Ray did not start: Failed to start GCS: Failed to start "
                         f"the grpc server. The specified port is {port}.")
