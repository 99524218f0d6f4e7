"""What a seat has seen of a trick game's deal, from its view (its observation): the one helper the rankers read for
the trick in play and who is winning it, the cards the seat has not seen and the suits each seat showed it lacks.

>>> obs = {"seat": 0, "hand": ["AH", "2S"], "trick": [[1, "KS"], [2, "AS"]], "tricks": [[[0, "3C"], [1, "5D"]]]}
>>> seen = Seen(obs)
>>> from engine.cards import CODES
>>> from engine.tricks import HEARTS, NO_TRUMP, Ranking
>>> seat, card = seen.winning(NO_TRUMP, Ranking("AKQJT98765432").power[NO_TRUMP]); seat, CODES[card]
(2, 'AS')
>>> sorted(CODES[c] for c in seen.unseen(range(13 * HEARTS, 13 * HEARTS + 13)))[:3]
['2H', '3H', '4H']
>>> seen.voids(), seen.voids_of_others()
({1: {0}}, {0})
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..cards import CARD_OF_CODE, SUIT
from ..tricks import beats
from .policy import Observation


class Seen:
    """A seat's view of the play, read from ``obs`` (its ``seat``, ``hand``, ``trick``, ``tricks``)."""

    __slots__ = ("obs", "trick")

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.trick: list[tuple[int, int]] = [(seat, CARD_OF_CODE[code]) for seat, code in obs["trick"]]  # in play

    def winning(self, trump: int, power: Sequence[int]) -> tuple[int, int]:
        """The seat and card winning the trick in play so far (it holds a card): the best trump, else the best card
        of the led suit, ``power`` ranking the cards under ``trump``."""
        best_seat, best = self.trick[0]
        for seat, card in self.trick[1:]:
            if beats(card, best, trump, power):
                best_seat, best = seat, card
        return best_seat, best

    def unseen(self, deck: Iterable[int], also: Iterable[str] = ()) -> set[int]:
        """The cards of ``deck`` the seat has not seen: not in its hand, not played this deal, none of ``also``
        (codes of the game's other shown cards: Trappola's dead cards)."""
        obs = self.obs
        seen = {CARD_OF_CODE[code] for code in obs["hand"]}
        seen.update(CARD_OF_CODE[code] for played in obs["tricks"] for _seat, code in played)
        seen.update(card for _seat, card in self.trick)
        seen.update(CARD_OF_CODE[code] for code in also)
        return set(deck) - seen

    def voids(self) -> dict[int, set[int]]:
        """Per seat that showed some, the suits it lacks: the led suits of the finished tricks it did not follow."""
        voids: dict[int, set[int]] = {}
        for played in self.obs["tricks"]:
            led = SUIT[CARD_OF_CODE[played[0][1]]]
            for seat, code in played[1:]:
                if SUIT[CARD_OF_CODE[code]] != led:
                    voids.setdefault(seat, set()).add(led)
        return voids

    def voids_of_others(self) -> set[int]:
        """The suits some other seat showed it lacks."""
        me = self.obs["seat"]
        return {suit for seat, suits in self.voids().items() if seat != me for suit in suits}
