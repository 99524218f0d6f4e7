"""Auctions, written once for every trick game: a contract auction with raises and doubles, turn-up taking rounds, a
trump named by one player or his partner, and doubling in rounds between the sides.

A game states its bidding as data (:class:`BidLadder`: values, suits, special bids above them, doubles, how many passes
end it) and keeps one :class:`ContractAuction` per deal; a turn-up game (classic Belote) keeps a :class:`TakeRounds`.
Both speak action strings (``pass``, ``bid:90:H``, ``bid:capot:S``, ``contre``, ``take``, ``take:S``); a game maps them
to its action ids once.

>>> ladder = BidLadder(values=tuple(range(80, 170, 10)))
>>> auction = ContractAuction(ladder, players=4, first=0)
>>> for word in ["bid:80:H", "contre", "bid:90:H", "pass", "pass", "pass"]:
...     auction.apply(word)
>>> auction.over, auction.contract()
(True, Contract(value=90, suit='H', declarer=2, multiplier=1))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from .clone import LIST, SHARED, Copier, Copyable, field_copy
from .errors import PositionError

if TYPE_CHECKING:
    from . import _cython_shim as cython
    from .tricks import CardActions
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

PASS = "pass"


@cython.cfunc
@cython.inline
@cython.returns(cython.bint)
@cython.locals(a=cython.Py_ssize_t, b=cython.Py_ssize_t, partnerships=cython.bint)
def _same_side(a: int, b: int, partnerships: bool) -> bool:
    """Whether seats ``a`` and ``b`` bid for one side: the same seat, or partners (seats of equal parity)."""
    return a == b or (partnerships and (a - b) % 2 == 0)


@dataclass(frozen=True)
class BidLadder:
    """A contract auction's bids as data.

    ``values`` are the numeric bids (ascending); ``specials`` are named bids above every numeric one (``capot``),
    ascending; every bid names one of ``suits``. ``doubles`` are the successive doubling words (``contre`` by an
    opponent of the bidder, then ``surcontre`` by the bidder's side); each multiplies by 2. ``passes_to_end``
    consecutive passes after a bid or double end the auction; if the first ``players`` actions are all passes the
    deal is thrown in.
    """

    values: tuple[int, ...]
    suits: str = "CDHS"
    specials: tuple[str, ...] = ("capot",)
    doubles: tuple[str, ...] = ("contre", "surcontre")
    passes_to_end: int = 3
    levels: tuple[int | str, ...] = field(init=False)
    _bids: dict[str, tuple[int, str]] = field(init=False, repr=False, compare=False)  # bid word -> (level, suit)
    _bid_words: tuple[str, ...] = field(init=False, repr=False, compare=False)  # every bid word, level by level

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", (*self.values, *self.specials))
        object.__setattr__(self, "_bid_words", tuple(self.bid_word(level, s) for level in range(len(self.levels))
                                                     for s in self.suits))
        object.__setattr__(self, "_bids", {self.bid_word(level, s): (level, s) for level in range(len(self.levels))
                                           for s in self.suits})

    def bid_word(self, level: int, suit: str) -> str:
        return f"bid:{self.levels[level]}:{suit}"

    def words(self) -> list[str]:
        """Every action string this auction can produce."""
        return [PASS, *self._bid_words, *self.doubles]

    def parse_bid(self, word: str) -> tuple[int, str]:
        """``"bid:90:H"`` -> (level index, suit)."""
        return self._bids[word]


class Contract(NamedTuple):
    """The outcome of a contract auction: the bid (a number or a special word), trump suit, declarer, multiplier (a
    named tuple: made once per deal without a frozen dataclass's attribute-by-attribute set-up)."""

    value: int | str
    suit: str
    declarer: int
    multiplier: int

    def word(self) -> str:
        """The contract as deal results write it: ``"100:S"``, ``"capot:H"``."""
        return f"{self.value}:{self.suit}"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "suit": self.suit, "declarer": self.declarer, "multiplier": self.multiplier}


@cython.cclass
class AuctionCore:
    """A :class:`ContractAuction`'s state, as fixed fields of a C struct in the compiled build (as
    :class:`engine.trickgame.TrickCore` is a trick game's): compiled, its bids are listed and applied without a
    dictionary look-up and ``copy`` copies the fields one by one (``_copy_fields``); from source this is a plain class
    and they are ordinary instance attributes (an attribute not set yet reads None when compiled)."""

    ladder = cython.declare(object, visibility="public")
    ids = cython.declare(object, visibility="public")
    n = cython.declare(object, visibility="public")
    partnerships = cython.declare(object, visibility="public")
    turn = cython.declare(object, visibility="public")
    level = cython.declare(object, visibility="public")
    suit = cython.declare(object, visibility="public")
    bidder = cython.declare(object, visibility="public")
    doubled = cython.declare(object, visibility="public")
    passes = cython.declare(object, visibility="public")
    actions = cython.declare(object, visibility="public")
    over = cython.declare(object, visibility="public")
    thrown_in = cython.declare(object, visibility="public")

    # The fields, in _copy_fields' order, for engine.clone (compiled; from source they are in the instance's
    # __dict__ and copied with it).
    FIELDS: ClassVar[tuple[str, ...]] = (
        "ladder", "ids", "n", "partnerships", "turn", "level", "suit", "bidder", "doubled", "passes", "actions", "over",
        "thrown_in",
    ) if cython.compiled else ()

    @cython.locals(c=tuple)
    def _copy_fields(self, new: AuctionCore, copiers: tuple[Copier | None, ...]) -> None:
        """Give ``new`` these fields, each copied as ``copiers`` (aligned with FIELDS: a class's COPY) says."""
        twin = cython.declare(AuctionCore, new)
        c = copiers
        twin.ladder = field_copy(self.ladder, c[0])
        twin.ids = field_copy(self.ids, c[1])
        twin.n = field_copy(self.n, c[2])
        twin.partnerships = field_copy(self.partnerships, c[3])
        twin.turn = field_copy(self.turn, c[4])
        twin.level = field_copy(self.level, c[5])
        twin.suit = field_copy(self.suit, c[6])
        twin.bidder = field_copy(self.bidder, c[7])
        twin.doubled = field_copy(self.doubled, c[8])
        twin.passes = field_copy(self.passes, c[9])
        twin.actions = field_copy(self.actions, c[10])
        twin.over = field_copy(self.over, c[11])
        twin.thrown_in = field_copy(self.thrown_in, c[12])


@cython.cfunc
@cython.locals(auction=AuctionCore, own=cython.bint)
def _key(auction: AuctionCore) -> tuple[int | None, int, bool]:
    """``ContractAuction.key()``: the highest bid's level, the doubles on it, whether the seat to speak is on the
    bidder's side (compiled, the fields read from the C struct: an annotation alone types nothing here)."""
    bidder = auction.bidder
    own = bidder is not None and _same_side(bidder, auction.turn, auction.partnerships)
    return auction.level, auction.doubled, own


class ContractAuction(Copyable, AuctionCore):
    """A bidding sequence in seat order: passes, ever higher bids, doubles; three passes (by default) end it.

    Partnerships are seats of equal parity when ``partnerships`` (4 players: {0,2} and {1,3}).
    """

    COPY = {"actions": LIST, "ladder": SHARED, "ids": SHARED}

    def __init__(self, ladder: BidLadder, players: int, first: int, partnerships: bool = True,
                 ids: LegalWordIds | None = None) -> None:
        self.ladder = ladder
        self.ids = ids  # the game's legal-id lists of this ladder's words (legal_ids), if it plays by ids
        self.n = players
        self.partnerships = partnerships
        self.turn = first
        self.level = None  # index of the highest bid in ladder.levels (int | None)
        self.suit = None  # its suit (str | None)
        self.bidder = None  # its bidder (int | None)
        self.doubled = 0  # how many doubles stand on the highest bid
        self.passes = 0  # consecutive passes
        self.actions = []  # (seat, word) pairs
        self.over = False
        self.thrown_in = False

    def same_side(self, a: int, b: int) -> bool:
        return _same_side(a, b, self.partnerships)

    def key(self) -> tuple[int | None, int, bool]:
        """Everything the legal actions depend on (for a game's cache of legal-id lists)."""
        return _key(self)

    @cython.locals(me=AuctionCore, known=dict)
    def legal_ids(self) -> list[int]:
        """The legal actions as the action ids of the ``ids`` given (a shared list: never change it in place)."""
        me = self  # (compiled: its fields read from the C struct)
        table: LegalWordIds | None = me.ids
        assert table is not None, "an auction lists legal ids only with the game's ids"
        key = _key(me)  # (compiled: a C call, not a method's)
        known = table.known  # (compiled: a C dict look-up, not a method call)
        ids = known.get(key)
        return ids if ids is not None else table.of(key, self)

    def legal_words(self) -> list[str]:
        """The legal actions of the player to bid (rules-file order: pass, bids upward, doubles)."""
        ladder = self.ladder
        start = 0 if self.level is None else self.level + 1
        words = [PASS, *ladder._bid_words[start * len(ladder.suits):]]  # the bids above the highest, upward
        if self.bidder is not None and self.doubled < len(ladder.doubles):
            # contre by the bidder's opponents, surcontre by the bidder's side, alternately
            by_own_side = self.doubled % 2 == 1
            if self.same_side(self.bidder, self.turn) == by_own_side:
                words.append(ladder.doubles[self.doubled])
        return words

    @cython.locals(me=AuctionCore, seat=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def apply(self, word: str) -> None:
        """Record the action of the player to bid (the caller has checked it is legal)."""
        me = self  # (compiled: its fields read and written in the C struct)
        seat = me.turn
        n = me.n
        me.actions.append((seat, word))
        if word == PASS:
            passes = me.passes = me.passes + 1
            if me.bidder is None:
                if passes == n:
                    me.over = me.thrown_in = True
            elif passes == me.ladder.passes_to_end:
                me.over = True
        else:
            bid = me.ladder._bids.get(word)  # (parse_bid's table: a double is no bid)
            if bid is None:
                me.doubled += 1
            else:
                me.level, me.suit = bid
                me.bidder = seat
                me.doubled = 0  # a new bid cancels the doubles of the previous one
            me.passes = 0
        me.turn = (seat + 1) % n

    @cython.locals(me=AuctionCore)
    def contract(self) -> Contract | None:
        me = self
        if me.bidder is None:
            return None
        assert me.level is not None and me.suit is not None  # set with the bidder
        return Contract(me.ladder.levels[me.level], me.suit, me.bidder, 2 ** me.doubled)


class TakeRounds(Copyable):
    """Taking a turned-up trump candidate: round 1 ``take`` (its suit) or ``pass``; round 2 ``take:<suit>`` naming
    another suit or ``pass``; two rounds of passes throw the deal in. The first taker ends it.

    >>> rounds = TakeRounds(players=4, first=1, turn_up_suit="H")
    >>> for word in ["pass"] * 4 + ["pass", "take:S"]:
    ...     rounds.apply(word)
    >>> rounds.taker, rounds.trump, rounds.over
    (2, 'S', True)
    """

    COPY = {"actions": LIST}

    def __init__(self, players: int, first: int, turn_up_suit: str, suits: str = "CDHS") -> None:
        self.n = players
        self.turn = first
        self.turn_up_suit = turn_up_suit
        self.suits = suits
        self.round = 1
        self.passes = 0
        self.actions: list[tuple[int, str]] = []
        self.taker: int | None = None
        self.trump: str | None = None
        self.over = False
        self.thrown_in = False

    def key(self) -> tuple[int, str, str]:
        """Everything the legal actions depend on (for a game's cache of legal-id lists)."""
        return self.round, self.turn_up_suit, self.suits

    def legal_words(self) -> list[str]:
        if self.round == 1:
            return [PASS, "take"]
        return [PASS, *(f"take:{s}" for s in self.suits if s != self.turn_up_suit)]

    def apply(self, word: str) -> None:
        seat = self.turn
        self.actions.append((seat, word))
        self.turn = (seat + 1) % self.n
        if word != PASS:
            self.taker = seat
            self.trump = self.turn_up_suit if word == "take" else word.split(":")[1]
            self.over = True
            return
        self.passes += 1
        if self.passes == self.n:
            if self.round == 2:
                self.over = self.thrown_in = True
            self.round, self.passes = 2, 0


class LegalWordIds:
    """A game's legal-id lists of an auction: the sorted action ids of its legal words, computed once per ``key``
    (everything they depend on: the auction's ``key()``, and the ladder when a game's option chooses it). The lists
    are shared: never change one in place.

    >>> from engine.tricks import CardActions
    >>> ids = LegalWordIds(CardActions(words=["pass", "take", "take:S"]))
    >>> rounds = TakeRounds(players=2, first=0, turn_up_suit="H")
    >>> [ids.actions.strings[a] for a in ids.of(rounds.key(), rounds)]
    ['pass', 'take']
    """

    def __init__(self, actions: CardActions) -> None:
        self.actions = actions
        self.known: dict[Any, list[int]] = {}

    def of(self, key: Any, auction: ContractAuction | TakeRounds) -> list[int]:
        ids = self.known.get(key)
        if ids is None:
            word_id = self.actions.word_id
            ids = self.known[key] = sorted([word_id(w) for w in auction.legal_words()])
        return ids


DELEGATE = "delegate"
NO_TRUMP_WORD = "none"


class TrumpChoice(Copyable):
    """A trump named by one player, who may first hand the choice to his partner (Botifarra 4.1, 4.2): ``trump:<suit>``,
    ``trump:none`` (no trump, where ``no_trump`` allows it) or, once, ``delegate``; the partner must then name one.
    The player who names it is the ``maker``.

    >>> choice = TrumpChoice(chooser=0, partner=2)
    >>> choice.legal_words()[-2:], choice.apply("delegate"), choice.legal_words()[-1]
    (['trump:none', 'delegate'], None, 'trump:none')
    >>> choice.apply("trump:none")
    >>> choice.maker, choice.trump, choice.over
    (2, 'none', True)
    """

    COPY = {"actions": LIST}

    def __init__(self, chooser: int, partner: int, suits: str = "CDHS", no_trump: bool = True,
                 delegate: bool = True) -> None:
        self.turn = chooser
        self.partner = partner
        self.words = _trump_words(suits, no_trump)
        self.may_delegate = delegate
        self.actions: list[tuple[int, str]] = []
        self.maker: int | None = None
        self.trump: str | None = None  # a suit letter or NO_TRUMP_WORD
        self.over = False
        self.thrown_in = False  # a trump is always named

    @property
    def delegated(self) -> bool:
        """Whether the chooser handed the choice to his partner."""
        return bool(self.actions) and self.actions[0][1] == DELEGATE

    def legal_words(self) -> list[str]:
        if self.may_delegate and not self.actions:
            return [*self.words, DELEGATE]
        return list(self.words)

    def apply(self, word: str) -> None:
        """Record the word of the player to choose (the caller has checked it is legal)."""
        seat = self.turn
        self.actions.append((seat, word))
        if word == DELEGATE:
            self.turn = self.partner
            return
        self.maker, self.trump, self.over = seat, word.split(":", 1)[1], True


_TRUMP_WORDS: dict[tuple[str, bool], tuple[str, ...]] = {}


def _trump_words(suits: str, no_trump: bool) -> tuple[str, ...]:
    """A TrumpChoice's words (made once for each set of suits: a choice is made at every deal)."""
    words = _TRUMP_WORDS.get((suits, no_trump))
    if words is None:
        words = _TRUMP_WORDS[(suits, no_trump)] = \
            tuple(f"trump:{s}" for s in suits) + ((f"trump:{NO_TRUMP_WORD}",) if no_trump else ())
    return words


class DoublingRounds(Copyable):
    """A contract doubled in rounds (Botifarra 4.4): the opponents of the last speaker (at first the ``maker``), in
    play order from the seat after him, are asked in turn to say the next word of ``words`` or ``pass``; the first
    who says it becomes the last speaker, so the other side is asked next; it is over when all those asked pass or
    the last word is said. ``level`` is how many words were said (0: the contract stands undoubled).

    >>> rounds = DoublingRounds(("contro", "recontro", "santvicenc"), maker=0, sides=(0, 1, 0, 1))
    >>> for word in ["pass", "contro", "pass", "recontro", "pass", "santvicenc"]:
    ...     rounds.apply(word)
    >>> rounds.level, rounds.last, rounds.over, [seat for seat, _word in rounds.actions]
    (3, 1, True, [1, 3, 0, 2, 3, 1])
    """

    COPY = {"actions": LIST}

    def __init__(self, words: tuple[str, ...], maker: int, sides: tuple[int, ...]) -> None:
        self.words = words
        self.sides = sides
        self.level = 0
        self.last = maker
        self.actions: list[tuple[int, str]] = []
        self.over = not words
        self.thrown_in = False  # a contract is played, doubled or not
        self._ask(maker)

    @cython.locals(last=cython.Py_ssize_t, n=cython.Py_ssize_t, k=cython.Py_ssize_t, seat=cython.Py_ssize_t,
                   asked=list)
    def _ask(self, last: int) -> None:
        sides = self.sides
        n, side = len(sides), sides[last]
        asked = []  # (a loop, not a generator: compiled, one is made at every word said)
        for k in range(1, n):
            seat = (last + k) % n
            if sides[seat] != side:
                asked.append(seat)
        self.asked = tuple(asked)
        self.passes = 0
        self.turn = self.asked[0]

    def legal_words(self) -> list[str]:
        return [self.words[self.level], PASS]

    def apply(self, word: str) -> None:
        """Record the word of the player asked (the caller has checked it is legal)."""
        seat = self.turn
        self.actions.append((seat, word))
        if word == PASS:
            self.passes += 1
            if self.passes == len(self.asked):
                self.over = True
            else:
                self.turn = self.asked[self.passes]
            return
        self.level += 1
        self.last = seat
        if self.level == len(self.words):
            self.over = True
        else:
            self._ask(seat)


@dataclass(frozen=True, eq=False)  # (a ladder is the same ladder only as itself: a game's key, hashed by identity)
class OutbidLadder:
    """An outbidding auction's bids as data, weakest first (Boonaken 5.1): a bid must be stronger than the highest
    so far, except that a ``joinable`` bid that is highest may be made again by another player, who then holds it too
    (a co-declarer); once ``join_closes`` players (0: no limit) hold a joinable bid, the others may only join or pass.

    >>> ladder = OutbidLadder(("bid:70", "bid:misere", "bid:75"), joinable=frozenset({"bid:misere"}), join_closes=2)
    >>> ladder.strength["bid:75"] > ladder.strength["bid:misere"]
    True
    """

    bids: tuple[str, ...]
    joinable: frozenset[str] = frozenset()
    join_closes: int = 0
    strength: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "strength", {bid: level for level, bid in enumerate(self.bids)})


class OutbidAuction(Copyable):
    """Bidding in turn among ``seats`` (turn order from the first to speak): each speaker passes, and is out of the
    bidding for the deal, or bids (:class:`OutbidLadder`). The players who hold the highest bid (its bidder, or every
    player holding a joined bid) do not speak while they hold it; the bidding ends when every player still in holds
    it, or, when nobody bid, after everybody passed (``thrown_in``).

    >>> ladder = OutbidLadder(("bid:70", "bid:misere", "bid:75"), joinable=frozenset({"bid:misere"}), join_closes=2)
    >>> auction = OutbidAuction(ladder, seats=[0, 1, 2, 3])  # Boonaken 12.10, dealer 3
    >>> for word in ["bid:70", "bid:misere", "bid:misere", "pass"]:
    ...     auction.apply(word)
    >>> auction.turn, auction.legal_words()
    (0, ['pass', 'bid:misere'])
    >>> auction.apply("pass")
    >>> auction.over, auction.highest, auction.holders
    (True, 'bid:misere', [1, 2])
    """

    COPY = {"actions": LIST, "passed": LIST, "holders": LIST, "ladder": SHARED, "seats": SHARED}

    def __init__(self, ladder: OutbidLadder, seats: list[int]) -> None:
        self.ladder = ladder
        self.seats = seats
        self.turn = seats[0]
        self.level = -1  # the strength of the highest bid, -1 before any
        self.holders: list[int] = []  # the seats holding the highest bid, in the order they bid it
        self.passed: list[int] = []
        self.actions: list[tuple[int, str]] = []
        self.over = False
        self.thrown_in = False

    @property
    def highest(self) -> str | None:
        return None if self.level < 0 else self.ladder.bids[self.level]

    def key(self) -> tuple[int, int]:
        """Everything the legal actions depend on (for a game's cache of legal-id lists)."""
        return self.level, len(self.holders)

    def legal_words(self) -> list[str]:
        """The legal actions of the player to speak: pass, the stronger bids upward, joining the highest bid."""
        ladder, highest = self.ladder, self.highest
        joinable = highest in ladder.joinable
        if joinable and 0 < ladder.join_closes <= len(self.holders):
            return [PASS, highest]  # type: ignore[list-item]  # joinable: not None
        return [PASS, *ladder.bids[self.level + 1:], *([highest] if joinable else [])]  # type: ignore[list-item]

    def apply(self, word: str) -> None:
        """Record the action of the player to speak (the caller has checked it is legal)."""
        seat = self.turn
        self.actions.append((seat, word))
        if word == PASS:
            self.passed.append(seat)
        elif word == self.highest:
            self.holders.append(seat)
        else:
            self.level = self.ladder.strength[word]
            self.holders = [seat]
        seats, passed, holders = self.seats, self.passed, self.holders
        i = seats.index(seat)
        for k in range(1, len(seats) + 1):  # the next seat in turn that is still in and does not hold the bid
            s = seats[(i + k) % len(seats)]
            if s not in passed and s not in holders:
                self.turn = s
                return
        self.over = True
        self.thrown_in = not holders


def replay_auction(auction: ContractAuction | TakeRounds | TrumpChoice | DoublingRounds | OutbidAuction,
                   actions: object) -> None:
    """Replay a position's ``[[seat, word], ...]`` on a fresh auction; PositionError for anything the rules forbid,
    including a thrown-in auction (its deal is dealt again at once, so no position holds it).

    >>> rounds = TakeRounds(players=2, first=1, turn_up_suit="H")
    >>> replay_auction(rounds, [[1, "pass"], [0, "take"]])
    >>> rounds.taker
    0
    """
    if not isinstance(actions, list):
        raise PositionError(f"auction must list [seat, word] pairs, got {actions!r}")
    for entry in actions:
        if not isinstance(entry, list) or len(entry) != 2:
            raise PositionError(f"auction must list [seat, word] pairs, got {entry!r}")
        seat, word = entry
        if auction.over or type(seat) is not int or seat != auction.turn or not isinstance(word, str) or \
                word not in auction.legal_words():
            raise PositionError(f"auction action {entry!r} is not legal there")
        auction.apply(word)
    if auction.thrown_in:
        raise PositionError("a thrown-in auction is never part of a position: the deal is dealt again")
