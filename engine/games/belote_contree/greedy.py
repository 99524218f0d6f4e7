"""Greedy for Belote contrée: redeal a weak hand, bid what the pair can make, then play as the Belote games do
(:mod:`engine.games.belote_family.greedy`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import SUITS
from ..belote_family.greedy import rank_belote_play, trump_value

PARTNER_SHARE = 40  # what a partner brings to the pair's contract, in points


@register_greedy("belote_contree")
def rank_belote_contree(seen: Seen) -> Sequence[SortKey] | Sequence[int]:
    """Redeal a weak hand (3.8); bid the cheapest contract in the best suit that the pair can make (4.2); play."""
    phase = seen.phase
    if phase == "play":
        return rank_belote_play(seen)
    legal = seen.legal
    if phase == "redeal":
        return [(action == "redeal",) for action in legal]
    hand = seen.hand()
    suit = max(range(4), key=lambda s: trump_value(hand, s))
    reach = (trump_value(hand, suit) + PARTNER_SHARE) // 10 * 10
    keys = []
    for action in legal:
        parts = action.split(":")
        if action == "pass":
            keys.append((1, 0))
        elif parts[0] == "bid" and parts[1].isdigit() and parts[2] == SUITS[suit] and int(parts[1]) <= reach:
            keys.append((2, -int(parts[1])))
        else:
            keys.append((0, 0))
    return keys
