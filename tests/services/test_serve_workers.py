"""`cardtable serve --workers 2`: two processes on one port both serve, and a match created through one is played
through the other and then through the first again (whose cached copy is behind Redis by then: the compare-and-set
on the version, not the cache, decides). Which worker takes a connection is the kernel's choice (SO_REUSEPORT), so
the test stops one worker (SIGSTOP) while it needs the other: the calls that land on the stopped one time out and
are made again on a new connection."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import grpc
from grpc_harness import ServerProcess
from waiting import wait_until

from services.generated.cardtable.v1 import game_service_pb2 as pb
from services.generated.cardtable.v1 import game_service_pb2_grpc

T = TypeVar("T")
ATTEMPT_TIMEOUT_S = 2.0


def _workers(parent: int) -> list[int]:
    return [int(pid) for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]


@contextmanager
def _stopped(pid: int) -> Iterator[None]:
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def _through_a_new_connection(target: str, call: Callable[[game_service_pb2_grpc.GameServiceStub], T]) -> T:
    """``call`` on fresh connections until one lands on a worker that answers (each its own subchannel)."""
    def attempt() -> T | None:
        with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            try:
                return call(game_service_pb2_grpc.GameServiceStub(channel))
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise
                return None

    return wait_until(attempt, 60, "no worker answered")


def test_a_match_created_through_one_worker_is_played_through_the_other(grpc_redis_url: str) -> None:
    with ServerProcess("--redis-url", grpc_redis_url, "--grace", "0.2", "--workers", "2") as server:
        wait_until(lambda: sum(line.get("msg") == "serving" for line in server.log_lines) == 2, 30,
                   f"two workers did not both serve: {server.log_lines}")
        first, second = _workers(server.process.pid)
        with _stopped(first):
            created = _through_a_new_connection(server.target, lambda games: games.CreateGame(pb.CreateGameRequest(
                game_id="tablanette", seed=3, seats=[pb.SeatSpec(kind=pb.SEAT_KIND_PERSON),
                                                     pb.SeatSpec(kind=pb.SEAT_KIND_BOT, policy="random")]),
                timeout=ATTEMPT_TIMEOUT_S))
        token = created.seat_tokens[0].token
        view = _through_a_new_connection(server.target, lambda games: games.GetObservation(pb.GetObservationRequest(
            match_id=created.match_id, seat=0, seat_token=token), timeout=ATTEMPT_TIMEOUT_S)).view
        for worker in (second, first, second):  # the worker not stopped plays the move
            before = view.move_number
            with _stopped(worker):
                view = _through_a_new_connection(server.target, lambda games, view=view: games.Act(pb.ActRequest(
                    match_id=created.match_id, seat=0, seat_token=token, action=view.legal_actions[0],
                    expected_move_number=view.move_number), timeout=ATTEMPT_TIMEOUT_S)).view
            assert view.move_number > before and not view.game_over
