"""Greedy for Botifarra: one sort key per legal action, best highest (see :mod:`engine.bots.greedy`).

- Trump choice (botifarra.md 4.1, 4.2): name the suit the hand is longest and richest in, botifarra with three
  manillas or more; the dealer hands a hand with no suit of five over to his partner.
- Doubling (4.4): say the word with a strong hand in the trump suit (or, in botifarra, high cards), else pass.
- Play (5.5): lead a master card, richest first, else the lowest card of a long plain suit; load points on a trick
  the partner wins; win a trick with the card most likely to keep it (the cheapest winner as last hand); throw the
  cheapest card otherwise.

>>> obs = {"game": "botifarra", "phase": "choice", "seat": 0, "legal_actions": ["delegate", "trump:C", "trump:D",
...        "trump:H", "trump:S", "trump:none"], "hand": ["2C", "9C", "AC", "KC", "QC", "7C", "3D", "5D", "8H", "2H",
...        "4S", "6S"]}
>>> from engine.bots import make_policy
>>> make_policy("greedy", "botifarra", seat=0, seed=1)(obs)
'trump:C'
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import RANK_CHAR, SUIT, SUITS
from ...tricks import NO_TRUMP, beats
from . import DECK, POINTS, RANKING

PLAIN_POINTS = POINTS[NO_TRUMP]
NAME_SUIT_AT = 5  # the dealer names a suit he holds this many cards of (else delegates)
BOTIFARRA_AT = 3  # manillas for botifarra
DOUBLE_AT = 7  # doubling strength (see _strength) to say contro / recontro / santvicenc


def _suit_value(hand: list[int], suit: int) -> tuple[int, int]:
    """A suit's worth as trump: its length, then its card points."""
    cards = [c for c in hand if SUIT[c] == suit]
    return len(cards), sum(PLAIN_POINTS[c] for c in cards)


def _manillas(hand: list[int]) -> int:
    return sum(RANK_CHAR[c] == "9" for c in hand)


def _strength(hand: list[int], trump: int) -> int:
    """Trumps held and high trumps twice (botifarra: manillas and aces) for the doubling."""
    if trump == NO_TRUMP:
        return 2 * _manillas(hand) + sum(RANK_CHAR[c] == "A" for c in hand)
    trumps = [c for c in hand if SUIT[c] == trump]
    return len(trumps) + sum(RANK_CHAR[c] in "9A" for c in trumps)


def _rank_choice(legal: Sequence[str], hand: list[int]) -> list[SortKey]:
    best = max(range(4), key=lambda s: _suit_value(hand, s))
    botifarra = _manillas(hand) >= BOTIFARRA_AT
    strong = botifarra or _suit_value(hand, best)[0] >= NAME_SUIT_AT
    keys: list[SortKey] = []
    for action in legal:
        if action == "delegate":
            keys.append((0 if strong else 3,))
        elif action == "trump:none":
            keys.append((1 + botifarra,))
        else:
            keys.append((1 + (SUITS.index(action[-1]) == best and not botifarra),))
    return keys


def _rank_play(seen: Seen, hand: list[int]) -> list[SortKey]:
    trump, trick = seen.trump, seen.trick
    power = RANKING.power[trump]
    cards = seen.legal_cards
    if not trick:
        highest = seen.highest_unseen(DECK, power)
        keys: list[SortKey] = []
        for card in cards:
            assert card is not None
            master = highest[SUIT[card]] <= power[card]
            length = sum(SUIT[c] == SUIT[card] for c in hand)
            keys.append((1, PLAIN_POINTS[card]) if master else (0, length - 20 * (SUIT[card] == trump),
                                                               -PLAIN_POINTS[card], -power[card]))
        return keys
    seat, best = seen.winning(trump, power)
    partner_winning = seat == seen.partner()
    last = len(trick) == 3
    keys = []
    for card in cards:
        assert card is not None
        is_trump = SUIT[card] == trump
        if partner_winning:
            keys.append((1, PLAIN_POINTS[card] - 10 * is_trump, -power[card]))
        elif beats(card, best, trump, power):
            keys.append((2, -power[card] if last else power[card], PLAIN_POINTS[card]))
        else:
            keys.append((0, -PLAIN_POINTS[card] - 10 * is_trump, -power[card]))
    return keys


@register_greedy("botifarra")
def rank_botifarra(seen: Seen) -> Sequence[SortKey]:
    hand = seen.hand()
    phase = seen.phase
    if phase == "choice":
        return _rank_choice(seen.legal, hand)
    if phase == "doubling":
        strong = _strength(hand, seen.trump) >= DOUBLE_AT
        return [((action != "pass") == strong,) for action in seen.legal]
    return _rank_play(seen, hand)
