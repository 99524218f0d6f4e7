"""Dealing helpers shared by every game: drawing for the first dealer, dealing singly or in packets."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .cards import make_deck
from .rng import Rng


def draw_for_dealer(rng: Rng, n: int, strength: Callable[[int], int], lowest_deals: bool) -> int:
    """Each seat in order 0..n-1 draws a card from a shuffled 52-card pack; the lowest (or highest) ``strength`` deals.

    Seats tied for the deciding place draw again from the rest of the same pack until one is alone.
    """
    pack = make_deck()
    rng.shuffle(pack)
    contenders = list(range(n))
    top = 0
    while len(contenders) > 1:
        drawn = {seat: strength(pack[top + i]) for i, seat in enumerate(contenders)}
        top += len(contenders)
        best = min(drawn.values()) if lowest_deals else max(drawn.values())
        contenders = [seat for seat in contenders if drawn[seat] == best]
    return contenders[0]


def deal_round(deck: list[int], top: int, hands: list[int], order: Sequence[int], packets: Sequence[int]) -> int:
    """Deal ``deck[top:]`` into hand bit masks: each packet size in turn to every seat of ``order``.

    ``packets=(1,) * 6`` deals six cards singly; ``(3, 3)`` deals two packets of three. Returns the new top.
    """
    for size in packets:
        for seat in order:
            for card in deck[top:top + size]:
                hands[seat] |= 1 << card
            top += size
    return top


def seats_from(first: int, n: int) -> list[int]:
    """Seats in order of play starting at ``first``: ``seats_from(2, 4) == [2, 3, 0, 1]``."""
    return [(first + i) % n for i in range(n)]
