"""Botifarra's own rules (botifarra.md): the first dealer drawn by suit (3.1) and the points over half (6); its
legal-card rule, the Manille family's (win the trick if you can, else play your lowest card; 5.2), is
:class:`engine.tricks.MustWinRule`, which the trick loop applies."""

from __future__ import annotations

from collections.abc import Sequence

from ...cards import SUIT
from ...rng import Rng


def draw_by_suit(rng: Rng, pack: Sequence[int]) -> int:
    """The first dealer by a turned card (Botifarra 3.1): a fresh shuffle of ``pack``; the suit of its top card (C 0,
    D 1, H 2, S 3) is the seat that deals.

    >>> from engine.cards import make_deck
    >>> from engine.rng import Rng
    >>> draw_by_suit(Rng(1), make_deck()) in range(4)
    True
    """
    cards = list(pack)
    rng.shuffle(cards)
    return SUIT[cards[0]]


def over_half(points: Sequence[int], half: int, multiplier: int = 1) -> list[int]:
    """Each side's score when only a side holding more than ``half`` of a deal's points scores, its excess times
    ``multiplier`` (Botifarra 7.2); at exactly half nobody scores.

    >>> over_half([45, 27], 36), over_half([45, 27], 36, 8), over_half([36, 36], 36)
    ([9, 0], [72, 0], [0, 0])
    """
    return [(p - half) * multiplier if p > half else 0 for p in points]


