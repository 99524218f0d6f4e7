"""Two-Ten-Jack's own rules: decks shared equally, void hands dealt again and the next leader (two_ten_jack.md 3);
the cards that win a trick outside the rank order, and face-down cards that cannot win (2.3, 5.3, 5.4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...cards import BIT, RANKS, SUIT, make_deck
from ...tricks import Ranking, trick_winner


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


class SpecialCards:
    """Cards that win a trick outside the rank and trump order, as data (Two-Ten-Jack's yakufuda and same two).

    ``almighty`` wins every trick it is in, unless its ``killer`` is in the same trick: then the killer wins.
    ``sweeper`` is a rank letter: in a trick whose cards all share one suit (and hold no almighty card), that suit's
    card of this rank wins, where the caller lets it (``sweep``).

    >>> from engine.cards import parse_card, parse_cards
    >>> yaku = SpecialCards(almighty=parse_card("AS"), killer=parse_card("QH"), sweeper="2")
    >>> yaku.winner(parse_cards(["AD", "2D"])), yaku.winner(parse_cards(["7H", "AS", "QH"])), yaku.winner([5, 18])
    (1, 2, None)
    """

    def __init__(self, almighty: int | None = None, killer: int | None = None, sweeper: str | None = None) -> None:
        self.almighty, self.killer = almighty, killer
        # sweepers[suit]: the suit's card of the sweeper rank (None without a sweeper)
        self.sweepers = tuple(None if sweeper is None else 13 * s + RANKS.index(sweeper) for s in range(4))

    def winner(self, cards: Sequence[int], sweep: bool = True) -> int | None:
        """The index in ``cards`` (face-up, in play order) of the card these rules make win, None when none does."""
        almighty, killer = self.almighty, self.killer
        if almighty is not None and almighty in cards:
            return cards.index(killer if killer is not None and killer in cards else almighty)
        low = self.sweepers[SUIT[cards[0]]]
        if sweep and low is not None and low in cards:
            suit = SUIT[cards[0]]
            if all(SUIT[c] == suit for c in cards):
                return cards.index(low)
        return None


def special_trick_winner(cards: Sequence[int], trump: int, ranking: Ranking, specials: SpecialCards,
                         sweep: bool = True, hidden: int = 0) -> int:
    """The index in ``cards`` of the winning card when ``specials`` win first; cards of ``hidden`` (a mask: played
    face down) neither win nor lead, the first face-up card leads.

    >>> from engine.cards import mask_of, parse_card, parse_cards
    >>> from engine.tricks import SPADES
    >>> yaku = SpecialCards(almighty=parse_card("AS"), killer=parse_card("QH"), sweeper="2")
    >>> cards = parse_cards(["7H", "KD", "2D"])
    >>> special_trick_winner(cards, SPADES, Ranking("AKQJT98765432"), yaku, hidden=mask_of([parse_card("7H")]))
    2
    """
    if not hidden:
        best = specials.winner(cards, sweep)
        return trick_winner(cards, trump, ranking) if best is None else best
    up = [i for i, c in enumerate(cards) if not BIT[c] & hidden]
    shown = [cards[i] for i in up]
    best = specials.winner(shown, sweep)
    return up[trick_winner(shown, trump, ranking) if best is None else best]
