"""Nothing a client sends can crash the server or corrupt a match: random requests, and bytes that are no message."""

from __future__ import annotations

import json

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matchplay import PERSON, bot, create, observe

import engine
from services.generated.cardtable.v1 import common_pb2, game_service_pb2

# Codes a well-behaved server may answer a bad request with; never UNKNOWN or INTERNAL (an unhandled exception).
EXPECTED = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

texts = st.text(max_size=40) | st.sampled_from(["", "7H", "QS:3C,TD", "JD:", ":", "10H", "JH:JH", "live/1"])
seats = st.integers(min_value=0, max_value=2**32 - 1) | st.integers(0, 3)
option_values = st.builds(common_pb2.OptionValue, int_value=st.integers(-(2**63), 2**63 - 1)) | st.builds(
    common_pb2.OptionValue, string_value=texts) | st.builds(common_pb2.OptionValue, bool_value=st.booleans()) | st.just(
    common_pb2.OptionValue())
seat_specs = st.builds(game_service_pb2.SeatSpec, kind=st.integers(0, 5), policy=texts | st.just("random"))


@pytest.fixture(scope="module")
def target_match(games):
    """A match of two people and a bot, for the fuzzed moves to hit."""
    created, tokens = create(games, [PERSON, PERSON, bot()], seed=17)
    return created.match_id, tokens


def _check_status(call) -> None:
    try:
        call()
    except grpc.RpcError as exc:
        assert exc.code() in EXPECTED, (exc.code(), exc.details())


@FUZZ
@given(game_id=texts | st.sampled_from(engine.list_games()), specs=st.lists(seat_specs, max_size=5),
       options=st.dictionaries(texts | st.sampled_from(["max_deals", "target", "partnerships"]), option_values,
                               max_size=3),
       seed=st.none() | st.integers(0, 2**64 - 1), first_dealer=st.none() | seats)
def test_random_creation_requests(games, game_id, specs, options, seed, first_dealer):
    request = game_service_pb2.CreateGameRequest(game_id=game_id, seats=specs, options=options, seed=seed,
                                                 first_dealer=first_dealer)
    _check_status(lambda: games.CreateGame(request, timeout=30))


@FUZZ
@given(action=texts, seat=seats, use_token=st.booleans(), token=texts, expected=st.integers(0, 2**32 - 1),
       match=st.booleans())
def test_random_moves_never_corrupt_a_match(games, target_match, action, seat, use_token, token, expected, match):
    match_id, tokens = target_match
    before = observe(games, match_id, 0, tokens[0])
    request = game_service_pb2.ActRequest(
        match_id=match_id if match else action, seat=seat, action=action, expected_move_number=expected,
        seat_token=tokens.get(seat, token) if use_token else token)
    try:
        games.Act(request)
        applied = True
    except grpc.RpcError as exc:
        assert exc.code() in EXPECTED, (exc.code(), exc.details())
        applied = False
    after = observe(games, match_id, 0, tokens[0])
    assert applied or after == before
    # Whatever happened, the stored match is still a legal play of its game from its seed.
    state = engine.new_match("tablanette", seed=17, players=3, options={"max_deals": 1})
    for _, a in json.loads(after.json)["history"]:
        state.apply(a)
    assert state.current_player == (after.current_player if after.HasField("current_player") else None)


@FUZZ
@given(payload=st.binary(max_size=200), method=st.sampled_from(
    ["CreateGame", "Act", "GetObservation", "GetGameInfo", "ListGames"]))
def test_bytes_that_are_no_message(channel, payload, method):
    call = channel.unary_unary(f"/cardtable.v1.GameService/{method}")
    try:
        call(payload, timeout=10)
    except grpc.RpcError as exc:
        assert exc.code() in EXPECTED, (exc.code(), exc.details())
        if "malformed" in exc.details():
            assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_the_server_is_still_healthy(channel):
    answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
