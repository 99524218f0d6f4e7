"""The (seat, card) and (seat, action) pairs a deal records are the shared ones of engine.pairs in every game and
player count, through the engine's own loop and move by move (so that a match in play allocates no collector-tracked
tuple per card)."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies, play_out
from engine.pairs import pair
from engine.trickgame import TrickGame

CASES = [(game, n) for game in engine.list_games() for n in engine.game_info(game).player_counts]


def _recorded(state: engine.State) -> list[tuple[int, int]]:
    pairs = list(state.moves)
    if isinstance(state, TrickGame):
        pairs += [entry for trick in [*state.tricks, state.trick] for entry in trick]
    return [entry for entry in pairs if pair(*entry) is pair(*entry)]  # (Boonaken's discards: beyond the table)


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_a_deal_records_the_shared_pairs(game: str, players: int) -> None:
    looped = engine.new_match(game, seed=3, players=players, options={"max_deals": 1})
    play_out(looped, make_policies(["random"] * players, game, seed=5))
    stepped = engine.new_match(game, seed=3, players=players, options={"max_deals": 1})
    for _ in range(40):
        if stepped.current_player is None:
            break
        stepped.apply_id(stepped.legal_action_ids()[0])
    for state in (looped, stepped):
        recorded = _recorded(state)
        assert recorded
        assert all(entry is pair(*entry) for entry in recorded)


def test_a_pair_beyond_the_table_is_a_new_tuple() -> None:
    assert pair(2, 37_000) == (2, 37_000)
    assert pair(2, 37_000) is not pair(2, 37_000)
    assert pair(0, 7) is pair(0, 7) == (0, 7)
