"""Two-Ten-Jack's own dealing rules (two_ten_jack.md 3): decks shared equally, void hands dealt again and the
next leader."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...cards import BIT, make_deck


def even_decks(removed: Sequence[int], counts: Iterable[int], deck: Sequence[int] = tuple(make_deck())
               ) -> dict[int, tuple[int, ...]]:
    """Per player count n of ``counts``, ``deck`` less the first len(deck) mod n cards of ``removed``: a deck that
    every player's hands share equally (Two-Ten-Jack 1.3).

    >>> from engine.cards import parse_cards
    >>> {n: len(cards) for n, cards in even_decks(parse_cards(["3C", "3D", "3H", "3S"]), (2, 3, 5, 6)).items()}
    {2: 52, 3: 51, 5: 50, 6: 48}
    """
    return {n: tuple(c for c in deck if c not in removed[:len(deck) % n]) for n in counts}


def holds_none(cards: Iterable[int], wanted: int, new: Sequence[int] | None = None) -> bool:
    """Whether none of ``cards`` (each relabeled by ``new``, when given) is in ``wanted`` (a mask): dealt hands that
    hold none of some cards make a void deal (Two-Ten-Jack 3.6).

    >>> from engine.cards import SUIT_MASK, parse_cards
    >>> holds_none(parse_cards(["2H", "AS"]), SUIT_MASK[0] | SUIT_MASK[1]), holds_none([0], SUIT_MASK[0])
    (True, False)
    """
    return all(not BIT[c if new is None else new[c]] & wanted for c in cards)


def best_from(points: Sequence[int], first: int) -> int:
    """The seat with the highest of ``points``, ties to the first in seat order from ``first`` (Two-Ten-Jack 3.2: the
    next game's first leader).

    >>> best_from([3, 9, 9, 1], 2), best_from([3, 9, 9, 1], 0)
    (2, 1)
    """
    n, top = len(points), max(points)
    return next(s for s in ((first + k) % n for k in range(n)) if points[s] == top)


