"""The whole turns a person reads and types (``state.turn_choices()``) are exactly the turns the engine's steps allow.

A fishing game decides a capture in steps (``KS:``, ``+4C``, ``+TD``; docs/fishing_moves.md); people see and type the
whole turn (``KS:4C,TD``). For random positions, between turns and in the middle of a capture begun step by step, a
search over every step sequence that the engine allows until the turn ends finds the same whole turns as are listed
(no more, no fewer), and applying a listed whole turn gives the same state as applying its steps one by one.
"""

from __future__ import annotations

from typing import Any

import pytest
from fishing_positions import FISHING_CASES as CASES
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st

import engine
from engine.fishing import DECISION_BITS, MAX_TURNS_LISTED, join_turns
from engine.rng import Rng

MAX_SEQUENCES = 3000  # a position whose turns take more step sequences than this is not searched


def _step_sequences(state: engine.State) -> list[list[int]]:
    """Every sequence of legal steps from ``state`` to the end of the turn in progress (or of the next turn)."""
    seat, found = state.current_player, []

    def walk(now: engine.State, steps: list[int]) -> None:
        if len(found) > MAX_SEQUENCES:
            return
        for action in now.legal_action_ids():
            after = now.clone()
            after.apply_id(action)
            if after.turn is None or after.current_player != seat:  # type: ignore[attr-defined]
                found.append([*steps, action])
            else:
                walk(after, [*steps, action])

    walk(state, [])
    return found


def _position(state: engine.State, seed: int, trails: int, moves: int, steps: int) -> engine.State:
    """``trails`` turns of trailing where a card can trail (to grow the table), ``moves`` random moves, then up to
    ``steps`` random steps into a capture."""
    rng = Rng(seed)
    for _ in range(trails + moves):
        if state.is_terminal:
            break
        ids = state.legal_action_ids()
        plain = [a for a in ids if not a & DECISION_BITS and a < 64] if trails > 0 else []
        trails -= 1
        state.apply_id(plain[0] if plain else ids[rng.below(len(ids))])
    if not state.is_terminal and steps:
        begins = [a for a in state.legal_action_ids() if a & DECISION_BITS]
        if begins:
            state.apply_id(begins[rng.below(len(begins))])
            for _ in range(steps - 1):
                if state.turn is None:  # type: ignore[attr-defined]
                    break
                ids = state.legal_action_ids()
                state.apply_id(ids[rng.below(len(ids))])
    return state


def _listable(state: engine.State, turns: dict[str, Any]) -> list[str]:
    """What ``turn_choices()`` should list given the whole ``turns`` that the steps reach: those turns, except for a
    card with more captures than MAX_TURNS_LISTED (offered as its steps), and, during a capture with more ways to
    finish it than that, the steps."""
    legal = state.legal_actions()
    if state.turn is not None:  # type: ignore[attr-defined]
        return legal if len(turns) > MAX_TURNS_LISTED else list(turns)
    listable = []
    for card in {turn.partition(":")[0] for turn in turns}:
        of_card = [turn for turn in turns if turn.partition(":")[0] == card]
        too_many = len([turn for turn in of_card if ":" in turn]) > MAX_TURNS_LISTED
        listable += [step for step in legal if step.partition(":")[0] == card] if too_many else of_card
    if len(listable) < len(turns):
        event("a card offered as its steps")
    return listable


@settings(max_examples=120, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32), trails=st.integers(0, 12),
       moves=st.integers(0, 60), steps=st.integers(0, 3))
def test_listed_whole_turns_are_exactly_the_step_sequences(case, seed, trails, moves, steps):
    game, players, options = case
    state = _position(engine.new_match(game, seed=seed, players=players, options=options), seed, trails, moves, steps)
    if state.is_terminal:
        reject()
    sequences = _step_sequences(state)
    if len(sequences) > MAX_SEQUENCES:
        reject()
    by_turn: dict[str, list[list[int]]] = {}  # (groups may be taken in more than one order)
    for sequence in sequences:
        after = state.clone()
        for action in sequence:
            after.apply_id(action)
        whole = join_turns(after.history)[-1][1]  # the turn these steps ended, with its steps before ``state``
        by_turn.setdefault(whole, []).append(sequence)
    listed = state.turn_choices()
    event("in a capture" if state.turn is not None else "between turns")  # type: ignore[attr-defined]
    event(f"whole turns: {'more than 10' if len(listed) > 10 else 'up to 10'}")
    assert len(set(listed)) == len(listed)
    assert sorted(listed) == sorted(_listable(state, by_turn)), state.to_position()
    for whole, ways in by_turn.items():
        at_once = state.clone()
        at_once.apply(whole)
        assert at_once.moves[:len(state.moves)] == state.moves
        assert [a for _, a in at_once.moves[len(state.moves):]] in ways, whole  # one of the step sequences
        for sequence in ways:
            by_steps = state.clone()
            for action in sequence:
                by_steps.apply_id(action)
            assert at_once.to_position() == by_steps.to_position(), whole
            assert at_once.scores == by_steps.scores and at_once.current_player == by_steps.current_player


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_a_whole_turn_that_is_not_legal_changes_nothing_and_names_the_legal_turns(game, players, options):
    state = engine.new_match(game, seed=11, players=players, options=options)
    state.apply(state.legal_actions()[0])
    listed = state.turn_choices()
    card = listed[0].partition(":")[0]
    before, history = state.to_position(), state.history
    wrong = f"{card}:" + ("2C" if card != "2C" else "3C")
    if wrong in listed:
        wrong = f"{card}:AS,KS"
    with pytest.raises(engine.IllegalAction) as err:
        state.apply(wrong)
    assert f"legal turns: [{', '.join(listed)}]" in str(err.value) or listed == state.legal_actions()
    assert state.to_position() == before and state.history == history


def test_a_capture_begun_in_steps_is_finished_by_its_whole_turn():
    state = engine.new_match("tablanette", seed=42)
    assert "AD:7H,4S" in state.turn_choices() and "AD:" in state.legal_actions()
    state.apply("AD:")
    assert state.turn_choices() == ["AD:7H,4S"]  # not the steps +4S, +7H
    state.apply("AD:4S,7H")
    assert [action for _, action in state.history] == ["AD:", "+7H", "+4S"]


def test_a_card_with_too_many_captures_to_list_is_offered_as_its_steps():
    """Tablić's large tables: a card with more captures than a person could choose among (MAX_TURNS_LISTED) is
    offered as its steps (``7S``, ``7S:``), the other cards as whole turns; its whole turns are still accepted."""
    state = engine.new_match("tablic", seed=3, options={"max_deals": 1})
    while state.table.bit_count() < 16:  # both seats trail where they can
        ids = state.legal_action_ids()
        state.apply_id(next((a for a in ids if not a & DECISION_BITS and a < 64), ids[0]))
    listed, every = state.turn_choices(), state.legal_turns()
    stepped = {turn[:-1] for turn in listed if turn.endswith(":")}
    assert stepped
    for card in {turn.partition(":")[0] for turn in every}:
        of_card = [turn for turn in every if turn.partition(":")[0] == card]
        if card in stepped:
            assert len(of_card) > MAX_TURNS_LISTED
            assert [t for t in listed if t.partition(":")[0] == card] == [card, card + ":"]
        else:
            assert [t for t in listed if t.partition(":")[0] == card] == of_card
    card = sorted(stepped)[0]
    whole = next(turn for turn in every if turn.startswith(card + ":"))
    typed, by_steps = state.clone(), state.clone()
    typed.apply(whole)
    by_steps.apply(card + ":")
    assert by_steps.turn_choices() == by_steps.legal_actions()  # still too many ways to finish it: its steps
    by_steps.apply(whole)  # finishing the capture begun by its card
    assert typed.to_position() == by_steps.to_position()
