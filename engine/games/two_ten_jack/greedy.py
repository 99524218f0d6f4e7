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
>>> rank_two_ten_jack(Seen(obs))
[(20, -1), (15, -11), (15, -13)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ...trickgame import FACEDOWN
from . import ALMIGHTY, CARDS, RANKING, SPECIALS
from .rules import special_trick_winner

POINTS = CARDS.points


@register_greedy("two_ten_jack")
def rank_two_ten_jack(seen: Seen) -> Sequence[SortKey]:
    obs = seen.obs
    trump = SUITS.index(obs["trump"])
    power = RANKING.power[trump]
    others = obs["players"] - 1
    shown = [CARD_OF_CODE[code] for _seat, code in obs["trick"] if not code.startswith("facedown")]
    sweep = obs["options"]["same_two"] and obs["tricks_played"] > 0  # 5.4: not in the first trick
    worth = sum(POINTS[c] for c in shown)
    keys = []
    for action in obs["legal_actions"]:
        if action.startswith(FACEDOWN):
            keys.append((-POINTS[CARD_OF_CODE[action[len(FACEDOWN):]]], 0))  # 5.3: given to the winner
            continue
        card = CARD_OF_CODE[action]
        strength = 200 if card == ALMIGHTY else power[card]
        if not shown:
            keys.append((_lead(card, sweep, others), -strength - (50 if SUIT[card] == trump else 0)))
            continue
        cards = [*shown, card]
        wins = special_trick_winner(cards, trump, RANKING, SPECIALS, sweep) == len(shown)
        taken = worth + POINTS[card]
        if wins:
            after = others - len(obs["trick"])  # seats still to play, who may take it over
            keys.append((taken * others if taken <= 0 else taken * others // (1 + after), -strength))
        else:
            keys.append((-POINTS[card], -strength))
    return keys


def _lead(card: int, sweep: bool, others: int) -> int:
    """What leading ``card`` is worth: ``AS`` and (with same two) a 2 take their trick when the others follow, so
    they bring their own points; any other lead risks them."""
    if card == ALMIGHTY or (sweep and card % 13 == 0):
        return POINTS[card] * others
    return -abs(POINTS[card])
