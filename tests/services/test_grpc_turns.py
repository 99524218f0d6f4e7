"""Whole turns over gRPC (issue 28): a seat's View lists them in ``legal_turns`` (a fishing capture with its cards,
``AD:7H,4S``) beside the engine's steps in ``legal_actions``; Act plays a whole turn in one go (each step a move),
refuses an illegal one naming the legal turns and changing nothing, and still takes the steps one by one."""

from __future__ import annotations

import grpc
import pytest
from matchplay import PERSON, act, bot, create, observe


def test_a_seat_view_lists_whole_turns_and_act_plays_one(games) -> None:
    created, tokens = create(games, [PERSON, bot()], seed=42)
    view = observe(games, created.match_id, 0, tokens[0])
    assert "AD:" in view.legal_actions
    assert list(view.legal_turns) == ["3C", "9D:7H,2S", "AD:7H,4S", "AS:7H,4S", "QC:7H,2S,4S", "QD:7H,2S,4S"]
    acted = act(games, created.match_id, 0, tokens[0], "AD:4S,7H", view.move_number)
    assert [m.action for m in acted.moves[:3]] == ["AD:", "+7H", "+4S"]
    assert acted.view.legal_turns and not [t for t in acted.view.legal_turns if t.endswith(":") or "+" in t]


def test_an_illegal_whole_turn_is_refused_and_changes_nothing(games) -> None:
    created, tokens = create(games, [PERSON, bot()], seed=42)
    before = observe(games, created.match_id, 0, tokens[0])
    with pytest.raises(grpc.RpcError) as refused:
        act(games, created.match_id, 0, tokens[0], "AD:7H", before.move_number)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "legal turns: [3C, 9D:7H,2S, AD:7H,4S" in refused.value.details()
    assert observe(games, created.match_id, 0, tokens[0]) == before


def test_steps_still_play_a_capture(games) -> None:
    created, tokens = create(games, [PERSON, bot()], game_id="tablic", seed=4)
    view = observe(games, created.match_id, 0, tokens[0])
    view = act(games, created.match_id, 0, tokens[0], "4H:", view.move_number).view
    assert list(view.legal_actions) == ["+4D", "+4S"] and list(view.legal_turns) == ["4H:4D", "4H:4D,4S", "4H:4S"]
    view = act(games, created.match_id, 0, tokens[0], "+4D", view.move_number).view
    assert list(view.legal_turns) == ["4H:4D", "4H:4D,4S"]
    acted = act(games, created.match_id, 0, tokens[0], "done", view.move_number)
    assert acted.moves[0].action == "done" and acted.moves[1].seat == 1


def test_a_public_view_lists_no_turns(games) -> None:
    created, _ = create(games, [PERSON, bot()], seed=42)
    assert not created.view.legal_turns and not created.view.legal_actions
