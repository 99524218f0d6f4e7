"""Clones are fully independent of their original, for every game and player count, at many points of random matches.

A clone is played out to the end of its match and the original must not have moved (position, history, legal
actions, observations); the original is played on and an earlier clone must not have moved either. Every attribute
a game does not declare in ``COPY`` (engine/clone.py) must hold an immutable value, so a new mutable attribute that
clone() would share is caught even where random play does not happen to expose it.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from typing import Any

import pytest
from game_cases import (
    GAME_CASES,
    MAX_STEPS_PER_DEAL,
    PLAYOUT_EXAMPLES,
    play_randomly,
    random_steps,
    seeds,
    small_target,
    start_variant,
    target_option,
    variant_options,
)
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.clone import Copyable, declared
from engine.rng import Rng

CHECK_EVERY = 7  # moves between checkpoints (a prime, so checkpoints fall on every kind of move)


def snapshot(state: engine.State) -> str:
    """Everything observable about a state, as one comparable text."""
    return json.dumps({
        "position": state.to_position(),
        "history": state.history,
        "legal": state.legal_actions(),
        "legal_ids": list(state.legal_action_ids()),
        "scores": state.scores,
        "deal_results": state.deal_results,
        "observations": [state.observation(seat) for seat in range(state.players)],
    }, sort_keys=True, default=repr)


def immutable(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float | str | bytes | frozenset):
        return True
    if isinstance(value, tuple):
        return all(immutable(item) for item in value)
    params = getattr(value, "__dataclass_params__", None)
    return dataclasses.is_dataclass(value) and params is not None and params.frozen


def undeclared_mutables(obj: Any, where: str) -> list[str]:
    """Attributes of ``obj`` (and of the Copyable objects it holds) that are mutable but not declared in COPY."""
    declarations = declared(type(obj))
    problems = []
    for name, value in vars(obj).items():
        if name in declarations:
            if isinstance(value, Copyable):
                problems += undeclared_mutables(value, f"{where}.{name}")
        elif not immutable(value):
            problems.append(f"{where}.{name} ({type(value).__name__})")
    return problems


def _match_options(game: str, players: int, data: st.DataObject) -> dict[str, Any]:
    options = data.draw(variant_options(game, players), label="options")
    target = target_option(game)
    if target:
        return {**options, target.name: small_target(target, players), "max_deals": 3}
    return {**options, "max_deals": 3}


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
@PLAYOUT_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_clones_are_independent_of_their_original(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    state = start_variant(game, players, seed, _match_options(game, players, data))
    clone_rng = Rng(play_seed ^ 0x5EED)
    earlier: tuple[engine.State, str] | None = None
    for step, _action in enumerate(random_steps(state, Rng(play_seed), 3 * MAX_STEPS_PER_DEAL)):
        if step % CHECK_EVERY:
            continue
        if earlier is not None:  # the original moved on: an earlier clone did not
            clone, before = earlier
            assert snapshot(clone) == before, f"playing the original changed a clone taken {CHECK_EVERY} moves ago"
        assert not undeclared_mutables(state, type(state).__name__), "mutable attributes missing from COPY"
        before = snapshot(state)
        clone = state.clone()
        assert type(clone) is type(state) and snapshot(clone) == before
        play_randomly(clone, clone_rng, 3 * MAX_STEPS_PER_DEAL)
        assert snapshot(state) == before, f"playing a clone out changed its original at step {step}"
        earlier = (state.clone(), before)
    clone, before = earlier or (state.clone(), snapshot(state))
    assert snapshot(clone) == before


def test_undeclared_mutable_attributes_are_found() -> None:
    state = engine.new_match("tablanette", seed=1)
    state.scratch = [1, 2]  # type: ignore[attr-defined]
    assert undeclared_mutables(state, "state") == ["state.scratch (list)"]


def _checkpoints(game: str, players: int, seed: int) -> list[engine.State]:
    """Clones of one random match of up to two deals taken at the first move of each phase it enters (auctions,
    declarations, exchanges, the play), and at every ``CHECK_EVERY``-th move."""
    state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 2})
    points, phase = [], None
    for step, _action in enumerate(random_steps(state, Rng(seed + 1), 2 * MAX_STEPS_PER_DEAL)):
        if state.phase != phase or step % CHECK_EVERY == 0:
            points.append(state.clone())
        phase = state.phase
    return points


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
def test_a_clone_plays_on_exactly_as_its_original_in_every_phase(game: str, players: int) -> None:
    phases = set()
    for seed in range(2):
        for point in _checkpoints(game, players, seed):
            phases.add(point.phase)
            before = snapshot(point)
            twin = point.clone()
            assert snapshot(twin) == before
            moves = play_randomly(twin, Rng(seed ^ 0xC10E), 2 * MAX_STEPS_PER_DEAL)
            assert snapshot(point) == before, f"playing a clone out from {point.phase} changed its original"
            assert play_randomly(point, Rng(seed ^ 0xC10E), 2 * MAX_STEPS_PER_DEAL) == moves
            assert snapshot(point) == snapshot(twin), f"a clone from {point.phase} played on unlike its original"
    # random play reaches a game's auction, trump choice, exchange or captures (not every rare phase, e.g. a redeal)
    assert len(phases) > 1 or set(engine.game_info(game).phases) <= {"play", "over"}, "only the play was checked"


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
def test_a_pickled_clone_plays_on_as_its_original(game: str, players: int) -> None:
    """Clones travel pickled (Ray ships them to its workers): what they share with their original until one of them
    writes (the match's RNG) arrives as their own, and the next deal is dealt alike."""
    points = _checkpoints(game, players, 3)
    point = points[len(points) // 2]
    before = snapshot(point)
    twin = pickle.loads(pickle.dumps(point.clone()))
    assert type(twin) is type(point) and snapshot(twin) == before
    moves = play_randomly(twin, Rng(0xC10E), 2 * MAX_STEPS_PER_DEAL)
    assert snapshot(point) == before
    assert play_randomly(point, Rng(0xC10E), 2 * MAX_STEPS_PER_DEAL) == moves
    assert snapshot(point) == snapshot(twin)
