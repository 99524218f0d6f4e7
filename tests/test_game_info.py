"""What each game declares on its GameInfo (engine/state.py) holds in play: every phase a deal reaches is one of its
``phases``, which the observation encoders (envs/encoding.py) read from the registry."""

from __future__ import annotations

import pytest

import engine
from engine.rng import Rng

CASES = [(game, players) for game in engine.list_games() for players in engine.game_info(game).player_counts]


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_phase_reached_is_declared(game: str, players: int) -> None:
    phases = engine.game_info(game).phases
    assert phases[-1] == "over" and "play" in phases
    reached = set()
    for seed in range(3):
        state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 2})
        rng = Rng(seed)
        while not state.is_terminal:
            reached.add(state.phase)
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.below(len(legal))])
        reached.add(state.phase)
    assert reached <= set(phases), f"{game} reaches phases it does not declare: {sorted(reached - set(phases))}"
