"""Two-Ten-Jack's face-down lead (two_ten_jack.md 5.3): a deal's first trick led face up only from some cards, a player
holding none of them giving up the lead with a card played face down, in tricks that special cards win first (2.3,
5.4): :class:`FaceDownLead`, a :class:`engine.trickgame.FaceDownPlays` layer.

>>> import engine
>>> state = engine.new_match("two_ten_jack", seed=1, first_dealer=0)
>>> state.DOWN_LACKS == state.LEADS, state.led, state.legal_actions()[:2]
(True, None, ['5D', '6D'])
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import ClassVar

from ...cards import BIT, CODES, SUIT, SUIT_MASK, cards_in
from ...trickgame import FACEDOWN, FaceDownPlays
from ...tricks import trick_winner
from .rules import SpecialCards, special_trick_winner

FACE_DOWN_WORDS = tuple(FACEDOWN + code for code in CODES)  # the actions that play a card face down


class FaceDownLead(FaceDownPlays):
    """Tricks led by their first face-up card. In a deal's first trick the card that leads must be one of ``LEADS``
    (a mask); a player to lead who holds none plays a card face down (it never wins, and shows the others a hand
    without ``LEADS``: a game sets ``DOWN_LACKS`` to ``LEADS``) and the next player leads under the same rule. After
    the lead a player follows suit if able; void, he plays one of ``void_must`` (a mask set per deal: a must-trump
    rule's trumps, 0 for none) if he holds one, else anything. A trick's winner is the card ``SPECIALS`` makes win (its
    sweeper only with ``sweep``, never in the first trick), else the best trump or card of the led suit.

    A game calls ``_open_lead`` as it deals; its actions are the card plays (the trick loop's, TrickGame's path for a
    game without decision phases)."""

    LEADS: ClassVar[int]
    SPECIALS: ClassVar[SpecialCards]
    sweep = True  # SPECIALS' sweeper wins its suit's tricks (after the first)
    void_must = 0

    def _open_lead(self) -> None:
        self.down = 0

    @property
    def led(self) -> int | None:
        """The led suit of the trick in play: its first face-up card's (None before one)."""
        down = self.down
        for _s, c in self.trick:
            if not down & BIT[c]:
                return SUIT[c]
        return None

    def _card_ids(self) -> list[int]:
        seat = self.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        actions, hand, trick = self.ACTIONS, self.hands[seat], self.trick
        led = SUIT[trick[0][1]] if trick and not self.down & BIT[trick[0][1]] else self.led  # (led face up: its suit)
        if led is None:
            if self.tricks:
                return actions.ids(hand)
            leads = hand & self.LEADS
            return actions.ids(leads) if leads else sorted(self.DOWN_ID[c] for c in cards_in(hand))
        same = hand & SUIT_MASK[led]
        if same:
            return actions.suit_ids(same, led)
        must = hand & self.void_must
        return actions.ids(must if must else hand)

    def _won_by(self, trick: list[tuple[int, int]]) -> int:
        cards = [c for _s, c in trick]
        if self.tricks:  # after the first trick: every card face up (the common case, without _winner's calls)
            best = self.SPECIALS.winner(cards, self.sweep)
            return trick[trick_winner(cards, self.trump, self.RULES.ranking) if best is None else best][0]
        return trick[self._winner(True, cards, self.trump, self.down)][0]

    def _winner(self, first: bool, cards: list[int], trump: int, down: int) -> int:
        """The index of the winning card; the first trick knows no sweeper, its face-down cards never win."""
        sweep = self.sweep and not first
        return special_trick_winner(cards, trump, self.RULES.ranking, self.SPECIALS, sweep, down if first else 0)

    def _winner_rule(self, trump: int) -> Callable[[list[int]], int]:
        numbers, down = itertools.count(), self._down_given  # a position's tricks from the first, with its face_down
        return lambda cards: self._winner(next(numbers) == 0, cards, trump, down)

    def _shown_lacking(self) -> list[list[tuple[int, int]]]:
        """A card played face down shows a hand without ``LEADS``; a follower who does not follow shows a void, and
        no card of ``void_must`` when he plays none."""
        lacks: list[list[tuple[int, int]]] = [[] for _ in range(self.n_players)]
        must, down = self.void_must, self.down
        for k, played in enumerate([*self.tricks, self.trick]):
            led = None
            for seat, card in played:
                if down & BIT[card]:
                    lacks[seat].append((k, self.LEADS))
                elif led is None:
                    led = SUIT[card]
                elif SUIT[card] != led:
                    lacks[seat].append((k, SUIT_MASK[led] | (must if not must & BIT[card] else 0)))
        return lacks
