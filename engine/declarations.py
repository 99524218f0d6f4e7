"""Declarations (melds), written once for every trick game: sequences, four of a kind, belote / rebelote, and sets
of one rank (three or four of a kind, Trappola).

A game gives its natural order and values as data; these functions find the combinations in a hand mask and give
sortable strength keys, so "the single best declaration" is a ``max``. A trick game that declares during its play is
a :class:`MeldDeclaring` (Belote's combinations on the first trick) or a :class:`SetDeclaring` (Trappola's sets on
one's turn): the record, what the other seats see, samples and positions come with it.

>>> from engine.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards(["QS", "JS", "TS", "9S", "QC", "QD", "QH", "7C"]))
>>> [(m.kind, m.length, m.top) for m in melds(hand, "AKQJT987", {"Q": 100})]
[('carre', 4, 'Q'), ('sequence', 4, 'Q')]
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from .cards import BIT, CODES, RANKS, SUITS, card_of, mask_of
from .clone import LIST, SHARED
from .errors import PositionError
from .rng import Rng
from .state import position_list, position_seat
from .trickgame import TrickGame
from .tricks import CardActions


@dataclass(frozen=True)
class Meld:
    """A carré (four of a rank) or a sequence (run in one suit of the natural order)."""

    kind: str  # "carre" or "sequence"
    top: str  # the rank letter of the carré, or of the sequence's highest card
    length: int  # 4 for a carré, the run length for a sequence
    suit: str | None  # the sequence's suit; None for a carré
    value: int

    def code(self) -> str:
        """A short public description, e.g. ``carre:Q`` or ``sequence:4:QS``."""
        if self.kind == "carre":
            return f"carre:{self.top}"
        return f"sequence:{self.length}:{self.top}{self.suit}"

    def cards(self, order: str) -> list[int]:
        """The cards the combination shows; a sequence runs down ``order`` (high to low) from its top card.

        >>> from engine.cards import CODES
        >>> [CODES[c] for c in Meld("sequence", "Q", 3, "S", 20).cards("AKQJT987")]
        ['QS', 'JS', 'TS']
        """
        if self.kind == "carre":
            return [card_of(self.top, suit) for suit in range(4)]
        assert self.suit is not None  # a sequence is in one suit
        top = order.index(self.top)
        return [card_of(rank, SUITS.index(self.suit)) for rank in order[top:top + self.length]]


def sequences(hand: int, order: str, values: Mapping[int, int], min_length: int = 3) -> list[Meld]:
    """The maximal runs of at least ``min_length`` cards of one suit in ``order`` (high to low natural order).

    ``values`` maps a run length to its value; a longer run than the table knows takes the longest entry's value.
    """
    found = []
    longest = max(values)
    for suit in range(4):
        for top, length in _runs(order, min_length, hand >> (13 * suit) & 0x1FFF):
            found.append(Meld("sequence", top, length, SUITS[suit], values[min(length, longest)]))
    return found


@cache
def _runs(order: str, min_length: int, ranks: int) -> tuple[tuple[str, int], ...]:
    """(top rank, length) of each maximal run of at least ``min_length`` ranks of ``order`` (high to low) in
    ``ranks``, a suit's rank mask (bit ``r`` for ``RANKS[r]``), from the top of ``order`` down."""
    found = []
    top, length = "", 0
    for rank in (*order, ""):
        if rank and ranks >> RANKS.index(rank) & 1:
            top, length = top or rank, length + 1
            continue
        if length >= min_length:
            found.append((top, length))
        top, length = "", 0
    return tuple(found)


def carres(hand: int, values: Mapping[str, int]) -> list[Meld]:
    """The ranks of ``values`` of which the hand holds all four cards."""
    return [Meld("carre", rank, 4, None, value) for rank, value in values.items()
            if hand & RANK_MASK[rank] == RANK_MASK[rank]]


# The four cards of a rank letter, as a mask.
RANK_MASK = {rank: sum(BIT[card_of(rank, suit)] for suit in range(4)) for rank in RANKS}


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
        self.declared = [None] * self.n
        self.melds = [[] for _ in range(self.n)]
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
        for seat in range(self.n):
            if self.side_of[seat] == side and self.declared[seat] == "declare":
                self.declaration_points[side] += sum(m.value for m in self.melds[seat])

    def _declarations_shown(self) -> dict[str, Any]:
        """Once trick 1 is over, the declared combinations (per seat) and the points they scored (per side)."""
        if not self.tricks:
            return {}
        return {"declarations": [[m.code() for m in self.melds[s]] if self.declared[s] == "declare" else []
                                 for s in range(self.n)],
                "declaration_points": list(self.declaration_points)}

    def _shown_meld_cards(self) -> list[int]:
        """The cards of the declared combinations, shown by the end of trick 1."""
        if not self.tricks:
            return []
        return [c for s in range(self.n) if self.declared[s] == "declare" for m in self.melds[s]
                for c in m.cards(self.MELD_ORDER)]

    def _known_cards(self, seat: int) -> int:
        return super()._known_cards(seat) | mask_of(self._shown_meld_cards())

    def _melds_kept(self, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """A ``_hand_check``: a sample's dealt hand keeps what the others know of ``seat``'s combinations: the
        combinations themselves once declared and shown (after trick 1), that it held some once it chose, none once
        it played in trick 1 without choosing; nothing before its first turn."""
        if self.declared[seat] == "declare" and self.tricks:
            return self._dealt_hand_keeps(seat, known, self._hand_melds)
        if self.declared[seat] is None and not self.tricks and all(s != seat for s, _c in self.trick):
            return None
        return self._dealt_hand_keeps(seat, known, lambda hand: bool(self._hand_melds(hand)))

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        self._find_dealt_melds()

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        super()._determinize(seat, rng, memo)
        self._find_dealt_melds()  # (a deal cut from the gathered tricks sets the hands after renaming the cards)

    def _find_dealt_melds(self) -> None:
        """The combinations of the dealt hands, once they are all dealt (in play): a sample's own."""
        if self.phase == "play":
            self.melds = [self._hand_melds(self.hands[s] | self._played_since(s)) for s in range(self.n)]

    def _load_declared(self, value: Any) -> None:
        """A position's ``declared`` (checked by ``_check_declared`` once the deal is replayed)."""
        declared = position_list(value, "declared", self.n)
        if any(d not in (None, "declare", "nodeclare") for d in declared):
            raise PositionError(f"declared lists per seat null, 'declare' or 'nodeclare', got {declared!r}")
        self.declared = list(declared)

    def _check_declared(self) -> None:
        """A seat with a combination chooses on its first turn in trick 1, before its card; others never do; the
        declarations are then scored as in play."""
        self.declaration_points = [0] * len(self.card_points)
        played = {seat for trick in [*self.tricks, self.trick] for seat, _c in trick}
        for seat in range(self.n):
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


# ---- sets of one rank: three or four cards of a rank held together (Trappola) ----------------------------------

SET_WORDS = {3: "three", 4: "four"}  # a set's size as the rules files write it


@dataclass(frozen=True)
class RankSet:
    """Three or four cards of one rank, held together (not necessarily in one suit)."""

    rank: str  # the rank letter
    size: int  # how many cards of the rank the hand holds
    value: int

    def code(self) -> str:
        """``three:A``, ``four:2``: the set's size in words and its rank."""
        return f"{SET_WORDS[self.size]}:{self.rank}"


def rank_sets(hand: int, values: Mapping[str, Mapping[int, int]], excluding: str = "") -> list[RankSet]:
    """The sets the hand holds: each rank of ``values`` (not in ``excluding``) at the number of its cards held, when
    ``values[rank]`` scores that many (a hand holding all four of a rank holds its four, not a three).

    >>> from engine.cards import mask_of, parse_cards
    >>> hand = mask_of(parse_cards(["AC", "AD", "AH", "2C", "2D", "2H", "2S", "KC", "KD"]))
    >>> [s.code() for s in rank_sets(hand, {"A": {3: 12, 4: 24}, "K": {3: 6, 4: 12}, "2": {3: 10, 4: 20}})]
    ['three:A', 'four:2']
    """
    found = []
    for rank, scores in values.items():
        size = (hand & RANK_MASK[rank]).bit_count()
        if size in scores and rank not in excluding:
            found.append(RankSet(rank, size, scores[size]))
    return found


def ranks_held_thrice(hand: int) -> int:
    """The ranks (bit ``r`` for ``RANKS[r]``) of which the hand holds three or four cards: a cheap test before
    :func:`rank_sets`.

    >>> from engine.cards import mask_of, parse_cards
    >>> ranks_held_thrice(mask_of(parse_cards(["AC", "AD", "AH", "2C", "2D"]))) == 1 << RANKS.index("A")
    True
    """
    c, d, h, s = hand & 0x1FFF, hand >> 13 & 0x1FFF, hand >> 26 & 0x1FFF, hand >> 39
    return (c & d & (h | s)) | (h & s & (c | d))


def hidden_set_ranks(held: Sequence[int], sizes: Sequence[int], ranks: str) -> list[tuple[str, ...]]:
    """The ranks that sets announced by size only (rank hidden) could have: one distinct rank of ``ranks`` per set,
    set k's rank held ``sizes[k]`` times in ``held[k]`` (the hand, as a mask, when it was announced).

    >>> from engine.cards import mask_of, parse_cards
    >>> held = mask_of(parse_cards(["KC", "KD", "KH", "QC", "QD", "QH", "7S"]))
    >>> hidden_set_ranks([held, held], [3, 3], "KQJ2")
    [('K', 'Q'), ('Q', 'K')]
    """
    fits = [[rank for rank in ranks if (hand & RANK_MASK[rank]).bit_count() == size]
            for hand, size in zip(held, sizes, strict=True)]
    found: list[tuple[str, ...]] = [()]
    for options in fits:
        found = [(*chosen, rank) for chosen in found for rank in options if rank not in chosen]
    return found


class SetDeclarations:
    """The sets of one rank a game's players declare (``values``: rank -> size -> points), each with its action
    (``declare:three:K``); the ranks of ``public_ranks`` are announced with their rank, the others by size only
    (Trappola 6.4), unless a game shows every rank.

    >>> sets = SetDeclarations({"A": {3: 12, 4: 24}, "K": {3: 6, 4: 12}}, public_ranks="A")
    >>> actions = sets.actions(["keep"])
    >>> sets.of_id[actions.word_id("declare:four:K")], sets.words["A", 3]
    (('K', 4), 'declare:three:A')
    """

    def __init__(self, values: Mapping[str, Mapping[int, int]], public_ranks: str = "") -> None:
        self.values = values
        self.public_ranks = public_ranks
        self.rank_bits = sum(1 << RANKS.index(rank) for rank in values)  # for ranks_held_thrice
        self.words = {(rank, size): f"declare:{SET_WORDS[size]}:{rank}" for rank in values for size in (3, 4)}
        self.of_word = {word: key for key, word in self.words.items()}  # action string -> (rank, size)

    def actions(self, words: Iterable[str] = ()) -> CardActions:
        """A game's actions: the cards, ``words`` and the declarations (``id_of``, ``of_id`` then map them)."""
        actions = CardActions(words=[*words, *self.words.values()])
        self.id_of = {key: actions.word_id(word) for key, word in self.words.items()}
        self.of_id = {action: key for key, action in self.id_of.items()}  # action id -> (rank, size)
        return actions


class SetDeclaring(TrickGame):
    """A trick game whose players declare sets of one rank (``SETS``) on their turn in the play, before their card,
    each rank once a deal (Trappola 6.3): the sets a seat may declare, the record of those declared, what the others
    see of a set announced by its size only (its rank once the deal is scored), samples that keep every declared set
    in its declarer's hand, and a position's declarations checked. A game sets ``declaring`` (whether sets are
    declared at all) and ``ranks_shown`` (every set shows its rank), calls ``_reset_declarations`` as it deals and
    ``_open_declarations`` as the play begins, and ``_with_sets`` and ``_declare`` where it lists and applies
    actions."""

    SETS: ClassVar[SetDeclarations]
    COPY = {"declared": LIST, "declarations": LIST, "may_declare": LIST}
    declaring = True
    ranks_shown = False
    declared: list[str]  # per seat, the ranks it has declared this deal
    declarations: list[tuple[int, str, int, int, int]]  # (seat, rank, size, trick, move index or -1), in order
    # Per seat, whether its hand may still hold a set to declare: false once it holds none (hands only shrink).
    may_declare: list[bool]

    def _reset_declarations(self) -> None:
        self.declared = [""] * self.n
        self.declarations = []

    def _open_declarations(self) -> None:
        bits = self.SETS.rank_bits
        self.may_declare = [self.declaring and bool(ranks_held_thrice(hand) & bits) for hand in self.hands]

    def _with_sets(self, seat: int, ids: list[int]) -> list[int]:
        """``ids`` (the seat's card plays), then the sets it may declare now."""
        if self.may_declare[seat]:
            sets = rank_sets(self.hands[seat], self.SETS.values, self.declared[seat])
            if sets:
                return ids + sorted(self.SETS.id_of[s.rank, s.size] for s in sets)  # words follow the cards
            self.may_declare[seat] = False
        return ids

    def _declare(self, seat: int, action: int) -> None:
        """``seat`` declares a set; the same seat then declares more or plays."""
        rank, size = self.SETS.of_id[action]
        self.declared[seat] += rank
        self.declarations.append((seat, rank, size, len(self.tricks), len(self.moves) - 1))

    def declared_points(self) -> list[int]:
        """Per seat, the points of the sets it declared this deal."""
        points = [0] * self.n
        for seat, rank, size, _k, _move in self.declarations:
            points[seat] += self.SETS.values[rank][size]
        return points

    # ---- what a seat sees ---------------------------------------------------------------------------------------

    def _secret_rank(self, rank: str) -> bool:
        """Whether a set of ``rank`` is announced by its size only, until the deal is scored."""
        return rank not in self.SETS.public_ranks and not self.ranks_shown

    def _hidden_ranks(self) -> str:
        return "".join(rank for rank in self.SETS.values if self._secret_rank(rank))

    def action_seen_by(self, viewer: int | None, actor: int, action: str) -> str:
        """A set of hidden rank shows the other seats its size only (``declare:three``) until the deal is scored."""
        key = self.SETS.of_word.get(action)
        if key is None or viewer == actor or self.phase == "over" or not self._secret_rank(key[0]):
            return action
        return action.rsplit(":", 1)[0]

    def _secret_moves_start(self) -> int:
        return self.dealing_start  # earlier deals were scored: their sets show their ranks

    def _declarations_listed(self, viewer: int | None) -> list[list[Any]]:
        """The declarations as ``[seat, action, trick]``, as ``viewer`` sees them (None: in full, for positions)."""
        words = self.SETS.words
        return [[s, words[rank, size] if viewer is None else self.action_seen_by(viewer, s, words[rank, size]), k]
                for s, rank, size, k, _move in self.declarations]

    # ---- determinization: each declared set stays in its declarer's hand ---------------------------------------

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        self.may_declare = [self.declaring] * self.n  # the new hands are looked at afresh

    def _hand_check(self, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """Each set ``seat`` declared was held then, at its size; sets of hidden rank have some distinct ranks."""
        if not self.declarations:
            return None
        held = self.hands[seat] & known
        shown: list[tuple[int, int, str]] = []  # (cards played since, size, rank) of each set
        hidden: list[tuple[int, int, str]] = []
        for s, rank, size, k, _move in self.declarations:
            if s == seat:
                (hidden if self._secret_rank(rank) else shown).append((self._played_since(seat, k), size, rank))
        hidden_ranks = self._hidden_ranks()

        def check(cards: list[int]) -> bool:
            hand = held | mask_of(cards)
            if any(((hand | played) & RANK_MASK[rank]).bit_count() != size for played, size, rank in shown):
                return False
            return not hidden or bool(hidden_set_ranks([hand | p for p, _s, _r in hidden], [s for _p, s, _r in hidden],
                                                       hidden_ranks))
        return check

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        """Deal the unseen cards again, then give each other seat's sets of hidden rank ranks its new hand held (one
        of the fits at random), in the declarations and in this deal's moves."""
        super()._determinize(seat, rng, memo)
        for other in range(self.n):
            mine = [i for i, d in enumerate(self.declarations) if d[0] == other != seat and self._secret_rank(d[1])]
            if not mine:
                continue
            hand = self.hands[other]
            held = [hand | self._played_since(other, self.declarations[i][3]) for i in mine]
            fits = hidden_set_ranks(held, [self.declarations[i][2] for i in mine], self._hidden_ranks())
            ranks = fits[rng.below(len(fits))]
            for i, rank in zip(mine, ranks, strict=True):
                s, _old, size, k, move = self.declarations[i]
                self.declarations[i] = (s, rank, size, k, move)
                if move >= 0:
                    self.moves[move] = (s, self.SETS.id_of[rank, size])
            self.declared[other] = "".join(d[1] for d in self.declarations if d[0] == other)

    # ---- positions ----------------------------------------------------------------------------------------------

    def _load_declarations(self, value: Any) -> None:
        """6.3: each ``[seat, action, trick]`` made on the seat's turn in that trick, before its card, holding
        exactly that set then, each rank once per seat, in the order they were made."""
        if not isinstance(value, list) or (value and not self.declaring):
            raise PositionError("declarations must list [seat, action, trick] (none when the option is off)")
        last = (0, 0)
        for number, item in enumerate(value):
            key = f"declarations[{number}]"
            if not isinstance(item, list) or len(item) != 3 or item[1] not in self.ACTIONS.ids_of_string:
                raise PositionError(f"{key} must be [seat, 'declare:<three|four>:<rank>', trick], got {item!r}")
            seat = position_seat(item[0], key, self.n)
            rank, size = self.SETS.of_id.get(self.ACTIONS.ids_of_string[item[1]], ("", 0))
            k = item[2]
            if not size or type(k) is not int or not 0 <= k <= len(self.tricks):
                raise PositionError(f"{key} must be [seat, 'declare:<three|four>:<rank>', trick], got {item!r}")
            # a turn in the trick in play only in the play: none while a seat may still exchange (Trappola 3.5)
            order = self._turn_in_trick(seat, k) if self.phase == "play" or k < len(self.tricks) else None
            if order is None or (k, order) < last:
                raise PositionError(f"{key}: seat {seat} is not to play in trick {k} there (6.3: on its own turn, in "
                                    "the order made)")
            last = (k, order)
            if ((self.hands[seat] | self._played_since(seat, k)) & RANK_MASK[rank]).bit_count() != size:
                raise PositionError(f"{key}: seat {seat} did not hold {item[1]} in trick {k}")
            if rank in self.declared[seat]:
                raise PositionError(f"{key}: seat {seat} declares rank {rank} twice")
            self.declared[seat] += rank
            self.declarations.append((seat, rank, size, k, -1))


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
