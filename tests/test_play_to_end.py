"""State.play_to_end, the engine's own rollout loop (bots' play_out without ordinals or on_move), plays exactly the
moves of the generic loop (legal_action_ids, choose_id, apply_id one at a time), in every game and player count."""

from __future__ import annotations

from typing import Any

import pytest
from plain_whist import PlainWhist

import engine
from engine.bots import make_policies, play_out
from engine.clone import fields_of
from engine.registry import registered
from engine.trickgame import PlayPart, TrickGame

CASES = [(game, n) for game in engine.list_games() for n in engine.game_info(game).player_counts]


def _generic(state: engine.State, policies: list) -> int:
    moves = 0
    while state.current_player is not None:
        seat = state.current_player
        state.apply_id(policies[seat].choose_id(state.legal_action_ids(), lambda seat=seat: state.observation(seat)))
        moves += 1
    return moves


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_the_engine_loop_plays_the_generic_loop_s_moves(game: str, players: int, policy: str) -> None:
    for seed in range(20):
        options = {"max_deals": 1} if seed % 3 else {"max_deals": 2}
        fused = engine.new_match(game, seed=seed, players=players, options=options)
        plain = engine.new_match(game, seed=seed, players=players, options=options)
        moves = play_out(fused, make_policies([policy] * players, game, seed))
        assert moves == _generic(plain, make_policies([policy] * players, game, seed))
        assert fused.moves == plain.moves and fused.scores == plain.scores and fused.winners == plain.winners
        assert fused.to_position() == plain.to_position() and fused.legal_action_ids() == []


# the trick games' fused card plays (TrickGame.play_to_end) under the options that change what a plain play is
OPTION_CASES = [
    ("german_whist", 2, {"face_down_four": True}),
    ("german_whist", 2, {"face_down_four": True, "score_all_tricks": True, "deal_scoring": "difference"}),
    ("german_whist", 2, {"target_score": 5}),
    ("belote", 2, {"no_shuffle": True, "target_score": 300}),
    ("belote", 3, {"litige": False, "target_score": 300}),
    ("belote", 4, {"no_shuffle": True, "litige": False, "target_score": 300}),
    ("belote_contree", 4, {"num_deals": 4}),
    ("belote_contree", 4, {"num_deals": 3, "shuffle_each_deal": True, "contre_scoring": "multiply"}),
]


@pytest.mark.parametrize(("game", "players", "options"), OPTION_CASES,
                         ids=[f"{g}-{n}p-{'-'.join(o)}" for g, n, o in OPTION_CASES])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_the_fused_trick_plays_match_the_generic_loop_under_options(game: str, players: int, options: dict,
                                                                     policy: str) -> None:
    for seed in range(30):
        fused = engine.new_match(game, seed=seed, players=players, options=options)
        plain = engine.new_match(game, seed=seed, players=players, options=options)
        moves = play_out(fused, make_policies([policy] * players, game, seed))
        assert moves == _generic(plain, make_policies([policy] * players, game, seed))
        assert fused.moves == plain.moves and fused.scores == plain.scores and fused.winners == plain.winners
        assert fused.deal_results == plain.deal_results and fused.to_position() == plain.to_position()
        assert fused.rng.below(1 << 30) == plain.rng.below(1 << 30)  # the same draws taken
        assert _plain_attributes(fused) == _plain_attributes(plain)  # rebelote, ... too


def _plain_attributes(state: engine.State) -> dict:
    """The state's attributes held in plain values (numbers, strings, lists, dicts, tuples, None)."""
    plain = (int, str, float, list, dict, tuple, type(None))
    return {key: value for key, value in fields_of(state).items() if isinstance(value, plain) and key != "_legal"}


def test_the_fused_loop_plays_on_from_the_middle_of_a_trick() -> None:
    for seed in range(20):
        state = engine.new_match("belote_contree", seed=seed)
        policies = make_policies(["random"] * 4, "belote_contree", seed)
        while state.phase != "play" or not state.trick or len(state.tricks) < 2:
            seat = state.current_player
            state.apply_id(policies[seat].choose_id(state.legal_action_ids(), lambda: {}))
        fused, plain, before = state.clone(), state.clone(), state.to_position()
        with pytest.raises(engine.IllegalAction):  # a fused card play checks the choice first
            state.play_to_end([lambda ids, observe: max(ids) + 1] * 4, [dict] * 4)
        assert state.to_position() == before and state.moves == plain.moves
        play_out(fused, make_policies(["greedy"] * 4, "belote_contree", seed))
        _generic(plain, make_policies(["greedy"] * 4, "belote_contree", seed))
        assert fused.moves == plain.moves and fused.deal_results == plain.deal_results
        assert fused.to_position() == plain.to_position()


@pytest.mark.parametrize("game", engine.list_games())
def test_an_illegal_choice_raises_and_changes_nothing(game: str) -> None:
    state = engine.new_match(game, seed=3)
    before = state.to_position()
    legal = state.legal_action_ids()
    with pytest.raises(engine.IllegalAction):
        state.play_to_end([lambda ids, observe: max(ids) + 1] * state.players, [dict] * state.players)
    assert state.to_position() == before and state.legal_action_ids() == legal and state.moves == []


def test_an_observation_while_choosing_lists_the_legal_actions_now() -> None:
    state = engine.new_match("german_whist", seed=5)
    seen = []

    def choose(ids: list[int], observe) -> int:
        seen.append(observe()["legal_actions"] == [state.action_string(a) for a in ids])
        return ids[-1]

    observers = [lambda seat=seat: state.observation(seat) for seat in range(2)]
    state.play_to_end([choose, choose], observers)
    assert len(seen) == 52 and all(seen)


TRICK_GAMES = [game for game in engine.list_games() if isinstance(engine.new_match(game, seed=0), TrickGame)]


@pytest.mark.parametrize("game", TRICK_GAMES)
@pytest.mark.parametrize("loop", ["apply_id", "play_to_end"])
def test_every_move_of_the_play_goes_through_the_trick_loop(game: str, loop: str, monkeypatch) -> None:
    # one card-play path: a move chosen in phase 'play' (a card, a belote, a face-down card, a call before the card)
    # is recorded and played inside TrickGame._play_cards, by play_to_end, and by apply_id through _play_action (a
    # plain card by the loop's own step, _gathered at a full trick; anything else by the loop itself)
    inside = []
    loop_body = TrickGame._play_cards if loop == "play_to_end" else TrickGame._play_action

    def counted(self, action, choose=(), observe=()):
        before = len(self.moves) - (action >= 0)  # apply_id records its move first
        if loop == "play_to_end":
            loop_body(self, action, choose, observe)
        else:
            loop_body(self, action)
        inside.append(len(self.moves) - before)

    monkeypatch.setattr(TrickGame, "_play_cards" if loop == "play_to_end" else "_play_action", counted)
    for cls in type(engine.new_match(game, seed=0)).__mro__:  # a game's `_apply = TrickGame._play_action`
        if cls.__dict__.get("_apply") is loop_body:
            monkeypatch.setattr(cls, "_apply", counted)
    for seed in range(4):
        state = engine.new_match(game, seed=seed, options={"max_deals": 1})
        policies = make_policies(["random"] * state.players, game, seed)
        in_play: list[bool] = []

        def choose(ids, observe, seat, state=state, policies=policies, in_play=in_play):
            in_play.append(state.phase == "play")
            return policies[seat].choose_id(ids, observe)

        if loop == "apply_id":
            while state.current_player is not None:
                seat = state.current_player
                state.apply_id(choose(state.legal_action_ids(), dict, seat))
        else:
            state.play_to_end([lambda ids, observe, seat=seat: choose(ids, observe, seat)
                               for seat in range(state.players)], [dict] * state.players)
        assert sum(inside) == sum(in_play) > 0
        inside.clear()


@pytest.mark.parametrize("game", TRICK_GAMES)
def test_the_trick_loop_reads_the_game_class_s_plain_cards_and_hooks(game: str) -> None:
    cls = type(engine.new_match(game, seed=0))
    hooks = tuple(getattr(cls, name) is not getattr(TrickGame, name)
                  for name in ("_card_ids", "_won_by", "_next_seats"))
    playing = cls._playing
    assert cls._loop_class == (cls.ACTIONS.plain_card, *hooks, playing.trick_taken, playing.watching, playing.moves)


def test_the_double_dummy_search_takes_the_games_that_declare_it() -> None:
    solvable = {game for game in TRICK_GAMES if getattr(engine.new_match(game, seed=0), "DOUBLE_DUMMY", False)}
    assert solvable == {"belote", "belote_contree", "german_whist", "thunee"}


class _Taken(PlayPart[Any]):
    """A play part that records each trick's winner under its name (for the test below)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def trick_taken(self, game: Any, winner: int) -> None:
        game.events.append((self.name, len(game.tricks), winner))


class _Watching(PlayPart[Any]):
    def watched(self, game: Any) -> int:
        return 1


def test_the_trick_loop_calls_every_declared_part_at_a_tricks_end_in_declared_order() -> None:
    class Recorded(PlainWhist):
        DEAL_PHASES = (*PlainWhist.DEAL_PHASES, _Taken("first"), _Taken("second"))
        events: list[tuple[str, int, int]]

    with registered(Recorded) as game:
        state = engine.new_match(game, seed=4)
        state.events = []
        while len(state.tricks) < 2:
            state.apply_id(state.legal_action_ids()[0])
    winners = state.trick_winner_seats(state.current_player)  # (the winner leads the next trick)
    assert state.events == [("first", 1, winners[0]), ("second", 1, winners[0]),
                             ("first", 2, winners[1]), ("second", 2, winners[1])]

    with pytest.raises(AssertionError, match="two parts watch cards"):
        type("TwoWatchers", (PlainWhist,), {"DEAL_PHASES": (*PlainWhist.DEAL_PHASES, _Watching(), _Watching())})


TRICK_CASES = [(game, n) for game, n in CASES if isinstance(engine.new_match(game, seed=0, players=n), TrickGame)]


@pytest.mark.parametrize(("game", "players"), TRICK_CASES, ids=[f"{g}-{n}p" for g, n in TRICK_CASES])
def test_the_quiet_loop_leaves_what_the_loop_writes_at_every_card(game: str, players: int) -> None:
    """With the generators' own picks as choosers the trick loop writes the trick's records only as a trick ends:
    the same moves, and the same records, as with choosers that may read the state (entered mid-trick too)."""
    from engine.rng import Rng

    keys = ("best_card", "best_seat", "overtrumps", "current_player", "trick", "tricks", "hands", "moves")
    for seed in range(6):
        state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 1})
        for _ in range(seed * 3):  # (into the deal: an auction, or a trick begun)
            if state.current_player is not None:
                state.apply_id(state.legal_action_ids()[0])
        quiet, loud = state.clone(), state.clone()
        quiet_moves = quiet.play_to_end([Rng(seed + k).pick for k in range(players)], [dict] * players)
        picks = [Rng(seed + k).pick for k in range(players)]
        loud_moves = loud.play_to_end([lambda ids, observe, pick=pick: pick(ids) for pick in picks], [dict] * players)
        assert quiet_moves == loud_moves and quiet.to_position() == loud.to_position()
        assert {k: fields_of(quiet).get(k) for k in keys} == {k: fields_of(loud).get(k) for k in keys}
