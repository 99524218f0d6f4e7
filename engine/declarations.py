"""Declarations (melds) shared by the trick games that declare them: sequences and four of a kind (Belote,
Boonaken). A game's own way of declaring lives in its package (Belote's combinations on the first trick in
``engine/games/belote/rules.py``, Trappola's sets in ``engine/games/trappola/rules.py``, Thunee's marriages in
``engine/games/thunee/rules.py``).

A game gives its natural order and values as data; these functions find the combinations in a hand mask and give
sortable strength keys, so "the single best declaration" is a ``max``.

>>> from engine.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards(["QS", "JS", "TS", "9S", "QC", "QD", "QH", "7C"]))
>>> [(m.kind, m.length, m.top) for m in carres(hand, {"Q": 100}) + sequences(hand, "AKQJT987", {3: 20, 4: 50})]
[('carre', 4, 'Q'), ('sequence', 4, 'Q')]
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

from .cards import BIT, RANKS, SUITS, card_of


class Meld(NamedTuple):
    """A carré (four of a rank) or a sequence (run in one suit of the natural order); a named tuple (found in dealt
    hands at every deal: made without a frozen dataclass's attribute-by-attribute set-up)."""

    kind: str  # "carre" or "sequence"
    top: str  # the rank letter of the carré, or of the sequence's highest card
    length: int  # 4 for a carré, the run length for a sequence
    suit: str | None  # the sequence's suit; None for a carré
    value: int

    def code(self) -> str:
        """A short public description, e.g. ``carre:Q`` or ``sequence:4:QS``."""
        if self.kind == "carre":
            return f"carre:{self.top}"
        return f"sequence:{self.length}:{self.top}{self.suit}"

    def cards(self, order: str) -> list[int]:
        """The cards the combination shows; a sequence runs down ``order`` (high to low) from its top card.

        >>> from engine.cards import CODES
        >>> [CODES[c] for c in Meld("sequence", "Q", 3, "S", 20).cards("AKQJT987")]
        ['QS', 'JS', 'TS']
        """
        if self.kind == "carre":
            return [card_of(self.top, suit) for suit in range(4)]
        assert self.suit is not None  # a sequence is in one suit
        top = order.index(self.top)
        return [card_of(rank, SUITS.index(self.suit)) for rank in order[top:top + self.length]]


def sequences(hand: int, order: str, values: Mapping[int, int], min_length: int = 3) -> list[Meld]:
    """The maximal runs of at least ``min_length`` cards of one suit in ``order`` (high to low natural order).

    ``values`` maps a run length to its value; a longer run than the table knows takes the longest entry's value.
    """
    found = []
    longest = max(values)
    for suit in range(4):
        for top, length in _runs(order, min_length, hand >> (13 * suit) & 0x1FFF):
            found.append(Meld("sequence", top, length, SUITS[suit], values[min(length, longest)]))
    return found


@cache
def _runs(order: str, min_length: int, ranks: int) -> tuple[tuple[str, int], ...]:
    """(top rank, length) of each maximal run of at least ``min_length`` ranks of ``order`` (high to low) in
    ``ranks``, a suit's rank mask (bit ``r`` for ``RANKS[r]``), from the top of ``order`` down."""
    found = []
    top, length = "", 0
    for rank in (*order, ""):
        if rank and ranks >> RANKS.index(rank) & 1:
            top, length = top or rank, length + 1
            continue
        if length >= min_length:
            found.append((top, length))
        top, length = "", 0
    return tuple(found)


# The four cards of a rank letter, as a mask.
RANK_MASK = {rank: sum(BIT[card_of(rank, suit)] for suit in range(4)) for rank in RANKS}


def carres(hand: int, values: Mapping[str, int]) -> list[Meld]:
    """The ranks of ``values`` of which the hand holds all four cards."""
    return [Meld("carre", rank, 4, None, value) for rank, value in values.items()
            if hand & RANK_MASK[rank] == RANK_MASK[rank]]


# ---- sets of one rank: three or four cards of a rank held together (Trappola) ----------------------------------
