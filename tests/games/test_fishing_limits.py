"""Every reachable fishing state lists a small number of legal actions (issue 10).

A turn is a short sequence of decisions (engine/fishing.py: play a card, take the groups card by card, stop), so the
list is bounded by the hand (a trail and a capture per card) or by the table (a card to take, ``next``, ``done``),
however large a table adversarial play grows. Whole turns are still listed by ``legal_turns()`` where they are few;
past ``MAX_CAPTURE_CHOICES`` for one card it refuses clearly and changes nothing.
"""

from __future__ import annotations

import pytest
from fishing_positions import FISHING_CASES as CASES

import engine
from engine.fishing import DECISION_BITS, join_turns
from engine.rng import Rng


def _always_trail(state: engine.State, ids: list[int], rng: Rng) -> int:
    trails = [a for a in ids if not a & DECISION_BITS and a < 64]
    return trails[0] if trails else ids[0]


def _first(state: engine.State, ids: list[int], rng: Rng) -> int:
    return ids[0]


def _last(state: engine.State, ids: list[int], rng: Rng) -> int:
    return ids[-1]


def _random(state: engine.State, ids: list[int], rng: Rng) -> int:
    return ids[rng.below(len(ids))]


STRATEGIES = {"always_trail": _always_trail, "first": _first, "last": _last, "random": _random}


def _bound(state: engine.State) -> int:
    position = state.to_position()
    if state.phase == "capture":
        return len(position["table"]) + 2
    return 2 * len(position["hands"][state.current_player])


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_adversarial_matches_keep_every_action_list_small(game, players, options, strategy):
    choose = STRATEGIES[strategy]
    state = engine.new_match(game, seed=3, players=players, options=options)
    rng = Rng(5)
    largest_table = longest = moves = 0
    while not state.is_terminal:
        ids = state.legal_action_ids()
        assert 1 <= len(ids) <= _bound(state), (state.phase, state.to_position())
        longest = max(longest, len(ids))
        largest_table = max(largest_table, state.table.bit_count())
        state.apply_id(choose(state, ids, rng))
        moves += 1
    assert moves <= state.length.moves
    assert longest <= 54
    if strategy == "always_trail" and game == "tablic" and not options:
        assert largest_table > 40, "always trailing in Tablić piles most of the deck onto the table"


def test_whole_turns_on_a_grown_table_are_refused_clearly_and_change_nothing():
    state = engine.new_match("tablic", seed=3, options={"max_deals": 1})
    while state.table.bit_count() < 24:
        state.apply_id(_always_trail(state, state.legal_action_ids(), Rng(0)))
    before = state.to_position()
    assert len(state.legal_actions()) <= 12
    with pytest.raises(engine.ActionLimitExceeded, match="capture choices"):
        state.legal_turns()
    assert state.to_position() == before


def test_a_whole_turn_is_still_played_on_a_grown_table():
    state = engine.new_match("tablic", seed=3, options={"max_deals": 1})
    while state.table.bit_count() < 30:
        state.apply_id(_always_trail(state, state.legal_action_ids(), Rng(0)))
    seat = state.current_player
    begin = next(a for a in state.legal_actions() if a.endswith(":"))
    probe = state.clone()
    probe.apply(begin)
    while probe.current_player == seat and probe.phase == "capture":
        probe.apply(probe.legal_actions()[-1])
    [(_, turn)] = join_turns(probe.history[len(state.history):])
    played, _, taken = turn.partition(":")
    assert played == begin[:-1] and len(taken.split(",")) >= 2
    state.apply(played + ":" + ",".join(reversed(taken.split(","))))  # the captured cards in any order
    assert state.to_position() == probe.to_position()
