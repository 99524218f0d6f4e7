"""Greedy for Très (shared/rules/tres.md): one sort key per legal action, best highest.

The 51 cards are all dealt, so the other hand is exactly the cards this seat has not seen (5.7); the ranker looks
ahead to the end of the trick in play with it.

- Leader's second card (5.4): the card that ends the trick best: won and worth the most, else lost and worth the
  least; then the cheapest.
- Follower (5.3): the card after which the leader's best second card leaves him the least (the leader answers with
  what the first point would choose); then the cheapest.
- Lead: a card the follower cannot beat (no higher card of its suit, no trump to ruff it), not a low card (2, 3, 4:
  those are kept to add to won tricks), the lowest such; else the lowest card that is not low.

>>> obs = {"game": "tres", "seat": 1, "options": {"removed_card": "5D", "trump_suit": "H",
...        "additive_trick_point": False}, "legal_actions": ["2H", "7S"], "hand": ["2H", "7S"],
...        "trick": [[1, "9C"], [0, "3C"]], "tricks": []}
>>> from engine.bots.greedy import fields  # (a key is a tuple packed in one int: key_of)
>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> [fields(key) for key in rank_tres(Seen(obs))]  # winning the trick already: the 2 of hearts makes it worth 4
[(4, -121), (2, -6)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.seen import Seen
from ...cards import BIT, CARD_OF_CODE, SUIT, SUIT_MASK, cards_in, mask_of
from ...tricks import beats, suit_of_code
from . import BONUS, DECKS, RANKING
from .rules import ranks_mask, second_card_mask

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

LOW = ranks_mask("234")


def _other_hand(seen: Seen) -> int:
    """The cards the other seat holds (a mask): the deck's cards the seat has not seen."""
    return mask_of(seen.unseen(DECKS[seen.obs["options"]["removed_card"]]))


def _outcome(cards: Sequence[int], trump: int, additive: bool, power: Sequence[int]) -> int:
    """The finished trick's value for its leader: + if the leader wins it (c1 or c3 best), - if the follower does."""
    best = 0
    for i in (1, 2):
        if beats(cards[i], cards[best], trump, power):
            best = i
    value = BONUS.value(cards, additive=additive)
    return -value if best == 1 else value


def _cost(card: int, trump: int, power: Sequence[int]) -> int:
    """What a card is worth keeping: its power (trumps above all), a low card more."""
    return power[card] + (20 if BIT[card] & LOW else 0)


@cython.cclass
class TresGreedy(Keyer):
    """Très' ranker (:data:`rank_tres`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, trump=cython.int, c=cython.int, best=cython.int,
                   follower_winning=cython.bint, legal=list, trick=list)
    def rank(self, seen: Seen) -> int:
        obs = seen.obs
        options = obs["options"]
        trump, additive = suit_of_code(options["trump_suit"]), options["additive_trick_point"]
        power = RANKING.power[trump]
        trick = [CARD_OF_CODE[code] for _s, code in obs["trick"]]
        legal = [CARD_OF_CODE[a] for a in obs["legal_actions"]]
        n = self.room(len(legal))
        if len(trick) == 2:
            for i in range(n):
                c = legal[i]
                self.keys[i] = key_of(_outcome([*trick, c], trump, additive, power), -_cost(c, trump, power))
            return n
        other = _other_hand(seen)
        if len(trick) == 1:
            for i in range(n):
                c = legal[i]
                follower_winning = beats(c, trick[0], trump, power)
                best = _best_reply(trick[0], c, follower_winning, other, trump, additive, power)
                self.keys[i] = key_of(-best, -_cost(c, trump, power))
            return n
        for i in range(n):
            self.keys[i] = _lead_key(legal[i], other, trump, power)
        return n


rank_tres = register_greedy("tres")(TresGreedy())


def _best_reply(led: int, card: int, follower_winning: bool, other: int, trump: int, additive: bool,
                power: Sequence[int]) -> int:
    """The leader's best outcome of the trick with his second card, the follower having played ``card``."""
    replies = cards_in(second_card_mask(other, card if follower_winning else led, follower_winning))
    return max(_outcome([led, card, r], trump, additive, power) for r in replies) if replies else 0


def _lead_key(card: int, other: int, trump: int, power: Sequence[int]) -> int:
    suit = SUIT[card]
    same = other & SUIT_MASK[suit]
    beaten = any(power[c] > power[card] for c in cards_in(same)) or (
        not same and suit != trump and bool(other & SUIT_MASK[trump]))
    return key_of(not beaten and not BIT[card] & LOW, not BIT[card] & LOW, -power[card])
