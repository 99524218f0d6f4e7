"""A bot's decision has a budget on a real server: a bot whose parameters ask far past it is refused where it is
named (a live match's seat, a job, a tournament) with the limit in the message, and one that asks somewhat more is
cut by it, playing the same moves for the same seed."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_harness import ServerThread

from engine.budget import Budget
from services.app.budgets import DEFAULT_BOT_WORK, REFUSE_FACTOR
from services.app.matches import BOT, LiveMatch, Seat
from services.generated.cardtable.v1 import game_service_pb2 as game_pb2
from services.generated.cardtable.v1 import game_service_pb2_grpc, simulation_service_pb2_grpc
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.server import ServerConfig

BOMB = "pimc:samples=10000:rollouts=1000:dd_cards=52"


def bot(policy: str) -> game_pb2.SeatSpec:
    return game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_BOT, policy=policy)


PERSON = game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_PERSON)


def refusal(call: grpc.UnaryUnaryMultiCallable, request: object) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value.details()


def test_a_bot_asking_far_past_the_budget_is_refused_where_it_is_named(games, channel):
    limit = f"more than {REFUSE_FACTOR * DEFAULT_BOT_WORK:,}, {REFUSE_FACTOR} times this server's bot budget of " \
            f"{DEFAULT_BOT_WORK:,} (--bot-budget); lower samples, rollouts or dd_cards"
    live = refusal(games.CreateGame, game_pb2.CreateGameRequest(game_id="german_whist", seats=[PERSON, bot(BOMB)]))
    assert live.startswith(f"seat 1: {BOMB} asks about 19,811,172,900,000 work units a decision (samples 10,000")
    assert limit in live
    params = game_pb2.SeatSpec(kind=game_pb2.SEAT_KIND_BOT, policy="ismcts", params={"iters": "1000000"})
    assert "lower iters" in refusal(games.CreateGame, game_pb2.CreateGameRequest(game_id="german_whist",
                                                                                 seats=[params, PERSON]))

    sims = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    jobs_before = sims.ListJobs(sim_pb2.ListJobsRequest(page_size=1000)).jobs
    policies = [sim_pb2.PolicySpec(name="random"), sim_pb2.PolicySpec(name=BOMB)]
    job = sim_pb2.JobSpec(game_id="german_whist", policies=policies, count=10**9, seed=1)
    assert limit in refusal(sims.SubmitJob, sim_pb2.SubmitJobRequest(spec=job))
    tournament = sim_pb2.TournamentSpec(game_id="german_whist", policies=policies, deals=10, seed=1)
    assert limit in refusal(sims.SubmitTournament, sim_pb2.SubmitTournamentRequest(spec=tournament))
    assert sims.ListJobs(sim_pb2.ListJobsRequest(page_size=1000)).jobs == jobs_before  # nothing was stored


@pytest.fixture(scope="module")
def small_budget_server(grpc_redis_url: str) -> Iterator[ServerThread]:
    """A server whose bots spend 20,000 work units a decision and have no time limit: its cuts depend on the seed
    alone."""
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, bot_budget=Budget(work=20_000))) as server:
        yield server


def test_a_bot_asking_more_than_the_budget_is_cut_and_plays_the_same_moves_for_the_same_seed(small_budget_server):
    stub = game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(small_budget_server.target))
    # reckoned at 37,100 units a decision (accepted: at most 10 times the budget), about 90,000 in German Whist's
    # early tricks: cut at 20,000
    seats = [bot("pimc:samples=35:rollouts=4:dd_cards=0"), bot("random")]
    request = game_pb2.CreateGameRequest(game_id="german_whist", seats=seats, seed=8, first_dealer=1)  # one deal
    first = stub.CreateGame(request, timeout=600)
    again = stub.CreateGame(request, timeout=600)
    assert first.match_id != again.match_id
    served = [(m.seat, m.action) for m in first.moves]
    assert served == [(m.seat, m.action) for m in again.moves]
    labels = [Seat(BOT, spec.policy) for spec in seats]
    here = LiveMatch.create("german_whist", labels, {}, 8, 1, budget=Budget(work=20_000))[2]
    unbounded = LiveMatch.create("german_whist", labels, {}, 8, 1)[2]
    assert served == [(p.seat, p.action) for p in here] != [(p.seat, p.action) for p in unbounded]
