"""Thunee's own machinery (thunee.md): the call for the right to name trumps (4), the jodi marriages (7) and the
six-player trip's tiered ranks (8.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...auction import PASS
from ...cards import BIT, CODES, RANKS, card_of
from ...clone import SHARED, Copyable, copy_declared
from ...tricks import Ranking


class RaiseForRight(Copyable):
    """Calling to take a right away from its holder (Thunee's trump, thunee.md 4): ``holder`` has it at call 0;
    only the holder's opponents speak, in seat order from the holder's next seat (his partners pass without
    speaking), each ``pass`` or ``call:<N>`` with N the next of ``calls`` above the standing call (with ``jump``, any
    of them above it); a call takes the right. ``passes_to_end`` passes in a row, or the top call, end it.

    >>> calling = RaiseForRight((10, 20, 30), sides=(0, 1, 0, 1), holder=1, passes_to_end=2)
    >>> calling.turn, calling.legal_words()
    (2, ['pass', 'call:10'])
    >>> for word in ["call:10", "call:20", "pass", "pass"]:
    ...     calling.apply(word)
    >>> calling.over, calling.holder, calling.call
    (True, 3, 20)
    """

    COPY = {"calls": SHARED, "sides": SHARED}  # the rest are ints and bools
    # Its holders declare it SHARED_UNTIL_WRITTEN (engine.clone): a clone shares it, marked shared, and the holder
    # that speaks next speaks in a copy of its own (``copy``).
    shared = False

    def __init__(self, calls: tuple[int, ...], sides: tuple[int, ...], holder: int, passes_to_end: int,
                 jump: bool = False) -> None:
        self.calls, self.sides, self.jump = calls, sides, jump
        self.n = len(sides)
        self.holder = holder
        self.call = 0
        self.passes = 0
        self.passes_to_end = passes_to_end
        self.over = False
        self.turn = self._next_speaker(holder)

    def copy(self) -> RaiseForRight:
        twin = copy_declared(self)
        twin.shared = False
        return twin

    def _next_speaker(self, seat: int) -> int:
        """The first opponent of the holder after ``seat``."""
        side = self.sides[self.holder]
        seat = (seat + 1) % self.n
        while self.sides[seat] == side:
            seat = (seat + 1) % self.n
        return seat

    def legal_words(self) -> list[str]:
        higher = [c for c in self.calls if c > self.call]
        return [PASS, *(f"call:{c}" for c in (higher if self.jump else higher[:1]))]

    def apply(self, word: str) -> None:
        """Record the action of the seat to speak (the caller has checked it is legal)."""
        seat = self.turn
        if word == PASS:
            self.passes += 1
            self.over = self.passes == self.passes_to_end
        else:
            self.holder, self.call, self.passes = seat, int(word[len("call:"):]), 0
            self.over = self.call == self.calls[-1]
        self.turn = self._next_speaker(seat)


# ---- marriages: a king and queen of one suit, with or without its jack (Thunee's jodi) ---------------------------


@dataclass(frozen=True)
class Marriage:
    """Cards of one suit declared together (``cards`` in canonical order) and what they are worth."""

    cards: tuple[int, ...]
    value: int

    def code(self) -> str:
        """``QH,KH``, ``JC,QC,KC``: the cards in canonical order."""
        return ",".join(CODES[c] for c in self.cards)


def marriages(available: int, trump: int, values: Mapping[str, tuple[int, int]], used: int = 0) -> list[Marriage]:
    """The marriages ``available`` (a mask) holds: for each suit and each rank set of ``values`` (rank letters ->
    (plain value, trump value)), the set's cards of that suit when all are available and none is in ``used``.

    >>> from engine.cards import mask_of, parse_cards
    >>> hand = mask_of(parse_cards(["JH", "QH", "KH", "QC", "KC"]))
    >>> [(m.code(), m.value) for m in marriages(hand, 2, {"KQ": (20, 40), "JKQ": (30, 50)})]
    [('QC,KC', 20), ('QH,KH', 40), ('JH,QH,KH', 50)]
    """
    found = []
    for suit in range(4):
        for ranks, (plain, in_trump) in values.items():
            cards = tuple(sorted(card_of(rank, suit) for rank in ranks))
            mask = sum(BIT[c] for c in cards)
            if available & mask == mask and not used & mask:
                found.append(Marriage(cards, in_trump if suit == trump else plain))
    return found


def tiered_ranking(tiers: Sequence[str]) -> Ranking:
    """A rank order with ties, high to low, the same in every suit and no trumps: the ranks of one tier are equal, so
    the first of them played to a trick stays best (Thunee's six-player trip, thunee.md 8.2).

    >>> from engine.cards import parse_cards
    >>> from engine.tricks import NO_TRUMP, trick_winner
    >>> trip = tiered_ranking(["9AT", "J", "K", "Q"])
    >>> trick_winner(parse_cards(["TS", "9S", "AS", "JS"]), NO_TRUMP, trip)
    0
    """
    ranking = Ranking("".join(tiers))
    tier_of = {rank: len(tiers) - k for k, tier in enumerate(tiers) for rank in tier}
    ranking.power = tuple(tuple(tier_of.get(RANKS[card % 13], 0) for card in range(52)) for _t in range(5))
    return ranking
