"""State.play_to_end, the engine's own rollout loop (bots' play_out without ordinals or on_move), plays exactly the
moves of the generic loop (legal_action_ids, choose_id, apply_id one at a time), in every game and player count."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies, play_out

CASES = [(game, n) for game in engine.list_games() for n in engine.game_info(game).player_counts]


def _generic(state: engine.State, policies: list) -> int:
    moves = 0
    while state.current_player is not None:
        seat = state.current_player
        state.apply_id(policies[seat].choose_id(state.legal_action_ids(), lambda seat=seat: state.observation(seat)))
        moves += 1
    return moves


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_the_engine_loop_plays_the_generic_loop_s_moves(game: str, players: int, policy: str) -> None:
    for seed in range(12):
        options = {"max_deals": 1} if seed % 3 else {"max_deals": 2}
        fused = engine.new_match(game, seed=seed, players=players, options=options)
        plain = engine.new_match(game, seed=seed, players=players, options=options)
        moves = play_out(fused, make_policies([policy] * players, game, seed))
        assert moves == _generic(plain, make_policies([policy] * players, game, seed))
        assert fused.moves == plain.moves and fused.scores == plain.scores and fused.winners == plain.winners
        assert fused.to_position() == plain.to_position() and fused.legal_action_ids() == []


@pytest.mark.parametrize("game", engine.list_games())
def test_an_illegal_choice_raises_and_changes_nothing(game: str) -> None:
    state = engine.new_match(game, seed=3)
    before = state.to_position()
    legal = state.legal_action_ids()
    with pytest.raises(engine.IllegalAction):
        state.play_to_end([lambda ids, observe: max(ids) + 1] * state.players, [dict] * state.players)
    assert state.to_position() == before and state.legal_action_ids() == legal and state.moves == []


def test_an_observation_while_choosing_lists_the_legal_actions_now() -> None:
    state = engine.new_match("german_whist", seed=5)
    seen = []

    def choose(ids: list[int], observe) -> int:
        seen.append(observe()["legal_actions"] == [state.action_string(a) for a in ids])
        return ids[-1]

    observers = [lambda seat=seat: state.observation(seat) for seat in range(2)]
    state.play_to_end([choose, choose], observers)
    assert len(seen) == 52 and all(seen)
