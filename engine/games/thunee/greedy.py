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
>>> rank_thunee(Seen(obs))  # seat 3's partner 1 does not win the trick, and no spade beats the jack: lose the 11
[(0, -20, -5), (0, -11, -4)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.policy import Observation
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ...tricks import NO_TRUMP, beats
from . import CARD_POINTS, RANKINGS

PASSING = {"pass": 1, "keep": 0, "redeal": 2, "mooney": 3, "trip": 0, "thunee": 0, "royals": 0, "double": 0,
           "kanak": -1}


@register_greedy("thunee")
def rank_thunee(seen: Seen) -> Sequence[SortKey]:
    obs = seen.obs
    legal = obs["legal_actions"]
    if obs["phase"] == "trump":
        return [_trump_key(obs, action) for action in legal]
    if obs["phase"] == "play":
        return _card_keys(seen, legal)
    return [_word_key(action) for action in legal]


def _word_key(action: str) -> SortKey:
    if action.startswith("jodi:"):
        return (4, len(action))  # before the pass, the three-card jodi first
    if action.startswith("call:"):
        return (0,)
    return (PASSING[action],)


def _trump_key(obs: Observation, action: str) -> SortKey:
    if action == "trump:last":
        return (-1,)
    card = CARD_OF_CODE[action.split(":")[1]]
    hand = [CARD_OF_CODE[c] for c in obs["hand"]]
    suit = [c for c in hand if SUIT[c] == SUIT[card]]
    power = RANKINGS["normal"].power[NO_TRUMP]
    return (len(suit), sum(CARD_POINTS[c] for c in suit), -power[card])


def _card_keys(seen: Seen, legal: Sequence[str]) -> list[SortKey]:
    obs = seen.obs
    trump = NO_TRUMP if obs["trump"] is None else SUITS.index(obs["trump"])
    power = RANKINGS["royals" if obs["contract"] == "royals" else "normal"].power[trump]
    trick = seen.trick
    if trick:  # the trick's facts, once for every card
        best_seat, best = seen.winning(trump, power)
        last = len(trick) == obs["players"] - 1
        partner_winning = best_seat % 2 == obs["seat"] % 2
    keys: list[SortKey] = []
    for action in legal:
        if action not in CARD_OF_CODE:
            keys.append((-10,))
            continue
        card = CARD_OF_CODE[action]
        if not trick:
            keys.append((1, SUIT[card] != trump, power[card]))
        elif partner_winning:
            keys.append((1, CARD_POINTS[card] if last else -power[card]))
        elif beats(card, best, trump, power):
            keys.append((1, -power[card]))
        else:
            keys.append((0, -CARD_POINTS[card], -power[card]))
    return keys
