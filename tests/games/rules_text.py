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
                 avoid: frozenset[str] = frozenset(),
                 choose: Callable[[engine.State, Rng], int] | None = None) -> None:
    """Play random legal moves (drawn with ``Rng(seed)``, or by ``choose(state, rng)`` as an action id, to steer the
    play towards the cases a rule needs) to the match end. Before each move the legal actions must
    be ``legal(position)``; after a move that ends a deal, that deal's points must be ``score(tricks, position)``
    (its tricks in play order as ``[[seat, action], ...]``, the position before its last card); ``after(position,
    state)`` checks anything else after every other move. Actions in ``avoid`` are drawn only when nothing else is
    legal (to reach the deals a random player rarely lets happen)."""
    rng = Rng(seed)
    while not state.is_terminal:
        before = state.to_position()
        assert state.legal_actions() == legal(before), before
        deals = len(state.deal_results)
        if choose is not None:
            state.apply_id(choose(state, rng))
        else:
            ids = state.legal_action_ids()
            state.apply_id(rng.choice([a for a in ids if state.action_string(a) not in avoid] or ids))
        if len(state.deal_results) > deals:
            if score is not None:
                seat, action = state.history[-1]
                tricks = [*before["tricks"], [*before["trick"], [seat, action]]]
                assert state.deal_results[-1]["points"] == score(tricks, before), tricks
        elif after is not None:
            after(before, state)


def fresh_deck(ranks: str) -> list[str]:
    """A pack in canonical order (suit-major C < D < H < S, then rank) before its first shuffle.

    >>> fresh_deck("A")
    ['AC', 'AD', 'AH', 'AS']
    """
    return [r + s for s in "CDHS" for r in ranks]


def drawn_dealer(rng: Rng, seats: int, pack: list[str], strength: Callable[[str], int], lowest: bool,
                 fresh_for_ties: bool) -> int:
    """The rules texts' first-dealer draw: each seat in order takes the next card of the shuffled ``pack``; the lowest
    (or highest) ``strength`` deals; the seats tied for it draw again, in order, from the rest of the pack or, with
    ``fresh_for_ties``, from a fresh shuffle of the whole pack."""
    cards, top, seats_left = list(pack), 0, list(range(seats))
    rng.shuffle(cards)
    while len(seats_left) > 1:
        drawn = [strength(cards[top + k]) for k in range(len(seats_left))]
        top += len(seats_left)
        best = min(drawn) if lowest else max(drawn)
        seats_left = [s for s, d in zip(seats_left, drawn, strict=True) if d == best]
        if fresh_for_ties and len(seats_left) > 1:
            cards, top = list(pack), 0
            rng.shuffle(cards)
    return seats_left[0]
