"""The deal's end (session 48): the match-end rules of engine/scoring.py written as index loops, and German Whist's
count of the tricks won per phase without a list of the phase-1 winners, each checked against its plain definition."""

from __future__ import annotations

import random

import pytest

import engine
from engine.scoring import highest_once_target_reached, leaders, sides_at_or_over, single_leader, target_or_deals


def _plain_leaders(scores: list[int]) -> list[int]:
    top = max(scores)
    return [side for side, s in enumerate(scores) if s == top]


def test_match_end_rules_match_their_plain_definitions() -> None:
    rng = random.Random(48)
    for _ in range(400):
        scores = [rng.randint(-3, 3) for _ in range(rng.randint(1, 4))]
        target = rng.randint(-3, 3)
        top = _plain_leaders(scores)
        assert leaders(scores) == top
        assert leaders(tuple(scores)) == top
        assert sides_at_or_over(scores, target) == [side for side, s in enumerate(scores) if s >= target]
        assert single_leader(scores) == (top if len(top) == 1 else None)
        reached = any(s >= target for s in scores)
        assert highest_once_target_reached(scores, target) == ((top if len(top) == 1 else None) if reached else None)
        assert target_or_deals(scores, 0, 2, 2) == top


def test_leaders_of_no_scores_is_an_error_as_max_is() -> None:
    with pytest.raises(ValueError):
        leaders([])


def _plain_won(state: engine.State) -> list[list[int]]:
    """German Whist's tricks won per phase from the list of phase-1 winners (the definition before session 48)."""
    winners = state._phase1_winners()  # type: ignore[attr-defined]
    first = [winners.count(0), winners.count(1)]
    return [first, [state.tricks_won[s] - first[s] for s in (0, 1)]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("options", [{}, {"face_down_four": True}, {"target_score": 0}])
def test_german_whist_won_counts_the_phase_one_winners_at_every_move(options: dict[str, object]) -> None:
    for seed in range(3):
        state = engine.new_match("german_whist", seed=seed, options={**options, "max_deals": 2})
        rng = random.Random(seed)
        checked = 0
        while state.current_player is not None:
            assert state.won() == _plain_won(state)  # type: ignore[attr-defined]
            ids = state.legal_action_ids()
            state.apply_id(ids[rng.randrange(len(ids))])
            checked += 1
        assert state.won() == _plain_won(state)  # type: ignore[attr-defined]  (the finished deal's 26 tricks)
        assert checked >= 26
        for result in state.deal_results:
            assert sum(result["phase1_tricks"]) == (11 if options.get("face_down_four") else 13)
