"""A real server whose own Redis goes away and comes back: calls answer UNAVAILABLE (one warning line each, no
traceback) while it is away, the first call after it is back works, a running simulation job survives a short
outage, and health answers NOT_SERVING while it is away (the web's /healthz 503). Each test starts its own
redis-server on a free port, stops it and starts it again on that port (its data saved on disk in between, as a
restarted Redis keeps it)."""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from grpc_harness import CARDTABLE, ROOT, ServerThread
from grpc_health.v1 import health_pb2, health_pb2_grpc
from waiting import wait_until

from services.app.jobs import JobDrivers
from services.generated.cardtable.v1 import game_service_pb2 as game_pb2
from services.generated.cardtable.v1 import (
    game_service_pb2_grpc,
    replay_service_pb2,
    replay_service_pb2_grpc,
    simulation_service_pb2_grpc,
)
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.server import ServerConfig
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate

REDIS_SERVER = shutil.which("redis-server") or shutil.which("valkey-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs a redis-server (or valkey-server) to stop")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisProcess:
    """A redis-server of this test's own, on a fixed port, that can be stopped and started again (data kept)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--dbfilename", "dump.rdb"], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with redis.Redis(port=self.port, socket_connect_timeout=0.2) as client:
                    client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server, its data saved (SHUTDOWN SAVE), as a Redis restarted for maintenance."""
        if self.process is None:
            return
        with redis.Redis(port=self.port) as client, contextlib.suppress(redis.ConnectionError):
            client.shutdown(save=True)
        self.process.wait(timeout=10)
        self.process = None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def served(own_redis: RedisProcess) -> Iterator[tuple[RedisProcess, grpc.Channel]]:
    with ServerThread(ServerConfig(port=0, redis_url=own_redis.url)) as server, \
            grpc.insecure_channel(server.target) as channel:
        yield own_redis, channel
        if own_redis.process is None:  # the server stops with its Redis there
            own_redis.start()


PERSON = game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_PERSON)


def new_match(games: game_service_pb2_grpc.GameServiceStub) -> game_pb2.CreateGameResponse:
    return games.CreateGame(game_pb2.CreateGameRequest(game_id="tablanette", seats=[PERSON, PERSON]), timeout=10)


def observe(match: game_pb2.CreateGameResponse) -> game_pb2.GetObservationRequest:
    return game_pb2.GetObservationRequest(match_id=match.match_id, seat=0, seat_token=match.seat_tokens[0].token)


def test_calls_answer_unavailable_while_redis_is_down_and_log_one_line(served, caplog):
    redis_server, channel = served
    games = game_service_pb2_grpc.GameServiceStub(channel)
    jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
    match = new_match(games)
    redis_server.stop()

    calls = {
        "CreateGame": lambda: new_match(games),
        "GetObservation": lambda: games.GetObservation(observe(match), timeout=10),
        "WatchGame": lambda: list(games.WatchGame(game_pb2.WatchGameRequest(match_id=match.match_id), timeout=10)),
        "ListJobs": lambda: jobs.ListJobs(sim_pb2.ListJobsRequest(), timeout=10),
        "GetJob": lambda: jobs.GetJob(sim_pb2.GetJobRequest(job_id="sim-000000000000"), timeout=10),
        "ListReplays": lambda: replays.ListReplays(replay_service_pb2.ListReplaysRequest(), timeout=10),
    }
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="cardtable"):
        answers = {}
        for name, call in calls.items():
            started = time.monotonic()
            with pytest.raises(grpc.RpcError) as raised:
                call()
            answers[name] = (raised.value.code(), raised.value.details(), time.monotonic() - started)
    for name, (code, details, seconds) in answers.items():
        assert code == grpc.StatusCode.UNAVAILABLE, (name, code, details)
        assert details.startswith(f"cannot reach Redis at {redis_server.url}: "), (name, details)
        assert "\n" not in details and seconds < 5, (name, details, seconds)
    records = [r for r in caplog.records if r.name.startswith("cardtable")]
    assert records and all(r.exc_info is None and r.levelno == logging.WARNING for r in records), [
        (r.name, r.levelname, r.getMessage(), bool(r.exc_info)) for r in records]
    assert all("\n" not in r.getMessage() for r in records)


def test_the_first_call_after_redis_comes_back_works(served):
    redis_server, channel = served
    games = game_service_pb2_grpc.GameServiceStub(channel)
    jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
    match = new_match(games)
    jobs.ListJobs(sim_pb2.ListJobsRequest(), timeout=10)
    replays.ListReplays(replay_service_pb2.ListReplaysRequest(), timeout=10)
    redis_server.stop()
    redis_server.start()

    observed = games.GetObservation(observe(match), timeout=10)
    assert observed.view.seat == 0
    new_match(games)
    jobs.ListJobs(sim_pb2.ListJobsRequest(), timeout=10)
    replays.ListReplays(replay_service_pb2.ListReplaysRequest(), timeout=10)


def whist_job(count: int, chunk_size: int) -> sim_pb2.JobSpec:
    return sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=count, seed=5,
                           chunk_size=chunk_size)


def wait_for(jobs: simulation_service_pb2_grpc.SimulationServiceStub, job_id: str, test, timeout: float) -> sim_pb2.Job:
    deadline = time.monotonic() + timeout
    while True:
        try:
            job = jobs.GetJob(sim_pb2.GetJobRequest(job_id=job_id), timeout=10).job
            if test(job):
                return job
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            job = None
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; the job is {job}")
        time.sleep(0.1)


@pytest.mark.usefixtures("local_ray")
def test_a_running_job_survives_a_short_redis_outage(served, caplog):
    redis_server, channel = served
    jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    job = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(20_000, 1000)), timeout=10).job
    wait_for(jobs, job.job_id, lambda j: j.progress.units_done > 0, 120)
    redis_server.stop()
    wait_until(lambda: any(r.getMessage() == "job driver waiting for Redis" and getattr(r, "job_id", None) == job.job_id
                           for r in caplog.records), 60, "the job's driver did not meet the outage")
    redis_server.start()
    final = wait_for(jobs, job.job_id, lambda j: j.state not in (sim_pb2.JOB_STATE_QUEUED, sim_pb2.JOB_STATE_RUNNING),
                     90)
    assert (final.state, final.error) == (sim_pb2.JOB_STATE_SUCCEEDED, "")
    assert final.progress.units_done == final.results.units == 20_000


@pytest.mark.usefixtures("local_ray")
def driver_threads(job_id: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == f"driver-{job_id}"]


@pytest.mark.usefixtures("local_ray")
def test_a_driver_gives_up_cleanly_when_redis_stays_away(served, monkeypatch, caplog):
    monkeypatch.setattr("workers.jobstore.REDIS_PATIENCE_S", 1.0)
    redis_server, channel = served
    jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    job = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(10_000_000, 2000)), timeout=10).job
    wait_for(jobs, job.job_id, lambda j: j.progress.units_done > 0, 120)
    redis_server.stop()
    deadline = time.monotonic() + 30
    while driver_threads(job.job_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert driver_threads(job.job_id) == []  # it ended, and was not left holding the job
    redis_server.start()

    left = jobs.GetJob(sim_pb2.GetJobRequest(job_id=job.job_id), timeout=10).job
    assert (left.state, left.error, left.HasField("results")) == (sim_pb2.JOB_STATE_RUNNING, "", False)
    assert 0 < left.progress.units_done < 10_000_000
    messages = [(r.levelname, r.getMessage(), bool(r.exc_info)) for r in caplog.records
                if r.name == "cardtable.simulations"]
    assert ("WARNING", "job left to the next server", False) in messages, messages
    assert not any(level == "ERROR" or traced for level, _, traced in messages), messages


def test_a_job_cancelled_while_it_had_no_driver_keeps_its_finished_chunks(own_redis):
    store = JobStore(redis.Redis.from_url(own_redis.url))
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=3000, seed=5, chunk_size=1000))
    record = store.create(spec)
    first = next(iter(job_chunks(spec)))
    store.set_state(record.job_id, "running", started=time.time())
    store.save_chunk(record.job_id, play_chunk(spec, first))
    store.request_cancel(record.job_id)  # and no driver: the server that ran it is gone

    with ServerThread(ServerConfig(port=0, redis_url=own_redis.url)) as server, \
            grpc.insecure_channel(server.target) as channel:
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        final = wait_for(jobs, record.job_id, lambda j: j.state != sim_pb2.JOB_STATE_RUNNING, 60)
    assert final.state == sim_pb2.JOB_STATE_CANCELLED
    assert final.progress.units_done == final.results.units == first.count
    assert json.loads(final.results.json)["units"] == first.count


@pytest.mark.usefixtures("local_ray")
def test_a_running_server_adopts_a_job_whose_driver_died(own_redis, monkeypatch):
    monkeypatch.setattr("services.app.jobs.ADOPT_INTERVAL_S", 0.5, raising=False)
    rounds: list[list[str]] = []  # what each of the server's rounds of adopt_orphans adopted
    adopt = JobDrivers.adopt_orphans

    def noted_round(drivers: JobDrivers) -> list[str]:
        rounds.append(adopt(drivers))
        return rounds[-1]

    monkeypatch.setattr(JobDrivers, "adopt_orphans", noted_round)
    store = JobStore(redis.Redis.from_url(own_redis.url))
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=2000, seed=5, chunk_size=1000))
    record = store.create(spec)
    store.set_state(record.job_id, "running", started=time.time())
    assert store.claim(record.job_id, "killed-server:1")  # a server killed (kill -9) while it drove the job
    with ServerThread(ServerConfig(port=0, redis_url=own_redis.url)) as server, \
            grpc.insecure_channel(server.target) as channel:
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        # two rounds: enough to adopt a job seen without a driver (twice in a row), had the lease been ignored
        wait_until(lambda: len(rounds) >= 2, 30, "the server did not look for jobs to adopt twice")
        assert jobs.GetJob(sim_pb2.GetJobRequest(job_id=record.job_id), timeout=10).job.state == \
            sim_pb2.JOB_STATE_RUNNING  # started within the dead driver's lease: it skipped the job
        assert not any(record.job_id in adopted for adopted in rounds)
        store.redis.pexpire(store._driver(record.job_id), 1)  # the lease lapses (as it does DRIVER_LEASE_SECONDS on)
        final = wait_for(jobs, record.job_id, lambda j: j.state != sim_pb2.JOB_STATE_RUNNING, 30)
    assert (final.state, final.error) == (sim_pb2.JOB_STATE_SUCCEEDED, "")
    assert final.results.units == 2000


# ---- health follows Redis ------------------------------------------------------------------------------------------

HEALTH_SERVICES = ["", "cardtable.v1.GameService", "cardtable.v1.ReplayService", "cardtable.v1.SimulationService"]


def health_becomes(health: health_pb2_grpc.HealthStub, status: int, since: float, timeout: float = 10) -> float:
    """Poll every service's health until each is ``status``; returns the seconds from ``since`` (monotonic)."""
    while True:
        answers = [health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5).status
                   for name in HEALTH_SERVICES]
        if answers == [status] * len(HEALTH_SERVICES):
            return time.monotonic() - since
        assert time.monotonic() - since < timeout, f"health is {answers} after {timeout} s, not {status}"
        time.sleep(0.05)


def test_health_is_not_serving_while_redis_is_away_and_serving_once_it_is_back(served):
    redis_server, channel = served
    health = health_pb2_grpc.HealthStub(channel)
    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    health_becomes(health, serving, time.monotonic(), timeout=0)
    watched: list[int] = []
    watch = health.Watch(health_pb2.HealthCheckRequest(service=""))

    def read_watch() -> None:
        with contextlib.suppress(grpc.RpcError):  # cancelled at the end
            watched.extend(answer.status for answer in watch)

    threading.Thread(target=read_watch, daemon=True).start()

    killed = time.monotonic()
    redis_server.kill()  # gone at once (a SHUTDOWN takes seconds to save), so the figure is health's own delay
    away_s = health_becomes(health, not_serving, killed)
    starting = time.monotonic()
    redis_server.start()
    back_s = health_becomes(health, serving, starting)
    print(f"\nhealth NOT_SERVING {away_s:.2f} s after Redis was killed, SERVING {back_s:.2f} s after its restart began")

    deadline = time.monotonic() + 10
    while len(watched) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    watch.cancel()
    assert watched == [serving, not_serving, serving]


def test_the_web_healthz_is_503_while_redis_is_away(own_redis):
    port = free_port()
    web = subprocess.Popen([CARDTABLE, "web", "--port", str(port), "--redis-url", own_redis.url], cwd=ROOT,
                           stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert healthz(url) == (200, {"status": "SERVING"})
                break
            except urllib.error.URLError:
                assert web.poll() is None and time.monotonic() < deadline, "cardtable web did not start"
                time.sleep(0.1)
        own_redis.stop()
        assert healthz(url) == (503, {"status": "NOT_SERVING", "reason": f"cannot reach Redis at {own_redis.url}"})
        own_redis.start()
        assert healthz(url) == (200, {"status": "SERVING"})
    finally:
        web.terminate()
        web.wait(timeout=30)


def healthz(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())
