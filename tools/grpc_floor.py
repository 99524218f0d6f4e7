"""What the gRPC layer alone costs per unary call on the server's stack (grpc.aio on uvloop, the server's options and
interceptors): a server process whose GameService.Act answers a canned ActResponse of a real Act's size (a
Tablanette seat's view after two moves) without touching Redis or the engine, and ``--clients`` concurrent callers
of Act in ``--client-processes`` processes of their own (aio clients on uvloop), for ``--seconds``.

    python tools/grpc_floor.py                        # 16 clients in 2 processes, the server's interceptors
    python tools/grpc_floor.py --bare                 # no interceptors, default options: grpc.aio's own floor
    python tools/grpc_floor.py --workers 2            # two server processes on one port (SO_REUSEPORT)
    python tools/grpc_floor.py --sync-server          # grpc's synchronous server (a thread pool), no interceptors

    python tools/grpc_floor.py --calls 2500 --seconds 600 \
        --server-prefix "valgrind --tool=callgrind --callgrind-out-file=/tmp/floor.2500"   # and --calls 500:
    # the server's instructions per call = (total of 2500 calls - total of 500) / 2000, its start-up left out

Prints the server's CPU per call (user + system of its processes over the run: steady on a shared machine), the
clients' CPU per call, calls/s and latencies. The server's figure is the floor under any Act in this process model:
``cardtable bench --grpc`` measures the real Act against it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's services/, not the installed one's


def _canned() -> tuple[bytes, bytes]:
    """A real ActRequest's and ActResponse's bytes: a person's move and a random bot's reply in Tablanette."""
    from services.app.matches import LiveMatch, Seat
    from services.app.views import seat_view
    from services.generated.cardtable.v1 import game_service_pb2 as pb

    match, tokens, _ = LiveMatch.create("tablanette", [Seat("person"), Seat("bot", "random")], {}, 7, None, "m" * 16)
    seat = next(iter(tokens))
    action = match.state.legal_actions()[0]
    request = pb.ActRequest(match_id=match.match_id, seat=seat, seat_token=tokens[seat], action=action,
                            expected_move_number=match.version)
    played = match.play_move(seat, tokens[seat], action, match.version) + match.play_bots()
    answer = pb.ActResponse()
    for move in played:
        answer.moves.add(number=move.number, seat=move.seat, action=move.seen_by(seat), deal_index=move.deal_index)
    seat_view(match.state, seat, match.version, history=False, into=answer.view)
    return request.SerializeToString(), answer.SerializeToString()


def _serve(port: int, bare: bool, ready: Any = None, sync_server: bool = False) -> None:
    if sync_server:
        _serve_sync(port, ready)
        return
    import grpc
    import uvloop

    from services.generated.cardtable.v1 import game_service_pb2 as pb
    from services.generated.cardtable.v1 import game_service_pb2_grpc
    from services.rpc import MalformedRequestInterceptor, unary
    from services.server import MAX_MESSAGE_BYTES

    answer = pb.ActResponse.FromString(_canned()[1])

    class Canned(game_service_pb2_grpc.GameServiceServicer):
        redis_address = ""

        async def _act(self, request: pb.ActRequest, context: grpc.aio.ServicerContext) -> pb.ActResponse:
            return answer

        Act = _act if bare else unary(_act)

    async def main() -> None:
        options = [("grpc.so_reuseport", 1)]
        if not bare:
            options.append(("grpc.max_receive_message_length", MAX_MESSAGE_BYTES))
        server = grpc.aio.server(interceptors=[] if bare else [MalformedRequestInterceptor()], options=options)
        game_service_pb2_grpc.add_GameServiceServicer_to_server(Canned(), server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        if ready is not None:
            ready.set()
        else:
            print("serving", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        await server.stop(None)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main())


def _serve_sync(port: int, ready: Any = None, threads: int = 16) -> None:
    """The same canned Act on grpc's synchronous server: a pool of ``threads`` threads runs the handlers."""
    from concurrent.futures import ThreadPoolExecutor

    import grpc

    from services.generated.cardtable.v1 import game_service_pb2 as pb
    from services.generated.cardtable.v1 import game_service_pb2_grpc

    answer = pb.ActResponse.FromString(_canned()[1])

    class Canned(game_service_pb2_grpc.GameServiceServicer):
        def Act(self, request: pb.ActRequest, context: grpc.ServicerContext) -> pb.ActResponse:  # noqa: N802
            return answer

    server = grpc.server(ThreadPoolExecutor(max_workers=threads), options=[("grpc.so_reuseport", 1)])
    game_service_pb2_grpc.add_GameServiceServicer_to_server(Canned(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if ready is not None:
        ready.set()
    else:
        print("serving", flush=True)
    stop.wait()
    server.stop(None)


def _clients(port: int, clients: int, seconds: float, calls: int, request_bytes: bytes, start: Any,
             out: Any, sync: bool = False) -> None:
    import grpc
    import uvloop

    from services.generated.cardtable.v1 import game_service_pb2 as pb
    from services.generated.cardtable.v1 import game_service_pb2_grpc

    request = pb.ActRequest.FromString(request_bytes)

    async def one(deadline: float, latencies: list[float]) -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            act = game_service_pb2_grpc.GameServiceStub(channel).Act
            await act(request, wait_for_ready=True)
            while (now := time.perf_counter()) < deadline and (not calls or len(latencies) < calls):
                await act(request)
                latencies.append(time.perf_counter() - now)

    async def main() -> list[float]:
        latencies: list[float] = []
        start.wait()
        await asyncio.gather(*(one(time.perf_counter() + seconds, latencies) for _ in range(clients)))
        return latencies

    def blocking(deadline: float, latencies: list[float]) -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            act = game_service_pb2_grpc.GameServiceStub(channel).Act
            act(request, wait_for_ready=True)
            while (now := time.perf_counter()) < deadline and (not calls or len(latencies) < calls):
                act(request)
                latencies.append(time.perf_counter() - now)

    cpu = time.process_time()
    if sync:  # a thread per client, blocking calls
        latencies: list[float] = []
        start.wait()
        deadline = time.perf_counter() + seconds
        threads = [threading.Thread(target=blocking, args=(deadline, latencies)) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            latencies = runner.run(main())
    out.put((latencies, time.process_time() - cpu))


def _cpu_s(pid: int) -> tuple[float, float]:
    """A process's user and system CPU seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def run(clients: int, client_processes: int, seconds: float, workers: int, bare: bool, calls: int = 0,
        server_prefix: str = "", sync_clients: bool = False, sync_server: bool = False) -> dict[str, Any]:
    request_bytes, answer_bytes = _canned()
    spawn = multiprocessing.get_context("spawn")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    servers = []
    for _ in range(workers):
        if server_prefix:  # a separate program (under valgrind, say): its own stdout says when it serves
            server = subprocess.Popen([*shlex.split(server_prefix), sys.executable, __file__, "--serve", str(port),
                                       *(["--bare"] if bare else []),
                                       *(["--sync-server"] if sync_server else [])], stdout=subprocess.PIPE, text=True)
            server.stdout.readline()
        else:
            ready = spawn.Event()
            server = spawn.Process(target=_serve, args=(port, bare, ready, sync_server), daemon=True)
            server.start()
            ready.wait(30)
        servers.append(server)
    start, out = spawn.Event(), spawn.Queue()
    shares = [clients // client_processes + (n < clients % client_processes) for n in range(client_processes)]
    per_process = -(-calls // len([s for s in shares if s])) if calls else 0
    callers = [spawn.Process(target=_clients, args=(port, share, seconds, per_process, request_bytes, start, out,
                                                      sync_clients))
               for share in shares if share]
    for caller in callers:
        caller.start()
    time.sleep(1.0)  # the client processes import grpc
    before = [_cpu_s(s.pid) for s in servers]
    started = time.perf_counter()
    start.set()
    results = [out.get() for _ in callers]
    elapsed = time.perf_counter() - started
    after = [_cpu_s(s.pid) for s in servers]
    server_user = sum(a[0] - b[0] for a, b in zip(after, before, strict=True))
    server_cpu = server_user + sum(a[1] - b[1] for a, b in zip(after, before, strict=True))
    for process in callers:
        process.join()
    for server in servers:
        server.terminate()
        server.wait(60) if isinstance(server, subprocess.Popen) else server.join()
    latencies = sorted(t for lat, _ in results for t in lat)
    calls = len(latencies)
    return {"clients": clients, "client_processes": len(callers), "sync_clients": sync_clients,
            "server_workers": workers, "bare": bare, "sync_server": sync_server,
            "request_bytes": len(request_bytes), "answer_bytes": len(answer_bytes), "calls": calls,
            "calls_per_s": round(calls / elapsed, 1),
            "p50_ms": round(latencies[calls // 2] * 1e3, 3), "p99_ms": round(latencies[int(calls * 0.99)] * 1e3, 3),
            "server_cpu_us_per_call": round(server_cpu * 1e6 / calls),
            "server_system_share": round(1 - server_user / server_cpu, 2) if server_cpu else None,
            "client_cpu_us_per_call": round(sum(cpu for _, cpu in results) * 1e6 / calls),
            "load_average_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bare", action="store_true", help="no interceptors nor options: grpc.aio's own floor")
    parser.add_argument("--calls", type=int, default=0, help="stop after about this many calls (0: --seconds)")
    parser.add_argument("--server-prefix", default="", help="run the server under this command (valgrind ...)")
    parser.add_argument("--sync-clients", action="store_true", help="blocking clients, a thread each")
    parser.add_argument("--sync-server", action="store_true",
                        help="grpc's synchronous server (a thread pool) instead of grpc.aio, no interceptors")
    parser.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve, args.bare, sync_server=args.sync_server)
        return
    print(json.dumps(run(args.clients, args.client_processes, args.seconds, args.workers, args.bare, args.calls,
                         args.server_prefix, args.sync_clients, args.sync_server)))


if __name__ == "__main__":
    main()
