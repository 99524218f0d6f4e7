"""Greedy for the Belote games' play of the tricks (Belote, Belote contrée): one sort key per legal action, best
highest. Each game's own package ranks its auction (``engine/games/belote/greedy.py``,
``engine/games/belote_contree/greedy.py``) and hands the play to :func:`rank_belote_play`.

The rankers see only what the seat to act has seen (:class:`engine.bots.seen.Seen`);
:class:`engine.bots.greedy.GreedyPolicy` plays an action with the highest key and breaks ties with its own RNG.

- Play: win a trick with the cheapest card that wins it when the trick is worth winning, give points to a partner
  who is winning it, otherwise throw the cheapest card (belote_contree.md / belote.md 5.2).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey
from ...bots.seen import Seen
from ...cards import SUIT, make_deck
from ...tricks import beats
from . import DECK_RANKS, POINTS, RANKING

POWER = RANKING.power
TRUMP_LENGTH_BONUS = 8  # what a hand is worth for the taker: a premium per trump held (trump_value)
BELOTE_DECK = tuple(make_deck(DECK_RANKS))


# ---- the Belote games: the play of the tricks ---------------------------------------------------------------------


def _lead_key(card: int, trump: int, highest: list[int]) -> SortKey:
    """Lead a master (no unseen card of its suit beats it: ``highest``, the best unseen power per suit), trumps first
    to draw them, then the richest; otherwise the cheapest card, keeping tens whose ace is still out."""
    power, points = POWER[trump], POINTS[trump]
    suit = SUIT[card]
    if highest[suit] <= power[card]:
        return (2, suit == trump, points[card])
    return (1, -points[card] - (20 if suit == trump else 0), -power[card])


def rank_belote_play(seen: Seen) -> Sequence[SortKey]:
    """Each legal play's key (a card, or a card that announces the belote: ``KH:belote``)."""
    trump, trick = seen.trump, seen.trick
    power, points = POWER[trump], POINTS[trump]
    keys: list[SortKey] = []
    plays = zip(seen.legal_cards, seen.legal, strict=True)
    if not trick:
        highest = seen.highest_unseen(BELOTE_DECK, power)
        for card, action in plays:
            assert card is not None
            keys.append((action.endswith(":belote"), *_lead_key(card, trump, highest)))  # 6.1: announce it (20 points)
        return keys
    seat, best = seen.winning(trump, power)
    partner_winning = seen.players == 4 and seat == (seen.seat + 2) % 4
    for card, action in plays:
        assert card is not None
        announce = action.endswith(":belote")
        is_trump = SUIT[card] == trump
        if partner_winning:
            keys.append((announce, 1, points[card] - (30 if is_trump else 0)))  # give points, keep trumps
        elif beats(card, best, trump, power):
            keys.append((announce, 2, -power[card], -points[card]))  # the cheapest card that wins
        else:
            keys.append((announce, 0, -points[card] - (20 if is_trump else 0), -power[card]))
    return keys


def trump_value(hand: list[int], trump: int) -> int:
    """A hand's worth with ``trump``: its card points plus a premium for each trump held."""
    points = POINTS[trump]
    return sum(points[c] for c in hand) + TRUMP_LENGTH_BONUS * sum(SUIT[c] == trump for c in hand)
