"""Greedy for Trappola (shared/rules/trappola.md): one sort key per legal action, best highest.

- Exchange (3.5): keep a hand clearly worth more than an average nine cards (card points, sets, twos), else redeal.
- Declarations (6): always declare; they cost nothing.
- Lead: a 2 of a suit the opponent has shown it lacks (a trick won by a 2: 7.1.3, 7.1.5); else the card that wins
  for sure (no unseen card of its suit above it) with the most points; else the cheapest card, keeping 2s.
- Follow: win with the cheapest card that wins when the trick holds points (or is the last), else play cheaply.

>>> obs = {"game": "trappola", "phase": "play", "seat": 0, "legal_actions": ["7C", "AC"], "hand": ["7C", "AC"],
...        "trick": [[1, "KC"]], "tricks": [], "dead": [[], []]}
>>> rank_trappola(Seen(obs))
[(1, 0, 0, -2), (2, -6, -9)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import RANK, SUIT
from ...declarations import RANK_MASK
from ...tricks import NO_TRUMP
from . import DECK, POINTS, RANKING, SET_VALUES, TRICKS

POWER = RANKING.power[NO_TRUMP]
VALUE = POINTS[NO_TRUMP]
TWO_WORTH = 4  # a 2 in hand: a chance of 10 (or a final run's 26) when the opponent runs out of its suit
# An average nine cards hold 18 card points; against random, keeping from 28 on (redealing more) won more deals than
# 16, 22 or never redealing.
KEEP_AT = 28


def hand_worth(cards: Sequence[int]) -> int:
    """Card points, the sets held (6.1) and the twos."""
    mask = sum(1 << c for c in cards)
    sets = sum(values.get((mask & RANK_MASK[rank]).bit_count(), 0) for rank, values in SET_VALUES.items())
    return sum(VALUE[c] for c in cards) + sets + TWO_WORTH * sum(RANK[c] == 0 for c in cards)


def _lead_key(card: int, highest: list[int], voids: set[int]) -> SortKey:
    suit = SUIT[card]
    if RANK[card] == 0:
        return (3, 0, 0) if suit in voids else (0, 0, 0)  # a 2 wins only where the opponent cannot follow
    if highest[suit] <= POWER[card]:  # no unseen card of its suit above it
        return (2, VALUE[card], POWER[card])
    return (1, -VALUE[card], -POWER[card])


def _follow_key(card: int, led: int, worth: int) -> SortKey:
    if SUIT[card] == SUIT[led] and POWER[card] > POWER[led]:
        return (2, -VALUE[card], -POWER[card]) if worth else (1, -VALUE[card] - 1, -POWER[card])
    return (1, -VALUE[card], -TWO_WORTH * (RANK[card] == 0), -POWER[card])


@register_greedy("trappola")
def rank_trappola(seen: Seen) -> Sequence[SortKey]:
    if seen.phase == "exchange":
        keep = hand_worth(seen.hand()) >= KEEP_AT
        return [((action == "keep") == keep,) for action in seen.legal]
    trick = seen.trick
    if trick:
        led = trick[0][1]
        worth = VALUE[led] > 0 or seen.tricks_played() == TRICKS - 1
    else:
        # the cards laid dead in an exchange are seen too; the opponent's voids
        dead = [c for hands in seen.obs["dead"] for hand in hands for c in hand]
        highest, voids = seen.highest_unseen(DECK, POWER, dead), seen.voids_of_others()
    keys: list[SortKey] = []
    for card in seen.legal_cards:
        if card is None:  # a set declared (6.3): the only words of the play
            keys.append((9,))
        elif trick:
            keys.append(_follow_key(card, led, worth))
        else:
            keys.append(_lead_key(card, highest, voids))
    return keys
