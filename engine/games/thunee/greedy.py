"""Greedy for Thunee (shared/rules/thunee.md): one sort key per legal action, best highest.

- Redeal (3.4): ask for one (the hand is weak). Trip (8.2.2), the calling (4), thunee and royals (6.4, 6.5), double
  (6.2) and kanak (6.3): pass (no call it cannot count on); mooney (8.2.3): call it (one suit with its jack).
- Trump (4.5): the suit the hand holds most of (then the most points in it), its lowest card face down.
- Jodi (6.1): every one it holds, the most valuable first.
- Cards: the leader plays his strongest card, a plain one before a trump; a follower whose partner wins the trick
  gives him points when last to play, else keeps his strength; otherwise the cheapest card that takes the trick, or,
  none doing so, the card worth the fewest points.

>>> obs = {"game": "thunee", "seat": 3, "players": 4, "phase": "play", "trump": "H", "contract": "normal",
...        "hand": ["9S", "AS", "QH"], "trick": [[0, "TS"], [1, "KS"], [2, "JS"]],
...        "legal_actions": ["9S", "AS"]}
>>> from engine.bots.greedy import fields  # (a key is a tuple packed in one int: key_of)
>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> [fields(key) for key in rank_thunee(Seen(obs))]  # partner 1 does not win, no spade beats the jack: lose the 11
[(0, -20, -5), (0, -11, -4)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.policy import Observation
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ...tricks import NO_TRUMP, beats
from . import CARD_POINTS, RANKINGS

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

PASSING = {"pass": 1, "keep": 0, "redeal": 2, "mooney": 3, "trip": 0, "thunee": 0, "royals": 0, "double": 0,
           "kanak": -1}


@cython.cclass
class ThuneeGreedy(Keyer):
    """Thunee's ranker (:data:`rank_thunee`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, legal=list)
    def rank(self, seen: Seen) -> int:
        obs = seen.obs
        legal = obs["legal_actions"]
        n = self.room(len(legal))
        if obs["phase"] == "play":
            _card_keys(self, seen, legal)
        elif obs["phase"] == "trump":
            for i in range(n):
                self.keys[i] = _trump_key(obs, legal[i])
        else:
            for i in range(n):
                self.keys[i] = _word_key(legal[i])
        return n


rank_thunee = register_greedy("thunee")(ThuneeGreedy())


@cython.cfunc
@cython.returns(cython.longlong)
def _word_key(action: str) -> int:
    if action.startswith("jodi:"):
        return key_of(4, len(action))  # before the pass, the three-card jodi first
    if action.startswith("call:"):
        return key_of(0)
    return key_of(PASSING[action])


@cython.cfunc
@cython.returns(cython.longlong)
def _trump_key(obs: Observation, action: str) -> int:
    if action == "trump:last":
        return key_of(-1)
    card = CARD_OF_CODE[action.split(":")[1]]
    hand = [CARD_OF_CODE[c] for c in obs["hand"]]
    suit = [c for c in hand if SUIT[c] == SUIT[card]]
    power = RANKINGS["normal"].power[NO_TRUMP]
    return key_of(len(suit), sum(CARD_POINTS[c] for c in suit), -power[card])


@cython.cfunc
@cython.locals(keyer=Keyer, i=cython.Py_ssize_t, trump=cython.int, card=cython.int, best=cython.int,
               last=cython.bint, partner_winning=cython.bint, power=tuple, trick=list)
def _card_keys(keyer: Keyer, seen: Seen, legal: list[str]) -> None:
    obs = seen.obs
    trump = NO_TRUMP if obs["trump"] is None else SUITS.index(obs["trump"])
    power = RANKINGS["royals" if obs["contract"] == "royals" else "normal"].power[trump]
    trick = seen.trick
    best, last, partner_winning = -1, False, False
    if trick:  # the trick's facts, once for every card
        best_seat, best = seen.winning(trump, power)
        last = len(trick) == obs["players"] - 1
        partner_winning = best_seat % 2 == obs["seat"] % 2
    for i in range(len(legal)):
        action = legal[i]
        if action not in CARD_OF_CODE:
            keyer.keys[i] = key_of(-10)
            continue
        card = CARD_OF_CODE[action]
        if not trick:
            keyer.keys[i] = key_of(1, SUIT[card] != trump, power[card])
        elif partner_winning:
            keyer.keys[i] = key_of(1, CARD_POINTS[card] if last else -power[card])
        elif beats(card, best, trump, power):
            keyer.keys[i] = key_of(1, -power[card])
        else:
            keyer.keys[i] = key_of(0, -CARD_POINTS[card], -power[card])
