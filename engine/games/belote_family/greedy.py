"""Greedy for the Belote games' play of the tricks (Belote, Belote contrée): one sort key per legal action, best
highest. Each game's own package ranks its auction (``engine/games/belote/greedy.py``,
``engine/games/belote_contree/greedy.py``) and hands the play to :func:`rank_belote_play`.

The rankers see only what the seat to act has seen (:class:`engine.bots.seen.Seen`);
:class:`engine.bots.greedy.GreedyPolicy` plays an action with the highest key and breaks ties with its own RNG.

- Play: win a trick with the cheapest card that wins it when the trick is worth winning, give points to a partner
  who is winning it, otherwise throw the cheapest card (belote_contree.md / belote.md 5.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer
from ...bots.seen import Seen
from ...cards import SUIT, make_deck
from ...tricks import beats
from . import DECK_RANKS, POINTS, RANKING

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

POWER = cython.declare(tuple, RANKING.power)
_SUIT = cython.declare(tuple, SUIT)  # (compiled: a C reference to the table, no global look-up)
BELOTE = cython.declare(str, ":belote")  # the suffix of a card played with the belote announced
TRUMP_LENGTH_BONUS = cython.declare(cython.int, 8)  # a hand's worth for the taker: a premium per trump (trump_value)
BELOTE_DECK = tuple(make_deck(DECK_RANKS))


# ---- the Belote games: the play of the tricks ---------------------------------------------------------------------


# A play's key is one int ordered as the tuple ``(announce, kind, a, b)`` would be (``b`` 0 where the tuple has none:
# every key of one turn has the same shape within a kind), in fields of FIELD bits, ``a`` and ``b`` offset by HALF
# (powers reach 108 and points 20: |a|, |b| < HALF); one C comparison compiled, no tuple made.
FIELD = cython.declare(cython.int, 10)
HALF = cython.declare(cython.longlong, 1 << 9)  # 1 << (FIELD - 1)


@cython.cfunc
@cython.inline
@cython.locals(announce=cython.bint, kind=cython.longlong, a=cython.longlong, b=cython.longlong)
@cython.returns(cython.longlong)
def _packed(announce: bool, kind: int, a: int, b: int) -> int:
    """The key of the tuple ``(announce, kind, a, b)``."""
    return ((((announce << 2 | kind) << FIELD) | (a + HALF)) << FIELD) | (b + HALF)


@cython.cfunc
@cython.locals(card=cython.Py_ssize_t, trump=cython.Py_ssize_t, suit=cython.Py_ssize_t, announce=cython.bint)
@cython.returns(cython.longlong)
def _lead_key(card: int, trump: int, highest: list[int], announce: bool) -> int:
    """Lead a master (no unseen card of its suit beats it: ``highest``, the best unseen power per suit), trumps first
    to draw them, then the richest; otherwise the cheapest card, keeping tens whose ace is still out."""
    power, points = POWER[trump], POINTS[trump]
    suit = SUIT[card]
    if highest[suit] <= power[card]:
        return _packed(announce, 2, suit == trump, points[card])
    return _packed(announce, 1, -points[card] - (20 if suit == trump else 0), -power[card])


@cython.locals(keyer=Keyer, seen=Seen, trump=cython.int, c=cython.int, best=cython.int, seat=cython.int,
               partner_winning=cython.bint, announce=cython.bint, is_trump=cython.bint, i=cython.Py_ssize_t,
               n=cython.Py_ssize_t, power=tuple, points=tuple, p=cython.int, worth=cython.int)
def key_belote_play(keyer: Keyer, seen: Seen) -> int:
    """Write each legal play's key (a card, or a card that announces the belote: ``KH:belote``) in ``keyer``'s keys;
    return how many."""
    trump = seen.trump_suit()
    power, points = POWER[trump], POINTS[trump]
    n = keyer.room(seen.legal_count())
    if seen.lead_card() < 0:
        highest = seen.highest_unseen(BELOTE_DECK, power)
        for i in range(n):
            c = seen.card_at(i)
            assert c >= 0
            keyer.keys[i] = _lead_key(c, trump, highest, seen.plays_with(i, BELOTE))  # 6.1: announce it (20 points)
        return n
    seat, best = seen.winning(trump, power)
    partner_winning = seen.players == 4 and seat == (seen.seat + 2) % 4
    for i in range(n):
        c = seen.card_at(i)
        assert c >= 0
        announce = seen.plays_with(i, BELOTE)
        is_trump = _SUIT[c] == trump
        p, worth = power[c], points[c]
        if partner_winning:
            keyer.keys[i] = _packed(announce, 1, worth - (30 if is_trump else 0), 0)  # give points, keep trumps
        elif beats(c, best, trump, power):
            keyer.keys[i] = _packed(announce, 2, -p, -worth)  # the cheapest card that wins
        else:
            keyer.keys[i] = _packed(announce, 0, -worth - (20 if is_trump else 0), -p)
    return n


@cython.cclass
class BelotePlayGreedy(Keyer):
    """The Belote games' ranker of the play of the tricks (:data:`rank_belote_play`)."""

    def rank(self, seen: Seen) -> int:
        return key_belote_play(self, seen)


rank_belote_play = BelotePlayGreedy()  # each legal play's key, as a list (a Ranker)


@cython.locals(points=tuple, total=cython.int, c=cython.int, k=cython.Py_ssize_t)
def trump_value(hand: list[int], trump: int) -> int:
    """A hand's worth with ``trump``: its card points plus a premium for each trump held. (Compiled, a C function:
    greedy.pxd.)"""
    points, total = POINTS[trump], 0
    for k in range(len(hand)):  # (compiled: C reads of the list and the tables)
        c = hand[k]
        total += points[c] + (TRUMP_LENGTH_BONUS if _SUIT[c] == trump else 0)
    return total
