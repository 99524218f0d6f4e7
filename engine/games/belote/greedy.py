"""Greedy for Belote: declare, take the turn-up or name a suit with a strong enough hand, then play as the Belote
games do (:mod:`engine.games.belote_family.greedy`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ..belote_family.greedy import rank_belote_play, trump_value

# Minimum taking value (:func:`taking_value`) per player count, for ``take`` (round 1) and ``take:<suit>`` (round 2).
# Without a partner the taker gets no turn-up card (3.6) but bold taking pays: rivals who take at random often fail.
TAKE_AT = {2: (50, 45), 3: (50, 45), 4: (60, 52)}


def taking_value(hand: list[int], turn_up: int, suit: int, players: int) -> int:
    """What the 5-card hand is worth with ``suit`` as trump; with 4 players the taker also gets the turn-up (3.5)."""
    return trump_value([*hand, turn_up] if players == 4 else hand, suit)


@register_greedy("belote")
def rank_belote(seen: Seen) -> Sequence[SortKey] | Sequence[int]:
    """Declare every combination (6.2); take the turn-up or name a suit when the hand is strong enough (4.1-4.2)."""
    play = seen.phase == "play"
    if play and None not in seen.legal_cards:  # cards only, no declaration
        return rank_belote_play(seen)
    legal = seen.legal
    if "declare" in legal:
        return [(action == "declare",) for action in legal]
    if play:
        return rank_belote_play(seen)
    hand = seen.hand()
    turn_up = CARD_OF_CODE[seen.obs["turn_up"]]
    players = seen.players
    take_at, name_at = TAKE_AT[players]
    keys = []
    for action in legal:
        if action == "pass":
            keys.append((1, 0))
            continue
        suit = SUIT[turn_up] if action == "take" else SUITS.index(action[-1])
        value = taking_value(hand, turn_up, suit, players)
        keys.append((2 if value >= (take_at if action == "take" else name_at) else 0, value))
    return keys
