"""German Whist's face-down slots (german_whist.md 8.1): cards dealt face down beside the hand, played from their
slots: :class:`FaceDownSlots`."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from ...cards import CODES, SUIT, SUIT_MASK, parse_card
from ...clone import SHARED
from ...phases import Loading
from ...state import position_list
from ...trickgame import PlayPart, TrickGame


class SlotCards(PlayPart["FaceDownSlots"]):
    """The face-down slots (8.1): in the play, a seat void in the led suit, or to lead with an empty hand, may also
    play one (8.1c); in a position, ``face_down`` (each seat's slots, None once played) and ``face_down_seen``, the
    slots' cards handed to the trick play as piles of their own."""

    KEYS = ("face_down", "face_down_seen")

    def save(self, game: FaceDownSlots) -> dict[str, Any]:
        return {"face_down": game._slot_codes(None), "face_down_seen": [game.down_seen(s) for s in (0, 1)]}

    def observe(self, game: FaceDownSlots, seat: int, obs: dict[str, Any]) -> None:
        if game.options["face_down_four"]:
            obs["face_down"] = game._slot_codes(seat)

    def load(self, game: FaceDownSlots, loading: Loading) -> None:
        slots = len(game.SLOT_IDS) if game.options["face_down_four"] else 0  # 8.1a
        down = [position_list(cards, f"face_down[{seat}]", slots)
                for seat, cards in enumerate(position_list(loading.position["face_down"], "face_down", 2))]
        loading.piles.update({f"face_down[{seat}]": [parse_card(c) for c in cards if c is not None]
                              for seat, cards in enumerate(down)})

    def hidden(self, game: FaceDownSlots, seat: int) -> list[list[int]]:
        return [[c for c in slots if c is not None] for s, slots in enumerate(game.down)
                if s != seat or not game.down_seen(s)]

    def relabel(self, game: FaceDownSlots, new: Sequence[int]) -> None:
        game.down = [[None if c is None else new[c] for c in slots] for slots in game.down]

    def moves(self, game: FaceDownSlots, seat: int, ids: list[int]) -> list[int]:
        """8.1c: a seat void in the led suit, or to lead with an empty hand, may play a face-down card."""
        down = game.down[seat]
        if not down:
            return ids
        trick, hand = game.trick, game.hands[seat]
        if hand & SUIT_MASK[SUIT[trick[0][1]]] if trick else hand:
            return ids
        return ids + [game.SLOT_IDS[slot] for slot, card in enumerate(down) if card is not None]

    def plays(self, game: type[FaceDownSlots]) -> tuple[int, ...]:
        return tuple(getattr(game, "SLOT_IDS", ()))  # (a game class declares SLOT_IDS)

    def play(self, game: FaceDownSlots, seat: int, action: int) -> int | None:
        slot = game.SLOT_IDS.index(action)  # down:<slot>
        down = game.down[:]
        slots = down[seat] = down[seat][:]
        card = slots[slot]
        assert card is not None  # a legal slot action names a card still face down
        slots[slot] = None
        game.down = down
        return card

    def card_action(self, game: FaceDownSlots, seat: int, card: int) -> int | None:
        down = game.down[seat]
        return game.SLOT_IDS[down.index(card)] if card in down else None

    def played_blind(self, game: FaceDownSlots, seat: int, card: int) -> bool:
        """Whether ``card`` was one of ``seat``'s face-down cards (8.1a: the non-dealer's four dealt first)."""
        if not game.options["face_down_four"]:
            return False
        start = game.slots_dealt_at(seat)
        return card in game.deal_deck[start:start + len(game.SLOT_IDS)]


SLOT_CARDS = SlotCards()


class FaceDownSlots(TrickGame):
    """Cards dealt face down beside the hand, in numbered slots (German Whist 8.1): ``down[seat][slot]`` (None once
    played). A seat void in the led suit, or to lead with an empty hand, may also play one, ``SLOT_IDS[slot]``
    (``down:<slot>``); it sees its own once it won a trick, the other seats never until played. Observations and
    positions write them as ``_slot_codes`` gives them; samples deal the unseen ones again."""

    SLOT_IDS: ClassVar[tuple[int, ...]]  # the action of each slot, in order
    COPY = {"down": SHARED}  # (replaced whole when a slot is played)
    down: list[list[int | None]]

    def down_seen(self, seat: int) -> bool:
        """Whether ``seat`` may look at its face-down cards: it has some and won a trick."""
        return bool(self.down[seat]) and self.tricks_won[self.side_of[seat]] > 0

    @abstractmethod
    def slots_dealt_at(self, seat: int) -> int:
        """Where ``seat``'s face-down cards begin in ``deal_deck``."""

    def _slot_codes(self, viewer: int | None) -> list[list[Any]]:
        """Each seat's slots as ``viewer`` sees them (None: all of them, as positions write them): a card's code,
        ``"?"`` for a card it may not see, None for a slot played."""
        return [[None if c is None else CODES[c] if viewer is None or (s == viewer and self.down_seen(s)) else "?"
                 for c in slots] for s, slots in enumerate(self.down)]
