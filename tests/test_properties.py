"""Property tests of the engine contract, written once and run for every registered game and player count.

Random legal play ends; the same seed and actions give the same states; positions round-trip at every step (and a
rebuilt state plays on identically, into the next deal); observations are JSON-ready and hide other seats' cards;
cards are conserved. Seeds and option variants are drawn by hypothesis; choices during play come from engine.rng.
"""

from __future__ import annotations

import json

import pytest
from game_cases import (
    EXAMPLES,
    FEW_EXAMPLES,
    GAME_CASES,
    MAX_STEPS_PER_DEAL,
    PLAYOUT_EXAMPLES,
    SECRET_KEYS,
    codes_in,
    conserved_cards,
    hidden_from,
    keys_in,
    play_randomly,
    random_steps,
    seeds,
    small_target,
    start,
    start_variant,
    target_option,
    variant_options,
)
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.rng import Rng

pytestmark = pytest.mark.parametrize(("game", "players"), GAME_CASES)


@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_random_play_ends_a_single_deal(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 1}
    state = start_variant(game, players, seed, options)
    actions = play_randomly(state, Rng(play_seed), MAX_STEPS_PER_DEAL)
    assert state.is_terminal, f"no end after {len(actions)} actions: {actions[-20:]}"
    assert state.deal_index == 0
    assert state.legal_actions() == [] and state.legal_action_ids() == []
    assert state.current_player is None
    assert state.history == [(seat, action) for (seat, _), action in zip(state.history, actions, strict=True)]
    winners = state.to_position().get("winners")
    assert isinstance(winners, list) and all(0 <= seat < players for seat in winners)
    assert winners or type(state).NO_WINNER_POSSIBLE, "only a game that declares it ends a match with no winner"


@FEW_EXAMPLES
@given(seed=seeds, play_seed=seeds)
def test_random_play_ends_a_whole_match_to_a_small_target(game: str, players: int, seed: int, play_seed: int) -> None:
    target = target_option(game)
    options = {target.name: small_target(target, players)} if target else {"max_deals": 3}
    state = start(game, players, seed, options)
    actions = play_randomly(state, Rng(play_seed), 100 * MAX_STEPS_PER_DEAL)
    assert state.is_terminal, f"no end after {len(actions)} actions and {state.deal_index + 1} deals"
    if target and state.winners:
        winning_score = max(state.scores[seat] for seat in state.winners)
        assert winning_score == max(state.scores)


@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_the_same_seed_and_actions_give_the_same_states(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    first = start_variant(game, players, seed, options)
    second = start(game, players, seed, options)
    assert first.to_position() == second.to_position()
    for action in random_steps(first, Rng(play_seed), 2 * MAX_STEPS_PER_DEAL):
        assert first.to_position() == second.to_position(), f"after {first.history}"
        second.apply(action)
    assert first.to_position() == second.to_position()
    assert first.history == second.history
    assert first.scores == second.scores


@PLAYOUT_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_positions_round_trip_at_every_step_and_play_on_identically(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    state = start_variant(game, players, seed, options)
    positions, actions = [], []
    for action in random_steps(state, Rng(play_seed), 2 * MAX_STEPS_PER_DEAL):
        positions.append(_check_round_trip(game, state))
        actions.append(action)
    positions.append(_check_round_trip(game, state))
    # A state rebuilt from some step's position continues exactly as the original did, into the next deal.
    step = data.draw(st.integers(0, len(actions)), label="rebuild at step")
    rebuilt = engine.from_position(game, json.loads(json.dumps(positions[step])))
    for later, action in enumerate(actions[step:], start=step + 1):
        rebuilt.apply(action)
        assert rebuilt.to_position() == positions[later], f"rebuilt at step {step}, differs after {actions[:later]}"


def _check_round_trip(game: str, state: engine.State) -> dict:
    position = state.to_position()
    loaded = json.loads(json.dumps(position))
    assert loaded == position, "a position holds only JSON types (lists, str keys)"
    rebuilt = engine.from_position(game, loaded)
    assert rebuilt.to_position() == position
    assert rebuilt.legal_actions() == state.legal_actions()
    assert rebuilt.legal_action_ids() == state.legal_action_ids()
    assert (rebuilt.current_player, rebuilt.is_terminal, rebuilt.scores) == (
        state.current_player, state.is_terminal, state.scores
    )
    assert (rebuilt.deal_index, rebuilt.dealer, rebuilt.phase) == (state.deal_index, state.dealer, state.phase)
    return position


@PLAYOUT_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_observations_are_json_ready_and_hide_other_seats_cards(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    state = start_variant(game, players, seed, options)
    deal, deal_start = state.deal_index, 0
    for _ in random_steps(state, Rng(play_seed), 2 * MAX_STEPS_PER_DEAL):
        if state.deal_index != deal:
            deal, deal_start = state.deal_index, len(state.history)
        _check_observations(state, deal_start)
    _check_observations(state, deal_start)


def _check_observations(state: engine.State, deal_start: int) -> None:
    """``deal_start``: the number of moves before this deal (earlier deals' cards are dealt again, so may show)."""
    position = state.to_position()
    for seat in range(state.players):
        observation = state.observation(seat)
        assert json.loads(json.dumps(observation)) == observation, "an observation holds only JSON types"
        assert observation["seat"] == seat
        assert not SECRET_KEYS & keys_in(observation), f"seat {seat} sees {SECRET_KEYS & keys_in(observation)}"
        this_deal = dict(observation)
        if len(observation.get("history", [])) == len(state.history):
            this_deal["history"] = observation["history"][deal_start:]
        # A game lists, under "known_cards", hidden cards this seat has legitimately seen (e.g. a revealed card).
        allowed = set(observation.get("known_cards", []))
        leaked = (codes_in(this_deal) & hidden_from(position, seat)) - allowed
        assert not leaked, f"seat {seat} sees hidden cards {sorted(leaked)} after {state.history}"
        legal = observation.get("legal_actions")
        if legal:
            assert seat == state.current_player and legal == state.legal_actions()


@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_cards_are_conserved(game: str, players: int, seed: int, play_seed: int, data: st.DataObject) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    state = start_variant(game, players, seed, options)
    position = state.to_position()
    if conserved_cards(game, position) == {}:
        pytest.skip(f"{game} positions hold none of the common card keys")
    for _ in random_steps(state, Rng(play_seed), 2 * MAX_STEPS_PER_DEAL):
        _check_conservation(game, state)
    _check_conservation(game, state)


def _check_conservation(game: str, state: engine.State) -> None:
    position = state.to_position()
    deck = position["deal_deck"]
    assert len(deck) == len(set(deck)) == engine.game_info(game).deck_size_for(state.players)
    held = conserved_cards(game, position)
    missing = sorted(set(deck) - set(held))
    repeated = sorted(code for code, count in held.items() if count > 1)
    foreign = sorted(set(held) - set(deck))
    assert not (missing or repeated or foreign), (
        f"missing {missing}, repeated {repeated}, not in the deck {foreign} after {state.history}"
        " (a game that keeps cards under other position keys lists them in POSITION_CARD_PILES)"
    )
