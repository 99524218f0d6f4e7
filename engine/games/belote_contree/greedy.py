"""Greedy for Belote contrée: redeal a weak hand, bid what the pair can make, then play as the Belote games do
(:mod:`engine.games.belote_family.greedy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, register_greedy
from ...bots.seen import Seen
from ...cards import SUITS
from ..belote_family.greedy import key_belote_play, trump_value

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

PARTNER_SHARE = 40  # what a partner brings to the pair's contract, in points


# An auction key is one int ordered as the tuple ``(kind, value)`` would be (|value| < KIND: a contract's points).
KIND = cython.declare(cython.Py_ssize_t, 1 << 10)
# Per auction word, what it bids: (its contract's points, its suit's index), (-1, -1) for any other word.
_BIDS: dict[str, tuple[int, int]] = {}


def _bid(action: str) -> tuple[int, int]:
    """What ``action`` bids (kept in _BIDS: each word is split once)."""
    found = _BIDS.get(action)
    if found is None:
        parts = action.split(":")
        found = (int(parts[1]), SUITS.index(parts[2])) if parts[0] == "bid" and parts[1].isdigit() and \
            len(parts[2]) == 1 and parts[2] in SUITS else (-1, -1)
        _BIDS[action] = found
    return found


@cython.cclass
class BeloteContreeGreedy(Keyer):
    """Belote contrée's ranker (:data:`rank_belote_contree`)."""

    # (compiled, the fields are declared in greedy.pxd) what each action id bids, for the actions' strings _words
    # (a Seen read from the state: its words()): _points[id], _suits[id] as _bid gives them, _passes[id] for "pass"

    def __init__(self) -> None:
        super().__init__()
        self._words: tuple[str, ...] = ()
        self._points: list[int] = []
        self._suits: list[int] = []
        self._passes: list[bool] = []

    @cython.locals(word=str)
    def _read_words(self, words: tuple[str, ...]) -> None:
        """What each of ``words`` (the actions' strings, by action id) bids: _points, _suits, _passes."""
        bids = [_bid(word) for word in words]
        self._points, self._suits = [points for points, _suit in bids], [suit for _points, suit in bids]
        self._passes = [word == "pass" for word in words]
        self._words = words

    @cython.locals(s=cython.int, suit=cython.int, value=cython.int, best=cython.int, reach=cython.int,
                   points=cython.int, i=cython.Py_ssize_t, n=cython.Py_ssize_t, a=cython.Py_ssize_t, legal=list,
                   words=tuple, passes=list, bid_points=list, suits=list,
                   by_id=cython.bint, passing=cython.bint)
    def rank(self, seen: Seen) -> int:
        """Redeal a weak hand (3.8); bid the cheapest contract in the best suit that the pair can make (4.2);
        play."""
        phase = seen.current_phase()
        if phase == "play":
            return key_belote_play(self, seen)
        n = self.room(seen.legal_count())
        if phase == "redeal":
            legal = seen.legal
            for i in range(n):
                self.keys[i] = legal[i] == "redeal"
            return n
        hand = seen.hand()
        suit, best = 0, trump_value(hand, 0)
        for s in range(1, 4):
            value = trump_value(hand, s)
            if value > best:  # (the first of the best suits)
                suit, best = s, value
        reach = (best + PARTNER_SHARE) // 10 * 10
        by_id = n > 0 and seen.legal_id(0) >= 0  # (read from the state: each action's bid read by its id, no string)
        if by_id:
            words = seen.words()
            if words is not self._words:
                self._read_words(words)
            passes, bid_points, suits = self._passes, self._points, self._suits
        else:
            legal = seen.legal
        for i in range(n):
            if by_id:
                a = seen.legal_id(i)
                passing, points, s = passes[a], bid_points[a], suits[a]
            else:
                action = legal[i]
                passing = action == "pass"
                points, s = _bid(action)
            if passing:
                self.keys[i] = KIND  # (1, 0)
            elif s == suit and 0 <= points <= reach:
                self.keys[i] = 2 * KIND - points  # (2, -points)
            else:
                self.keys[i] = 0  # (0, 0): any other word
        return n


rank_belote_contree = register_greedy("belote_contree")(BeloteContreeGreedy())
