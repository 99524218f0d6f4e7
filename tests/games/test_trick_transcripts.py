"""The pinned whole-match transcripts of the trick games (tests/fixtures/transcripts, written by trick_transcripts.py)
replay to the same history, deal results, scores, legal actions, observations and positions; every pinned position
loads and continues the match exactly as the transcript does."""

from __future__ import annotations

import json

import pytest
from trick_transcripts import CASES, OUT, play

import engine


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_pinned_match_plays_the_same(name: str) -> None:
    expected = json.loads((OUT / f"{name}.json").read_text())
    assert play(*CASES[name]) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_pinned_position_continues_as_the_transcript(name: str) -> None:
    expected = json.loads((OUT / f"{name}.json").read_text())
    game = expected["case"]["game"]
    history = expected["history"]
    for at, position in expected["positions"].items():
        state = engine.from_position(game, position)
        assert state.to_position() == position
        if at == "end":
            assert state.is_terminal and state.winners == expected["winners"]
            continue
        for seat, action in history[int(at):]:
            assert state.current_player == seat
            state.apply(action)
        assert state.scores == expected["scores"]
        assert state.winners == expected["winners"]
