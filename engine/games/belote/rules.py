"""Belote's own rules (belote.md): the declarations on the first trick (6.2) and the points of a deal with
two sides or three players (7)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ...clone import LIST, SHARED
from ...declarations import Meld, carres, sequences
from ...errors import PositionError
from ...state import position_list
from ...trickgame import TrickGame

SEQUENCE_VALUES = {3: 20, 4: 50, 5: 100}


def melds(hand: int, order: str, carre_values: Mapping[str, int],
          sequence_values: Mapping[int, int] = SEQUENCE_VALUES) -> list[Meld]:
    """All carrés, then all sequences, of a hand."""
    return carres(hand, carre_values) + sequences(hand, order, sequence_values)


class MeldDeclaring(TrickGame):
    """A trick game whose players may declare the combinations of their hand (:func:`melds` in ``MELD_ORDER`` with
    ``CARRE_VALUES``) on their first turn of the first trick, before their card; after that trick the side holding
    the single best declared combination (``_meld_key``, equal keys to the first from the dealer's left) scores
    every combination its members declared, and they are shown (Belote 6.1 - 6.3). A game finds the hands'
    combinations once they are dealt (``_find_melds``), offers ``declare`` and ``nodeclare`` while
    ``_must_choose_declaration`` (recording the choice in ``declared``) and calls ``_resolve_declarations`` after the
    first trick."""

    MELD_ORDER: ClassVar[str]  # the natural order, high to low, of sequences
    CARRE_VALUES: ClassVar[Mapping[str, int]]
    COPY = {"declared": LIST, "declaration_points": LIST, "melds": SHARED}  # melds: only ever replaced whole
    declared: list[str | None]  # per seat: None (not chosen), "declare" or "nodeclare"
    melds: list[list[Meld]]  # per seat, the combinations of its hand (found once all cards are dealt)
    declaration_points: list[int]  # per side, scored after the first trick

    @abstractmethod
    def _meld_key(self, meld: Meld) -> tuple[int, ...]:
        """A combination's strength, for the single best one."""

    def _reset_melds(self) -> None:
        self.declared = [None] * self.n_players
        self.melds = [[] for _ in range(self.n_players)]
        self.declaration_points = [0] * len(self.card_points)

    def _hand_melds(self, hand: int) -> list[Meld]:
        return melds(hand, self.MELD_ORDER, self.CARRE_VALUES)

    def _find_melds(self) -> None:
        self.melds = [self._hand_melds(hand) for hand in self.hands]

    def _must_choose_declaration(self) -> bool:
        seat = self.current_player
        assert seat is not None  # asked only while someone is to act
        return not self.tricks and self.declared[seat] is None and bool(self.melds[seat])

    def _resolve_declarations(self) -> None:
        """After trick 1: the side with the single best declared combination scores all its members' declarations."""
        best = None
        for position, seat in enumerate(self.seats_from_dealer()):
            if self.declared[seat] != "declare":
                continue
            for meld in self.melds[seat]:
                key = (self._meld_key(meld), -position)  # equal keys go to the first in order
                if best is None or key > best[0]:
                    best = (key, seat)
        if best is None:
            return
        side = self.side_of[best[1]]
        for seat in range(self.n_players):
            if self.side_of[seat] == side and self.declared[seat] == "declare":
                self.declaration_points[side] += sum(m.value for m in self.melds[seat])

    def _declarations_shown(self) -> dict[str, Any]:
        """Once trick 1 is over, the declared combinations (per seat) and the points they scored (per side)."""
        if not self.tricks:
            return {}
        return {"declarations": [[m.code() for m in self.melds[s]] if self.declared[s] == "declare" else []
                                 for s in range(self.n_players)],
                "declaration_points": list(self.declaration_points)}

    def _shown_meld_cards(self) -> list[int]:
        """The cards of the declared combinations, shown by the end of trick 1."""
        if not self.tricks:
            return []
        return [c for s in range(self.n_players) if self.declared[s] == "declare" for m in self.melds[s]
                for c in m.cards(self.MELD_ORDER)]

    def _melds_kept(self, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """A ``_hand_check``: a sample's dealt hand keeps what the others know of ``seat``'s combinations: the
        combinations themselves once declared and shown (after trick 1), that it held some once it chose, none once
        it played in trick 1 without choosing; nothing before its first turn."""
        if self.declared[seat] == "declare" and self.tricks:
            return self._dealt_hand_keeps(seat, known, self._hand_melds)
        if self.declared[seat] is None and not self.tricks and all(s != seat for s, _c in self.trick):
            return None
        return self._dealt_hand_keeps(seat, known, lambda hand: bool(self._hand_melds(hand)))

    def _find_dealt_melds(self) -> None:
        """The combinations of the dealt hands, once they are all dealt (in play): a sample's own."""
        if self.phase == "play":
            self.melds = [self._hand_melds(self.hands[s] | self._played_since(s)) for s in range(self.n_players)]

    def _load_declared(self, value: Any) -> None:
        """A position's ``declared`` (checked by ``_check_declared`` once the deal is replayed)."""
        declared = position_list(value, "declared", self.n_players)
        if any(d not in (None, "declare", "nodeclare") for d in declared):
            raise PositionError(f"declared lists per seat null, 'declare' or 'nodeclare', got {declared!r}")
        self.declared = list(declared)

    def _check_declared(self) -> None:
        """A seat with a combination chooses on its first turn in trick 1, before its card; others never do; the
        declarations are then scored as in play."""
        self.declaration_points = [0] * len(self.card_points)
        played = {seat for trick in [*self.tricks, self.trick] for seat, _c in trick}
        for seat in range(self.n_players):
            choice = self.declared[seat]
            if not self.melds[seat]:
                allowed: tuple[str | None, ...] = (None,)
            elif seat in played:
                allowed = ("declare", "nodeclare")
            elif seat == self.current_player and self.phase == "play":
                allowed = (None, "declare", "nodeclare")
            else:
                allowed = (None,)
            if choice not in allowed:
                raise PositionError(f"declared[{seat}] must be one of {list(allowed)} here, got {choice!r}")
        if self.tricks:
            self._resolve_declarations()


def two_side_points(attack: int, base: list[int], declarations: list[int], belote: list[int],
                    litige: bool = True) -> tuple[list[int], str, int]:
    """A taker's contract between two sides (Belote 7.3 with 2 or 4 players): each side's points, the outcome and
    the points held back. The attack must score more than the defence (``made``: both score their totals); else it
    is ``dedans`` (the defence scores every point of the deal, the attack keeps only its belote), or with
    ``litige`` at equal totals the defence scores its own and the attack's, less its belote, are held back.

    ``base`` is card points + last trick (+ a capot's bonus) per side; ``declarations`` the scoring declarations.

    >>> two_side_points(0, [100, 62], [20, 0], [20, 0])  # Belote 10.8
    ([140, 62], 'made', 0)
    >>> two_side_points(0, [81, 81], [0, 0], [0, 0]), two_side_points(0, [60, 102], [0, 20], [0, 0])
    (([0, 81], 'litige', 81), ([0, 182], 'dedans', 0))
    """
    defence = 1 - attack
    totals = [base[s] + declarations[s] + belote[s] for s in (0, 1)]
    points = [0, 0]
    if totals[attack] > totals[defence]:
        return totals, "made", 0
    points[attack] = belote[attack]
    if totals[attack] == totals[defence] and litige:
        points[defence] = totals[defence]
        return points, "litige", totals[attack] - belote[attack]
    points[defence] = sum(base) + sum(declarations) + belote[defence]  # dedans
    return points, "dedans", 0


def three_player_points(taker: int, totals: list[int], belote: list[int], order: list[int]) -> tuple[list[int], str]:
    """A taker against two opponents (Belote 7.5): he must score more than each of them; else (``dedans``) they
    share his points, less his belote (the odd point to the first of them in ``order``, clockwise from the dealer's
    left)."""
    if all(totals[taker] > totals[s] for s in range(3) if s != taker):
        return list(totals), "made"
    points = [0, 0, 0]
    points[taker] = belote[taker]
    share = totals[taker] - belote[taker]
    for k, seat in enumerate(s for s in order if s != taker):
        points[seat] = totals[seat] + share // 2 + (share % 2 if k == 0 else 0)
    return points, "dedans"


