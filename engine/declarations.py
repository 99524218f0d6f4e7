"""Declarations (melds), written once for every trick game: sequences, four of a kind, belote / rebelote, and sets
of one rank (three or four of a kind, Trappola).

A game gives its natural order and values as data; these functions find the combinations in a hand mask and give
sortable strength keys, so "the single best declaration" is a ``max``.

>>> from engine.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards(["QS", "JS", "TS", "9S", "QC", "QD", "QH", "7C"]))
>>> [(m.kind, m.length, m.top) for m in melds(hand, "AKQJT987", {"Q": 100})]
[('carre', 4, 'Q'), ('sequence', 4, 'Q')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from .cards import BIT, CODES, RANKS, SUITS, card_of


@dataclass(frozen=True)
class Meld:
    """A carré (four of a rank) or a sequence (run in one suit of the natural order)."""

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
    for suit, ranks in enumerate(_suit_runs(order)):
        top, length = "", 0
        for rank, bit in ranks:
            if bit & hand:
                top, length = top or rank, length + 1
                continue
            if length >= min_length:
                found.append(Meld("sequence", top, length, SUITS[suit], values[min(length, longest)]))
            top, length = "", 0
    return found


@cache
def _suit_runs(order: str) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per suit, each rank of ``order`` with its card's bit, then a closing ``("", 0)`` (ends the last run)."""
    return tuple(tuple((rank, BIT[card_of(rank, suit)]) for rank in order) + (("", 0),) for suit in range(4))


def carres(hand: int, values: Mapping[str, int]) -> list[Meld]:
    """The ranks of ``values`` of which the hand holds all four cards."""
    return [Meld("carre", rank, 4, None, value) for rank, value in values.items()
            if hand & RANK_MASK[rank] == RANK_MASK[rank]]


# The four cards of a rank letter, as a mask.
RANK_MASK = {rank: sum(BIT[card_of(rank, suit)] for suit in range(4)) for rank in RANKS}


SEQUENCE_VALUES = {3: 20, 4: 50, 5: 100}


def melds(hand: int, order: str, carre_values: Mapping[str, int],
          sequence_values: Mapping[int, int] = SEQUENCE_VALUES) -> list[Meld]:
    """All carrés, then all sequences, of a hand."""
    return carres(hand, carre_values) + sequences(hand, order, sequence_values)



# ---- sets of one rank: three or four cards of a rank held together (Trappola) ----------------------------------

SET_WORDS = {3: "three", 4: "four"}  # a set's size as the rules files write it


@dataclass(frozen=True)
class RankSet:
    """Three or four cards of one rank, held together (not necessarily in one suit)."""

    rank: str  # the rank letter
    size: int  # how many cards of the rank the hand holds
    value: int

    def code(self) -> str:
        """``three:A``, ``four:2``: the set's size in words and its rank."""
        return f"{SET_WORDS[self.size]}:{self.rank}"


def rank_sets(hand: int, values: Mapping[str, Mapping[int, int]], excluding: str = "") -> list[RankSet]:
    """The sets the hand holds: each rank of ``values`` (not in ``excluding``) at the number of its cards held, when
    ``values[rank]`` scores that many (a hand holding all four of a rank holds its four, not a three).

    >>> from engine.cards import mask_of, parse_cards
    >>> hand = mask_of(parse_cards(["AC", "AD", "AH", "2C", "2D", "2H", "2S", "KC", "KD"]))
    >>> [s.code() for s in rank_sets(hand, {"A": {3: 12, 4: 24}, "K": {3: 6, 4: 12}, "2": {3: 10, 4: 20}})]
    ['three:A', 'four:2']
    """
    found = []
    for rank, scores in values.items():
        size = (hand & RANK_MASK[rank]).bit_count()
        if size in scores and rank not in excluding:
            found.append(RankSet(rank, size, scores[size]))
    return found


def ranks_held_thrice(hand: int) -> int:
    """The ranks (bit ``r`` for ``RANKS[r]``) of which the hand holds three or four cards: a cheap test before
    :func:`rank_sets`.

    >>> from engine.cards import mask_of, parse_cards
    >>> ranks_held_thrice(mask_of(parse_cards(["AC", "AD", "AH", "2C", "2D"]))) == 1 << RANKS.index("A")
    True
    """
    c, d, h, s = hand & 0x1FFF, hand >> 13 & 0x1FFF, hand >> 26 & 0x1FFF, hand >> 39
    return (c & d & (h | s)) | (h & s & (c | d))


def hidden_set_ranks(held: Sequence[int], sizes: Sequence[int], ranks: str) -> list[tuple[str, ...]]:
    """The ranks that sets announced by size only (rank hidden) could have: one distinct rank of ``ranks`` per set,
    set k's rank held ``sizes[k]`` times in ``held[k]`` (the hand, as a mask, when it was announced).

    >>> from engine.cards import mask_of, parse_cards
    >>> held = mask_of(parse_cards(["KC", "KD", "KH", "QC", "QD", "QH", "7S"]))
    >>> hidden_set_ranks([held, held], [3, 3], "KQJ2")
    [('K', 'Q'), ('Q', 'K')]
    """
    fits = [[rank for rank in ranks if (hand & RANK_MASK[rank]).bit_count() == size]
            for hand, size in zip(held, sizes, strict=True)]
    found: list[tuple[str, ...]] = [()]
    for options in fits:
        found = [(*chosen, rank) for chosen in found for rank in options if rank not in chosen]
    return found


# ---- marriages: a king and queen of one suit, with or without its jack (Thunee's jodi) ---------------------------


@dataclass(frozen=True)
class Marriage:
    """Cards of one suit declared together (``cards`` in canonical order) and what they are worth."""

    cards: tuple[int, ...]
    value: int

    def code(self) -> str:
        """``QH,KH``, ``JC,QC,KC``: the cards in canonical order."""
        return ",".join(CODES[c] for c in self.cards)


def marriages(available: int, trump: int, values: Mapping[str, tuple[int, int]], used: int = 0) -> list[Marriage]:
    """The marriages ``available`` (a mask) holds: for each suit and each rank set of ``values`` (rank letters ->
    (plain value, trump value)), the set's cards of that suit when all are available and none is in ``used``.

    >>> from engine.cards import mask_of, parse_cards
    >>> hand = mask_of(parse_cards(["JH", "QH", "KH", "QC", "KC"]))
    >>> [(m.code(), m.value) for m in marriages(hand, 2, {"KQ": (20, 40), "JKQ": (30, 50)})]
    [('QC,KC', 20), ('QH,KH', 40), ('JH,QH,KH', 50)]
    """
    found = []
    for suit in range(4):
        for ranks, (plain, in_trump) in values.items():
            cards = tuple(sorted(card_of(rank, suit) for rank in ranks))
            mask = sum(BIT[c] for c in cards)
            if available & mask == mask and not used & mask:
                found.append(Marriage(cards, in_trump if suit == trump else plain))
    return found
