"""Exact play-outs (engine/bots/exact.py): the end of a deal by best play with every hand known, as ``ismcts:dd_cards``
values its leaves."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies, parse_policy, policy_class, seat_observer
from engine.bots.exact import exact_from, play_exactly
from engine.budget import Meter
from engine.search.double_dummy import Table, cards_left, solve, taken

CASES = [("german_whist", {"max_deals": 1}, 12), ("belote_contree", {"num_deals": 1}, 16),
         ("belote", {"max_deals": 1}, 12)]


def _at(game: str, options: dict, cards: int, seed: int) -> engine.State | None:
    """A deal of greedy play at the first position of its card play with at most ``cards`` cards left."""
    state = engine.new_match(game, seed=seed, options=options)
    bots = make_policies(["greedy"] * state.players, game, seed)
    while not state.is_terminal and not exact_from(state, cards):
        seat = state.current_player
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return None if state.is_terminal else state


@pytest.mark.parametrize(("game", "options", "cards"), CASES)
def test_an_exact_play_out_takes_what_the_solver_says_for_every_side(game: str, options: dict, cards: int) -> None:
    """Best play by everyone: the side to move ends the deal with what it had plus the solver's value, and so does
    the other side (its own value from the same position)."""
    checked = 0
    for seed in range(1, 7):
        state = _at(game, options, cards, seed)
        if state is None:
            continue
        sides = sorted(set(state.side_of))
        expected = {side: taken(state, side) + solve(state, side) for side in sides}
        ended = state.clone()
        last_trick = len(state.tricks)
        moves = play_exactly(ended, Table(), Meter())
        assert moves == cards_left(state) and len(ended.tricks) == last_trick + cards_left(state) // state.players
        assert {side: taken(ended, side) for side in sides} == expected, f"{game} seed {seed}"
        checked += 1
    assert checked >= 3


def test_an_exact_play_out_stops_where_the_solver_cannot_go_on() -> None:
    """Thunee's play may turn to moves that are not cards (a call) or hide a card: there the play-out stops, the
    deal not over, and the caller plays the rest (ismcts by its rollout policy)."""
    stopped = 0
    for seed in range(1, 7):
        state = _at("thunee", {"max_deals": 1}, 12, seed)
        if state is None:
            continue
        moves = play_exactly(state, Table(), Meter())
        if not state.is_terminal:
            assert moves < 12 and not exact_from(state, 12)
            stopped += 1
    assert stopped


def test_exact_from_asks_for_the_card_play_within_the_limit() -> None:
    state = _at("belote_contree", {"num_deals": 1}, 16, 2)
    assert state is not None and exact_from(state, 16) and not exact_from(state, 15) and not exact_from(state, 0)
    auction = engine.new_match("belote_contree", seed=2, options={"num_deals": 1})
    assert auction.phase != "play" and not exact_from(auction, 32)
    assert not exact_from(engine.new_match("tablanette", seed=1), 64)


def test_ismcts_plays_out_exactly_only_within_dd_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.bots.exact as exact

    solved: list[int] = []

    class Counting(exact.DoubleDummy):  # type: ignore[misc,name-defined]
        def __init__(self, state: engine.State, *args: object, **kwargs: object) -> None:
            solved.append(cards_left(state))
            super().__init__(state, *args, **kwargs)

    monkeypatch.setattr(exact, "DoubleDummy", Counting)
    for label, most in (("ismcts:iters=30:dd_cards=12", 12), ("ismcts:iters=30", 0)):
        solved.clear()
        state = engine.new_match("belote_contree", seed=4, options={"num_deals": 1})
        engine.bots.play_out(state, make_policies([label, "greedy"] * 2, "belote_contree", 4))
        assert state.is_terminal
        assert bool(solved) == bool(most) and all(cards <= most for cards in solved)


def test_exact_play_outs_cost_more_work_than_rollouts() -> None:
    ismcts = policy_class("ismcts")
    plain = ismcts.work_cost(parse_policy("ismcts:iters=100")[1]).work
    exact = ismcts.work_cost(parse_policy("ismcts:iters=100:dd_cards=16")[1]).work
    deeper = ismcts.work_cost(parse_policy("ismcts:iters=100:dd_cards=24")[1]).work
    assert plain < exact < deeper
