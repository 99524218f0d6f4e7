"""The double-dummy solver (engine/search/double_dummy.py) against brute-force minimax over the engine itself, on
small endings of German Whist and Belote contrée, and the positions it refuses."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies
from engine.rng import Rng
from engine.search.double_dummy import DoubleDummy, NodeBudgetExceeded, cards_left, unsolvable
from engine.trickgame import TrickGame

ENDINGS = {  # game, options, cards left: a few tricks, so that brute force over the engine stays quick
    "german_whist": ({}, (4, 5, 7, 8)),
    "german_whist:all": ({"score_all_tricks": True}, (6, 7)),
    "belote_contree": ({"num_deals": 1}, (4, 7, 8, 10)),
}


def _side_total(state: TrickGame, side: int) -> int:
    """What ``side`` has taken so far this deal, as the solver counts it."""
    counts = getattr(state, "_trick_counts", None)
    if state.RULES.points is None:
        counted = [k for k in range(len(state.tricks)) if counts is None or counts(k)]
        return sum(1 for k in counted if _winner(state, k) == side)
    return state.trick_totals()[side]


def _winner(state: TrickGame, k: int) -> int:
    from engine.tricks import trick_winner
    cards = [c for _s, c in state.tricks[k]]
    return state.side_of[state.tricks[k][trick_winner(cards, state.trump, state.RULES.ranking)][0]]


def _minimax(state: TrickGame, side: int) -> int:
    """Brute force through the engine: every legal action, every line, to the deal's last trick."""
    if len(state.tricks) == state.RULES.tricks:
        return _side_total(state, side)
    values = []
    for action in state.legal_action_ids():
        child = state.clone()
        child.apply_id(action)
        values.append(_minimax(child, side))
    return max(values) if state.side_of[state.current_player] == side else min(values)


def _ending(game: str, options: dict, left: int, seed: int, bots: str = "random") -> TrickGame:
    """Play by ``bots`` from a seeded deal until ``left`` cards remain to play."""
    state = engine.new_match(game, seed=seed, options=options)
    bots = make_policies([bots] * state.players, game, seed)
    while not (state.phase == "play" and cards_left(state) == left):
        seat = state.current_player
        assert seat is not None, "the deal ended before the ending was reached"
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), lambda seat=seat: state.observation(seat)))
    assert isinstance(state, TrickGame)
    return state


CASES = [(name, left, seed) for name, (_o, lefts) in ENDINGS.items() for left in lefts for seed in range(3)]


@pytest.mark.parametrize(("name", "left", "seed"), CASES)
def test_solver_agrees_with_brute_force(name: str, left: int, seed: int) -> None:
    game = name.split(":")[0]
    state = _ending(game, ENDINGS[name][0], left, seed)
    seat = state.current_player
    side = state.side_of[seat]
    so_far = _side_total(state, side)
    solver = DoubleDummy(state)
    # after each legal action: the brute force value of the child, less what was taken before
    for action, value in solver.action_values().items():
        child = state.clone()
        child.apply_id(action)
        assert value == _minimax(child, side) - so_far, f"{name} seed {seed}: {state.action_string(action)}"
    assert solver.solve() == _minimax(state, side) - so_far
    other = 1 - side
    assert DoubleDummy(state, side=other).solve() == _minimax(state, other) - _side_total(state, other)


def test_the_solver_leaves_the_state_as_it_was() -> None:
    state = _ending("belote_contree", {"num_deals": 1}, 12, 1)
    before = state.to_position()
    DoubleDummy(state).card_values()
    assert state.to_position() == before


def test_a_node_budget_stops_the_search() -> None:
    state = _ending("german_whist", {}, 16, 2)
    with pytest.raises(NodeBudgetExceeded):
        DoubleDummy(state, max_nodes=50).solve()


@pytest.mark.parametrize(("game", "options", "reason"), [
    ("belote_contree", {}, "not playing cards"),
    ("tablanette", {}, "not a trick game"),
    ("tres", {}, "rules of its own"),
    ("german_whist", {"face_down_four": True}, "in no hand"),
])
def test_positions_it_cannot_solve_are_refused_with_the_reason(game: str, options: dict, reason: str) -> None:
    state = engine.new_match(game, seed=3, options=options)
    if game == "belote_contree":
        assert state.phase != "play"
    assert reason in (unsolvable(state) or "")
    with pytest.raises(ValueError, match=reason):
        DoubleDummy(state)


def test_three_quarters_of_a_random_deal_solve_to_what_best_play_then_takes() -> None:
    """The value is reachable: following the solver's best card for the side and any card for the others never
    gives the side less."""
    state = _ending("german_whist", {}, 10, 5)
    side = state.side_of[state.current_player]
    target = DoubleDummy(state).solve() + _side_total(state, side)
    rng = Rng(1)
    while len(state.tricks) < state.RULES.tricks:
        values = DoubleDummy(state, side=side).action_values()
        if state.side_of[state.current_player] == side:
            action = max(values, key=values.__getitem__)
        else:
            action = list(values)[rng.below(len(values))]
        state.apply_id(action)
    assert _side_total(state, side) >= target


def _margin_minimax(state: TrickGame, side: int) -> float:
    """Brute force through the engine on the deal's margin for ``side`` (its points less the other side's), every
    belote announced (an action that announces it stands for the plain play of the same card)."""
    if state.deal_results:
        points = state.deal_results[-1]["points"]
        return points[side] - points[1 - side]
    width, values = state.ACTIONS.width, []
    legal = state.legal_action_ids()
    for action in legal:
        if action % width == 0 and action + 1 in legal:  # the plain card beside its announcement
            continue
        child = state.clone()
        child.apply_id(action)
        values.append(_margin_minimax(child, side))
    return max(values) if state.side_of[state.current_player] == side else min(values)


@pytest.mark.parametrize("left", [4, 6, 8])
def test_contree_double_dummy_points_give_the_deals_margin_with_best_play(left: int) -> None:
    """Belote contrée scores a contract made or failed, not the card points the solver counts: its
    ``double_dummy_points`` turn each card's double-dummy count into the deal's points, and their margin is what
    best play for the margin itself gets after that card (brute force). A capot contract (tricks) has none."""
    checked = 0
    for seed in range(12):
        state = _ending("belote_contree", {"num_deals": 1}, left, seed, "greedy")
        side = state.side_of[state.current_player]
        for action, value in DoubleDummy(state).action_values().items():
            points = state.double_dummy_points(side, value)
            if state.contract.value == "capot":
                assert points is None
                continue
            child = state.clone()
            child.apply_id(action)
            assert points is not None and points[side] - points[1 - side] == _margin_minimax(child, side), seed
            checked += 1
    assert checked >= 10
