"""Greedy for Belote: declare, take the turn-up or name a suit with a strong enough hand, then play as the Belote
games do (:mod:`engine.games.belote_family.greedy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, register_greedy
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ..belote_family.greedy import key_belote_play, trump_value

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

# Minimum taking value (:func:`taking_value`) per player count, for ``take`` (round 1) and ``take:<suit>`` (round 2).
# Without a partner the taker gets no turn-up card (3.6) but bold taking pays: rivals who take at random often fail.
TAKE_AT = {2: (50, 45), 3: (50, 45), 4: (60, 52)}
# An auction key is one int ordered as the tuple ``(kind, value)`` would be (0 <= value < KIND: a hand's worth).
KIND = cython.declare(cython.Py_ssize_t, 1 << 10)


def taking_value(hand: list[int], turn_up: int, suit: int, players: int) -> int:
    """What the 5-card hand is worth with ``suit`` as trump; with 4 players the taker also gets the turn-up (3.5)."""
    return trump_value([*hand, turn_up] if players == 4 else hand, suit)


@cython.cclass
class BeloteGreedy(Keyer):
    """Belote's ranker (:data:`rank_belote`)."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, cards_only=cython.bint, turn_up=cython.int,
                   players=cython.int, take_at=cython.int, name_at=cython.int, suit=cython.int, value=cython.int,
                   legal=list)
    def rank(self, seen: Seen) -> int:
        """Declare every combination (6.2); take the turn-up or name a suit when the hand is strong enough
        (4.1-4.2)."""
        play = seen.phase == "play"
        if play:
            cards_only = True  # no declaration among the legal actions
            for i in range(seen.legal_count()):
                if seen.card_at(i) < 0:
                    cards_only = False
                    break
            if cards_only:
                return key_belote_play(self, seen)
        legal = seen.legal
        n = self.room(len(legal))
        if "declare" in legal:
            for i in range(n):
                self.keys[i] = legal[i] == "declare"
            return n
        if play:
            return key_belote_play(self, seen)
        hand = seen.hand()
        turn_up = CARD_OF_CODE[seen.obs["turn_up"]]
        players = seen.players
        take_at, name_at = TAKE_AT[players]
        for i in range(n):
            action = legal[i]
            if action == "pass":
                self.keys[i] = KIND  # (1, 0)
                continue
            suit = SUIT[turn_up] if action == "take" else SUITS.index(action[-1])
            value = taking_value(hand, turn_up, suit, players)
            # (2, value) or (0, value)
            self.keys[i] = (2 * KIND if value >= (take_at if action == "take" else name_at) else 0) + value
        return n


rank_belote = register_greedy("belote")(BeloteGreedy())
