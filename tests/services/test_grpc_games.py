"""GameService through generated stubs against a real server on a loopback port (and a real Redis)."""

from __future__ import annotations

import json
import threading

import grpc
import pytest
from matchplay import ONE_DEAL, PERSON, act, bot, create, observe, play_to_end

import engine
from services.generated.cardtable.v1 import common_pb2, game_service_pb2

pytestmark = pytest.mark.cluster_too

Code = grpc.StatusCode


def error_of(call, *args) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args)
    return caught.value


# ---- games ----------------------------------------------------------------------------------------------------------

def test_list_games_pages_through_every_engine_game(games):
    seen, token = [], ""
    while True:
        page = games.ListGames(game_service_pb2.ListGamesRequest(page_size=2, page_token=token))
        assert len(page.games) <= 2
        seen += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            break
    assert seen == engine.list_games()
    everything = games.ListGames(game_service_pb2.ListGamesRequest())
    assert [g.game_id for g in everything.games] == seen and not everything.next_page_token
    tablanette = next(g for g in everything.games if g.game_id == "tablanette")
    assert list(tablanette.player_counts) == list(engine.game_info("tablanette").player_counts)


def test_a_bad_page_token_is_invalid_argument(games):
    error = error_of(games.ListGames, game_service_pb2.ListGamesRequest(page_token="not-a-token"))
    assert error.code() == Code.INVALID_ARGUMENT


def test_game_info_describes_every_option_with_type_default_and_doc(games):
    info = games.GetGameInfo(game_service_pb2.GetGameInfoRequest(game_id="tablanette", players=4))
    declared = engine.game_info("tablanette").all_options()
    assert [o.name for o in info.options] == [o.name for o in declared]
    assert info.players == 4 and info.deck_size == 52
    for spec, option in zip(info.options, declared, strict=True):
        assert spec.doc == option.doc
        kind = spec.default_value.WhichOneof("kind")
        default = option.default_for(4)
        if default is None:
            assert kind == "null_value"
        else:
            assert getattr(spec.default_value, kind) == default
        type_name = {int: "INT", bool: "BOOL", str: "STRING"}[option.type]
        assert game_service_pb2.OptionType.Name(spec.type) == f"OPTION_TYPE_{type_name}"


def test_game_info_of_an_unknown_game_names_the_games(games):
    error = error_of(games.GetGameInfo, game_service_pb2.GetGameInfoRequest(game_id="poker"))
    assert error.code() == Code.INVALID_ARGUMENT and "tablanette" in error.details()


# ---- creating a match -----------------------------------------------------------------------------------------------

def test_only_person_seats_get_tokens_and_bots_open_the_play(games):
    for seed in range(20):
        created, tokens = create(games, [PERSON, bot("greedy")], seed=seed)
        first = engine.new_match("tablanette", seed=seed, players=2, options={"max_deals": 1}).current_player
        if first == 1:
            break
    assert list(tokens) == [0]
    assert [m.seat for m in created.moves] == [1] and created.moves[0].number == 1
    assert created.view.perspective == common_pb2.PERSPECTIVE_PUBLIC and created.view.current_player == 0
    assert created.view.move_number == 1 and created.seed == 0  # a match in play never shows its seed
    assert "hand" not in json.loads(created.view.json)


def test_the_same_seed_deals_the_same_hands(games):
    hands = []
    for _ in range(2):
        created, tokens = create(games, [PERSON, PERSON], seed=99)
        hands.append(json.loads(observe(games, created.match_id, 0, tokens[0]).json)["hand"])
    assert hands[0] == hands[1] == engine.new_match("tablanette", seed=99).observation(0)["hand"]


@pytest.mark.parametrize(("seats", "options", "needle"), [
    ([PERSON, PERSON], {"no_such_option": common_pb2.OptionValue(int_value=1)}, "unknown option"),
    ([PERSON, PERSON], {"target": common_pb2.OptionValue(string_value="high")}, "target"),
    ([PERSON, PERSON], {"max_deals": common_pb2.OptionValue()}, "one of"),
    ([PERSON], ONE_DEAL, "players"),
    ([PERSON, game_service_pb2.SeatSpec()], ONE_DEAL, "SEAT_KIND_BOT"),
    ([PERSON, bot("")], ONE_DEAL, "policy"),
    ([PERSON, bot("alphazero")], ONE_DEAL, "alphazero"),
    ([], ONE_DEAL, "seats"),
])
def test_bad_creation_requests_are_invalid_arguments(games, seats, options, needle):
    request = game_service_pb2.CreateGameRequest(game_id="tablanette", seats=seats, options=options)
    error = error_of(games.CreateGame, request)
    assert error.code() == Code.INVALID_ARGUMENT and needle in error.details()


def test_an_unknown_game_cannot_be_created(games):
    error = error_of(games.CreateGame, game_service_pb2.CreateGameRequest(game_id="chess", seats=[PERSON, PERSON]))
    assert error.code() == Code.INVALID_ARGUMENT and "tablanette" in error.details()


# ---- seeing a seat -------------------------------------------------------------------------------------------------

def test_only_a_seats_token_shows_its_hand(games):
    created, tokens = create(games, [PERSON, PERSON, bot()], seed=3)
    mine = json.loads(observe(games, created.match_id, 0, tokens[0]).json)
    assert mine["seat"] == 0 and len(mine["hand"]) == 4
    for seat, token in [(0, tokens[1]), (0, ""), (1, tokens[0]), (2, tokens[0]), (2, "")]:
        error = error_of(observe, games, created.match_id, seat, token)
        assert error.code() == Code.PERMISSION_DENIED, (seat, error.details())
    error = error_of(observe, games, created.match_id, 5, tokens[0])
    assert error.code() == Code.INVALID_ARGUMENT


def test_an_unknown_match_is_not_found(games):
    assert error_of(observe, games, "0123456789abcdef", 0, "x").code() == Code.NOT_FOUND
    assert error_of(act, games, "nope", 0, "x", "7H", 0).code() == Code.NOT_FOUND
    assert error_of(observe, games, "", 0, "x").code() == Code.INVALID_ARGUMENT


# ---- acting ----------------------------------------------------------------------------------------------------------

def _two_people(games, seed: int = 11):
    created, tokens = create(games, [PERSON, PERSON], seed=seed)
    view = observe(games, created.match_id, 0, tokens[0])
    seat = view.current_player
    return created.match_id, tokens, seat, observe(games, created.match_id, seat, tokens[seat])


def test_an_illegal_move_names_the_legal_ones_and_changes_nothing(games):
    match_id, tokens, seat, view = _two_people(games)
    error = error_of(act, games, match_id, seat, tokens[seat], "ZZ", view.move_number)
    assert error.code() == Code.INVALID_ARGUMENT
    assert all(a in error.details() for a in view.legal_actions)
    error = error_of(act, games, match_id, seat, tokens[seat], "7" * 5000, view.move_number)
    assert error.code() == Code.INVALID_ARGUMENT and "7777777" not in error.details()
    assert observe(games, match_id, seat, tokens[seat]) == view


def test_a_retried_move_is_applied_once(games):
    match_id, tokens, seat, view = _two_people(games)
    first = act(games, match_id, seat, tokens[seat], view.legal_actions[0], view.move_number)
    assert [m.number for m in first.moves] == [view.move_number + 1] and first.view.move_number == view.move_number + 1
    error = error_of(act, games, match_id, seat, tokens[seat], view.legal_actions[0], view.move_number)
    assert error.code() == Code.ABORTED and "stale" in error.details()
    assert observe(games, match_id, seat, tokens[seat]).move_number == view.move_number + 1


def test_turn_token_and_game_over_errors(games):
    match_id, tokens, seat, view = _two_people(games)
    other = 1 - seat
    other_view = observe(games, match_id, other, tokens[other])
    hand = json.loads(other_view.json)["hand"]
    error = error_of(act, games, match_id, other, tokens[other], hand[0], view.move_number)
    assert error.code() == Code.FAILED_PRECONDITION and f"seat {seat} is to act" in error.details()
    error = error_of(act, games, match_id, seat, tokens[other], view.legal_actions[0], view.move_number)
    assert error.code() == Code.PERMISSION_DENIED
    responses = play_to_end(games, match_id, tokens)
    last = responses[-1].view
    assert last.game_over and not last.HasField("current_player") and list(last.winners)
    error = error_of(act, games, match_id, seat, tokens[seat], "7H", last.move_number)
    assert error.code() == Code.FAILED_PRECONDITION and "over" in error.details()


def test_two_racing_moves_on_one_move_number_apply_once(games):
    match_id, tokens, seat, view = _two_people(games, seed=12)
    outcomes: list = []
    barrier = threading.Barrier(8)

    def racer(action: str) -> None:
        barrier.wait()
        try:
            outcomes.append(act(games, match_id, seat, tokens[seat], action, view.move_number).moves[0].action)
        except grpc.RpcError as exc:
            outcomes.append(exc.code())

    threads = [threading.Thread(target=racer, args=(view.legal_actions[i % len(view.legal_actions)],))
               for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    played = [o for o in outcomes if isinstance(o, str)]
    assert len(played) == 1 and outcomes.count(Code.ABORTED) == 7
    after = observe(games, match_id, seat, tokens[seat])
    assert after.move_number == view.move_number + 1 and json.loads(after.json)["history"][-1][1] == played[0]


def test_a_match_against_a_bot_plays_to_the_end_like_the_engine(games):
    created, tokens = create(games, [PERSON, bot("greedy")], seed=21)
    responses = play_to_end(games, created.match_id, tokens, choose=lambda legal: legal[0])
    moves = list(created.moves) + [m for r in responses for m in r.moves]
    assert [m.number for m in moves] == list(range(1, len(moves) + 1))
    # The same match replayed in the engine: the person's choices and the server's bot moves are legal in order.
    state = engine.new_match("tablanette", seed=21, players=2, options={"max_deals": 1})
    for move in moves:
        assert state.current_player == move.seat
        state.apply(move.action)
    assert state.is_terminal and list(responses[-1].view.scores) == state.scores


# ---- watching --------------------------------------------------------------------------------------------------------

def test_watching_streams_a_snapshot_then_every_move_until_the_end(games):
    created, tokens = create(games, [PERSON, bot()], seed=5)
    public = games.WatchGame(game_service_pb2.WatchGameRequest(match_id=created.match_id))
    as_seat = games.WatchGame(game_service_pb2.WatchGameRequest(
        match_id=created.match_id, perspective=common_pb2.PERSPECTIVE_SEAT, seat=0, seat_token=tokens[0]))
    first = next(public)
    assert first.kind == game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT and first.view.move_number == len(created.moves)
    player = threading.Thread(target=play_to_end, args=(games, created.match_id, tokens))
    player.start()
    public_events = [first, *public]
    seat_events = list(as_seat)
    player.join()
    moves = [e.move for e in public_events[1:]]
    assert [m.number for m in moves] == list(range(len(created.moves) + 1, public_events[-1].view.move_number + 1))
    assert all(e.kind == game_service_pb2.WATCH_EVENT_KIND_MOVE for e in public_events[1:])
    assert public_events[-1].view.game_over and not any(e.view.game_over for e in public_events[:-1])
    # A hand shows in the public view only once every hand is empty (then every seat knows it).
    assert all(json.loads(e.view.json).get("hand", []) == [] for e in public_events)
    assert all(json.loads(e.view.json)["seat"] == 0 for e in seat_events)
    assert [e.move for e in seat_events[1:]] == moves[-(len(seat_events) - 1):]


def test_watching_needs_the_seats_token_for_its_view(games):
    created, tokens = create(games, [PERSON, bot()], seed=5)
    for request in [
        game_service_pb2.WatchGameRequest(match_id=created.match_id, perspective=common_pb2.PERSPECTIVE_SEAT,
                                          seat=0, seat_token="guess"),
        game_service_pb2.WatchGameRequest(match_id=created.match_id, perspective=common_pb2.PERSPECTIVE_SEAT,
                                          seat=1, seat_token=tokens[0]),
    ]:
        assert error_of(lambda r: next(games.WatchGame(r)), request).code() == Code.PERMISSION_DENIED
    request = game_service_pb2.WatchGameRequest(match_id=created.match_id, perspective=common_pb2.PERSPECTIVE_FULL)
    assert error_of(lambda r: next(games.WatchGame(r)), request).code() == Code.INVALID_ARGUMENT
    request = game_service_pb2.WatchGameRequest(match_id="missing")
    assert error_of(lambda r: next(games.WatchGame(r)), request).code() == Code.NOT_FOUND


def test_a_botifarra_match_with_two_partners_against_bots_plays_like_the_engine(games):
    # Botifarra (issue 13): persons at seats 0 and 2 (partners) name trump, double and play through Act.
    created, tokens = create(games, [PERSON, bot("greedy"), PERSON, bot("random")], game_id="botifarra", seed=13)
    mine = json.loads(observe(games, created.match_id, 2, tokens[2]).json)
    assert len(mine["hand"]) == 12 and mine["partners"][2] == 0 and "hands" not in mine
    responses = play_to_end(games, created.match_id, tokens, choose=lambda legal: legal[0])
    moves = list(created.moves) + [m for r in responses for m in r.moves]
    state = engine.new_match("botifarra", seed=13, options={"max_deals": 1})
    for move in moves:
        assert state.current_player == move.seat
        state.apply(move.action)
    assert state.is_terminal and list(responses[-1].view.scores) == state.scores
    assert any(m.action.startswith("trump:") or m.action == "delegate" for m in moves)
