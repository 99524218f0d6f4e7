"""Thunee over the API (issue 13): what one seat's move keeps from the others, through generated stubs against a real
server on a loopback port (and a real Redis)."""

from __future__ import annotations

import json

import pytest
from matchplay import PERSON, act, observe, play_to_end

from services.generated.cardtable.v1 import common_pb2, game_service_pb2, replay_service_pb2, replay_service_pb2_grpc


@pytest.fixture
def replays(channel) -> replay_service_pb2_grpc.ReplayServiceStub:
    return replay_service_pb2_grpc.ReplayServiceStub(channel)


def test_the_thunee_trump_card_lies_face_down_to_the_other_seats(games, replays):
    """Thunee 4.5: the trump card laid face down shows as ``trump`` to the other seats and the public, in moves,
    observations and replays; its trumper sees the card."""
    options = {"max_deals": common_pb2.OptionValue(int_value=1)}
    created = games.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="thunee", seats=[PERSON] * 4, seed=3, first_dealer=0, options=options))
    tokens = {t.seat: t.token for t in created.seat_tokens}
    match_id = created.match_id
    while True:
        seat = observe(games, match_id, 0, tokens[0]).current_player
        view = observe(games, match_id, seat, tokens[seat])
        legal = list(view.legal_actions)
        act(games, match_id, seat, tokens[seat], legal[0], view.move_number)
        if legal[0].startswith("trump:"):
            break
    trumper, laid = seat, legal[0]
    other = (trumper + 1) % 4
    assert json.loads(observe(games, match_id, other, tokens[other]).json)["history"][-1] == [trumper, "trump"]
    assert json.loads(observe(games, match_id, trumper, tokens[trumper]).json)["history"][-1] == [trumper, laid]
    replay_id = play_to_end(games, match_id, tokens, choose=lambda legal: legal[0])[-1].replay_id

    def streamed(perspective, seat=0):
        steps = replays.StreamReplay(replay_service_pb2.StreamReplayRequest(
            replay_id=replay_id, perspective=perspective, seat=seat))
        return [s.move.action for s in steps if s.HasField("move") and s.move.action.startswith("trump")][0]

    assert streamed(common_pb2.PERSPECTIVE_FULL) == streamed(common_pb2.PERSPECTIVE_SEAT, trumper) == laid
    assert streamed(common_pb2.PERSPECTIVE_SEAT, other) == streamed(common_pb2.PERSPECTIVE_PUBLIC) == "trump"
