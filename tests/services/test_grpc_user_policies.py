"""Policies of one's own over gRPC (issue 16): a seat's bot named by import path, with parameters, plays on a real
server that allows its module (``--allow-policies``) and can import it; an allowed one it cannot import is
INVALID_ARGUMENT naming the policy."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_harness import ServerThread
from matchplay import PERSON, create, play_to_end

import engine
from services.app.allowed_policies import PolicyAllowList
from services.generated.cardtable.v1 import game_service_pb2
from services.server import ServerConfig

pytestmark = pytest.mark.usefixtures("user_policies")
CAUTIOUS = "mybots.cautious:Cautious"


@pytest.fixture(scope="module")
def grpc_server(grpc_redis_url: str) -> Iterator[ServerThread]:
    """This module's server, started as ``cardtable serve --allow-policies mybots,nosuchbots``."""
    allowed = PolicyAllowList(("mybots", "nosuchbots"))
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, allow_policies=allowed)) as server:
        yield server


def test_a_bot_by_import_path_with_parameters_plays_a_match(games):
    seat = game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_BOT, policy=CAUTIOUS, params={"risk": "0.25"})
    created, tokens = create(games, [PERSON, seat], seed=4)
    responses = play_to_end(games, created.match_id, tokens, choose=lambda legal: legal[0])
    moves = list(created.moves) + [m for r in responses for m in r.moves]
    state = engine.new_match("tablanette", seed=4, players=2, options={"max_deals": 1})
    for move in moves:
        state.apply(move.action)
    assert state.is_terminal and any(move.seat == 1 for move in moves)


def test_a_bot_the_server_cannot_import_is_refused_by_name(games):
    seat = game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_BOT, policy="nosuchbots.clever:Clever")
    with pytest.raises(grpc.RpcError) as refused:
        create(games, [PERSON, seat])
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "policy 'nosuchbots.clever:Clever': cannot import 'nosuchbots.clever'" in refused.value.details()
