"""Small pieces of the services, without a server: views, API keys, paging, the move log, options."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import grpc
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from services.app.auth import key_from_metadata
from services.app.convert import option_value, options_from_request, python_value
from services.app.errors import InvalidArgument, PermissionDenied
from services.app.matches import LiveMatch, Seat
from services.app.paging import page
from services.app.views import full_observation, full_view, public_observation, public_view, seat_view
from services.match_store import compact_json, parse_moves
from services.rpc import _abort_for
from services.web.app import api


@pytest.mark.parametrize("game_id", engine.list_games())
def test_the_public_view_holds_only_what_every_seat_sees(game_id):
    state = engine.new_match(game_id, seed=5)
    public = public_observation(state)
    seen = [state.observation(seat) for seat in range(state.players)]
    assert "seat" not in public and "legal_actions" not in public
    assert all(obs[key] == value for obs in seen for key, value in public.items())


def _dumped(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("game_id", engine.list_games())
def test_each_view_is_its_body_as_json_dumps_writes_it(game_id):
    # the views' compact encoder (services.match_store.compact_json) writes what json.dumps does, at every move
    state = engine.new_match(game_id, seed=5)
    for _ in range(6):
        if state.is_terminal:
            break
        for seat in range(state.players):
            assert seat_view(state, seat, 0).json == _dumped(state.observation(seat))
            assert seat_view(state, seat, 0).json == _dumped(state.observation(seat))  # the options' text held
        assert public_view(state, 0).json == _dumped(public_observation(state))
        assert full_view(state, 0).json == _dumped(full_observation(state))
        assert compact_json(state.to_position()) == _dumped(state.to_position())  # what a checkpoint stores
        state.apply_id(state.legal_action_ids()[0])


@pytest.mark.parametrize("value", [
    {"a": [1, "é", None, True, 1.5], "b": {"c": -(2**63), "d": 2**64 - 1}, "e": "\"q\"\n\u2028"},
    {1: "an int key", "x": [2**70, -(2**65)]},  # beyond orjson: the C encoder writes these
    [(1, 2), "tuple"],
])
def test_the_compact_encoder_writes_what_json_dumps_does(value):
    assert compact_json(value) == _dumped(value)


def test_api_keys_from_metadata():
    assert key_from_metadata([("x-api-key", "k1")]) == "k1"
    assert key_from_metadata([("authorization", "Bearer k2 ")]) == "k2"
    assert key_from_metadata([("authorization", "Basic abc")]) == "" == key_from_metadata(None)


def test_pages_and_their_tokens():
    items = list(range(5))
    assert page(items, 2, "") == ([0, 1], "2") and page(items, 2, "4") == ([4], "") and page(items, 0, "") == (
        items, "")
    for bad in ("-1", "x"):
        with pytest.raises(InvalidArgument):
            page(items, 2, bad)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2**62)), max_size=30))
def test_the_move_log_round_trips(moves):
    assert parse_moves("".join(f"{s},{a}," for s, a in moves)) == moves


@settings(max_examples=50, deadline=None)
@given(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=10))
def test_option_values_round_trip(value):
    assert python_value(option_value(value)) == value
    assert options_from_request({"x": option_value(value)}) == {"x": value}


def test_a_cached_match_keeps_no_history_but_its_moves_are_saved_once():
    match, tokens, _ = LiveMatch.create("tablanette", [Seat("person"), Seat("bot", "random")], {}, seed=3,
                                        first_dealer=None, match_id="m")
    match.saved()
    match.drop_history()
    before = match.version
    assert match.state.current_player == 0  # the bot has played up to the person's turn
    match.play_person(0, tokens[0], match.state.legal_turns()[0], before)  # a whole turn: then the bot replies
    assert len(match.new_moves()) == match.version - before >= 2  # the person's move and the bot's reply
    match.saved()
    assert match.new_moves() == [] and match.state.observation(0)["history"] == []


@pytest.mark.parametrize(("error", "code"), [
    (redis.ConnectionError("Connection refused"), grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"), grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.TryAgainError("TRYAGAIN"), grpc.StatusCode.UNAVAILABLE),
    (redis.ResponseError("WRONGTYPE"), grpc.StatusCode.INTERNAL),
])
def test_a_redis_away_or_failing_over_is_unavailable_and_other_errors_internal(error, code):
    class Context:
        async def abort(self, status, message):
            raise LookupError(status, message)

    with pytest.raises(LookupError) as aborted:
        asyncio.run(_abort_for(error, "Act", Context()))
    assert aborted.value.args[0] == code


@pytest.mark.parametrize(("error", "status"), [
    (redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"), 503),
    (redis.TimeoutError("Timeout reading from socket"), 503),
    (redis.ResponseError("WRONGTYPE"), 500),
])
def test_the_web_answers_a_redis_away_or_failing_over_with_503(error, status):
    async def handler(request):
        raise error

    response = asyncio.run(api(handler)(SimpleNamespace(url=SimpleNamespace(path="/api/games"))))
    assert response.status_code == status


def test_a_seat_token_found_right_once_is_judged_the_same_again():
    """authorize keeps the token it found right (a cached match's next move skips hashing it): a second call, and
    any other token or seat after it, is answered as a match that never checked a token answers."""
    match, tokens, _ = LiveMatch.create("tablanette", [Seat("person"), Seat("person")], {}, seed=3,
                                        first_dealer=None)
    fresh = LiveMatch(match.match_id, match.meta, match.state, match.version)
    for checked in (match, match, fresh):
        checked.authorize(0, tokens[0])
    for seat, token in [(0, tokens[1]), (1, tokens[0]), (0, tokens[0] + "x"), (0, tokens[0][:-1]), (0, "é")]:
        with pytest.raises(PermissionDenied):
            match.authorize(seat, token)
        with pytest.raises(PermissionDenied):
            LiveMatch(match.match_id, match.meta, match.state, match.version).authorize(seat, token)
    match.authorize(1, tokens[1])
    match.authorize(0, tokens[0])


def test_the_server_settles_its_heap_with_the_engine_s_tables_built():
    # what the engine builds on first use (the trick games' id tables) is built before gc.freeze: no collection walks
    # it while calls wait
    import gc

    import engine.tricks
    from services.server import settle_heap

    try:
        settle_heap()
        tables = [table for tables in (engine.tricks._TABLES, engine.tricks._STRING_TABLES)
                  for suits in tables.values() for table in suits]
        collected = {id(thing) for thing in gc.get_objects()}
        assert tables and not any(id(table) in collected for table in tables)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
