"""Each game option type through a real server: GetGameInfo declares it, CreateGame takes it as an OptionValue, a
value of another type is INVALID_ARGUMENT, and the finished match's replay records it (tests/test_option_types.py)."""

from __future__ import annotations

import grpc
import pytest
from matchplay import ONE_DEAL, PERSON, bot, create, play_to_end

import replay
from services.app.convert import OPTION_TYPES, option_value
from services.generated.cardtable.v1 import common_pb2, game_service_pb2, replay_service_pb2, replay_service_pb2_grpc

CASES = [("last_play_tablanette", False, bool), ("max_sum_cards", 2, int), ("jack_mode", "value12", str),
         ("target", 151, int)]
WRONG = {bool: common_pb2.OptionValue(int_value=1), int: common_pb2.OptionValue(string_value="2"),
         str: common_pb2.OptionValue(bool_value=True)}


@pytest.mark.parametrize("name, value, kind", CASES)
def test_an_option_type_through_the_api_into_the_replay(games, channel, name, value, kind) -> None:
    info = games.GetGameInfo(game_service_pb2.GetGameInfoRequest(game_id="tablanette", players=2))
    assert next(o for o in info.options if o.name == name).type == OPTION_TYPES[kind]
    with pytest.raises(grpc.RpcError) as refused:
        create(games, [PERSON, bot("greedy")], options={**ONE_DEAL, name: WRONG[kind]})
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and name in refused.value.details()
    created, tokens = create(games, [PERSON, bot("greedy")], seed=11, options={**ONE_DEAL, name: option_value(value)})
    replay_id = play_to_end(games, created.match_id, tokens)[-1].replay_id
    replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
    got = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=replay_id))
    options = replay.decode(got.data).header.options
    assert options[name] == value and type(options[name]) is kind
