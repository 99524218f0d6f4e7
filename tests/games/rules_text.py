"""Audit a game against its rules file over random play: a test restates a rule's algorithm on card codes, as the
rules file writes it (not as the engine computes it), and :func:`play_checked` compares the engine with it at every
move of random matches.

>>> import engine
>>> state = engine.new_match("tres", seed=1, options={"num_deals": 1})
>>> play_checked(state, 1, lambda p: state.legal_actions())
>>> state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine
from engine.rng import Rng

Position = dict[str, Any]


def play_checked(state: engine.State, seed: int, legal: Callable[[Position], list[str]],
                 score: Callable[[list[list[Any]], Position], list[int]] | None = None,
                 after: Callable[[Position, engine.State], None] | None = None,
                 avoid: frozenset[str] = frozenset()) -> None:
    """Play random legal moves (drawn with ``Rng(seed)``) to the match end. Before each move the legal actions must
    be ``legal(position)``; after a move that ends a deal, that deal's points must be ``score(tricks, position)``
    (its tricks in play order as ``[[seat, action], ...]``, the position before its last card); ``after(position,
    state)`` checks anything else after every other move. Actions in ``avoid`` are drawn only when nothing else is
    legal (to reach the deals a random player rarely lets happen)."""
    rng = Rng(seed)
    while not state.is_terminal:
        before = state.to_position()
        assert state.legal_actions() == legal(before), before
        deals = len(state.deal_results)
        ids = state.legal_action_ids()
        state.apply_id(rng.choice([a for a in ids if state.action_string(a) not in avoid] or ids))
        if len(state.deal_results) > deals:
            if score is not None:
                seat, action = state.history[-1]
                tricks = [*before["tricks"], [*before["trick"], [seat, action]]]
                assert state.deal_results[-1]["points"] == score(tricks, before), tricks
        elif after is not None:
            after(before, state)
