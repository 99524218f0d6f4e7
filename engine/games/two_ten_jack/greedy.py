"""Greedy for Two-Ten-Jack: take tricks worth points with the cheapest winner, dodge the minus cards, dump them.

One sort key per legal action (higher is better), from the observation of the seat to act only:

- a card that would win the trick as it stands scores the trick's face-up points with it (two_ten_jack.md 2.4, 5.5),
  scaled by the other players, so a plus trick is taken and a minus trick left; the last seat to play knows;
- a card that loses gives its points to another player: a minus card is dumped, a plus card kept;
- a lead risks its own points: a plain low card is led, ``AS`` never (it wins its trick and costs 15), a 2 (same
  two) for its own points;
- a card played face down (5.3) goes to the trick's winner: the most negative one is given away.

Ties prefer the weaker card (the almighty strongest), so strength is kept for later.

>>> obs = {"game": "two_ten_jack", "players": 2, "trump": "C", "trick": [[1, "JH"]], "tricks_played": 3,
...        "options": {"same_two": True}, "legal_actions": ["2H", "QH", "AH"]}
>>> from engine.bots.greedy import fields  # (a key is a tuple packed in one int: key_of)
>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> [fields(key) for key in rank_two_ten_jack(Seen(obs))]
[(20, -1), (15, -11), (15, -13)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ...trickgame import FACEDOWN
from . import ALMIGHTY, CARDS, RANKING, SPECIALS
from .rules import special_trick_winner

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

POINTS = CARDS.points


@cython.cclass
class TwoTenJackGreedy(Keyer):
    """Two-Ten-Jack's ranker (:data:`rank_two_ten_jack`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, trump=cython.int, others=cython.int, card=cython.int,
                   strength=cython.int, worth=cython.int, taken=cython.int, after=cython.int, sweep=cython.bint,
                   wins=cython.bint, legal=list, shown=list)
    def rank(self, seen: Seen) -> int:
        obs = seen.obs
        trump = SUITS.index(obs["trump"])
        power = RANKING.power[trump]
        others = obs["players"] - 1
        shown = [CARD_OF_CODE[code] for _seat, code in obs["trick"] if not code.startswith("facedown")]
        sweep = obs["options"]["same_two"] and obs["tricks_played"] > 0  # 5.4: not in the first trick
        worth = 0
        for card in shown:
            worth += POINTS[card]
        legal = obs["legal_actions"]
        n = self.room(len(legal))
        for i in range(n):
            action = legal[i]
            if action.startswith(FACEDOWN):
                self.keys[i] = key_of(-POINTS[CARD_OF_CODE[action[len(FACEDOWN):]]], 0)  # 5.3: given to the winner
                continue
            card = CARD_OF_CODE[action]
            strength = 200 if card == ALMIGHTY else power[card]
            if not shown:
                self.keys[i] = key_of(_lead(card, sweep, others), -strength - (50 if SUIT[card] == trump else 0))
                continue
            wins = special_trick_winner([*shown, card], trump, RANKING, SPECIALS, sweep) == len(shown)
            taken = worth + POINTS[card]
            if wins:
                after = others - len(obs["trick"])  # seats still to play, who may take it over
                self.keys[i] = key_of(taken * others if taken <= 0 else taken * others // (1 + after), -strength)
            else:
                self.keys[i] = key_of(-POINTS[card], -strength)
        return n


rank_two_ten_jack = register_greedy("two_ten_jack")(TwoTenJackGreedy())


def _lead(card: int, sweep: bool, others: int) -> int:
    """What leading ``card`` is worth: ``AS`` and (with same two) a 2 take their trick when the others follow, so
    they bring their own points; any other lead risks them."""
    if card == ALMIGHTY or (sweep and card % 13 == 0):
        return POINTS[card] * others
    return -abs(POINTS[card])
