"""Trappola's own rules (trappola.md): sets of one rank (three or four of a kind) declared on one's turn and the
bonus for winning the last trick with a given card."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...cards import RANKS, mask_of
from ...clone import SHARED
from ...declarations import RANK_MASK
from ...errors import PositionError
from ...phases import Loading
from ...rng import Rng
from ...state import position_seat
from ...trickgame import PlayPart, TrickGame
from ...tricks import CardActions

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


class Declarations(PlayPart["SetDeclaring"]):
    """The sets declared (6.3): in the play, on one's turn before the card (the same seat then declares more or
    plays); in a position, ``declarations``, each checked once the tricks are replayed (``_load_declarations``)."""

    KEYS = ("declarations",)

    def save(self, game: SetDeclaring) -> dict[str, Any]:
        return {"declarations": game._declarations_listed(None)}

    def observe(self, game: SetDeclaring, seat: int, obs: dict[str, Any]) -> None:
        obs["declarations"] = game._declarations_listed(seat)  # 6.4

    def check(self, game: SetDeclaring, loading: Loading) -> None:
        game._load_declarations(loading.position["declarations"])

    def moves(self, game: SetDeclaring, seat: int, ids: list[int]) -> list[int]:
        """``ids`` (the seat's card plays), then the sets it may declare now."""
        if game.may_declare[seat]:
            sets = rank_sets(game.hands[seat], game.SETS.values, game.declared[seat])
            if sets:
                return ids + sorted(game.SETS.id_of[s.rank, s.size] for s in sets)  # words follow the cards
            may = game.may_declare[:]
            may[seat] = False
            game.may_declare = may
        return ids

    def plays(self, game: type[SetDeclaring]) -> tuple[int, ...]:
        return tuple(game.SETS.of_id)

    def play(self, game: SetDeclaring, seat: int, action: int) -> int | None:
        rank, size = game.SETS.of_id[action]
        game._note_set(seat, rank, size, len(game.tricks), len(game.moves) - 1)
        return None

    def seen_as(self, game: SetDeclaring, viewer: int | None, actor: int, action: str) -> str:
        """A set of hidden rank shows the other seats its size only (``declare:three``) until the deal is scored."""
        key = game.SETS.of_word.get(action)
        if key is None or viewer == actor or game.phase == "over" or not game._secret_rank(key[0]):
            return action
        return action.rsplit(":", 1)[0]

    def secret_from(self, game: SetDeclaring) -> int:
        return game.dealing_start  # earlier deals were scored: their sets show their ranks

    # determinization: each declared set stays in its declarer's hand

    def hand_check(self, game: SetDeclaring, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """Each set ``seat`` declared was held then, at its size; sets of hidden rank have some distinct ranks."""
        if not game.declarations:
            return None
        held = game.hands[seat] & known
        shown: list[tuple[int, int, str]] = []  # (cards played since, size, rank) of each set
        hidden: list[tuple[int, int, str]] = []
        for s, rank, size, k, _move in game.declarations:
            if s == seat:
                (hidden if game._secret_rank(rank) else shown).append((game._played_since(seat, k), size, rank))
        hidden_ranks = game._hidden_ranks()

        def check(cards: list[int]) -> bool:
            hand = held | mask_of(cards)
            if any(((hand | played) & RANK_MASK[rank]).bit_count() != size for played, size, rank in shown):
                return False
            return not hidden or bool(hidden_set_ranks([hand | p for p, _s, _r in hidden], [s for _p, s, _r in hidden],
                                                       hidden_ranks))
        return check

    def relabel(self, game: SetDeclaring, new: Sequence[int]) -> None:
        game.may_declare = [game.declaring] * game.n_players  # the new hands are looked at afresh

    def sampled(self, game: SetDeclaring, seat: int, rng: Rng) -> None:
        """Once the unseen cards are dealt again, give each other seat's sets of hidden rank ranks its new hand held
        (one of the fits at random), in the declarations and in this deal's moves."""
        declarations, declared = game.declarations[:], game.declared[:]
        for other in range(game.n_players):
            mine = [i for i, d in enumerate(declarations) if d[0] == other != seat and game._secret_rank(d[1])]
            if not mine:
                continue
            hand = game.hands[other]
            held = [hand | game._played_since(other, declarations[i][3]) for i in mine]
            fits = hidden_set_ranks(held, [declarations[i][2] for i in mine], game._hidden_ranks())
            ranks = fits[rng.below(len(fits))]
            for i, rank in zip(mine, ranks, strict=True):
                s, _old, size, k, move = declarations[i]
                declarations[i] = (s, rank, size, k, move)
                if move >= 0:
                    game.moves[move] = (s, game.SETS.id_of[rank, size])
            declared[other] = "".join(d[1] for d in declarations if d[0] == other)
        game.declarations, game.declared = declarations, declared


DECLARATIONS = Declarations()


class SetDeclaring(TrickGame):
    """A trick game whose players declare sets of one rank (``SETS``) on their turn in the play, before their card,
    each rank once a deal (Trappola 6.3): the sets a seat may declare, the record of those declared, what the others
    see of a set announced by its size only (its rank once the deal is scored), samples that keep every declared set
    in its declarer's hand, and a position's declarations checked. A game sets ``declaring`` (whether sets are
    declared at all) and ``ranks_shown`` (every set shows its rank), calls ``_reset_declarations`` as it deals and
    ``_open_declarations`` as the play begins, and declares :data:`DECLARATIONS` among its phases, which lists and
    plays the sets in the play."""

    SETS: ClassVar[SetDeclarations]
    COPY = {"declared": SHARED, "declarations": SHARED, "may_declare": SHARED}  # each replaced whole when it changes
    declaring = True
    ranks_shown = False
    declared: list[str]  # per seat, the ranks it has declared this deal
    declarations: list[tuple[int, str, int, int, int]]  # (seat, rank, size, trick, move index or -1), in order
    # Per seat, whether its hand may still hold a set to declare: false once it holds none (hands only shrink).
    may_declare: list[bool]

    def _reset_declarations(self) -> None:
        self.declared = [""] * self.n_players
        self.declarations = []

    def _open_declarations(self) -> None:
        bits = self.SETS.rank_bits
        self.may_declare = [self.declaring and bool(ranks_held_thrice(hand) & bits) for hand in self.hands]

    def _note_set(self, seat: int, rank: str, size: int, trick: int, move: int) -> None:
        """``seat`` declared a set of ``size`` cards of ``rank`` in ``trick`` (``move``: its index in moves, -1 for a
        loaded position's)."""
        declared = self.declared[:]
        declared[seat] += rank
        self.declared = declared
        self.declarations = [*self.declarations, (seat, rank, size, trick, move)]

    def declared_points(self) -> list[int]:
        """Per seat, the points of the sets it declared this deal."""
        points = [0] * self.n_players
        for seat, rank, size, _k, _move in self.declarations:
            points[seat] += self.SETS.values[rank][size]
        return points

    # ---- what a seat sees ---------------------------------------------------------------------------------------

    def _secret_rank(self, rank: str) -> bool:
        """Whether a set of ``rank`` is announced by its size only, until the deal is scored."""
        return rank not in self.SETS.public_ranks and not self.ranks_shown

    def _hidden_ranks(self) -> str:
        return "".join(rank for rank in self.SETS.values if self._secret_rank(rank))

    def _declarations_listed(self, viewer: int | None) -> list[list[Any]]:
        """The declarations as ``[seat, action, trick]``, as ``viewer`` sees them (None: in full, for positions)."""
        words = self.SETS.words
        return [[s, words[rank, size] if viewer is None else self.action_seen_by(viewer, s, words[rank, size]), k]
                for s, rank, size, k, _move in self.declarations]

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
            seat = position_seat(item[0], key, self.n_players)
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
            self._note_set(seat, rank, size, k, -1)


@dataclass(frozen=True)
class WinningCardBonus:
    """Bonuses for the tricks a special card wins (Trappola 7.1.3 - 7.1.5): each such trick earns its winner a bonus
    (counted here), the last trick's winner earns ``last``; a deal that ends with a run of such tricks pays
    ``per_run_trick`` for each trick of the run to its last winner instead, and its tricks count for nothing else.

    >>> bonus = WinningCardBonus(last=6, per_run_trick=26)
    >>> bonus.score([(0, True), (1, False), (0, False)], 2), bonus.score([(1, False), (0, True), (1, True)], 2)
    (([1, 0], [6, 0], 0), ([0, 0], [0, 52], 2))
    """

    last: int
    per_run_trick: int

    def score(self, winners: Sequence[tuple[int, bool]], seats: int) -> tuple[list[int], list[int], int]:
        """For (winner, won by the special card) of each trick in order: per seat its special tricks outside the final
        run, per seat the last trick's or the run's points, and the run's length."""
        run = 0
        while run < len(winners) and winners[-1 - run][1]:
            run += 1
        special, bonus = [0] * seats, [0] * seats
        for seat, by_special in winners[:len(winners) - run]:
            special[seat] += by_special
        if winners:
            bonus[winners[-1][0]] = self.per_run_trick * run if run else self.last
        return special, bonus, run


