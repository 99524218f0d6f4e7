"""Très' own rules (tres.md): tricks valued by the special cards in them and a seat's second card to a trick
that holds more cards than seats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...cards import BIT, RANKS, SUIT, SUIT_MASK


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


def second_card_mask(hand: int, winning: int, opponent_winning: bool) -> int:
    """The cards of ``hand`` (a mask) a seat may play as its second card to a trick (Très 5.4): while an opponent's
    card ``winning`` wins the trick, one of that card's suit if it has one; otherwise (void in it, or its own card
    winning) any card.

    >>> from engine.cards import cards_in, codes_of, mask_of, parse_card, parse_cards
    >>> hand = mask_of(parse_cards(["3C", "AC", "2H", "QH", "7S"]))
    >>> codes_of(cards_in(second_card_mask(hand, parse_card("4H"), opponent_winning=True)))
    ['2H', 'QH']
    >>> len(cards_in(second_card_mask(hand, parse_card("4D"), opponent_winning=True)))
    5
    """
    if not opponent_winning:
        return hand
    return (hand & SUIT_MASK[SUIT[winning]]) or hand


