"""apply_id's single move in the play (``TrickGame._play_action``: a plain card by the trick loop's own step, with
none of the loop's set-up) leaves the state the trick loop itself (``_play_cards``) leaves, at every move of every
trick game; and apply_id checks a move against the listed legal ids (an id not listed is refused, an equal int that is
not the listed object is taken)."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies
from engine.clone import fields_of
from engine.errors import IllegalAction
from engine.pairs import pair
from engine.trickgame import TrickGame

TRICK_GAMES = [game for game in engine.list_games() if isinstance(engine.new_match(game, seed=0), TrickGame)]


@pytest.mark.parametrize("game", TRICK_GAMES)
def test_a_single_move_leaves_the_state_the_trick_loop_leaves(game: str) -> None:
    for seed in range(2):
        state = engine.new_match(game, seed=seed, options={"max_deals": 1})
        policies = make_policies(["random"] * state.players, game, seed)
        cards = 0
        while state.current_player is not None:
            seat = state.current_player
            ids = state.legal_action_ids()
            action = policies[seat].choose_id(ids, dict)
            if state.phase == "play":
                looped = state.clone()
                looped.moves.append(pair(seat, action))  # (as apply_id records it)
                looped._legal = None
                looped._play_cards(action)
                state.apply_id(action)
                assert fields_of(state) == fields_of(looped), (game, seed, len(state.moves))
                cards += state.ACTIONS.plain_card[action] is not None
            else:
                state.apply_id(action)
        assert cards > 0


def test_apply_id_checks_the_listed_ids() -> None:
    state = engine.new_match("german_whist", seed=3)
    ids = state.legal_action_ids()
    unlisted = next(a for a in range(max(ids) + 2) if a not in ids)
    with pytest.raises(IllegalAction):
        state.apply_id(unlisted)
    assert state.legal_action_ids() == ids and not state.moves
    state.apply_id(int(str(ids[-1])))  # an equal int, not the listed object
    assert state.moves[-1][1] == ids[-1]
