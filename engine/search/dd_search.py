"""The double-dummy search itself, written once for every trick game the solver takes (:mod:`.double_dummy`).

Cards are renumbered inside: each suit keeps its block of 13 bits, ordered by the game's power in that suit (the
weakest card lowest), so that "above in its suit", "nothing live between" and "the top live card" are bit operations.

- Values are what the searched side takes from a point on (tricks, or card points with the last trick's bonus), so a
  value is a property of the remaining cards alone. Searches run with zero windows (MTD(f)): each asks whether the
  side takes at least ``beta``, and the bounds they prove gather in the transposition table. A solve with many tricks
  left starts from a guess, the line where every seat plays the card the ordering tries first, and follows the bounds
  its first tests return before it halves what is left.
- The transposition table holds bounds at trick starts only, keyed by the leader and the hands (which also fix the
  tricks done and the stock still to draw); its best lead is tried first. Once no stock is left the hands are keyed by
  relative rank where tricks are counted: each suit's live cards from the weakest up, by owner, so that positions
  differing only in which cards the tricks took from between the live ones share an entry (a third fewer nodes on
  bridge endings; in Belote contrée card points keep most such cards apart, and the key cost more than it saved).
  A :class:`Search` may be given the table of an earlier one of the same deal, side and trump: its entries hold
  whatever the position's history.
- Equivalent cards are one move: cards of one hand and one suit with no live card between them (the trick's cards
  are live) and the same points play the same.
- Quick bounds at each trick start: a trump above every trump of the other side wins its trick whenever it is played
  (its points, or a trick for each such trump of one hand), and no side takes more than is left.
- The last trick is scored without a search; moves are ordered by cheap rules (masters first on a lead, the cheapest
  winner no later opponent can beat, or the poorest discard, points given to a partner whose trick is safe).
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

from ..budget import Meter
from ..cards import BIT, RANKS, SUIT, SUIT_MASK, cards_in
from ..trickgame import TrickRules
from ..tricks import NO_TRUMP, FollowRule, legal_mask

if TYPE_CHECKING:
    from .. import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from .. import _cython_shim as cython

INFINITY = 1 << 30
CHARGE_EVERY = 256  # nodes between two charges to a meter (and looks at its clock and cancel flag)
BLOCK = (1 << 13) - 1  # one suit's bits, shifted down
_T = TypeVar("_T")


class NodeBudgetExceeded(Exception):
    """The search visited more nodes than its budget allowed."""


@dataclasses.dataclass(frozen=True)
class Tables:
    """A game's rules under one trump, in the search's card numbering (``inner[card]``, ``card_of[inner]``)."""

    inner: tuple[int, ...]
    card_of: tuple[int, ...]
    beat: tuple[int, ...]  # beat[best]: the cards that take the trick from ``best``
    over: tuple[int, ...]  # over[best]: the trumps that beat ``best`` (the follow rule's ``over``)
    points: tuple[int, ...]
    above: tuple[int, ...]  # above[card]: the cards above it in its suit
    kind: tuple[int, ...]  # kind[card]: its suit and points (cards of one kind with no live card between play alike)
    follow: FollowRule  # the rule, its free trump named in the inner numbering
    plain_follow: tuple[bool, ...]  # per led suit: a hand that holds the suit plays exactly its cards of it
    void_free: bool  # a hand void in the led suit plays any card (else: any, when it holds no trump)


_TABLES: dict[tuple[int, int], tuple[TrickRules, Tables]] = {}


def tables(rules: TrickRules, trump: int) -> Tables:
    """The search's tables for ``rules`` under ``trump``, kept for the rule sets and trumps a process plays (by the
    rules' identity: hashing them would cost more than many a search)."""
    kept = _TABLES.get((id(rules), trump))
    if kept is not None and kept[0] is rules:
        return kept[1]
    if len(_TABLES) >= 64:
        _TABLES.clear()
    made = _make_tables(rules, trump)
    _TABLES[id(rules), trump] = (rules, made)
    return made


def _make_tables(rules: TrickRules, trump: int) -> Tables:
    power = rules.ranking.power[trump]
    points = rules.points[trump] if rules.points is not None else (0,) * 52
    card_of = [c for s in range(4) for c in sorted(range(13 * s, 13 * s + 13), key=lambda c: (power[c], c))]
    inner = [0] * 52
    for i, c in enumerate(card_of):
        inner[c] = i

    renumbered = tuple(inner)
    beat = tuple(_inner_mask(renumbered, rules.ranking.beat[trump][c]) for c in card_of)
    over = tuple(_inner_mask(renumbered, rules.beaters[trump][c]) for c in card_of)
    worth = tuple(points[c] for c in card_of)
    follow = rules.follow
    if follow.free_trump and trump != NO_TRUMP:
        free = inner[13 * trump + RANKS.index(follow.free_trump)] - 13 * trump
        follow = dataclasses.replace(follow, free_trump=RANKS[free])
    plain = tuple(not ((led == trump and (follow.must_overtrump or follow.free_trump)) or
                       (led != trump and trump != NO_TRUMP and follow.trump_with_suit)) for led in range(4))
    above = tuple(SUIT_MASK[SUIT[i]] & ~((2 << i) - 1) for i in range(52))
    kind = tuple(SUIT[i] << 16 | worth[i] for i in range(52))
    void_free = trump == NO_TRUMP or not (follow.must_trump or follow.must_overtrump)
    return Tables(tuple(inner), tuple(card_of), beat, over, worth, above, kind, follow, plain, void_free)


@lru_cache(maxsize=64)
def seats(side_of: tuple[int, ...], side: int) -> tuple[tuple[bool, ...], tuple[int, ...],
                                                       tuple[tuple[tuple[int, ...], ...], ...], tuple[int, ...],
                                                       tuple[int, ...]]:
    """Per seat whether it plays for ``side``, the next seat, the seats of the other side that play after it in a
    trick from its ``k``-th card (``rivals[seat][k]``); the seats of the side and the others."""
    n = len(side_of)
    maxi = tuple(side_of[s] == side for s in range(n))
    rivals = tuple(tuple(tuple((s + j) % n for j in range(1, n - k) if maxi[(s + j) % n] != maxi[s])
                         for k in range(n)) for s in range(n))
    return (maxi, tuple((s + 1) % n for s in range(n)), rivals, tuple(s for s in range(n) if maxi[s]),
            tuple(s for s in range(n) if not maxi[s]))


MTD_STEPS = 3  # zero-window tests that follow the last bound (MTD(f)) before a solve halves what is left
# A solve starts from a guess (the line each seat's first-ordered card makes) from this many tricks left on: on the
# bench's Belote contrée endings (seed 1) it took 16% fewer nodes at 6 and 8 tricks, 8% at 7, but 34% more at 5.
GUESS_TRICKS = 6
# Where tricks are counted, a trick start's leader holding a master no opponent can trump is sure of a trick (18% fewer
# nodes on the bench's German Whist endings of 8 tricks). On card points the same bound (the master's points and the
# fewest the others can add) pruned 0.7% of the Belote contrée nodes for 10% more time: it is not used there.
QUICK_LEAD = True  # (off in tests: the same values without it)


def exact_value(test: Callable[[int, int], int], low: int, high: int, guess: int | None = None,
                steps: int = 0) -> int:
    """The exact value between ``low`` and ``high`` of a fail-soft search ``test(alpha, beta)``, by zero-window tests:
    first whether it reaches ``guess`` (when given, and then ``guess + 1``); for the first ``steps`` tests, a test that
    fails low is followed by one at the bound it returned (MTD(f)); else each halving the interval left (the fail-soft
    answers narrow it more)."""
    while low < high:
        beta = (low + high + 1) // 2 if guess is None else min(max(guess, low + 1), high)
        g = test(beta - 1, beta)
        steps -= 1
        if g < beta:
            high = g
            guess = g if steps >= 0 else None
        else:
            low = g
            guess = g + 1 if guess is not None else None
    return low


_BLOCK = cython.declare(cython.ulonglong, 0x1FFF)  # BLOCK, typed for the compiled build
_INFINITY = cython.declare(cython.int, 1 << 30)
_FAR = cython.declare(cython.longlong, 0x4000000000000000)  # no node budget
_MAX_SEATS = 8  # the sizes of the search's per-seat arrays (its C arrays' sizes are this literal)
_MAX_TRICKS = 63
_LEGAL_SLOTS = 1024  # the legal cards kept (the sizes of their C arrays are this literal)
_LEGAL_SHIFT = cython.declare(cython.int, 54)  # a hash's top 10 bits pick a slot


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(x=cython.ulonglong, r=cython.int)
@cython.returns(cython.int)
def _high(x: int) -> int:
    """The highest set bit of ``x`` (-1 for none)."""
    if not cython.compiled:
        return x.bit_length() - 1
    if not x:
        return -1
    r = 0
    if x >> 32:
        x >>= 32
        r += 32
    if x >> 16:
        x >>= 16
        r += 16
    if x >> 8:
        x >>= 8
        r += 8
    if x >> 4:
        x >>= 4
        r += 4
    if x >> 2:
        x >>= 2
        r += 2
    if x >> 1:
        r += 1
    return r


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(x=cython.ulonglong, r=cython.int)
@cython.returns(cython.int)
def _count(x: int) -> int:
    """The set bits of ``x``."""
    if not cython.compiled:
        return x.bit_count()
    r = 0
    while x:
        x &= x - 1
        r += 1
    return r


_MIX = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)  # a 64-bit odd multiplier (the golden ratio's)
_M64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)  # C's unsigned wrap-around, spelled out for Python
_BOUND = cython.declare(cython.ulonglong, 1 << 19)  # an entry's bounds are stored plus this, in 20 bits each


@cython.final
@cython.cclass
class Entries:
    """A transposition table: what a side takes from trick starts (bounds) and the best lead there, by position.

    Open addressing in one array of 64-bit words (an ``array('Q')``, a typed memoryview compiled): a slot is the
    position's key words (a tag word, never 0 in a used slot, then the hands or the suits' rank codes) and one
    data word; a lookup hashes the key words and probes from there. It doubles when half full."""

    cython.declare(slots=cython.ulonglong[:], width=cython.int, capacity=cython.longlong, used=cython.longlong)

    def __init__(self) -> None:
        self.slots = array("Q")
        self.width = self.capacity = self.used = 0

    def __len__(self) -> int:
        return self.used

    def prepare(self, seats: int) -> None:
        """Size the keys for ``seats`` hands (a table serves one deal: every search of it has as many)."""
        if not self.width:
            self.width = max(seats, 4) + 1
            self._allocate(1 << 10)

    @cython.cfunc
    @cython.locals(capacity=cython.longlong)
    def _allocate(self, capacity: int) -> None:
        self.slots = array("Q", [0]) * (capacity * (self.width + 1))  # (from bytes: 30 times slower, page faults)
        self.capacity, self.used = capacity, 0

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.returns(cython.longlong)
    @cython.locals(key=cython.p_ulonglong, h=cython.ulonglong, i=cython.longlong, base=cython.longlong,
                   j=cython.int, width=cython.int, same=cython.bint)
    def _slot(self, key: list[int]) -> int:
        """The slot holding ``key`` (its ``width`` words), or ``-1 - slot`` of the empty slot where it would go."""
        width = self.width
        h = 0
        for j in range(width):
            h = (h ^ key[j]) * _MIX & _M64
        h ^= h >> 29
        i = h & (self.capacity - 1)
        while True:
            base = i * (width + 1)
            if not self.slots[base]:
                return -1 - i
            same = True
            for j in range(width):
                if self.slots[base + j] != key[j]:
                    same = False
                    break
            if same:
                return i
            i = (i + 1) & (self.capacity - 1)

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.returns(cython.ulonglong)
    @cython.locals(key=cython.p_ulonglong, i=cython.longlong)
    def _get(self, key: list[int]) -> int:
        """The data word of ``key``, or 0 (data words are never 0)."""
        i = self._slot(key)
        return self.slots[i * (self.width + 1) + self.width] if i >= 0 else 0

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(key=cython.p_ulonglong, data=cython.ulonglong, i=cython.longlong, j=cython.int,
                   base=cython.longlong)
    def _put(self, key: list[int], data: int) -> None:
        i = self._slot(key)
        if i < 0:
            if 2 * (self.used + 1) > self.capacity:
                self._grow()
                i = self._slot(key)
            i = -1 - i
            base = i * (self.width + 1)
            for j in range(self.width):
                self.slots[base + j] = key[j]
            self.used += 1
        self.slots[i * (self.width + 1) + self.width] = data

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(old=cython.ulonglong[:], slots=cython.longlong, i=cython.longlong, j=cython.longlong,
                   base=cython.longlong, stride=cython.int, key=cython.ulonglong[9])
    def _grow(self) -> None:
        if not cython.compiled:
            key = [0] * 9
        old, slots, stride = self.slots, self.capacity, self.width + 1
        self._allocate(4 * slots)
        for i in range(slots):
            base = i * stride
            if old[base]:
                for j in range(stride - 1):
                    key[j] = old[base + j]
                self._put(key, old[base + stride - 1])


@cython.final
@cython.cclass
class Search:
    """The search from one position for one side (see the module's docstring); ``DoubleDummy`` is its face.

    Compiled, its state is C: the hands and the per-card tables are arrays of 64-bit masks and ints, the searching
    methods C functions; run from source, the arrays are lists and the same code runs as Python."""

    cython.declare(hands=cython.ulonglong[8], beat=cython.ulonglong[52], over=cython.ulonglong[52],
                   above=cython.ulonglong[52], worth=cython.int[52], kind=cython.int[52], stock=cython.int[52],
                   side_of=cython.int[8], maxi=cython.char[8], nxt=cython.int[8], rivals=cython.ulonglong[64],
                   counts=cython.char[64], tricks_left=cython.int[64], all_count=cython.char[64],
                   plain_follow=cython.char[4], legal_hand=cython.ulonglong[1024], legal_out=cython.ulonglong[1024],
                   legal_context=cython.int[1024])
    cython.declare(n=cython.int, side=cython.int, trump=cython.int, seat=cython.int, done=cython.int,
                   nstock=cython.int, drawn=cython.int, total=cython.int, bonus=cython.int, points_left=cython.int,
                   lead_move=cython.int, free_card=cython.int, max_seats=cython.ulonglong,
                   min_seats=cython.ulonglong, scored=cython.bint, lead_passes=cython.bint, by_ranks=cython.bint,
                   quick_lead=cython.bint, void_free=cython.bint, live=cython.ulonglong, trump_mask=cython.ulonglong,
                   check_at=cython.longlong, charged=cython.longlong, _nodes=cython.longlong,
                   _max_nodes=cython.longlong)
    cython.declare(t=object, rules=object, follow=object, meter=object, trick=list, entries=Entries)

    @cython.locals(s=cython.int, k=cython.int, j=cython.int, c=cython.int, n=cython.int, total=cython.int)
    def __init__(self, rules: TrickRules, trump: int, side_of: Sequence[int], side: int, seat: int,
                 hands: Sequence[int], trick: Sequence[tuple[int, int]], done: int, stock: Sequence[int],
                 counts: Sequence[bool], max_nodes: int = 0, meter: Meter | None = None,
                 table: Entries | None = None) -> None:
        if not cython.compiled:
            self.hands, self.side_of, self.maxi, self.nxt = [0] * 8, [0] * 8, [0] * 8, [0] * 8
            self.beat, self.over, self.above, self.worth, self.kind, self.stock = ([0] * 52 for _ in range(6))
            self.rivals, self.counts, self.tricks_left, self.all_count = ([0] * 64 for _ in range(4))
            self.plain_follow = [0] * 4
            self.legal_hand, self.legal_out, self.legal_context = ([0] * _LEGAL_SLOTS for _ in range(3))
        n, total = len(side_of), rules.tricks
        if n > _MAX_SEATS or total > _MAX_TRICKS or len(stock) > 52:
            raise ValueError(f"the double-dummy search takes up to {_MAX_SEATS} seats and {_MAX_TRICKS} tricks")
        self.t = t = tables(rules, trump)
        self.rules, self.trump, self.side, self.n = rules, trump, side, n
        self.seat, self.done = seat, done
        for s in range(n):
            self.hands[s] = _inner_mask(t.inner, hands[s])
            self.side_of[s] = side_of[s]
        self.trick = [(s, t.inner[c]) for s, c in trick]
        self.nstock = len(stock)
        for j in range(self.nstock):
            self.stock[j] = t.inner[stock[j]]
        self.total = total
        for k in range(total):
            self.counts[k] = counts[k]
        for k in range(total + 1):
            self.tricks_left[k] = sum(counts[k:])
            self.all_count[k] = all(counts[k:])
        for c in range(52):
            self.beat[c], self.over[c], self.above[c] = t.beat[c], t.over[c], t.above[c]
            self.worth[c], self.kind[c] = t.points[c], t.kind[c]
        for s in range(4):
            self.plain_follow[s] = t.plain_follow[s]
        self.follow = follow = t.follow
        self.void_free = t.void_free
        self.trump_mask = SUIT_MASK[trump] if trump != NO_TRUMP else 0
        self.scored = rules.points is not None
        self.bonus = rules.last_trick
        self.lead_passes = rules.lead_passes
        maxi, nxt, rivals, max_seats, min_seats = seats(tuple(side_of), side)
        self.max_seats = self.min_seats = 0
        for s in range(n):
            self.maxi[s], self.nxt[s] = maxi[s], nxt[s]
            for k in range(n):
                self.rivals[s * 8 + k] = sum(1 << o for o in rivals[s][k])
        for s in max_seats:
            self.max_seats |= 1 << s
        for s in min_seats:
            self.min_seats |= 1 << s
        self.free_card = -1 if not follow.free_trump or trump == NO_TRUMP else \
            13 * trump + RANKS.index(follow.free_trump)
        # Where card points count, they keep most cards apart: in Belote contrée the key by ranks merged 4% of the
        # nodes at 24 cards and cost 11% more instructions (callgrind); on bridge endings it saves a fifth of them.
        self.by_ranks = not self.scored
        self.quick_lead = QUICK_LEAD
        self._max_nodes, self.meter = max_nodes, meter
        self._nodes = self.charged = 0
        self.entries = Entries() if table is None else table
        self.entries.prepare(n)
        self.check_at = 0
        self.points_left = self.drawn = self.live = 0
        self.lead_move = -1
        self._reset()

    @property
    def nodes(self) -> int:
        """The nodes the searches visited so far."""
        return self._nodes

    @property
    def max_nodes(self) -> int:
        """The node budget of a search (0: none)."""
        return self._max_nodes

    @max_nodes.setter
    def max_nodes(self, value: int) -> None:
        self._max_nodes = value

    @property
    def tt(self) -> Entries:
        """The transposition table."""
        return self.entries

    # ---- the public searches ------------------------------------------------------------------------------------

    def solve(self) -> int:
        """What the side takes from the position on."""
        def search() -> int:
            guess = self._estimate()
            return exact_value(self._root_value, 0, self._most(), guess, 0 if guess is None else MTD_STEPS)

        return self._run(search)

    def card_values(self) -> dict[int, int]:
        """Each legal card of the seat to play (game numbering) and what the side takes after it."""
        return self._run(self._card_values)

    def settle(self) -> None:
        """Charge the meter the nodes it was not charged yet."""
        if self.meter is not None and self._nodes > self.charged:
            self.meter.charge(self._nodes - self.charged)
            self.charged = self._nodes

    # ---- set-up -------------------------------------------------------------------------------------------------

    def _run(self, search: Callable[[], _T]) -> _T:
        """Run a search from the position; whatever ends it (an exception too), the position is put back."""
        hands = [self.hands[s] for s in range(self.n)]
        try:
            return search()
        finally:
            for s in range(self.n):
                self.hands[s] = hands[s]
            self._reset()

    def _card_values(self) -> dict[int, int]:
        """Each run of equivalent cards searched once, from the last card's value as the first guess (the first card
        from :meth:`solve`'s guess: the line it starts is the one that card starts)."""
        values: dict[int, int] = {}
        guess = self._estimate()
        steps = 0 if guess is None else MTD_STEPS
        for card, equal in self._root_moves():

            def test(alpha: int, beta: int, card: int = card) -> int:
                return self._after(card, alpha, beta)

            guess = exact_value(test, 0, self._most(), guess, steps)
            steps = 0
            for c in equal:
                values[self.t.card_of[c]] = guess
        return values

    @cython.cfunc
    @cython.locals(s=cython.int, c=cython.int, m=cython.ulonglong, one=cython.ulonglong)
    def _reset(self) -> None:
        one = 1
        m = 0
        for s in range(self.n):
            m |= self.hands[s]
        for _s, c in self.trick:
            m |= one << c
        for s in range(self.nstock):
            m |= one << self.stock[s]
        self.live = m
        self.points_left = 0
        if self.scored:
            self.points_left = self._points_of(m) + self.bonus
        self.drawn = 0
        self.check_at = self._next_check()
        self.lead_move = -1

    @cython.cfunc
    @cython.returns(cython.longlong)
    @cython.locals(limit=cython.longlong)
    def _next_check(self) -> int:
        limit = self._max_nodes + 1 if self._max_nodes else _FAR
        if self.meter is not None and self._nodes + CHARGE_EVERY < limit:
            return self._nodes + CHARGE_EVERY
        return limit

    @cython.cfunc
    def _check(self) -> None:
        if self._max_nodes and self._nodes > self._max_nodes:
            raise NodeBudgetExceeded(f"double-dummy search over {self._max_nodes} nodes")
        self.settle()
        self.check_at = self._next_check()

    # ---- the search ---------------------------------------------------------------------------------------------

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(cards=cython.ulonglong, total=cython.int, card=cython.int, one=cython.ulonglong)
    def _points_of(self, cards: int) -> int:
        """The card points of ``cards`` (a mask; the sure trumps are a few cards, a table by suit cost more to build
        than the searches of an ending spent reading it)."""
        one = 1
        total = 0
        while cards:
            card = _high(cards)
            total += self.worth[card]
            cards ^= one << card
        return total

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(cards=cython.ulonglong, seatmask=cython.ulonglong, s=cython.int, most=cython.int, c=cython.int)
    def _sure_tricks(self, cards: int, seatmask: int) -> int:
        most = 0
        for s in range(self.n):
            if seatmask >> s & 1:
                c = _count(self.hands[s] & cards)
                if c > most:
                    most = c
        return most

    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(leader=cython.int, s=cython.int, o=cython.int, top=cython.int, hand=cython.ulonglong,
                   h=cython.ulonglong, rivals=cython.ulonglong, cashed=cython.bint)
    def _cashes(self, leader: int) -> bool:
        """Whether the leader holds the top live card of a suit that no opponent can trump (each holds the suit
        and must follow it, or holds no trump): its side is sure of the trick it leads."""
        hand = self.hands[leader]
        rivals = self.rivals[leader * 8]
        for s in range(4):
            top = _high(self.live & (_BLOCK << 13 * s))
            if top < 0 or not hand >> top & 1:
                continue
            if s == self.trump:
                return True
            cashed = True
            for o in range(self.n):
                if rivals >> o & 1:
                    h = self.hands[o]
                    if h & self.trump_mask and not (self.plain_follow[s] and h & (_BLOCK << 13 * s)):
                        cashed = False
                        break
            if cashed:
                return True
        return False

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(leader=cython.int, s=cython.int, o=cython.int, top=cython.int, run=cython.int, quick=cython.int,
                   hand=cython.ulonglong, suit=cython.ulonglong, rest=cython.ulonglong, h=cython.ulonglong,
                   rivals=cython.ulonglong, one=cython.ulonglong)
    def _quick_tricks(self, leader: int) -> int:
        """The tricks the leader is sure to cash in a row with no stock left: in each suit his run of the top live
        cards, as far as every opponent who could trump must follow it (each holds that many of the suit, where
        holding it means following it). Each master wins its trick and keeps him the lead; an opponent following
        one suit discards nothing of another, and one with no trump never trumps."""
        one = 1
        hand = self.hands[leader]
        rivals = self.rivals[leader * 8]
        quick = 0
        for s in range(4):
            suit = _BLOCK << 13 * s
            run = 0
            rest = self.live & suit
            while rest:
                top = _high(rest)
                if not hand >> top & 1:
                    break
                run += 1
                rest ^= one << top
            if run and s != self.trump:
                for o in range(self.n):
                    if rivals >> o & 1:
                        h = self.hands[o]
                        if h & self.trump_mask:
                            if not self.plain_follow[s]:
                                run = 0
                            elif _count(h & suit) < run:
                                run = _count(h & suit)
            quick += run
        return quick

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(leader=cython.int, done=cython.int, alpha=cython.int, beta=cython.int, low=cython.int,
                   high=cython.int, most_left=cython.int, s=cython.int, lo=cython.int, hi=cython.int,
                   first=cython.int, a=cython.int, b=cython.int, value=cython.int, own=cython.ulonglong,
                   live_trumps=cython.ulonglong, own_trumps=cython.ulonglong, their_trumps=cython.ulonglong,
                   mine=cython.ulonglong, against=cython.ulonglong, one=cython.ulonglong, entry=cython.ulonglong,
                   best=cython.ulonglong, key=cython.ulonglong[9], quick=cython.int)
    def _boundary(self, leader: int, done: int, alpha: int, beta: int) -> int:
        """The side's take from trick ``done`` on, ``leader`` to lead (fail-soft)."""
        self._nodes += 1
        if self._nodes >= self.check_at:
            self._check()
        if done == self.total - 1:
            return self._last_trick(leader, done)
        one = 1
        low = 0
        high = most_left = self.points_left if self.scored else self.tricks_left[done]
        if high <= alpha:
            return high
        if not cython.compiled:
            key = [0] * 9
        self._key(leader, key)
        entry = self.entries._get(key)
        first = -1
        if entry:  # its bounds hold the quick ones below (the same for every position of the key) and the searches'
            low = (entry & 0xFFFFF) - _BOUND
            high = (entry >> 20 & 0xFFFFF) - _BOUND
            first = (entry >> 40) - 1
        else:
            if self.trump_mask:
                own = 0
                for s in range(self.n):
                    if self.max_seats >> s & 1:
                        own |= self.hands[s]
                # each side's sure trumps: above every other live trump, they win their trick whenever played (a plain
                # card may be discarded, a trump never loses to a lower card); the stock's trumps are the others'
                live_trumps = self.live & self.trump_mask
                own_trumps = own & self.trump_mask
                if self.drawn == self.nstock:
                    their_trumps = live_trumps ^ own_trumps
                else:
                    their_trumps = 0
                    for s in range(self.n):
                        if self.min_seats >> s & 1:
                            their_trumps |= self.hands[s] & self.trump_mask
                mine = own_trumps & ~((one << (_high(live_trumps ^ own_trumps) + 1)) - 1)
                against = their_trumps & ~((one << (_high(live_trumps ^ their_trumps) + 1)) - 1)
                if self.scored:
                    if mine:
                        low = self._points_of(mine)
                    if against:
                        high -= self._points_of(against)
                elif self.all_count[done]:
                    if mine:
                        low = self._sure_tricks(mine, self.max_seats)
                    if against:
                        high -= self._sure_tricks(against, self.min_seats)
            if self.quick_lead and not self.scored and self.counts[done]:
                if self.all_count[done] and self.drawn == self.nstock and not self.lead_passes:
                    quick = self._quick_tricks(leader)
                    if quick > most_left:
                        quick = most_left
                else:
                    quick = 1 if self._cashes(leader) else 0
                if not quick:
                    pass
                elif self.maxi[leader]:
                    if low < quick:
                        low = quick
                elif high > most_left - quick:
                    high = most_left - quick
        if high <= alpha:
            return high
        if low >= beta or low == high:
            return low
        a = alpha if alpha > low else low
        b = beta if beta < high else high
        value = self._ply(leader, 0, 0, -1, -1, 0, 0, leader, done, a, b, first)
        if value <= a:
            high = value
        elif value >= b:
            low = value
        else:
            low = high = value
        best = self.lead_move + 1  # a 64-bit word: the shift would overflow a C int
        self.entries._put(key, (low + _BOUND) | (high + _BOUND) << 20 | best << 40)
        return value

    @cython.cfunc
    @cython.exceptval(check=False)
    @cython.locals(leader=cython.int, key=cython.p_ulonglong, s=cython.int, o=cython.int, shift=cython.int,
                   h=cython.ulonglong, union=cython.ulonglong, b0=cython.ulonglong, b1=cython.ulonglong,
                   b2=cython.ulonglong, free=cython.ulonglong, rest=cython.ulonglong, low=cython.ulonglong,
                   bit=cython.ulonglong, code=cython.ulonglong, one=cython.ulonglong)
    def _key(self, leader: int, key: list[int]) -> None:
        """The transposition key of a trick start in ``key`` (the table's width of words): the leader and the hands;
        with no stock left, where tricks are counted, the leader and per suit the owners of its live cards from the
        weakest up (4 bits a card after a leading 1: the owner, and 8 for the free trump), whatever their ranks.
        Positions that differ only by the ranks the played cards leave between the live ones play alike (a card's
        suit and its order among the live cards are all the rules read), so they share one entry."""
        for s in range(self.entries.width):
            key[s] = 0
        if self.drawn == self.nstock and self.by_ranks:
            one = 1
            key[0] = leader + 257
            union = b0 = b1 = b2 = 0  # the cards of the seats whose number has bit 0, 1 or 2 set
            for o in range(self.n):
                h = self.hands[o]
                union |= h
                if o & 1:
                    b0 |= h
                if o & 2:
                    b1 |= h
                if o & 4:
                    b2 |= h
            free = one << self.free_card if self.free_card >= 0 else 0
            for s in range(4):
                shift = 13 * s
                rest = union >> shift & _BLOCK
                code = 1
                while rest:
                    low = rest & (~rest + 1)
                    rest ^= low
                    bit = low << shift
                    code <<= 4
                    if b0 & bit:
                        code |= 1
                    if b1 & bit:
                        code |= 2
                    if b2 & bit:
                        code |= 4
                    if free & bit:
                        code |= 8
                key[s + 1] = code
        else:
            key[0] = leader + 1
            for s in range(self.n):
                key[s + 1] = self.hands[s]

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(leader=cython.int, done=cython.int, seat=cython.int, best=cython.int, best_seat=cython.int,
                   cards=cython.int, card=cython.int, _j=cython.int)
    def _last_trick(self, leader: int, done: int) -> int:
        """The last trick: one card in each hand, nothing to choose."""
        seat = leader
        best = _high(self.hands[seat])
        best_seat, cards = seat, self.worth[best]
        for _j in range(self.n - 1):
            seat = self.nxt[seat]
            card = _high(self.hands[seat])
            cards += self.worth[card]
            if self.beat[best] >> card & 1:
                best, best_seat = card, seat
        if not self.maxi[best_seat] or not self.counts[done]:
            return 0
        return cards + self.bonus if self.scored else 1

    @cython.cfunc
    @cython.returns(cython.ulonglong)
    @cython.locals(hand=cython.ulonglong, led=cython.int, best=cython.int, best_seat=cython.int, seat=cython.int,
                   context=cython.int, i=cython.int, legal=cython.ulonglong)
    def _legal(self, hand: int, led: int, best: int, best_seat: int, seat: int) -> int:
        """The rules' legal cards (``legal_mask``), kept by their arguments in a small table: a search asks for the
        same hands in the same tricks again and again, and a call to the rules costs many times a look-up."""
        context = (led | best << 2 | (self.side_of[best_seat] == self.side_of[seat]) << 8) + 1
        i = ((hand ^ context) * _MIX & _M64) >> _LEGAL_SHIFT
        if self.legal_hand[i] == hand and self.legal_context[i] == context:
            return self.legal_out[i]
        legal = legal_mask(self.follow, hand, led, self.trump, self.over[best],
                           self.side_of[best_seat] == self.side_of[seat])
        self.legal_hand[i], self.legal_context[i], self.legal_out[i] = hand, context, legal
        return legal

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(seat=cython.int, k=cython.int, led=cython.int, best=cython.int, best_seat=cython.int,
                   trick=cython.ulonglong, trick_points=cython.int, leader=cython.int, done=cython.int,
                   alpha=cython.int, beta=cython.int, first=cython.int, hand=cython.ulonglong, same=cython.ulonglong,
                   legal=cython.ulonglong, card=cython.int, v=cython.int, value=cython.int, chosen=cython.int,
                   after=cython.int, beaters=cython.ulonglong, bit=cython.ulonglong, one=cython.ulonglong,
                   count=cython.int, j=cython.int, maximizing=cython.bint, last=cython.bint, moves=cython.int[52])
    def _ply(self, seat: int, k: int, led: int, best: int, best_seat: int, trick: int, trick_points: int,
             leader: int, done: int, alpha: int, beta: int, first: int) -> int:
        """``seat`` plays the trick's ``k``-th card (from 0) to a trick led in ``led``, won so far by ``best``
        of ``best_seat`` (its cards ``trick`` and their points), from trick ``done`` on; fail-soft."""
        if not cython.compiled:
            moves = [0] * 52
        self._nodes += 1
        if self._nodes >= self.check_at:
            self._check()
        one = 1
        hand = self.hands[seat]
        if k == 0:
            count = self._leads(hand, first, moves)
        else:
            same = hand & (_BLOCK << 13 * led)
            if same:
                legal = same if self.plain_follow[led] else self._legal(hand, led, best, best_seat, seat)
            else:
                legal = hand if self.void_free or not hand & self.trump_mask else \
                    self._legal(hand, led, best, best_seat, seat)
            if not legal & (legal - 1):  # one card to play: no choice to order or compare
                card = _high(legal)
                self.hands[seat] = hand ^ legal
                if self.beat[best] & legal:
                    best, best_seat = card, seat
                if k == self.n - 1:
                    v = self._trick_over(best_seat, trick | legal, trick_points + self.worth[card], leader, done,
                                         alpha, beta)
                else:
                    v = self._ply(self.nxt[seat], k + 1, led, best, best_seat, trick | legal,
                                  trick_points + self.worth[card], leader, done, alpha, beta, -1)
                self.hands[seat] = hand
                self.lead_move = card
                return v
            count = self._follows(legal, best, best_seat, seat, k, led, moves)
        maximizing = self.maxi[seat]
        value = -_INFINITY if maximizing else _INFINITY
        chosen = -1
        after = self.nxt[seat]
        beaters = self.beat[best] if k else 0
        last = k == self.n - 1
        for j in range(count):
            card = moves[j] & 63
            bit = one << card
            self.hands[seat] = hand ^ bit
            if k == 0:
                v = self._ply(after, 1, card // 13, card, seat, bit, self.worth[card], leader, done, alpha, beta, -1)
            elif last:
                v = self._trick_over(seat if beaters & bit else best_seat, trick | bit, trick_points + self.worth[card],
                                     leader, done, alpha, beta)
            elif beaters & bit:
                v = self._ply(after, k + 1, led, card, seat, trick | bit, trick_points + self.worth[card], leader,
                              done, alpha, beta, -1)
            else:
                v = self._ply(after, k + 1, led, best, best_seat, trick | bit, trick_points + self.worth[card],
                              leader, done, alpha, beta, -1)
            self.hands[seat] = hand
            if maximizing:
                if v > value:
                    value, chosen = v, card
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            elif v < value:
                value, chosen = v, card
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        self.lead_move = chosen
        return value

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(winner=cython.int, trick=cython.ulonglong, trick_points=cython.int, leader=cython.int,
                   done=cython.int, alpha=cython.int, beta=cython.int, last=cython.bint, gain=cython.int,
                   start=cython.int, j=cython.int, value=cython.int, one=cython.ulonglong)
    def _trick_over(self, winner: int, trick: int, trick_points: int, leader: int, done: int, alpha: int,
                    beta: int) -> int:
        last = done + 1 == self.total
        gain = 0
        if self.maxi[winner] and self.counts[done]:
            gain = trick_points + (self.bonus if last else 0) if self.scored else 1
        if last:
            return gain
        one = 1
        self.live ^= trick
        self.points_left -= trick_points
        start = self.drawn
        if start < self.nstock:
            for j in range(self.n):
                if self.drawn == self.nstock:
                    break
                self.hands[(winner + j) % self.n] |= one << self.stock[self.drawn]
                self.drawn += 1
        value = gain + self._boundary(self.nxt[leader] if self.lead_passes else winner, done + 1, alpha - gain,
                                      beta - gain)
        for j in range(self.drawn - start):
            self.hands[(winner + j) % self.n] ^= one << self.stock[start + j]
        self.drawn = start
        self.points_left += trick_points
        self.live ^= trick
        return value

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(hand=cython.ulonglong, first=cython.int, keys=cython.p_int, count=cython.int, card=cython.int,
                   prev=cython.int, key=cython.int, j=cython.int, one=cython.ulonglong)
    def _leads(self, hand: int, first: int, keys: list[int]) -> int:
        """The cards to lead, one of each equivalent run (:meth:`_heads`, inline), as sorted keys in ``keys`` (the
        card in the low 6 bits; their count returned): the table's best first, then the masters of their suits
        (nothing live above them), then the low cards."""
        one = 1
        count = 0
        card = -1
        while hand:
            prev = card
            card = _high(hand)
            hand ^= one << card
            if prev >= 0 and self.kind[prev] == self.kind[card] and \
                    not self.live & ((one << prev) - (one << (card + 1))):
                continue
            if card == first:
                key = card
            elif self.live & self.above[card]:
                key = (128 + card) << 6 | card
            else:
                key = (64 - card) << 6 | card
            j = count
            while j > 0 and keys[j - 1] > key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
            count += 1
        return count

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(legal=cython.ulonglong, best=cython.int, best_seat=cython.int, seat=cython.int, k=cython.int,
                   led=cython.int, keys=cython.p_int, led_mask=cython.ulonglong, threat=cython.ulonglong,
                   rivals=cython.ulonglong, h=cython.ulonglong, x=cython.ulonglong, winners=cython.ulonglong,
                   safe=cython.bint, s=cython.int, count=cython.int, card=cython.int, prev=cython.int,
                   key=cython.int, j=cython.int, one=cython.ulonglong)
    def _follows(self, legal: int, best: int, best_seat: int, seat: int, k: int, led: int, keys: list[int]) -> int:
        """The legal cards to follow with, one of each equivalent run (:meth:`_heads`, inline), as sorted keys in
        ``keys`` (the card in the low 6 bits; their count returned). While the trick is safe for the seat's side (its
        partner wins and no opponent to play can beat him), the richest non-winners first; else the cheapest winner
        no later opponent can beat, the other winners, then the poorest discards."""
        one = 1
        led_mask = _BLOCK << 13 * led
        threat = 0  # the cards later opponents could beat with
        rivals = self.rivals[seat * 8 + k]
        for s in range(self.n):
            if rivals >> s & 1:
                h = self.hands[s]
                x = h & led_mask
                threat |= x if x else h
        winners = self.beat[best]
        safe = self.maxi[best_seat] == self.maxi[seat] and not winners & threat
        count = 0
        card = -1
        while legal:
            prev = card
            card = _high(legal)
            legal ^= one << card
            if prev >= 0 and self.kind[prev] == self.kind[card] and \
                    not self.live & ((one << prev) - (one << (card + 1))):
                continue
            if safe:
                key = (63 - self.worth[card]) * 64 + card
            elif winners >> card & 1:
                key = card if not self.beat[card] & threat else 4096 + card
            else:
                key = 8192 + self.worth[card] * 64 + card
            j = count
            while j > 0 and keys[j - 1] > key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
            count += 1
        return count

    # ---- the root -----------------------------------------------------------------------------------------------

    def _heads(self, cards: int) -> list[int]:
        """The first card of each run of equivalent ones in ``cards`` (a mask), from the top: a card whose next
        card above in the mask is of its suit, worth the same, with no live card between them, plays as that one
        does."""
        card = cards.bit_length() - 1
        out = [card]
        cards ^= BIT[card]
        while cards:
            prev = card
            card = cards.bit_length() - 1
            cards ^= BIT[card]
            if self.kind[prev] != self.kind[card] or self.live & (BIT[prev] - BIT[card + 1]):
                out.append(card)
        return out

    def _root(self) -> tuple[int, int, int, int, int, int, int]:
        """The position's trick: (seat, k, led, best, best_seat, cards, points)."""
        trick = self.trick
        if not trick:
            return (self.seat, 0, 0, -1, -1, 0, 0)
        led = trick[0][1] // 13
        best_seat, best = trick[0]
        cards = points = 0
        for s, c in trick:
            if self.beat[best] & BIT[c]:
                best_seat, best = s, c
            cards |= BIT[c]
            points += self.worth[c]
        last_seat = trick[-1][0]
        return (self.nxt[last_seat], len(trick), led, best, best_seat, cards, points)

    def _root_value(self, alpha: int, beta: int) -> int:
        seat, k, led, best, best_seat, cards, points = self._root()
        if k == 0:
            return self._boundary(seat, self.done, alpha, beta)
        return self._ply(seat, k, led, best, best_seat, cards, points, self.trick[0][0], self.done, alpha, beta, -1)

    def _after(self, card: int, alpha: int, beta: int) -> int:
        """The side's take after the seat to play plays ``card``."""
        seat, k, led, best, best_seat, cards, points = self._root()
        bit = BIT[card]
        self.hands[seat] ^= bit
        try:
            if k == 0:
                led, best, best_seat, leader = card // 13, card, seat, seat
            else:
                leader = self.trick[0][0]
                if self.beat[best] & bit:
                    best, best_seat = card, seat
            if k + 1 < self.n:
                return self._ply(self.nxt[seat], k + 1, led, best, best_seat, cards | bit, points + self.worth[card],
                                 leader, self.done, alpha, beta, -1)
            return self._trick_over(best_seat, cards | bit, points + self.worth[card], leader, self.done, alpha,
                                    beta)
        finally:
            self.hands[seat] ^= bit

    @cython.locals(count=cython.int, moves=cython.int[52])
    def _ordered(self, seat: int, k: int, led: int, best: int, best_seat: int) -> tuple[int, list[int]]:
        """The seat's legal cards (a mask) and the ones searched in their order (cards, not keys)."""
        if not cython.compiled:
            moves = [0] * 52
        hand = self.hands[seat]
        if k == 0:
            legal = hand
            count = self._leads(hand, -1, moves)
        else:
            legal = legal_mask(self.follow, hand, led, self.trump, self.over[best],
                               self.side_of[best_seat] == self.side_of[seat])
            count = self._follows(legal, best, best_seat, seat, k, led, moves)
        return legal, [moves[j] & 63 for j in range(count)]

    def _root_moves(self) -> list[tuple[int, list[int]]]:
        """The legal cards of the seat to play, by equivalent runs: (the one searched, all of them)."""
        seat, k, led, best, best_seat, _cards, _points = self._root()
        legal, searched = self._ordered(seat, k, led, best, best_seat)
        runs: dict[int, list[int]] = {c: [] for c in searched}
        tops = self._heads(legal)
        for card in cards_in(legal):
            runs[min(c for c in tops if c >= card)].append(card)  # its run's first card: the lowest above it
        return list(runs.items())

    def _estimate(self) -> int | None:
        """A first guess of the value: the side's take when every seat plays the card the ordering tries first
        (None while stock is left to draw)."""
        if self.nstock or self.total - self.done < GUESS_TRICKS:
            return None
        seat, k, led, best, best_seat, cards, points = self._root()
        return self._first_line(seat, k, led, best, best_seat, cards, points, self.trick[0][0] if k else seat)

    @cython.cfunc
    @cython.returns(cython.int)
    @cython.locals(seat=cython.int, k=cython.int, led=cython.int, best=cython.int, best_seat=cython.int,
                   cards=cython.ulonglong, points=cython.int, leader=cython.int, done=cython.int, j=cython.int,
                   s=cython.int, card=cython.int, gain=cython.int, hand=cython.ulonglong, legal=cython.ulonglong,
                   start_live=cython.ulonglong, saved=cython.ulonglong[8], one=cython.ulonglong, moves=cython.int[52])
    def _first_line(self, seat: int, k: int, led: int, best: int, best_seat: int, cards: int, points: int,
                    leader: int) -> int:
        """:meth:`_estimate`'s line from the position's trick (``seat`` plays its ``k``-th card), the hands and the
        live cards put back."""
        if not cython.compiled:
            saved, moves = [0] * 8, [0] * 52
        one = 1
        for s in range(self.n):
            saved[s] = self.hands[s]
        start_live, gain = self.live, 0
        for done in range(self.done, self.total):
            for j in range(k, self.n):
                hand = self.hands[seat]
                if j == 0:
                    self._leads(hand, -1, moves)
                    card = moves[0] & 63
                    led, best, best_seat = card // 13, card, seat
                else:
                    legal = self._legal(hand, led, best, best_seat, seat)
                    if legal & (legal - 1):
                        self._follows(legal, best, best_seat, seat, j, led, moves)
                        card = moves[0] & 63
                    else:
                        card = _high(legal)
                    if self.beat[best] >> card & 1:
                        best, best_seat = card, seat
                self.hands[seat] = hand ^ one << card
                cards |= one << card
                points += self.worth[card]
                seat = self.nxt[seat]
            if self.maxi[best_seat] and self.counts[done]:
                gain += points + (self.bonus if done == self.total - 1 else 0) if self.scored else 1
            self.live ^= cards
            leader = seat = self.nxt[leader] if self.lead_passes else best_seat
            k, cards, points = 0, 0, 0
        for s in range(self.n):
            self.hands[s] = saved[s]
        self.live = start_live
        return gain

    def _most(self) -> int:
        """The most the side can take from the position: the points left, or the counted tricks left."""
        return self.points_left if self.scored else self.tricks_left[self.done]


@cython.locals(mask=cython.ulonglong, out=cython.ulonglong, card=cython.int, one=cython.ulonglong)
def _inner_mask(inner: tuple[int, ...], mask: int) -> int:
    """``mask`` (cards in the game's numbering) in the search's numbering ``inner``."""
    one = 1
    out = 0
    while mask:
        card = _high(mask)
        out |= one << inner[card]
        mask ^= one << card
    return out
