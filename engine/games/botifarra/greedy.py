"""Greedy for Botifarra: one sort key per legal action, best highest (see :mod:`engine.bots.greedy`).

- Trump choice (botifarra.md 4.1, 4.2): name the suit the hand is longest and richest in, botifarra with three
  manillas or more; the dealer hands a hand with no suit of five over to his partner.
- Doubling (4.4): say the word with a strong hand in the trump suit (or, in botifarra, high cards), else pass.
- Play (5.5): lead a master card, richest first, else the lowest card of a long plain suit; load points on a trick
  the partner wins; win a trick with the card most likely to keep it (the cheapest winner as last hand); throw the
  cheapest card otherwise.

>>> obs = {"game": "botifarra", "phase": "choice", "seat": 0, "legal_actions": ["delegate", "trump:C", "trump:D",
...        "trump:H", "trump:S", "trump:none"], "hand": ["2C", "9C", "AC", "KC", "QC", "7C", "3D", "5D", "8H", "2H",
...        "4S", "6S"]}
>>> from engine.bots import make_policy
>>> make_policy("greedy", "botifarra", seat=0, seed=1)(obs)
'trump:C'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.seen import Seen
from ...cards import RANK_CHAR, SUIT, SUITS
from ...tricks import NO_TRUMP, beats
from . import DECK, POINTS, RANKING

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

PLAIN_POINTS = POINTS[NO_TRUMP]
NAME_SUIT_AT = 5  # the dealer names a suit he holds this many cards of (else delegates)
BOTIFARRA_AT = 3  # manillas for botifarra
DOUBLE_AT = 7  # doubling strength (see _strength) to say contro / recontro / santvicenc


def _suit_value(hand: list[int], suit: int) -> tuple[int, int]:
    """A suit's worth as trump: its length, then its card points."""
    cards = [c for c in hand if SUIT[c] == suit]
    return len(cards), sum(PLAIN_POINTS[c] for c in cards)


def _manillas(hand: list[int]) -> int:
    return sum(RANK_CHAR[c] == "9" for c in hand)


def _strength(hand: list[int], trump: int) -> int:
    """Trumps held and high trumps twice (botifarra: manillas and aces) for the doubling."""
    if trump == NO_TRUMP:
        return 2 * _manillas(hand) + sum(RANK_CHAR[c] == "A" for c in hand)
    trumps = [c for c in hand if SUIT[c] == trump]
    return len(trumps) + sum(RANK_CHAR[c] in "9A" for c in trumps)


@cython.cfunc
@cython.locals(keyer=Keyer, i=cython.Py_ssize_t, best=cython.int, suit=cython.int, botifarra=cython.bint,
               strong=cython.bint)
def _rank_choice(keyer: Keyer, legal: list[str], hand: list[int]) -> None:
    best, value = 0, _suit_value(hand, 0)  # the first suit of the greatest value
    for suit in range(1, 4):
        if _suit_value(hand, suit) > value:
            best, value = suit, _suit_value(hand, suit)
    botifarra = _manillas(hand) >= BOTIFARRA_AT
    strong = botifarra or _suit_value(hand, best)[0] >= NAME_SUIT_AT
    for i in range(len(legal)):
        action = legal[i]
        if action == "delegate":
            keyer.keys[i] = key_of(0 if strong else 3)
        elif action == "trump:none":
            keyer.keys[i] = key_of(1 + botifarra)
        else:
            keyer.keys[i] = key_of(1 + (SUITS.index(action[-1]) == best and not botifarra))


@cython.cfunc
@cython.locals(keyer=Keyer, seen=Seen, i=cython.Py_ssize_t, trump=cython.int, card=cython.int, c=cython.int,
               best=cython.int, length=cython.int, master=cython.bint, partner_winning=cython.bint,
               last=cython.bint, is_trump=cython.bint, n=cython.Py_ssize_t, power=tuple, highest=list)
def _rank_play(keyer: Keyer, seen: Seen, hand: list[int]) -> None:
    trump, trick = seen.trump, seen.trick
    power = tuple(RANKING.power[trump])
    n = seen.legal_count()
    if not trick:
        highest = seen.highest_unseen(DECK, power)
        for i in range(n):
            card = seen.card_at(i)
            assert card >= 0
            master = highest[SUIT[card]] <= power[card]
            length = 0
            for c in hand:
                length += SUIT[c] == SUIT[card]
            keyer.keys[i] = key_of(1, PLAIN_POINTS[card]) if master else key_of(
                0, length - 20 * (SUIT[card] == trump), -PLAIN_POINTS[card], -power[card])
        return
    seat, best = seen.winning(trump, power)
    partner_winning = seat == seen.partner()
    last = len(trick) == 3
    for i in range(n):
        card = seen.card_at(i)
        assert card >= 0
        is_trump = SUIT[card] == trump
        if partner_winning:
            keyer.keys[i] = key_of(1, PLAIN_POINTS[card] - 10 * is_trump, -power[card])
        elif beats(card, best, trump, power):
            keyer.keys[i] = key_of(2, -power[card] if last else power[card], PLAIN_POINTS[card])
        else:
            keyer.keys[i] = key_of(0, -PLAIN_POINTS[card] - 10 * is_trump, -power[card])


@cython.cclass
class BotifarraGreedy(Keyer):
    """Botifarra's ranker (:data:`rank_botifarra`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, strong=cython.bint, legal=list)
    def rank(self, seen: Seen) -> int:
        hand = seen.hand()
        phase = seen.phase
        if phase == "choice" or phase == "doubling":
            legal = seen.legal
            n = self.room(len(legal))
            if phase == "choice":
                _rank_choice(self, legal, hand)
            else:
                strong = _strength(hand, seen.trump) >= DOUBLE_AT
                for i in range(n):
                    self.keys[i] = key_of((legal[i] != "pass") == strong)
            return n
        n = self.room(seen.legal_count())
        _rank_play(self, seen, hand)
        return n


rank_botifarra = register_greedy("botifarra")(BotifarraGreedy())
