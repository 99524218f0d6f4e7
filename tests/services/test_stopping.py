"""Every piece of work stops, through the real command line: a live bot's decision whose client's deadline passes is
abandoned (the server's CPU falls back to idle, the match is as it was); SIGTERM stops `cardtable serve` and
`cardtable web` within 10 s with a search of hours under way and a watcher streaming; SIGKILL of either leaves no
process of theirs behind (the embedded Valkey, the replay builder, multiprocessing's resource tracker, Ray's).

The servers here run with no bot budget (``--bot-budget 0 --bot-time-limit 0``, an operator's choice): the parameter
bomb then runs unbounded, and only the deadline or the stop can end it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_harness import CARDTABLE, ROOT, ServerProcess
from listening import descendants, is_loopback, listeners
from test_lifecycle import data_dir_env, final_job, server_env, still_running, still_running_pids, whist_job

import engine
from services.generated.cardtable.v1 import game_service_pb2 as game_pb2
from services.generated.cardtable.v1 import (
    game_service_pb2_grpc,
    replay_service_pb2,
    replay_service_pb2_grpc,
    simulation_service_pb2_grpc,
)
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2

BOMB = "pimc:samples=10000:rollouts=1000:dd_cards=52"  # hours of search a decision, unbounded
UNBOUNDED = ("--bot-budget", "0", "--bot-time-limit", "0")
STOP_S = 10  # the most SIGTERM may take, whatever runs
# CPU seconds an idle server may use in IDLE_WINDOW_S: it uses under 0.1; a search, up to a CPU second a second (half
# of that or less on a busy machine)
IDLE_CPU_S = 0.15
IDLE_WINDOW_S = 2.0


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` used so far, all its threads (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_in_window(pid: int) -> float:
    before = cpu_seconds(pid)
    time.sleep(IDLE_WINDOW_S)
    return cpu_seconds(pid) - before


def idles_within(pid: int, timeout: float) -> tuple[bool, float]:
    """Whether ``pid`` used at most IDLE_CPU_S over one IDLE_WINDOW_S within ``timeout`` seconds, and the CPU of
    the last window looked at."""
    deadline = time.monotonic() + timeout
    while True:
        used = cpu_in_window(pid)
        if used <= IDLE_CPU_S or time.monotonic() > deadline:
            return used <= IDLE_CPU_S, used


def busy(pid: int) -> float:
    """The CPU seconds ``pid`` used in IDLE_WINDOW_S, once it works (a search uses about one a second) or 10 s
    passed."""
    deadline = time.monotonic() + 10
    while (used := cpu_in_window(pid)) <= 2 * IDLE_CPU_S and time.monotonic() < deadline:
        pass
    return used


def bot(policy: str) -> game_pb2.SeatSpec:
    return game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_BOT, policy=policy)


PERSON = game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_PERSON)


def in_background(call) -> tuple[threading.Thread, list]:
    """``call()`` in a thread; the list gets its result or the exception it raised."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:  # noqa: BLE001  (the test looks at it)
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def stop_time(process: subprocess.Popen, timeout: float = 60) -> float:
    """SIGTERM, then the seconds until the process exited (``timeout`` if it did not; it is killed then)."""
    started = time.monotonic()
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return timeout
    return time.monotonic() - started


def analysis_past_its_deadline_is_abandoned(channel: grpc.Channel, pid: int) -> None:
    games = game_service_pb2_grpc.GameServiceStub(channel)
    played = games.CreateGame(game_pb2.CreateGameRequest(game_id="belote", seats=[bot("greedy")] * 4, seed=3,
                                                         first_dealer=0), timeout=60)
    snapshot = next(iter(games.WatchGame(game_pb2.WatchGameRequest(match_id=played.match_id), timeout=60)))
    assert played.view.game_over and snapshot.replay_id
    replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
    # a whole match of 8 deals, each searched back from its last trick to one past 10,000,000 nodes: minutes
    with pytest.raises(grpc.RpcError) as caught:
        replays.Analyze(replay_service_pb2.AnalyzeRequest(replay_id=snapshot.replay_id, max_nodes=10_000_000),
                        timeout=1)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    idle, used = idles_within(pid, timeout=10)
    assert idle, f"the server used {used:.2f} CPU s in {IDLE_WINDOW_S} s, 10 s after the analysis' deadline passed"


def test_a_bot_decision_or_an_analysis_past_its_deadline_is_abandoned_and_sigterm_stops_a_bomb(tmp_path):
    """(With the former test_an_analysis_past_its_deadline_is_abandoned: one server for both deadlines; the bot
    budget a server is given plays no part in an analysis.)"""
    server = ServerProcess(*UNBOUNDED, "--grace", "2", env=server_env(tmp_path)).start()
    try:
        pid = server.process.pid
        channel = grpc.insecure_channel(server.target)
        games = game_service_pb2_grpc.GameServiceStub(channel)
        # German Whist dealt by seat 1: the person at seat 0 leads, the bomb answers
        created = games.CreateGame(game_pb2.CreateGameRequest(game_id="german_whist", seats=[PERSON, bot(BOMB)],
                                                              seed=3, first_dealer=1), timeout=30)
        token = created.seat_tokens[0].token
        observed = games.GetObservation(game_pb2.GetObservationRequest(match_id=created.match_id, seat=0,
                                                                       seat_token=token), timeout=30).view
        act = game_pb2.ActRequest(match_id=created.match_id, seat=0, seat_token=token,
                                  action=observed.legal_actions[0], expected_move_number=0)
        with pytest.raises(grpc.RpcError) as caught:
            games.Act(act, timeout=1)
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED

        idle, used = idles_within(pid, timeout=10)
        assert idle, f"the server used {used:.2f} CPU s in {IDLE_WINDOW_S} s, 10 s after the deadline passed"
        again = games.GetObservation(game_pb2.GetObservationRequest(match_id=created.match_id, seat=0,
                                                                    seat_token=token), timeout=30).view
        assert (again.move_number, again.current_player, list(again.legal_actions)) == (
            0, 0, list(observed.legal_actions))  # the move was not played: the match is as it was
        analysis_past_its_deadline_is_abandoned(channel, pid)

        # no deadline this time: the bomb runs until the server stops
        thread, outcome = in_background(lambda: games.Act(act, timeout=120))
        assert busy(pid) > 2 * IDLE_CPU_S, outcome
        started = time.monotonic()
        code = server.terminate(timeout=60)
        took = time.monotonic() - started
        assert took < STOP_S, f"SIGTERM took {took:.1f} s (exit status {code})"  # in order, or by the last resort
        thread.join(30)
        assert isinstance(outcome[0], grpc.RpcError) and outcome[0].code() == grpc.StatusCode.UNAVAILABLE
    finally:
        if server.process.poll() is None:
            server.process.kill()
    said = [line["msg"] for line in server.log_lines if "msg" in line][-2:]
    assert said in (["shutting down", "stopped"], ["shutting down", "stop overran: exiting now"]), said


def test_the_last_resort_ends_a_process_whose_thread_never_returns():
    """What a server arms when its stop begins (services.lifecycle.exit_after): a thread stuck for ever (a policy
    of one's own in an endless loop) would keep the interpreter alive at exit."""
    stuck = ("import threading, time; from services.lifecycle import exit_after; "
             "threading.Thread(target=time.sleep, args=(3600,)).start(); exit_after(1.0)")
    process = subprocess.Popen([sys.executable, "-c", stuck], cwd=ROOT, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    assert process.wait(timeout=STOP_S) == 1
    assert time.monotonic() - started < STOP_S


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebProcess:
    """``cardtable web`` as a child process on a free port, its own embedded Valkey in ``tmp_path``."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([CARDTABLE, "web", "--port", str(self.port), *args], cwd=ROOT,
                                        env=data_dir_env(tmp_path), stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.call("GET", "/api/games")
                return
            except (ConnectionError, urllib.error.URLError):
                assert self.process.poll() is None and time.monotonic() < deadline, "cardtable web did not start"
                time.sleep(0.2)

    def call(self, method: str, path: str, body: dict | None = None, token: str = "", timeout: float = 30) -> dict:
        headers = {"content-type": "application/json", **({"x-seat-token": token} if token else {})}
        request = urllib.request.Request(self.base + path, method=method, headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_web_abandons_a_bomb_whose_client_hung_up_and_sigterm_stops_it_within_10_s_mid_search(tmp_path):
    web = WebProcess(tmp_path, *UNBOUNDED)
    try:
        seed = next(s for s in range(100) if engine.new_match("german_whist", seed=s, players=2).current_player == 1)
        created = web.call("POST", "/api/matches", {"game": "german_whist", "players": 2, "seat": 1, "policy": BOMB,
                                                    "seed": seed})
        view, token = created["view"], created["token"]
        path = f"/api/matches/{view['match_id']}"
        move = {"seat": 1, "action": view["legal_actions"][0], "expected_move_number": view["move_number"]}
        with pytest.raises(TimeoutError):
            web.call("POST", f"{path}/act", move, token=token, timeout=1)  # the client gives up, and hangs up
        idle, used = idles_within(web.process.pid, timeout=10)
        assert idle, f"cardtable web used {used:.2f} CPU s in {IDLE_WINDOW_S} s, 10 s after its client hung up"
        assert web.call("GET", f"{path}?seat=1", token=token)["view"]["move_number"] == view["move_number"]

        events = urllib.request.urlopen(f"{web.base}{path}/events", timeout=120)
        assert events.readline().startswith(b"event: snapshot")  # a watcher streams
        thread, outcome = in_background(lambda: web.call("POST", f"{path}/act", move, token=token, timeout=120))
        assert busy(web.process.pid) > 2 * IDLE_CPU_S, outcome
        took = stop_time(web.process)
        # stopped in order (uvicorn ends by the signal it was given), not by the last resort (status 1)
        assert took < STOP_S, f"SIGTERM took {took:.1f} s"  # in order, or by the last resort
        thread.join(30)
        assert outcome and not isinstance(outcome[0], dict)  # the move was abandoned, not answered
        events.close()
    finally:
        web.kill()


def assert_none_left(family: dict, what: str) -> None:
    left = still_running(family, timeout=30)
    assert left == [], f"{what} left these running 30 s after SIGKILL: {left}"


def test_a_killed_server_leaves_no_process_behind_and_its_ray_listens_on_loopback_alone(tmp_path):
    """(With tests/services/test_lifecycle.py's former test_a_killed_server_takes_its_ray_with_it: one server, one
    Ray.)"""
    server = ServerProcess(env=server_env(tmp_path)).start()
    family = {}
    try:
        channel = grpc.insecure_channel(server.target)
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        job = final_job(jobs, jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist_job(300))).job.job_id)
        assert job.state == sim_pb2.JOB_STATE_SUCCEEDED
        games = game_service_pb2_grpc.GameServiceStub(channel)
        played = games.CreateGame(game_pb2.CreateGameRequest(game_id="german_whist", seats=[bot("greedy")] * 2,
                                                             seed=4), timeout=60)
        assert played.view.game_over  # a match played to its end: its replay built and saved
        channel.close()
        family = descendants(server.process.pid)
        commands = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in family}
        kinds = {row[0] for row in family.values()}
        assert {"valkey-server", "raylet", "gcs_server"} <= kinds
        for part in (b"spawn_main", b"resource_tracker", b"valkey_watchdog", b"workers.ray_head"):
            assert any(part in command for command in commands.values()), f"no {part.decode()} process"
        [head] = [pid for pid, command in commands.items() if b"workers.ray_head" in command]
        ray = {head: family[head], **descendants(head)}
        assert {"raylet", "gcs_server"} <= {row[0] for row in ray.values()}
        # The server's local Ray, every process of it, and the server (a driver of it) listen on 127.0.0.1 alone.
        found = listeners([server.process.pid, *family])
        assert {"raylet", "gcs_server", "ray::RuntimeEnv"} <= {name for _, name, _ in found}
        assert [entry for entry in found if not is_loopback(entry[2])] == []
        server.kill()
        assert still_running(ray) == []  # the head saw its standard input close, and stopped Ray
        assert_none_left(family, "cardtable serve")
    finally:
        for pid in still_running_pids(family):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_web_server_leaves_no_process_behind(tmp_path):
    web = WebProcess(tmp_path)
    family = {}
    try:
        family = descendants(web.process.pid)
        commands = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in family}
        assert "valkey-server" in {row[0] for row in family.values()}
        for part in (b"spawn_main", b"resource_tracker", b"valkey_watchdog"):
            assert any(part in command for command in commands.values()), f"no {part.decode()} process"
        web.kill()
        assert_none_left(family, "cardtable web")
    finally:
        web.kill()
        for pid in still_running_pids(family):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_serve_with_workers_leaves_no_process_behind(tmp_path):
    """``--workers``: the server processes stop in order when the process that started them is killed."""
    server = ServerProcess("--workers", "2", env=server_env(tmp_path)).start()
    family = {}
    try:
        with grpc.insecure_channel(server.target) as channel:
            games = game_service_pb2_grpc.GameServiceStub(channel)
            assert games.CreateGame(game_pb2.CreateGameRequest(game_id="german_whist", seats=[bot("greedy")] * 2,
                                                               seed=4), timeout=60).view.game_over
        deadline = time.monotonic() + 60
        while len([line for line in server.log_lines if line.get("msg") == "serving"]) < 2:
            assert time.monotonic() < deadline, "the second worker did not start"
            time.sleep(0.2)
        family = descendants(server.process.pid)
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in family]
        assert sum(b"--reuse-port" in command for command in commands) == 2
        assert "valkey-server" in {row[0] for row in family.values()}
        server.kill()
        assert_none_left(family, "cardtable serve --workers 2")
    finally:
        for pid in still_running_pids(family):
            os.kill(pid, signal.SIGKILL)
