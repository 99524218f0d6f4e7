"""Play a match to its end with one policy per seat, through the hot-loop path (action ints).

>>> import engine
>>> from engine.bots import make_policies, play_out
>>> state = engine.new_match("tablanette", seed=1, options={"max_deals": 1})
>>> moves = play_out(state, make_policies(["greedy", "random"], "tablanette", seed=1))
>>> state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ..state import State
from .policy import Policy


def play_out(state: State, policies: Sequence[Policy], ordinals: list[tuple[int, int]] | None = None) -> int:
    """Play ``state`` to the end of the match (``policies[seat]`` plays ``seat``); return the number of moves.

    With ``ordinals``, each move is noted there as (its index in the legal actions, how many there were): what a
    replay stores.
    """
    if len(policies) != state.players:
        raise ValueError(f"{state.game_id} has {state.players} seats but {len(policies)} policies were given")
    moves = 0
    legal_action_ids = state.legal_action_ids
    apply_id = state.apply_id
    observers = [partial(state.observation, seat, history=policy.uses_history) for seat, policy in enumerate(policies)]
    while True:
        seat = state.current_player
        if seat is None:
            return moves
        ids = legal_action_ids()
        action = policies[seat].choose_id(ids, observers[seat])
        if ordinals is not None:
            ordinals.append((ids.index(action), len(ids)))
        apply_id(action)
        moves += 1
