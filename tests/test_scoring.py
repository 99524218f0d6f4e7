"""The match-end rules of engine/scoring.py, and the games that end by "the single highest once a target is reached"
(Belote, Belote contrée, Tablić) asking it rather than deciding it themselves."""

from __future__ import annotations

import itertools

import pytest

import engine
from engine.scoring import highest_once_target_reached, leaders, single_leader

PAIRS = list(itertools.product([0, 99, 100, 101, 150], repeat=2))


def test_single_leader_and_highest_once_target_reached() -> None:
    assert single_leader([3, 5, 4]) == [1] and single_leader([5, 5, 4]) is None and leaders([5, 5, 4]) == [0, 1]
    assert highest_once_target_reached([99, 98], 100) is None
    assert highest_once_target_reached([100, 98], 100) == [0]
    assert highest_once_target_reached([120, 120], 100) is None


@pytest.mark.parametrize("game, target_option", [("tablic", "target"), ("belote_contree", "target_score"),
                                                 ("belote", "target_score")])
def test_games_ending_at_a_target_end_as_scoring_says(game: str, target_option: str) -> None:
    state = engine.new_match(game, seed=1, options={target_option: 100})
    for pair in PAIRS:
        state.side_scores = list(pair)
        assert state._match_winners() == highest_once_target_reached(pair, 100), pair
