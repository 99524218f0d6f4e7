"""Greedy for Trappola (shared/rules/trappola.md): one sort key per legal action, best highest.

- Exchange (3.5): keep a hand clearly worth more than an average nine cards (card points, sets, twos), else redeal.
- Declarations (6): always declare; they cost nothing.
- Lead: a 2 of a suit the opponent has shown it lacks (a trick won by a 2: 7.1.3, 7.1.5); else the card that wins
  for sure (no unseen card of its suit above it) with the most points; else the cheapest card, keeping 2s.
- Follow: win with the cheapest card that wins when the trick holds points (or is the last), else play cheaply.

>>> obs = {"game": "trappola", "phase": "play", "seat": 0, "legal_actions": ["7C", "AC"], "hand": ["7C", "AC"],
...        "trick": [[1, "KC"]], "tricks": [], "dead": [[], []]}
>>> from engine.bots.greedy import fields  # (a key is a tuple packed in one int: key_of)
>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> [fields(key) for key in rank_trappola(Seen(obs))]
[(1, 0, 0, -2), (2, -6, -9)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.seen import Seen
from ...cards import RANK, SUIT
from ...declarations import RANK_MASK
from ...tricks import NO_TRUMP
from . import DECK, POINTS, RANKING, SET_VALUES, TRICKS

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

POWER = cython.declare(tuple, tuple(RANKING.power[NO_TRUMP]))
VALUE = cython.declare(tuple, tuple(POINTS[NO_TRUMP]))
_SUIT = cython.declare(tuple, SUIT)  # (compiled: a C reference to the table, no global look-up)
_RANK = cython.declare(tuple, RANK)
TWO_WORTH = 4  # a 2 in hand: a chance of 10 (or a final run's 26) when the opponent runs out of its suit
# An average nine cards hold 18 card points; against random, keeping from 28 on (redealing more) won more deals than
# 16, 22 or never redealing.
KEEP_AT = 28


def hand_worth(cards: Sequence[int]) -> int:
    """Card points, the sets held (6.1) and the twos."""
    mask = sum(1 << c for c in cards)
    sets = sum(values.get((mask & RANK_MASK[rank]).bit_count(), 0) for rank, values in SET_VALUES.items())
    return sum(VALUE[c] for c in cards) + sets + TWO_WORTH * sum(RANK[c] == 0 for c in cards)


@cython.cfunc
@cython.locals(card=cython.int, suit=cython.int)
@cython.returns(cython.longlong)
def _lead_key(card: int, highest: list[int], voids: set[int]) -> int:
    suit = _SUIT[card]
    if _RANK[card] == 0:
        return key_of(3, 0, 0) if suit in voids else key_of(0, 0, 0)  # a 2 wins only where the opponent cannot follow
    if highest[suit] <= POWER[card]:  # no unseen card of its suit above it
        return key_of(2, VALUE[card], POWER[card])
    return key_of(1, -VALUE[card], -POWER[card])


@cython.cfunc
@cython.locals(card=cython.int, led=cython.int, worth=cython.bint, value=cython.int, power=cython.int)
@cython.returns(cython.longlong)
def _follow_key(card: int, led: int, worth: bool) -> int:
    value, power = VALUE[card], POWER[card]
    if _SUIT[card] == _SUIT[led] and power > POWER[led]:
        return key_of(2, -value, -power) if worth else key_of(1, -value - 1, -power)
    return key_of(1, -value, -TWO_WORTH if _RANK[card] == 0 else 0, -power)


@cython.cclass
class TrappolaGreedy(Keyer):
    """Trappola's ranker (:data:`rank_trappola`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, keep=cython.bint, led=cython.int, worth=cython.bint,
                   legal=list, cards=list)
    def rank(self, seen: Seen) -> int:
        if seen.phase == "exchange":
            legal = seen.legal
            n = self.room(len(legal))
            keep = hand_worth(seen.hand()) >= KEEP_AT
            for i in range(n):
                self.keys[i] = key_of((legal[i] == "keep") == keep)
            return n
        trick = seen.trick
        led, worth = -1, False
        if trick:
            led = trick[0][1]
            worth = VALUE[led] > 0 or seen.tricks_played() == TRICKS - 1
        else:
            # the cards laid dead in an exchange are seen too; the opponent's voids
            dead = [c for hands in seen.obs["dead"] for hand in hands for c in hand]
            highest, voids = seen.highest_unseen(DECK, POWER, dead), seen.voids_of_others()
        cards = seen.legal_cards
        n = self.room(len(cards))
        for i in range(n):
            card = cards[i]
            if card is None:  # a set declared (6.3): the only words of the play
                self.keys[i] = key_of(9)
            elif trick:
                self.keys[i] = _follow_key(card, led, worth)
            else:
                self.keys[i] = _lead_key(card, highest, voids)
        return n


rank_trappola = register_greedy("trappola")(TrappolaGreedy())
