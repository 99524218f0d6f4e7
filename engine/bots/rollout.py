"""Bots playing a match: the one loop that lets a policy per seat play, through the hot-loop path (action ints).

Simulations, replay recording, benchmarks and ``cardtable watch`` all play through :func:`play_out`.

>>> import engine
>>> from engine.bots import make_policies, play_out
>>> state = engine.new_match("tablanette", seed=1, options={"max_deals": 1})
>>> moves = play_out(state, make_policies(["greedy", "random"], "tablanette", seed=1))
>>> state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..state import State, draws_only
from .policy import Observation, Policy
from .view import seat_observer


def unobserved() -> Observation:
    """The ``observe`` of a seat whose chooser draws only (``engine.state.draws_only``): never called."""
    raise AssertionError("a chooser that draws only asked for its observation")


# Called before each move is applied, with the seat to act and the action int it chose.
OnMove = Callable[[int, int], None]


def play_out(state: State, policies: Sequence[Policy], ordinals: list[tuple[int, int]] | None = None, *,
             deal_only: bool = False, on_move: OnMove | None = None) -> int:
    """Play ``state`` to the end of the match (``policies[seat]`` plays ``seat``); return the number of moves.

    With ``deal_only``, stop at the end of the current deal instead. With ``ordinals``, each move is noted there as
    (its index in the legal actions, how many there were): what a replay stores. ``on_move(seat, action)`` sees each
    move before it is applied (a display, say). Without any of these, the engine's own loop plays
    (:meth:`engine.state.State.play_to_end`: the same moves, less per move).
    """
    if len(policies) != state.players:
        raise ValueError(f"{state.game_id} has {state.players} seats but {len(policies)} policies were given")
    moves = 0
    start_deal = state.deal_index
    legal_action_ids = state.legal_action_ids
    apply_id = state.apply_id
    if ordinals is None and on_move is None and not deal_only:  # a plain rollout: the engine's own loop
        choosers = [policy.chooser() for policy in policies]
        if all(map(draws_only, choosers)):  # random seats: no observation is asked for, none is made
            return state.play_to_end(choosers, [unobserved] * len(choosers))
        return state.play_to_end(choosers, [seat_observer(state, seat, policy) for seat, policy in enumerate(policies)])
    observers = [seat_observer(state, seat, policy) for seat, policy in enumerate(policies)]
    while True:
        seat = state.current_player
        if seat is None or deal_only and state.deal_index != start_deal:
            return moves
        ids = legal_action_ids()
        action = policies[seat].choose_id(ids, observers[seat])
        if ordinals is not None:
            ordinals.append((ids.index(action), len(ids)))
        if on_move is not None:
            on_move(seat, action)
        apply_id(action)
        moves += 1
