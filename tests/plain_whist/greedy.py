"""Greedy for Whist: win a trick the partner is not winning with the cheapest card that wins it, else throw the
cheapest card, trumps last; lead the highest plain card.

>>> obs = {"seat": 1, "players": 4, "phase": "play", "legal_actions": ["3H", "KH"], "trump": "S",
...        "trick": [[0, "QH"]]}
>>> rank_plain_whist(Seen(obs))
[(False, -2), (True, -12)]
"""

from __future__ import annotations

from engine.bots.greedy import SortKey, register_greedy
from engine.bots.seen import Seen
from engine.cards import SUIT
from engine.tricks import beats

from . import RANKING


@register_greedy("plain_whist")
def rank_plain_whist(seen: Seen) -> list[SortKey]:
    trump = seen.trump
    power = RANKING.power[trump]
    cards = [card for card in seen.legal_cards if card is not None]
    if not seen.trick:
        return [(SUIT[card] != trump, power[card]) for card in cards]
    winner, best = seen.winning(trump, power)
    partner_wins = (winner - seen.seat) % 4 == 2
    return [(not partner_wins and beats(card, best, trump, power), -power[card]) for card in cards]
