"""German Whist's face-down slots (german_whist.md 8.1): cards dealt face down beside the hand, played from their
slots: :class:`FaceDownSlots`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ...cards import CODES, SUIT, SUIT_MASK
from ...clone import ROWS
from ...trickgame import TrickGame


class FaceDownSlots(TrickGame):
    """Cards dealt face down beside the hand, in numbered slots (German Whist 8.1): ``down[seat][slot]`` (None once
    played). A seat void in the led suit, or to lead with an empty hand, may also play one, ``SLOT_IDS[slot]``
    (``down:<slot>``); it sees its own once it won a trick, the other seats never until played. Observations and
    positions write them as ``_slot_codes`` gives them; samples deal the unseen ones again."""

    SLOT_IDS: ClassVar[tuple[int, ...]]  # the action of each slot, in order
    COPY = {"down": ROWS}
    down: list[list[int | None]]

    def down_seen(self, seat: int) -> bool:
        """Whether ``seat`` may look at its face-down cards: it has some and won a trick."""
        return bool(self.down[seat]) and self.tricks_won[self.side_of[seat]] > 0

    def _turn_extras(self, seat: int, ids: list[int]) -> list[int]:
        """8.1c: a seat void in the led suit, or to lead with an empty hand, may play a face-down card."""
        down = self.down[seat]
        if not down:
            return ids
        trick, hand = self.trick, self.hands[seat]
        if hand & SUIT_MASK[SUIT[trick[0][1]]] if trick else hand:
            return ids
        return ids + [self.SLOT_IDS[slot] for slot, card in enumerate(down) if card is not None]

    _legal_ids = TrickGame._turn_ids
    _apply = TrickGame._play_action

    def _card_action(self, seat: int, card: int) -> int | None:
        if card in self.down[seat]:
            return self.SLOT_IDS[self.down[seat].index(card)]
        return super()._card_action(seat, card)

    def _extra_played(self, seat: int, action: int) -> int | None:
        slot = self.SLOT_IDS.index(action)  # down:<slot>
        card = self.down[seat][slot]
        assert card is not None  # a legal slot action names a card still face down
        self.down[seat][slot] = None
        return card

    def _slot_codes(self, viewer: int | None) -> list[list[Any]]:
        """Each seat's slots as ``viewer`` sees them (None: all of them, as positions write them): a card's code,
        ``"?"`` for a card it may not see, None for a slot played."""
        return [[None if c is None else CODES[c] if viewer is None or (s == viewer and self.down_seen(s)) else "?"
                 for c in slots] for s, slots in enumerate(self.down)]

    def _hidden_piles(self, seat: int) -> list[list[int]]:
        piles = super()._hidden_piles(seat)
        for s, slots in enumerate(self.down):
            if s != seat or not self.down_seen(s):
                piles.append([c for c in slots if c is not None])
        return piles

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        self.down = [[None if c is None else new[c] for c in slots] for slots in self.down]
