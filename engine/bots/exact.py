"""Exact play-outs: the end of a trick game's deal played as if every hand were known, each card the best for its
player's side (:mod:`engine.search.double_dummy`), so that a search's leaf is valued by best play rather than by a
rollout policy's.

A play-out of ``ismcts:dd_cards=N`` that reaches the card play with at most N cards left goes on this way. Every move
with a choice is one double-dummy search from the position it is played in, for the side of the player to move; the
searches of one decision share a :class:`engine.search.double_dummy.Table` (what a side takes from a position depends
on the remaining cards alone, whatever the world it came from), so the second card of a trick finds most of its
answers already settled. Among equal values the first legal action is played, one announcing with its card (belote)
before the same card without, as announcing costs nothing.

>>> import engine
>>> from engine.budget import Meter
>>> from engine.search.double_dummy import Table
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0, options={"max_deals": 1})
>>> while len(state.tricks) < 20:
...     state.apply_id(state.legal_action_ids()[0])
>>> exact_from(state, 12), play_exactly(state, Table(), Meter()) > 0, state.is_terminal
(True, True, True)
"""

from __future__ import annotations

from ..budget import Meter, NodeMeter
from ..search.double_dummy import DoubleDummy, Table, cards_left, unsolvable
from ..state import State
from ..trickgame import TrickGame


def exact_from(state: State, dd_cards: int) -> bool:
    """Whether ``state`` is a trick game's card play with at most ``dd_cards`` cards left that the solver takes."""
    return bool(dd_cards) and isinstance(state, TrickGame) and state.phase == "play" and \
        cards_left(state) <= dd_cards and unsolvable(state) is None


def play_exactly(state: State, table: Table, meter: Meter) -> int:
    """Play the current deal of ``state`` (where :func:`exact_from` holds) to its end by best play, the solver's nodes
    charged to ``meter`` (as ``NodeMeter`` does); the moves played. It stops early, leaving the rest to the caller,
    where a position is no longer one the solver takes."""
    assert isinstance(state, TrickGame)
    deal, results = state.deal_index, len(state.deal_results)
    width = state.ACTIONS.width
    moves = 0
    while state.current_player is not None and state.deal_index == deal and len(state.deal_results) == results:
        legal = state.legal_action_ids()
        if len(legal) == 1:
            state.apply_id(legal[0])
            moves += 1
            continue
        nodes = NodeMeter(meter)
        try:
            solver = DoubleDummy(state, meter=nodes, table=table)
        except ValueError:  # no longer a position the solver takes (unsolvable says why)
            break
        values = solver.action_values()
        solver.settle()
        best, best_value = legal[0], -1.0
        for action in legal:
            value = values[action] + (0.5 if action % width else 0.0)
            if value > best_value:
                best, best_value = action, value
        state.apply_id(best)
        moves += 1
    return moves
