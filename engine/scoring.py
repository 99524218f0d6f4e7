"""Scoring machinery shared by trick games: card-point tables, last-trick bonuses, trick values and match targets.

A game states its card points as data (rank -> points in a plain suit and in the trump suit) and gets one table per
trump suit; a game that values whole tricks by the special cards in them (Très) states a :class:`TrickBonus`; the
match end is one of a few standard rules over the sides' cumulative scores.

>>> table = point_table({"A": 11, "T": 10}, {"J": 20, "9": 14, "A": 11, "T": 10}, )
>>> from engine.cards import parse_card
>>> table[2][parse_card("JH")], table[2][parse_card("JS")], table[2][parse_card("AS")]
(20, 0, 11)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import BIT, RANKS, SUIT, SUIT_MASK


def point_table(plain: Mapping[str, int], trump: Mapping[str, int] | None = None) -> tuple[tuple[int, ...], ...]:
    """Card points per trump suit: ``table[trump][card]`` (trump index 4 = no trump); unlisted ranks score 0."""
    trump = plain if trump is None else trump
    return tuple(
        tuple((trump if SUIT[card] == t else plain).get(RANKS[card % 13], 0) for card in range(52)) for t in range(5)
    )


def sides_at_or_over(scores: Sequence[int], target: int) -> list[int]:
    """The sides whose cumulative score has reached ``target``."""
    return [side for side, s in enumerate(scores) if s >= target]


def leaders(scores: Sequence[int]) -> list[int]:
    """The sides with the highest score (more than one on a tie)."""
    top = max(scores)
    return [side for side, s in enumerate(scores) if s == top]


def single_leader(scores: Sequence[int]) -> list[int] | None:
    """The side with the highest score, alone; None while the highest scores are tied (play goes on)."""
    top = leaders(scores)
    return top if len(top) == 1 else None


def highest_once_target_reached(scores: Sequence[int], target: int) -> list[int] | None:
    """The common match end: once some side has reached ``target``, the single highest side wins.

    While the highest scores are tied, play goes on (None), as do matches where nobody has reached the target.

    >>> highest_once_target_reached([1010, 990], 1000), highest_once_target_reached([1010, 1010], 1000)
    ([0], None)
    """
    return single_leader(scores) if sides_at_or_over(scores, target) else None


def ranks_mask(ranks: str) -> int:
    """The cards of the given ranks in every suit, as a mask (``"234"``: the twelve 2s, 3s and 4s)."""
    mask = 0
    for card in range(52):
        if RANKS[card % 13] in ranks:
            mask |= BIT[card]
    return mask


@dataclass(frozen=True)
class TrickBonus:
    """A won trick's value from the special cards it holds (Très 7.1), only the highest applicable value counting.

    ``special`` is the special cards (a mask); a trick holding k of them earns ``by_count[k]``; a trick made of
    special cards only earns instead ``by_suits[s]`` when its cards are of s suits and s is listed (as pairs
    (s, value)). A trick is worth ``trick_point`` or its bonus, the higher (:meth:`value`), or with ``additive``
    the two added.

    >>> from engine.cards import parse_cards
    >>> tres = TrickBonus(ranks_mask("234"), by_count=(0, 2, 4, 8), by_suits=((1, 16), (3, 16)))
    >>> [tres.value(parse_cards(t)) for t in (["AS", "KS", "QS"], ["3S", "4C", "AH"], ["2H", "3D", "4H"])]
    [1, 4, 8]
    >>> tres.value(parse_cards(["2H", "2C", "2D"])), tres.value(parse_cards(["3S", "4C", "AH"]), additive=True)
    (16, 5)
    """

    special: int
    by_count: tuple[int, ...]
    by_suits: tuple[tuple[int, int], ...] = ()

    def bonus(self, cards: Sequence[int]) -> int:
        held = 0
        for card in cards:
            held |= BIT[card]
        special = held & self.special
        count = special.bit_count()
        if count == len(cards) and self.by_suits:
            suits = sum(1 for suit_cards in SUIT_MASK if special & suit_cards)
            for number, value in self.by_suits:
                if number == suits:
                    return value
        return self.by_count[count]

    def value(self, cards: Sequence[int], trick_point: int = 1, additive: bool = False) -> int:
        bonus = self.bonus(cards)
        return trick_point + bonus if additive else max(trick_point, bonus)
