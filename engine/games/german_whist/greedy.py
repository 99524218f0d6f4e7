"""Greedy for German Whist: one sort key per legal action, best highest (german_whist.md 5.3-5.5).

>>> obs = {"seat": 0, "players": 2, "phase": "play", "legal_actions": ["2C", "AC"], "trump": "H", "trick": [],
...        "face_up": "AH"}
>>> rank_german_whist(Seen(obs))
[(1, 1), (1, 13)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import SUIT
from ...tricks import beats
from . import RANKING

WHIST_POWER = RANKING.power


@register_greedy("german_whist")
def rank_german_whist(seen: Seen) -> Sequence[SortKey]:
    """Phase 1: fight for a face-up card worth having (a trump or a ten and up), else duck; phase 2: win cheaply.

    A ``down:<slot>`` card (face_down_four) is unknown, so it ranks below every hand card.
    """
    trump, face_up, trick = seen.trump, seen.face_up(), seen.trick
    lead = trick[0][1] if trick else None
    power = WHIST_POWER[trump]
    worth_winning = face_up is None or SUIT[face_up] == trump or power[face_up] >= 10
    keys: list[SortKey] = []
    for card in seen.legal_cards:
        if card is None:
            keys.append((0, 0))
        elif lead is None:
            keys.append((1, power[card] if worth_winning else -power[card]))
        elif worth_winning and beats(card, lead, trump, power):
            keys.append((2, -power[card]))  # the cheapest winner
        else:
            keys.append((1, -power[card] - (50 if SUIT[card] == trump else 0)))  # the cheapest discard, trumps kept
    return keys
