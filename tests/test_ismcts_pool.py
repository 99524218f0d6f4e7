"""ismcts's ``pool``: the decision's first iterations draw its worlds (each with auction inference, ``infer``), the
later ones replay clones of them in turn; without it (0, the default) every iteration draws its own, as before."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.bots import (
    SeatView,
    ismcts,
    make_policies,
    make_policy,
    parse_policy,
    play_out,
    policy_label,
    seat_observer,
)
from engine.rng import Rng


def _contree_in_play(seed: int, cards: int) -> engine.State:
    """A contrée match played by greedy on every seat to ``cards`` card moves into its first deal's play."""
    state = engine.new_match("belote_contree", seed=seed, first_dealer=0)
    bots = make_policies(["greedy"] * 4, "belote_contree", seed=seed)
    played = 0
    while played < cards or state.phase != "play":
        seat = state.current_player
        assert seat is not None
        played += state.phase == "play"
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return state


def _decide(label: str, state: engine.State, seed: int = 5) -> int:
    seat = state.current_player
    assert seat is not None
    name, params = parse_policy(label)
    return make_policy(name, state.game_id, seat, seed, params).choose_id(state.legal_action_ids(),
                                                                          SeatView(state, seat))


@pytest.mark.parametrize(("pool", "draws"), [(0, 30), (4, 4), (40, 30)])
def test_a_pool_draws_its_worlds_once(monkeypatch: pytest.MonkeyPatch, pool: int, draws: int) -> None:
    """30 iterations draw 30 worlds without a pool, as many as the pool holds with one (fewer iterations: theirs)."""
    calls = []
    drawn = ismcts.infer_sample

    def counted(*args: Any) -> engine.State:
        calls.append(1)
        return drawn(*args)

    monkeypatch.setattr(ismcts, "infer_sample", counted)
    state = _contree_in_play(3, 2)
    assert _decide(f"ismcts:iters=30:infer=4:pool={pool}", state) in state.legal_action_ids()
    assert len(calls) == draws


def test_the_pooled_decision_is_the_seats_own() -> None:
    """From the seat's view only: the same move where the hidden cards were dealt otherwise, and for the same seed."""
    for k, seed in enumerate((2, 5, 8)):
        state = _contree_in_play(seed, 1 + 3 * k)
        seat = state.current_player
        assert seat is not None
        other = engine.determinize(state, seat, Rng(100 + k))
        assert other.observation(seat) == state.observation(seat)
        label = "ismcts:iters=40:infer=4:pool=8"
        assert _decide(label, other) == _decide(label, state) == _decide(label, state)


def test_pool_is_an_option_that_defaults_to_none() -> None:
    assert parse_policy("ismcts")[1]["pool"] == 0
    assert policy_label("ismcts", {"iters": 50, "pool": 16}) == "ismcts:iters=50:pool=16"
    with pytest.raises(ValueError, match="pool"):
        parse_policy("ismcts:pool=-1")


def test_a_pooled_match_plays_to_its_end() -> None:
    state = engine.new_match("german_whist", seed=4, first_dealer=0)
    assert play_out(state, make_policies(["ismcts:iters=30:pool=5", "random"], "german_whist", seed=1)) > 0
    assert state.is_terminal


def test_count_weighs_the_card_points_where_a_contract_scores_the_deal() -> None:
    """contrée (a contract made or failed): the count in the rewards moves some decision; German Whist (tricks
    scored as they are): none."""
    contree = [_contree_in_play(3, cards) for cards in (1, 9, 17)]
    assert any(_decide("ismcts:iters=500:count=0.5", s) != _decide("ismcts:iters=500", s) for s in contree)
    assert all(_decide("ismcts:iters=500:count=0", s) == _decide("ismcts:iters=500", s) for s in contree)
    state = engine.new_match("german_whist", seed=4, first_dealer=0)
    for _ in range(30):
        assert _decide("ismcts:iters=60:count=2", state) == _decide("ismcts:iters=60", state)
        state.apply_id(state.legal_action_ids()[0])


def test_a_pools_cost_counts_its_draws_once() -> None:
    """The work reckoned for a decision: a pool's worlds drawn once, not one a iteration."""
    from engine.bots.ismcts import NOMINAL_MOVES, SAMPLE_WORK, IsmctsPolicy
    plain = IsmctsPolicy.work_cost(parse_policy("ismcts:iters=1000:infer=8")[1]).work
    pooled = IsmctsPolicy.work_cost(parse_policy("ismcts:iters=1000:infer=8:pool=64")[1]).work
    assert pooled == 64 * 8 * SAMPLE_WORK + 1000 * NOMINAL_MOVES < plain == 1000 * (8 * SAMPLE_WORK + NOMINAL_MOVES)
