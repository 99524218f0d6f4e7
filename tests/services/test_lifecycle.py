"""The platform in real use, through the real command line: a server runs job after job on its local Ray and leaves no
process behind; Ctrl-C cancels a simulation cleanly; unreachable backends fail at once; nothing but cardtable's own
messages is printed. Each test has its own data folder, so the embedded Valkey is its own."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import pytest
import redis
from grpc_harness import CARDTABLE, ROOT, ServerProcess
from grpc_health.v1 import health_pb2, health_pb2_grpc
from listening import descendants, process_table
from waiting import wait_until

from replay.embedded import EmbeddedValkey
from services.generated.cardtable.v1 import game_service_pb2, game_service_pb2_grpc, simulation_service_pb2_grpc
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import comparable, summarize, total
from workers.tournament import load_tournament, unfinished_tournaments

# How long a command may take to give up on an address that nothing answers on: a guard against hanging for minutes
# (as before), generous enough for a loaded machine.
GIVE_UP_S = 60
STOP_S = 10  # the most SIGTERM may take, whatever runs


def still_running_pids(processes: dict[int, tuple[str, int, str, str]]) -> list[int]:
    """Those processes that still run (the same start time: not a new process given the pid; not a zombie)."""
    table = process_table()
    return [pid for pid, row in processes.items() if pid in table and table[pid][3] == row[3] and table[pid][2] != "Z"]


def still_running(processes: dict[int, tuple[str, int, str, str]], timeout: float = 60) -> list[str]:
    """The names of those processes still running after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [processes[pid][0] for pid in still_running_pids(processes)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def data_dir_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a command on the README's defaults: its own embedded Valkey in ``tmp_path``, whatever Redis
    the suite itself was given (``REDIS_URL``)."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    return {**env, "CARDTABLE_DATA_DIR": str(tmp_path)}


def server_env(tmp_path: Path, ray_address: str | None = None) -> dict[str, str | None]:
    """:func:`data_dir_env` for a :class:`ServerProcess`; its own local Ray, or the one at ``ray_address`` (the
    session's: ``local_ray_address`` in tests/conftest.py) where the test does not look at the server's Ray."""
    return {"CARDTABLE_DATA_DIR": str(tmp_path), "REDIS_URL": None, "RAY_ADDRESS": ray_address}


def whist_job(count: int, chunk_size: int = 0) -> sim_pb2.JobSpec:
    return sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=count, seed=5,
                           chunk_size=chunk_size)


def final_job(jobs: simulation_service_pb2_grpc.SimulationServiceStub, job_id: str) -> sim_pb2.Job:
    return [u.job for u in jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=job_id), timeout=300)][-1]


def test_a_server_runs_job_after_job_and_sigterm_stops_it_within_10_s_leaving_no_process_behind(tmp_path):
    """SIGTERM comes while a job runs on the server's Ray and a job and a match are watched (with the former
    tests/services/test_stopping.py::test_sigterm_stops_serve_within_10_s_while_a_job_runs_on_its_ray_and_watchers_
    stream: one server and one Ray for both)."""
    with ServerProcess(env=server_env(tmp_path)) as server:
        channel = grpc.insecure_channel(server.target)
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        first = final_job(jobs, jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(3000))).job.job_id)

        # The first job's driver thread has ended: the second job still has a Ray to run on, and can be cancelled.
        second = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(10_000_000, chunk_size=2000))).job
        watch = jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=second.job_id), timeout=300)
        next(update for update in watch if update.job.progress.units_done > 0)
        jobs.CancelJob(sim_pb2.CancelJobRequest(job_id=second.job_id))
        cancelled = [update.job for update in watch][-1]
        third = final_job(jobs, jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(3000))).job.job_id)

        assert [first.state, cancelled.state, third.state] == [
            sim_pb2.JOB_STATE_SUCCEEDED, sim_pb2.JOB_STATE_CANCELLED, sim_pb2.JOB_STATE_SUCCEEDED]
        assert 0 < cancelled.progress.units_done < 10_000_000
        spec = validate(JobSpec(game="german_whist", policies=("random",), count=3000, seed=5))
        without_ray = comparable(summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], 2), 1.0))
        assert comparable(json.loads(first.results.json)) == without_ray == comparable(json.loads(third.results.json))

        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        games = game_service_pb2_grpc.GameServiceStub(channel).ListGames(game_service_pb2.ListGamesRequest())
        assert "german_whist" in [game.game_id for game in games.games]

        running = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(10_000_000, chunk_size=2000))).job
        watch = jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=running.job_id), timeout=300)
        next(update for update in watch if update.job.progress.units_done > 0)  # a job watcher streams
        live = game_service_pb2_grpc.GameServiceStub(channel)
        person, greedy = game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_PERSON), game_service_pb2.SeatSpec(
            kind=game_service_pb2.SEAT_KIND_BOT, policy="greedy")
        match = live.CreateGame(game_service_pb2.CreateGameRequest(game_id="german_whist", seats=[person, greedy],
                                                                   seed=3, first_dealer=1), timeout=30)
        watching = live.WatchGame(game_service_pb2.WatchGameRequest(match_id=match.match_id), timeout=300)
        next(iter(watching))  # a match watcher streams

        family = descendants(server.process.pid)
        assert {"valkey-server", "raylet", "gcs_server"} <= {row[0] for row in family.values()}
        started = time.monotonic()
        code = server.terminate(timeout=90)
        took = time.monotonic() - started
        assert took < STOP_S, f"SIGTERM took {took:.1f} s (exit status {code})"
        assert code == 0
        channel.close()
    assert still_running(family) == []
    # Only cardtable's own log lines: no native stack dump on SIGTERM, no gRPC fork notices, no Ray warnings.
    assert [line for line in server.log_lines if "msg" not in line] == []
    # The stop, in order: the running job left as it was for the next server (test_a_stopped_server_leaves_its_job_...)
    said = [(line["msg"], line.get("job_id")) for line in server.log_lines]
    stop = max(index for index, (msg, _) in enumerate(said) if msg == "shutting down")
    assert said[stop:] == [("shutting down", None), ("job left to the next server", running.job_id), ("stopped", None)]


def running_job(store: JobStore, process: subprocess.Popen) -> str:
    """The id of the command's job once it has played some deals."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        records, _ = store.list(1)
        if records and records[0].units_done > 0:
            return records[0].job_id
        time.sleep(0.2)
    raise AssertionError(f"no job got going: {process.poll()=}")


@dataclasses.dataclass
class Interrupted:
    """A command Ctrl-C stopped once its job had played some deals: its exit, what it printed, the job, and the
    embedded Valkey it had started (pid -> process_table row)."""

    returncode: int
    out: str
    err: str
    job_id: str
    valkey: dict[int, tuple[str, int, str, str]]


def interrupt_once_a_job_runs(command: list[str], tmp_path: Path) -> Interrupted:
    # A session of its own: the SIGINT goes to the command's whole process group, as a terminal's Ctrl-C does (heard
    # even when the suite runs where SIGINT is ignored, in the background of a shell without job control).
    process = subprocess.Popen(command, cwd=ROOT, env=data_dir_env(tmp_path), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_until(lambda: (tmp_path / "valkey" / "url").exists() or process.poll() is not None, 120,
                   "the command did not start its Valkey")
        client = redis.Redis.from_url((tmp_path / "valkey" / "url").read_text())
        valkey = {pid: row for pid, row in process_table().items() if pid == int(client.info("server")["process_id"])}
        job_id = running_job(JobStore(client), process)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return Interrupted(process.returncode, out, err, job_id, valkey)


def test_ctrl_c_cancels_a_simulation_and_stops_the_embedded_store(tmp_path):
    command = [CARDTABLE, "simulate", "german_whist", "--deals", "10000000", "--policies", "random", "--seed", "1",
               "--chunk-size", "2000"]
    done = interrupt_once_a_job_runs(command, tmp_path)
    out, err, job_id = done.out, done.err, done.job_id
    assert done.returncode == 130, err
    assert "Traceback" not in out + err and "Ray" not in err
    [line] = err.splitlines()
    assert line.startswith(f"{job_id} cancelled (interrupted): ") and line.endswith(" of 10,000,000 played")
    # the command stopped its store, having recorded the job
    assert done.valkey and still_running(done.valkey, timeout=0) == []
    with EmbeddedValkey(tmp_path) as store:
        record = JobStore(redis.Redis.from_url(store.url)).get(job_id)
    assert record.state == "cancelled" and record.error == "interrupted" and 0 < record.units_done < 10_000_000


def test_ctrl_c_cancels_a_tournament_and_its_running_job(tmp_path):
    """Ctrl-C stops the tournament, not only its job: recorded as cancelled, so no server resumes it later."""
    command = [CARDTABLE, "tournament", "german_whist", "--policies", "random,greedy", "--deals", "10000000", "--seed",
               "1", "--chunk-size", "2000"]
    done = interrupt_once_a_job_runs(command, tmp_path)
    out, err, job_id = done.out, done.err, done.job_id
    assert done.returncode == 130, err
    assert "Traceback" not in out + err
    tournament_id = out.split(":", 1)[0]
    assert tournament_id.startswith("tournament-"), out
    job_line, tournament_line = err.splitlines()
    assert job_line.startswith(f"{job_id} cancelled (interrupted): ")
    assert tournament_line == f"{tournament_id} cancelled (interrupted)"
    with EmbeddedValkey(tmp_path) as store:
        jobs = JobStore(redis.Redis.from_url(store.url))
        record = load_tournament(jobs, tournament_id)
        assert record is not None and record["state"] == "cancelled" and record["jobs"] == [job_id]
        assert unfinished_tournaments(jobs) == [] and jobs.get(job_id).state == "cancelled"


@contextlib.contextmanager
def live_driver(store: JobStore, job_id: str) -> Iterator[None]:
    """A driver elsewhere holds the job's lease, renewed as a live driver does, until the block ends."""
    driver, stop = "another-server:1", threading.Event()
    assert store.claim(job_id, driver)

    def renew() -> None:
        while not stop.wait(1.0):
            store.renew(job_id, driver)

    renewer = threading.Thread(target=renew, daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        store.release(job_id, driver)


def test_a_stopped_server_leaves_its_job_to_the_next_which_resumes_only_jobs_whose_driver_is_gone(
        tmp_path, local_ray_address):
    with EmbeddedValkey(tmp_path) as valkey:
        store = JobStore(redis.Redis.from_url(valkey.url))
        with ServerProcess(env=server_env(tmp_path, local_ray_address)) as first:
            channel = grpc.insecure_channel(first.target)
            jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
            left = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(20_000, chunk_size=1000))).job.job_id
            watch = jobs.WatchJob(sim_pb2.WatchJobRequest(job_id=left), timeout=300)
            next(update for update in watch if update.job.progress.units_done > 0)
            channel.close()
            assert first.terminate(timeout=90) == 0
        # Stopped, the server's driver left the job as it was (not failed) and let go of it.
        assert store.get(left).state == "running" and not store.has_driver(left)
        held = store.create(store.get(left).spec)
        store.set_state(held.job_id, "running")
        with live_driver(store, held.job_id), ServerProcess(env=server_env(tmp_path, local_ray_address)) as second:
            channel = grpc.insecure_channel(second.target)
            jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
            resumed = final_job(jobs, left)
            channel.close()
            assert second.terminate(timeout=90) == 0
        assert resumed.state == sim_pb2.JOB_STATE_SUCCEEDED and resumed.results.units == 20_000
        assert store.get(held.job_id).state == "running"
    named = [line for line in second.log_lines if line.get("msg") == "resuming job"]
    assert [line["job_id"] for line in named] == [left], "\n".join(json.dumps(line) for line in second.log_lines)


def simulate_against(tmp_path: Path, *backend: str) -> str:
    """Run a small simulation against ``backend``, which does not answer: it fails with one line (returned), within
    seconds rather than minutes, and leaves no job in the store."""
    run = subprocess.run([CARDTABLE, "simulate", "german_whist", "--deals", "100", "--policies", "random", *backend],
                         cwd=ROOT, env=data_dir_env(tmp_path), capture_output=True, text=True, timeout=GIVE_UP_S)
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    with EmbeddedValkey(tmp_path) as store:
        assert JobStore(redis.Redis.from_url(store.url)).list(10) == ([], None)
    return line


@pytest.mark.parametrize(("backend", "message"), [
    (["--redis-url", "redis://127.0.0.1:1"], "Error: cannot reach Redis at redis://127.0.0.1:1: "),
    (["--address", "127.0.0.1:1"], "Error: cannot reach Ray at 127.0.0.1:1: Connection refused"),
    (["--address", "ray://127.0.0.1:1"], "Error: cannot reach Ray at ray://127.0.0.1:1: Connection refused"),
])
def test_an_unreachable_backend_is_one_line_and_leaves_no_job(tmp_path, backend, message):
    assert simulate_against(tmp_path, *backend).startswith(message)


def test_an_address_where_something_else_answers_is_no_ray(tmp_path, redis_url):
    redis_at = urlsplit(redis_url)
    address = f"{redis_at.hostname}:{redis_at.port}"  # a Redis: Ray's GCS has the same default port, 6379
    line = simulate_against(tmp_path, "--address", address)
    assert line == f"Error: cannot reach Ray at {address}: something else answers there (not a Ray cluster)"


def test_a_reader_that_goes_away_ends_a_stream_quietly(tmp_path):
    env = data_dir_env(tmp_path)
    fixture = ROOT / "tests" / "fixtures" / "replays" / "belote-3p-match.ctr"
    imported = subprocess.run([CARDTABLE, "replay", "import", str(fixture)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)
    replay_id = imported.stdout.strip()
    assert imported.returncode == 0 and replay_id, imported.stderr
    # `cardtable replay stream ID | head -2`: the reader closes the pipe while moves are still coming.
    stream = subprocess.Popen([CARDTABLE, "replay", "stream", replay_id, "--delay", "0.05"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert stream.stdout.readline().startswith(f"{replay_id}: belote")
    assert stream.stdout.readline()
    stream.stdout.close()
    assert stream.wait(timeout=120) == 0
    assert stream.stderr.read() == ""


def test_serve_on_a_port_in_use_is_one_line(grpc_server, grpc_redis_url):
    result = subprocess.run([CARDTABLE, "serve", "--port", str(grpc_server.port), "--redis-url", grpc_redis_url],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"Error: cannot bind 127.0.0.1:{grpc_server.port} (is the port in use?)" in result.stderr.splitlines()
