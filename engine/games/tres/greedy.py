"""Greedy for Très (shared/rules/tres.md): one sort key per legal action, best highest.

The 51 cards are all dealt, so the other hand is exactly the cards this seat has not seen (5.7); the ranker looks
ahead to the end of the trick in play with it.

- Leader's second card (5.4): the card that ends the trick best: won and worth the most, else lost and worth the
  least; then the cheapest.
- Follower (5.3): the card after which the leader's best second card leaves him the least (the leader answers with
  what the first point would choose); then the cheapest.
- Lead: a card the follower cannot beat (no higher card of its suit, no trump to ruff it), not a low card (2, 3, 4:
  those are kept to add to won tricks), the lowest such; else the lowest card that is not low.

>>> obs = {"game": "tres", "seat": 1, "options": {"removed_card": "5D", "trump_suit": "H",
...        "additive_trick_point": False}, "legal_actions": ["2H", "7S"], "hand": ["2H", "7S"],
...        "trick": [[1, "9C"], [0, "3C"]], "tricks": []}
>>> rank_tres(Seen(obs))  # winning the trick already: the 2 of hearts makes it worth 4
[(4, -121), (2, -6)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy
from ...bots.seen import Seen
from ...cards import BIT, CARD_OF_CODE, SUIT, SUIT_MASK, cards_in, mask_of
from ...tricks import beats, suit_of_code
from . import BONUS, DECKS, RANKING
from .rules import ranks_mask, second_card_mask

LOW = ranks_mask("234")


def _other_hand(seen: Seen) -> int:
    """The cards the other seat holds (a mask): the deck's cards the seat has not seen."""
    return mask_of(seen.unseen(DECKS[seen.obs["options"]["removed_card"]]))


def _outcome(cards: Sequence[int], trump: int, additive: bool, power: Sequence[int]) -> int:
    """The finished trick's value for its leader: + if the leader wins it (c1 or c3 best), - if the follower does."""
    best = 0
    for i in (1, 2):
        if beats(cards[i], cards[best], trump, power):
            best = i
    value = BONUS.value(cards, additive=additive)
    return -value if best == 1 else value


def _cost(card: int, trump: int, power: Sequence[int]) -> int:
    """What a card is worth keeping: its power (trumps above all), a low card more."""
    return power[card] + (20 if BIT[card] & LOW else 0)


@register_greedy("tres")
def rank_tres(seen: Seen) -> Sequence[SortKey]:
    obs = seen.obs
    options = obs["options"]
    trump, additive = suit_of_code(options["trump_suit"]), options["additive_trick_point"]
    power = RANKING.power[trump]
    trick = [CARD_OF_CODE[c] for _s, c in obs["trick"]]
    legal = [CARD_OF_CODE[a] for a in obs["legal_actions"]]
    if len(trick) == 2:
        return [(_outcome([*trick, c], trump, additive, power), -_cost(c, trump, power)) for c in legal]
    other = _other_hand(seen)
    if len(trick) == 1:
        keys = []
        for c in legal:
            follower_winning = beats(c, trick[0], trump, power)
            replies = cards_in(second_card_mask(other, c if follower_winning else trick[0], follower_winning))
            best = max(_outcome([trick[0], c, r], trump, additive, power) for r in replies) if replies else 0
            keys.append((-best, -_cost(c, trump, power)))
        return keys
    return [_lead_key(c, other, trump, power) for c in legal]


def _lead_key(card: int, other: int, trump: int, power: Sequence[int]) -> SortKey:
    suit = SUIT[card]
    same = other & SUIT_MASK[suit]
    beaten = any(power[c] > power[card] for c in cards_in(same)) or (
        not same and suit != trump and bool(other & SUIT_MASK[trump]))
    return (not beaten and not BIT[card] & LOW, not BIT[card] & LOW, -power[card])
