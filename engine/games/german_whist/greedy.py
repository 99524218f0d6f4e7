"""Greedy for German Whist: one sort key per legal action, best highest (german_whist.md 5.3-5.5).

A key is one int, ``kind * KIND + value`` (``value`` within +-KIND/2: a power and its trump handicap), ordered as
the pair ``(kind, value)`` would be (one C comparison compiled, no tuple made).

>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> obs = {"seat": 0, "players": 2, "phase": "play", "legal_actions": ["2C", "AC"], "trump": "H", "trick": [],
...        "face_up": "AH"}
>>> [divmod(key, 1 << 10) for key in rank_german_whist(Seen(obs))]
[(1, 1), (1, 13)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, register_greedy
from ...bots.seen import Seen
from ...cards import SUIT
from ...tricks import beats
from . import RANKING

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

WHIST_POWER = cython.declare(tuple, RANKING.power)
_SUIT = cython.declare(tuple, SUIT)  # (compiled: a C reference to the table, no global look-up)
# a key's kind weighs more than any value (powers reach 113, less 50 for a trump: |value| < 512)
KIND = cython.declare(cython.Py_ssize_t, 1 << 10)
CARDS = 52  # (the tables' size: greedy.pxd's)


@cython.cclass
class GermanWhistGreedy(Keyer):
    """German Whist's ranker (:data:`rank_german_whist`)."""

    # (compiled, the tables are C arrays: greedy.pxd) each card's power under each trump (WHIST_POWER) and its suit

    @cython.locals(t=cython.Py_ssize_t, c=cython.Py_ssize_t)
    def __init__(self) -> None:
        super().__init__()
        if not cython.compiled:
            self._power = [[0] * CARDS for _t in range(5)]
            self._suit = [0] * CARDS
        for t in range(5):
            for c in range(CARDS):
                self._power[t][c] = WHIST_POWER[t][c]
        for c in range(CARDS):
            self._suit[c] = _SUIT[c]

    @cython.locals(trump=cython.int, lead=cython.int, face_up=cython.int, c=cython.int, p=cython.int,
                   worth_winning=cython.bint, power=tuple, i=cython.Py_ssize_t, n=cython.Py_ssize_t,
                   powers=cython.p_int)
    def rank(self, seen: Seen) -> int:
        """Phase 1: fight for a face-up card worth having (a trump or a ten and up), else duck; phase 2: win
        cheaply. A ``down:<slot>`` card (face_down_four) is unknown, so it ranks below every hand card."""
        trump, face_up, lead = seen.trump_suit(), seen.face_up_card(), seen.lead_card()
        power, powers = WHIST_POWER[trump], self._power[trump]  # (the same powers: beats reads the tuple)
        worth_winning = face_up < 0 or self._suit[face_up] == trump or powers[face_up] >= 10
        n = self.room(seen.legal_count())
        for i in range(n):
            c = seen.card_at(i)
            if c < 0:
                self.keys[i] = 0  # (0, 0) for a face-down card
                continue
            p = powers[c]
            if lead < 0:
                self.keys[i] = KIND + (p if worth_winning else -p)  # (1, +-power)
            elif worth_winning and beats(c, lead, trump, power):
                self.keys[i] = 2 * KIND - p  # (2, -power): the cheapest winner
            else:  # (1, ...): the cheapest discard, trumps kept
                self.keys[i] = KIND - p - (50 if self._suit[c] == trump else 0)
        return n


rank_german_whist = register_greedy("german_whist")(GermanWhistGreedy())
