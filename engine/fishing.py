"""Fishing games (Tablanette, Tablić): capture values, capture sets, and the deal they share.

A capture is a set of table cards taken by a played card P. For a value ``v`` of P (an ace is 1 or 11), a *group*
is a single table card of P's rank, or 2+ table cards whose values (each ace 1 or 11) add up to ``v``. A capture is
the union of pairwise-disjoint groups for one ``v``. Tablanette (and Tablić with ``capture_compulsory``) allows only
maximal unions and forbids trailing a card that can capture; Tablić by default allows any union and any trail.

>>> from engine.cards import parse_card, parse_cards, mask_of, format_cards, cards_in
>>> rules = CaptureRules(jack_takes_all=True, max_sum_cards=3, compulsory=True)
>>> table = mask_of(parse_cards(["2C", "3D", "5H", "9S"]))
>>> sorted(format_cards(cards_in(m)) for m in capture_sets(parse_card("KC"), table, rules))
['2C,3D,9S', '5H,9S']
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar, cast

from .cards import BIT, CARD_OF_CODE, CODES, RANK, RANK_MASK, STRING_RANK, cards_in, format_cards, mask_of, parse_card
from .clone import LIST, SHARED, Copier, field_copy
from .dealing import deal_round, seats_from
from .determinize import Slot, in_deck_order, redeal, relabel_mask, relabeling
from .errors import ActionLimitExceeded, IllegalAction, PositionError
from .phases import Loading, Phase
from .rng import Rng
from .state import State, position_seat
from .tricks import check_cards_once, position_cards

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

ACE, TEN, JACK, QUEEN, KING = 12, 8, 9, 10, 11
ACE_VALUES = (1, 11)

# Card points at the end of a deal, the same in both games (tablanette.md §2.2, tablic.md §2.2): 22 in the pack.
CARD_POINTS: tuple[int, ...] = tuple(
    2 if CODES[c] == "TD" else 1 if RANK[c] in (TEN, JACK, QUEEN, KING, ACE) or CODES[c] == "2C" else 0
    for c in range(52)
)
MOST_CARDS_BONUS = 3
# The most decisions a deal takes: 48 cards played, each table card taken once (52), a ``next`` at most per card
# taken and a ``done`` per card played.
DECISIONS_PER_DEAL = 48 + 52 + 52 + 48
MAX_VALUE = 14  # the king; no played card is worth more
# The most cards a sum group can hold: four aces and four twos add up to 12, a ninth card passes a king's 14. A
# larger max_sum_cards limits nothing more (the option's maximum: its work grows with it).
MAX_GROUP_CARDS = 8
# Tablić lets a player take any union of disjoint groups, so a table that grew over many trails offers exponentially
# many captures (about 8,000 for six cards on an 18-card table). Past this many for one card the engine refuses.
MAX_CAPTURE_CHOICES = 50_000
# The most whole turns of one card that ``turn_choices()`` lists for a person; past it the card is offered as its
# steps (a menu of hundreds of captures is no help, and finding tens of thousands takes seconds). Random Tablić play
# passes it for one card in 180 (one turn in 70, measured over 300 deals).
MAX_TURNS_LISTED = 100
JACKS_MASK = sum(1 << c for c in range(52) if RANK[c] == JACK)
# A card's smallest capture value (ace 1, jack 12 where it has a value); a valueless jack never reaches a sum group.
LOW_VALUE: tuple[int, ...] = tuple(1 if RANK[c] == ACE else 12 if RANK[c] == JACK else (RANK[c] + 2 if RANK[c] < JACK
                                   else RANK[c] + 3) for c in range(52))


def capture_value(rank: int, jack_value: int | None) -> tuple[int, ...]:
    """The values a card of ``rank`` may take when capturing: (1, 11) for an ace, () for a valueless jack."""
    if rank == ACE:
        return ACE_VALUES
    if rank == JACK:
        return () if jack_value is None else (jack_value,)
    return (rank + 2,) if rank < JACK else (rank + 3,)  # 2..T face value; Q 13, K 14


class CaptureRules(NamedTuple):
    """How a game captures: ``jack_takes_all`` (Tablanette's special jack), group size limit, compulsory capture.

    A named tuple: it is part of the keys of the engine's caches of what a table offers, and hashes fast.
    """

    jack_takes_all: bool
    max_sum_cards: int  # 0 = unlimited
    compulsory: bool

    @property
    def jack_value(self) -> int | None:
        return None if self.jack_takes_all else 12


class TableGroups:
    """Every group the table offers, computed once per turn for all the cards a player could play.

    ``by_rank[r]``: single table cards of rank r (rank matches); ``by_sum[v]``: sets of 2+ table cards that can add up
    to v (each ace 1 or 11), at most ``rules.max_sum_cards`` of them.
    """

    __slots__ = ("by_rank", "by_sum", "open_mask")

    def __init__(self, table_mask: int, rules: CaptureRules) -> None:
        jack_value = rules.jack_value
        if jack_value is None:
            table_mask &= ~JACKS_MASK
        cards = cards_in(table_mask)
        self.open_mask = table_mask
        self.by_rank: dict[int, list[int]] = {}
        for c in cards:
            self.by_rank.setdefault(RANK[c], []).append(BIT[c])
        self.by_sum: dict[int, list[int]] = {}
        _extend_sums(self.by_sum, cards, [LOW_VALUE[c] for c in cards], rules.max_sum_cards or len(cards), 0, 0, 0,
                     0, 0)

    def groups(self, played: int, v: int) -> list[int]:
        return self.by_rank.get(RANK[played], []) + self.by_sum.get(v, [])


@cython.cfunc
@cython.locals(limit=cython.int, start=cython.int, mask=cython.ulonglong, size=cython.int, low=cython.int,
               aces=cython.int, i=cython.int, total=cython.int, card=cython.int, v=cython.int, top=cython.int,
               one=cython.ulonglong)
def _extend_sums(by_sum: dict[int, list[int]], cards: list[int], lows: list[int], limit: int, start: int, mask: int,
                 size: int, low: int, aces: int) -> None:
    """Add to ``by_sum`` every set of 2 to ``limit`` of ``cards`` (from index ``start`` on, joined to ``mask``) under
    each value it can add up to (compiled: C integers). A module function, not a closure: a recursive closure is a
    reference cycle that only the garbage collector frees, on every turn."""
    if size >= 2:
        top = min(low + 10 * aces, MAX_VALUE)
        v = low
        while v <= top:
            by_sum.setdefault(v, []).append(mask)
            v += 10
    if size == limit:
        return
    one = 1
    for i in range(start, len(cards)):
        total = low + lows[i]
        if total <= MAX_VALUE:
            card = cards[i]
            _extend_sums(by_sum, cards, lows, limit, i + 1, mask | one << card, size + 1, total,
                         aces + (card % 13 == ACE))


def _maximal_unions(groups: list[int], limit: int = MAX_CAPTURE_CHOICES) -> set[int]:
    """Unions of every maximal set of pairwise-disjoint groups (tablanette.md §5.4)."""
    unions: set[int] = set()
    _pick_unions(groups, limit, unions, MAX_CAPTURE_CHOICES * 20, 0, 0)
    return unions


@cython.cfunc
@cython.exceptval(-1)
@cython.returns(cython.longlong)
@cython.locals(limit=cython.int, budget=cython.longlong, i=cython.int, used=cython.ulonglong, g=cython.ulonglong,
               j=cython.int, n=cython.int)
def _pick_unions(groups: list[int], limit: int, unions: set[int], budget: int, i: int, used: int) -> int:
    """:func:`_maximal_unions` from group ``i`` on, ``used`` the union so far, ``budget`` the calls it may still make
    (returned less those it made); compiled, C integers (a module function: see :func:`_extend_sums`)."""
    budget -= 1
    if budget < 0:
        _too_many(len(groups), MAX_CAPTURE_CHOICES)
    n = len(groups)
    if i == n:
        for j in range(n):
            g = groups[j]
            if not g & used:
                return budget
        unions.add(used)
        if len(unions) > limit:
            _too_many(n, limit)
        return budget
    g = groups[i]
    if not g & used:
        budget = _pick_unions(groups, limit, unions, budget, i + 1, used | g)
    return _pick_unions(groups, limit, unions, budget, i + 1, used)


def _all_unions(groups: list[int], limit: int = MAX_CAPTURE_CHOICES) -> set[int]:
    """Unions of every non-empty set of pairwise-disjoint groups (tablic.md §5.4)."""
    reach = {0}
    for g in groups:
        reach |= {u | g for u in reach if not u & g}
        if len(reach) > limit:
            _too_many(len(groups), limit)
    reach.discard(0)
    return reach


def _too_many(group_count: int, limit: int) -> None:
    raise ActionLimitExceeded(
        f"the table offers {group_count} capture groups whose disjoint unions exceed {limit:,} "
        "capture choices for one card; cardtable does not list that many legal actions"
    )


def capture_sets(played: int, table_mask: int, rules: CaptureRules, table: TableGroups | None = None,
                 limit: int = MAX_CAPTURE_CHOICES) -> set[int]:
    """Every legal capture of ``played`` on the table, as masks; 0 stands for trailing the card.
    ActionLimitExceeded past ``limit`` of them (for one of the card's values)."""
    if rules.jack_takes_all and RANK[played] == JACK:
        return {table_mask}  # §5.6: a jack takes the whole table, or trails to an empty one
    table = table or TableGroups(table_mask, rules)
    unions: set[int] = set()
    for v in capture_value(RANK[played], rules.jack_value):
        groups = table.groups(played, v)
        if groups:
            unions |= _maximal_unions(groups, limit) if rules.compulsory else _all_unions(groups, limit)
    if not unions or not rules.compulsory:
        unions.add(0)
    return unions


def _listed_captures(played: int, table: int, rules: CaptureRules, groups: TableGroups) -> tuple[int, ...] | None:
    """The captures of ``played`` (0: its trail) that ``turn_choices`` lists as whole turns, or None past
    ``MAX_TURNS_LISTED`` of them (the card is then offered as its steps)."""
    try:
        captures = capture_sets(played, table, rules, groups, MAX_TURNS_LISTED + 1)  # (+1: the trail)
    except ActionLimitExceeded:
        return None
    return None if len(captures - {0}) > MAX_TURNS_LISTED else tuple(captures)


def split_action(action: int) -> tuple[int, int]:
    return action & 63, action >> 6


# ---- a turn as a short sequence of decisions ------------------------------------------------------------------------
#
# Listing every capture as its own action is exponential in Tablić (tablic.md §5.4 lets a player take any union of
# disjoint groups), so a turn is decided step by step, and every step has at most a table's worth of choices:
#
#   ``7H``      trail 7H (a whole turn);      ``JS:5C,JD,7H`` Tablanette's jack takes the table (a whole turn, §5.6);
#   ``7H:``     play 7H to capture; then, one table card at a time, the groups (§5.3) it takes:
#   ``+3C``     take 3C into the group being built (a group's cards go in canonical order; a group that is complete
#               and cannot grow closes by itself);
#   ``next``    close the group being built, complete but able to grow (an ace's 1 or 11), and build another one;
#   ``done``    end the capture (closing a complete group being built), when the rules let the capture stop here.
#
# The turn ends by itself when no further group can be taken. The captures reachable this way are exactly the rules'
# capture sets (any union of disjoint groups for one value of the played card; in Tablanette, and in Tablić with
# ``capture_compulsory``, only maximal ones), and every step leads to one: no dead ends. ``apply("7H:3C,4D")`` and
# :meth:`FishingState.action_ids` still take a whole turn in the rules' notation and play its decisions.

BEGIN, TAKE, NEXT, DONE = 1 << 58, 1 << 59, 1 << 60, 1 << 61
DECISION_BITS = BEGIN | TAKE | NEXT | DONE
SUM_BITS = (1 << (MAX_VALUE + 1)) - 1  # sums above a king's 14 capture nothing
# A card's capture values as a bit set (bit v), with the jack worth 12 (Tablanette's special jack never gets here).
VALUE_BITS: tuple[int, ...] = tuple(sum(1 << v for v in capture_value(RANK[c], 12)) for c in range(52))
_VALUES_12: tuple[tuple[int, ...], ...] = tuple(capture_value(RANK[c], 12) for c in range(52))
ACE_HIGH: tuple[int, ...] = tuple(ACE_VALUES[1] if RANK[c] == ACE else 0 for c in range(52))  # an ace's second value
# The cards worth less than v at their lowest, for each v (an ace 1): those that can be in a sum group for v.
_VALUED_BELOW: tuple[int, ...] = tuple(sum(BIT[c] for c in range(52) if LOW_VALUE[c] < v) for v in range(MAX_VALUE + 1))

# A turn in progress: the card played, the values it may still take (bits), the cards of the closed groups and the
# cards of the group being built (masks).
Turn = tuple[int, int, int, int]


# ---- C integers when compiled ---------------------------------------------------------------------------------------

_SMALL_LIMIT = 3  # the largest group size limit whose sums by size (limit + 1 lanes of LANE bits) fit 64 bits
_LANE = cython.declare(cython.int, MAX_VALUE + 1)  # LANE
_SUMS = cython.declare(cython.ulonglong, SUM_BITS)
_RANKS4 = cython.declare(cython.ulonglong, RANK_MASK)
_JACKS = cython.declare(cython.ulonglong, JACKS_MASK)
_ACE = cython.declare(cython.int, ACE)
_ACE_HIGH = cython.declare(cython.int, ACE_VALUES[1])
# LOW_VALUE by rank, 4 bits each (rank r at bits 4r), and the 13 ranks in string order ("2C" < ... < "9S" < "AC" <
# "JC" < "KC" < "QC" < "TC"), 4 bits each: C integers where tuples would be Python objects.
_LOW_BY_RANK = cython.declare(cython.ulonglong, sum(LOW_VALUE[r] << 4 * r for r in range(13)))
_STRING_RANKS = cython.declare(cython.ulonglong, sum(r << 4 * i for i, r in enumerate(
    sorted(range(13), key=STRING_RANK.__getitem__))))


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

_ONE = cython.declare(cython.ulonglong, 1)
_GROUP_CARDS = cython.declare(cython.ulonglong, (1 << 52) - 1)  # a kept group's cards and values (Groups)
_LOW_GROUP = cython.declare(cython.ulonglong, 1 << 52)
_HIGH_GROUP = cython.declare(cython.ulonglong, 1 << 53)
_BEGIN = cython.declare(cython.ulonglong, BEGIN)
_DECISION = cython.declare(cython.ulonglong, DECISION_BITS)
_TAKE = cython.declare(cython.ulonglong, TAKE)
_NEXT = cython.declare(cython.ulonglong, NEXT)
_DONE = cython.declare(cython.ulonglong, DONE)
# The 13 ranks by their smallest capture value (LOW_VALUE: A 2 .. T J Q K), 4 bits each.
_VALUE_RANKS = cython.declare(cython.ulonglong, sum(r << 4 * i for i, r in enumerate(
    sorted(range(13), key=LOW_VALUE.__getitem__))))


def _shifted(sums: int, card: int) -> int:
    """The sums (bits) ``sums`` with ``card`` added (its values: an ace 1 or 11, a jack 12)."""
    return _shift(sums, card)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(sums=cython.ulonglong, card=cython.int, rank=cython.int, out=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _shift(sums: int, card: int) -> int:
    """``_shifted`` in C integers when compiled."""
    rank = card % 13
    out = sums << (_LOW_BY_RANK >> (4 * rank) & 15)
    if rank == _ACE:
        out |= sums << _ACE_HIGH
    return out & _SUMS

# What a table offers depends on nothing but its cards: a search meets the same tables again and again.
_CACHE_SIZE = 100_000  # entries per cache (a few MB); a full cache starts again empty


K = TypeVar("K")
V = TypeVar("V")


def _remember(cache: dict[K, V], key: K, value: V) -> V:
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


def _subset_reach(mask: int, limit: int) -> Sequence[int]:
    """The sums of the subsets of ``mask`` by size: ``[k]`` the sums (bits) of k cards, k = 0..limit; with no limit,
    (1, the sums of one card, of two or more)."""
    reach = _offers_with(NO_OFFERS, mask, limit)[3]
    return tuple(reach >> LANE * k & SUM_BITS for k in range(limit + 1 if limit else 3))


def _fit(values: int, rank_match: bool, size: int, sums: int, reach: Sequence[int], limit: int) -> tuple[int, int]:
    """For a group of ``size`` cards whose sums are ``sums``: the values (bits) for which it is a group as it is,
    and those for which adding cards from ``reach`` makes it one."""
    if size == 1:
        complete = values if rank_match else 0
    elif not limit or size <= limit:
        complete = sums & values
    else:
        complete = 0
    grown = 0
    for k in range(1, len(reach)):
        if reach[k] and not (limit and size + k > limit):
            rest = sums
            while rest:
                low = rest & -rest
                grown |= reach[k] << (low.bit_length() - 1)
                rest ^= low
    return complete, grown & values


def _sums_of(mask: int) -> int:
    sums = 1
    for card in cards_in(mask):
        sums = _shifted(sums, card)
    return sums


def group_values(played: int, mask: int, rules: CaptureRules) -> int:
    """The values (bits) of ``played`` for which some group lies within the table cards ``mask``."""
    reach = _subset_reach(mask, rules.max_sum_cards)
    sums = 0
    for k in range(2, len(reach)):
        sums |= reach[k]
    ranked = any(RANK[c] == RANK[played] for c in cards_in(mask))
    return (VALUE_BITS[played] if ranked else 0) | (sums & VALUE_BITS[played])


@cython.cfunc
@cython.locals(mask=cython.ulonglong, v=cython.int, rank=cython.int, limit=cython.int, low=cython.ulonglong,
               rest=cython.ulonglong, first=cython.int)
def _partitions(mask: int, v: int, rank: int, limit: int) -> bool:
    """Whether the cards of ``mask`` split into disjoint groups for value ``v`` of a played card of ``rank``."""
    if not mask:
        return True
    low = mask & (~mask + 1)
    first, rest = _high(low), mask ^ low
    if first % 13 == rank and _partitions(rest, v, rank, limit):
        return True
    return _grow(rest, rest, v, rank, limit, 0, _shift(1, first), 1)


@cython.cfunc
@cython.locals(others=cython.ulonglong, rest=cython.ulonglong, v=cython.int, rank=cython.int, limit=cython.int,
               chosen=cython.ulonglong, sums=cython.ulonglong, size=cython.int, low=cython.ulonglong,
               more=cython.ulonglong)
def _grow(others: int, rest: int, v: int, rank: int, limit: int, chosen: int, sums: int, size: int) -> bool:
    """``_partitions``' search for the group of the lowest card: grown by the cards of ``others`` (so far ``size``
    cards, ``chosen`` of ``rest`` and the sums ``sums`` they make), lowest first, until it makes ``v`` and the rest of
    ``rest`` splits too. (A function of its own, not a closure that calls itself: that would be a reference cycle,
    left to the garbage collector at every call.)"""
    if size >= 2 and sums >> v & 1 and _partitions(rest & ~chosen, v, rank, limit):
        return True
    if limit and size == limit:
        return False
    while others:
        low = others & (~others + 1)
        others ^= low
        more = _shift(sums, _high(low))
        if more and _grow(others, rest, v, rank, limit, chosen | low, more, size + 1):
            return True
    return False


def turn_values(played: int, taken: int, rules: CaptureRules) -> int:
    """The values (bits) of ``played`` for which the cards ``taken`` split into groups: an ace's 1 or 11 is decided
    only by what it takes."""
    return _turn_values(played, taken, rules.max_sum_cards)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(played=cython.int, rank=cython.int)
@cython.returns(cython.ulonglong)
def _values_of(played: int) -> int:
    """VALUE_BITS[played] from the packed constants (C integers when compiled)."""
    rank = played % 13
    if rank == _ACE:
        return _ONE << 1 | _ONE << _ACE_HIGH
    return _ONE << (_LOW_BY_RANK >> (4 * rank) & 15)


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(played=cython.int, taken=cython.ulonglong, limit=cython.int, rank=cython.int, found=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _turn_values(played: int, taken: int, limit: int) -> int:
    """:func:`turn_values` with the group size limit, in C integers when compiled (VALUE_BITS from the packed
    constants: a jack 12)."""
    rank = played % 13
    if rank != _ACE:
        return _ONE << (_LOW_BY_RANK >> (4 * rank) & 15)
    found = 0
    if _partitions(taken, 1, rank, limit):
        found |= _ONE << 1
    if _partitions(taken, _ACE_HIGH, rank, limit):
        found |= _ONE << _ACE_HIGH
    return found


def start_turn(played: int) -> Turn:
    return (played, VALUE_BITS[played], 0, 0)


# The groups a played card can take from a table (``turn_groups``), one integer each: the group's cards (a mask, bits
# 0-51), and at bit 52 (53) whether it is a group for the played card's first (second) value of ``capture_value``: an
# ace's 1 (11), any other card's one value. One integer, not a (mask, values) tuple: compiled, one unboxing per group
# read and one allocation per group found.
Groups = tuple[int, ...]
# What a table offers the cards played to it: (the capturable table cards, the cards (a mask) that capture something
# there, the sums (bits) of the table's sum groups, the sums by size of the table's subsets to add a trail to). The
# sums by size are lanes of LANE bits: lane k the sums of k cards, k = 0..limit; with no limit, lane 2 those of two
# cards or more.
Offers = tuple[int, int, int, int]
LANE = MAX_VALUE + 1

_OPTIONS: dict[tuple[Turn, int, CaptureRules], list[int]] = {}
_STEPS: dict[tuple[Turn, int, int, CaptureRules], tuple[Turn, bool]] = {}
_GROUPS: dict[tuple[int, int, int], Groups] = {}


def turn_options(turn: Turn, table: int, rules: CaptureRules) -> list[int]:
    """The decisions of a turn in progress on the capturable table cards ``table``, in string order (a list shared
    by every caller: never change it)."""
    found = _OPTIONS.get((turn, table, rules))
    if found is None:
        groups = _known_groups(table, turn[0], rules.max_sum_cards)
        found = _remember(_OPTIONS, (turn, table, rules), _turn_options(turn, table, rules, groups))
    return found


def turn_step(turn: Turn, decision: int, table: int, rules: CaptureRules) -> tuple[Turn, bool]:
    """The turn after a legal ``decision``, and whether it ended (its capture is then ``turn[2]``)."""
    found = _STEPS.get((turn, decision, table, rules))
    if found is None:
        groups = _known_groups(table, turn[0], rules.max_sum_cards)
        found = _remember(_STEPS, (turn, decision, table, rules), _turn_step(turn, decision, table, rules, groups))
    return found


def _known_groups(table: int, played: int, limit: int) -> Groups:
    """``turn_groups``, remembered: a search meets the same tables again and again."""
    key = (table, RANK[played], limit)
    found = _GROUPS.get(key)
    if found is None:
        found = _remember(_GROUPS, key, turn_groups(table, played, limit))
    return found


def turn_groups(table: int, played: int, limit: int, sums: int = SUM_BITS) -> Groups:
    """Every group (§5.3) that ``played`` can take from the capturable ``table`` cards, with the values (bits) of
    ``played`` it is a group for: found once per capture, each step of it then only filters them. ``sums``: the
    sums of the table's sum groups if known (none of the played card's values among them: no sum group to look for).
    Compiled, the masks are C integers.
    """
    return _turn_groups(table, played, limit, sums)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(group=cython.ulonglong, values=cython.ulonglong, low=cython.ulonglong, found=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _group_values(group: int, values: int) -> int:
    """The values (bits) of the played card, whose values are ``values``, that a kept group (``Groups``) is for."""
    low = values & (~values + 1)
    found = 0
    if group >> 52 & 1:
        found = low
    if group >> 53 & 1:
        found |= values ^ low
    return found


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(values=cython.ulonglong, low=cython.ulonglong, found=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _group_flags(values: int, found: int) -> int:
    """The bits 52-53 of a kept group (``Groups``) for the values ``found`` of a played card whose values are
    ``values``."""
    low = values & (~values + 1)
    return (_LOW_GROUP if found & low else 0) | (_HIGH_GROUP if found & (values ^ low) else 0)


@cython.cfunc
@cython.locals(table=cython.ulonglong, played=cython.int, limit=cython.int, sums=cython.ulonglong,
               values=cython.ulonglong, top=cython.int, within=cython.ulonglong, rest=cython.ulonglong,
               low=cython.ulonglong, order=cython.ulonglong, last=cython.int, i=cython.int, r=cython.int,
               card=cython.int)
def _turn_groups(table: int, played: int, limit: int, sums: int) -> Groups:
    values = VALUE_BITS[played]
    top = _high(values)
    within = (_ONE << (top + 1)) - 1  # a sum past the played card's highest value never comes back
    groups: list[int] = []
    rest = table & _RANKS4 << (played % 13)
    while rest:
        low = rest & (~rest + 1)
        rest ^= low
        groups.append(low | _group_flags(values, values))
    rest = table & _VALUED_BELOW[top]  # another card adds at least 1
    if not rest & (rest - 1) or not sums & values:
        return tuple(groups)
    last = limit - 1 if limit else _count(rest)  # the most cards a subset may hold and still grow
    if not last:
        return tuple(groups)
    # The cards by lowest value (ranks A 2 .. K, each rank's cards in order) as bit 4 i + suit for the i-th rank: a
    # subset that a card takes past the highest value is past it with every later card.
    order = 0
    for i in range(13):
        r = _VALUE_RANKS >> (4 * i) & 15
        for card in range(r, 52, 13):
            if rest >> card & 1:
                order |= _ONE << (4 * i + card // 13)
    _sum_groups(groups, order, 0, 1, 0, last, values, within)
    return tuple(groups)


@cython.cfunc
@cython.locals(order=cython.ulonglong, mask=cython.ulonglong, reached=cython.ulonglong, size=cython.int,
               last=cython.int, values=cython.ulonglong, within=cython.ulonglong, low=cython.ulonglong,
               more=cython.ulonglong, bit=cython.ulonglong, at=cython.int, rank=cython.int, value=cython.int)
def _sum_groups(groups: list[int], order: int, mask: int, reached: int, size: int, last: int, values: int,
                within: int) -> None:
    """``_turn_groups``' sum groups: the subset ``mask`` of ``size`` cards, whose sums are ``reached``, grown by each
    card of ``order`` (see there) in turn, while it can still grow: a group where the sums meet ``values``."""
    while order:
        low = order & (~order + 1)
        order ^= low
        at = _high(low)
        rank = _VALUE_RANKS >> (4 * (at >> 2)) & 15
        bit = _ONE << (rank + 13 * (at & 3))
        value = _LOW_BY_RANK >> (4 * rank) & 15
        more = reached << value
        if rank == _ACE:
            more |= reached << _ACE_HIGH
        more &= within
        if not more:
            return  # every later card is worth as much or more
        if size and more & values:
            groups.append(mask | bit | _group_flags(values, more))
        if size < last:
            _sum_groups(groups, order, mask | bit, more, size + 1, last, values, within)


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


@cython.cfunc
@cython.locals(played=cython.int, values=cython.ulonglong, taken=cython.ulonglong, group=cython.ulonglong,
               table=cython.ulonglong, free=cython.ulonglong, below=cython.ulonglong, takes=cython.ulonglong,
               left=cython.ulonglong, complete=cython.ulonglong, g=cython.ulonglong, bits=cython.ulonglong,
               rest=cython.ulonglong, i=cython.int, r=cython.int, c=cython.int, kept=cython.ulonglong,
               full=cython.ulonglong)
def _turn_options(turn: Turn, table: int, rules: CaptureRules, groups: Groups) -> list[int]:
    """The decisions of ``turn`` in string order: the cards to take ("+3C"), then ``done``, then ``next``. Compiled,
    the masks are C integers."""
    played, values, taken, group = turn
    free = table & ~taken & ~group
    below = (_ONE << (_high(group) + 1)) - 1 if group else 0
    takes = left = complete = 0
    full = _values_of(played)
    for kept in groups:
        g = kept & _GROUP_CARDS
        bits = _group_values(kept, full)
        if g & taken:
            continue
        if not g & ~free:
            left |= bits
        elif g == group:
            complete = bits
        if bits & values and g & below == group and g != group:
            rest = g & ~below
            takes |= rest & (~rest + 1)
    options = []
    if takes & (takes - 1):
        for i in range(13):  # string order
            r = _STRING_RANKS >> (4 * i) & 15
            if takes >> r & _RANKS4:
                for c in range(r, 52, 13):
                    if takes >> c & 1:
                        options.append(_TAKE | c)
    elif takes:
        options.append(_TAKE | _high(takes))
    if group:
        if not complete & values:
            return options
        values = _turn_values(played, taken | group, cython.cast(tuple, rules)[1])
    if (group or taken) and (not rules.compulsory or values & ~left):
        options.append(_DONE)
    if group and values & left:
        options.append(_NEXT)
    return options


@cython.cfunc
@cython.locals(played=cython.int, values=cython.ulonglong, taken=cython.ulonglong, group=cython.ulonglong,
               decision=cython.ulonglong, table=cython.ulonglong, card=cython.int, below=cython.ulonglong,
               free=cython.ulonglong, complete=cython.ulonglong, left=cython.ulonglong, g=cython.ulonglong,
               bits=cython.ulonglong, kept=cython.ulonglong, full=cython.ulonglong)
def _turn_step(turn: Turn, decision: int, table: int, rules: CaptureRules, groups: Groups) -> tuple[Turn, bool]:
    played, values, taken, group = turn
    if decision & (_NEXT | _DONE):
        if group:
            taken |= group
            values = _turn_values(played, taken, cython.cast(tuple, rules)[1])
        return (played, values, taken, 0), bool(decision & _DONE)
    card = decision & 63
    group |= _ONE << card
    below = (_ONE << (card + 1)) - 1
    free = table & ~taken & ~group  # the table left if the group closes now
    complete = left = 0
    full = _values_of(played)
    for kept in groups:
        g = kept & _GROUP_CARDS
        bits = _group_values(kept, full)
        if g == group:
            complete = bits
        elif not g & ~free:
            left |= bits
        elif bits & values and not g & taken and g & below == group:
            return (played, values, taken, group), False  # the group can still grow
    if not complete & values:
        return (played, values, taken, group), False
    taken |= group
    values = _turn_values(played, taken, cython.cast(tuple, rules)[1])
    return (played, values, taken, 0), not values & left


def _offers_with(offers: Offers, added: int, limit: int) -> Offers:
    """What the table of ``offers`` offers with the cards ``added``: each card's values shift the sums by size."""
    if limit <= _SMALL_LIMIT:
        return _small_offers(offers[0], added, offers[3], limit)
    table, _, _, reach = offers
    table |= added
    lanes, fit, again, folds = _LANES.get(limit) or _lanes(limit)
    while added:
        low = added & -added
        added ^= low
        card = low.bit_length() - 1
        value, ace = LOW_VALUE[card], ACE_HIGH[card]
        grown = (reach & fit[value]) << (LANE + value)
        if ace:
            grown |= (reach & fit[ace]) << (LANE + ace)
        if again:
            grown |= (reach & again[value]) << value | ((reach & again[ace]) << ace if ace else 0)
        reach |= grown & lanes
    sums = reach >> 2 * LANE  # the sums of two cards or more
    for fold in folds:
        sums |= sums >> fold
    sums &= SUM_BITS
    return table, _capturing(table, sums), sums, reach


@cython.cfunc
@cython.exceptval(check=False)
@cython.locals(added=cython.ulonglong, reach=cython.ulonglong, limit=cython.int, ones=cython.ulonglong,
               lanes=cython.ulonglong, grown=cython.ulonglong, rank=cython.int, value=cython.int, ace=cython.int,
               count=cython.int, _k=cython.int, copies=cython.int)
@cython.returns(cython.ulonglong)
def _small_reach(added: int, reach: int, limit: int) -> int:
    """The sums by size ``reach`` (see ``Offers``) with the cards ``added``, for a group size limit up to
    ``_SMALL_LIMIT`` (or none: lanes 0, 1 and 2+), whose lanes fit 64 bits: C integers when compiled."""
    count = limit + 1 if limit else 3
    ones = 1
    for _k in range(1, count):
        ones = ones << _LANE | 1
    lanes = ones * _SUMS
    for rank in range(13):  # rank by rank (the cards' order changes nothing): no search for each card's rank
        copies = _count(added >> rank & _RANKS4)
        if not copies:
            continue
        value = _LOW_BY_RANK >> (4 * rank) & 15
        while copies:
            copies -= 1
            grown = (reach & (_SUMS >> value) * ones) << (_LANE + value)
            if rank == _ACE:
                ace = _ACE_HIGH
                grown |= (reach & (_SUMS >> ace) * ones) << (_LANE + ace)
                if not limit:
                    grown |= (reach & (_SUMS >> ace) << 2 * _LANE) << ace
            if not limit:
                grown |= (reach & (_SUMS >> value) << 2 * _LANE) << value
            reach |= grown & lanes
    return reach


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(reach=cython.ulonglong, limit=cython.int, sums=cython.ulonglong, k=cython.int)
@cython.returns(cython.ulonglong)
def _small_sums(reach: int, limit: int) -> int:
    """The sums (bits) of two cards or more in ``_small_reach``'s lanes."""
    sums = 0
    for k in range(2, limit + 1 if limit else 3):
        sums |= reach >> (_LANE * k)
    return sums & _SUMS


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(table=cython.ulonglong, sums=cython.ulonglong, ranks=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _capturing(table: int, sums: int) -> int:
    """The cards that capture on ``table`` whose sum groups make ``sums``: the ranks on the table, and those of the
    values of sums (2..10, then J Q K; an ace 1 or 11)."""
    ranks = ((table | table >> 13 | table >> 26 | table >> 39) & 0x1FFF | sums >> 2 & 0x1FF | sums >> 3 & 0xE00
             | ((sums >> 1 | sums >> 11) & 1) << _ACE)
    return ranks * _RANKS4


@cython.cfunc
@cython.locals(table=cython.ulonglong, added=cython.ulonglong, reach=cython.ulonglong, limit=cython.int,
               sums=cython.ulonglong)
def _small_offers(table: int, added: int, reach: int, limit: int) -> Offers:
    """``_offers_with`` for a group size limit up to ``_SMALL_LIMIT`` (or none)."""
    reach = _small_reach(added, reach, limit)
    table |= added
    sums = _small_sums(reach, limit)
    return table, _capturing(table, sums), sums, reach


_LANES: dict[int, tuple[int, tuple[int, ...], tuple[int, ...] | None, tuple[int, ...]]] = {}


def _lanes(limit: int) -> tuple[int, tuple[int, ...], tuple[int, ...] | None, tuple[int, ...]]:
    """The lanes of the sums by size for a group size ``limit``: their mask; for each value v the sums of each lane
    that stay within a king's 14 with v added, moving to the next lane, and (with no limit) those of the lane of two
    cards or more, staying in it; and the shifts that fold the lanes of two cards or more into one."""
    found = _LANES.get(limit)
    if found is None:
        count = limit + 1 if limit else 3
        lanes = sum(SUM_BITS << LANE * k for k in range(count))
        fit = tuple(sum(SUM_BITS >> v << LANE * k for k in range(count)) for v in range(LANE))
        again = None if limit else tuple(SUM_BITS >> v << LANE * 2 for v in range(LANE))
        folds: list[int] = []
        while LANE << len(folds) < LANE * (count - 2):
            folds.append(LANE << len(folds))
        found = _LANES[limit] = (lanes, fit, again, tuple(folds))
    return found


@cython.cfunc
@cython.locals(hand=cython.ulonglong, capturing=cython.ulonglong, jacks=cython.ulonglong, table=cython.ulonglong,
               takes_all=cython.ulonglong, begin=cython.ulonglong, c=cython.int, i=cython.int, r=cython.int,
               compulsory=cython.bint, jack_takes_all=cython.bint)
def _between_turns(hand: int, capturing: int, compulsory: bool, jack_takes_all: bool, table: int) -> list[int]:
    """The actions between turns of a seat holding ``hand``, in string order: each card's trail, start of a capture
    (the cards of ``capturing``) or (Tablanette's special jack) taking the whole ``table``. Compiled, the masks are C
    integers."""
    actions = []
    begin = BEGIN
    jacks = hand & _JACKS if compulsory and jack_takes_all else 0
    takes_all = table << 6  # §5.6: a jack takes the whole table, or trails to an empty one
    for i in range(13):
        r = _STRING_RANKS >> (4 * i) & 15
        if not hand >> r & _RANKS4:
            continue
        for c in range(r, 52, 13):  # the suits in string order (C D H S)
            if not hand >> c & 1:
                continue
            if jacks >> c & 1:
                actions.append(c | takes_all)
            elif compulsory:
                actions.append(begin | c if capturing >> c & 1 else c)
            else:  # Tablić: a card that captures may also trail (§5.4); no special jacks
                actions.append(c)
                if capturing >> c & 1:
                    actions.append(begin | c)
    return actions


NO_OFFERS: Offers = (0, 0, 0, 1)  # an empty table: the empty set's sum 0
# What each table offers, by its cards | the group size limit << 52.
_TABLE_OFFERS: dict[int, Offers] = {}


@cython.cfunc
def _table_offers(offers: Offers, table: int, limit: int) -> Offers:
    """What ``table`` offers, from ``offers`` found for another table: a trail adds a card to it, anything else finds
    it again (or in _TABLE_OFFERS: random play meets most small tables again within a few thousand deals)."""
    if offers[0] & ~table:
        offers = NO_OFFERS
    key = table | limit << 52
    found = _TABLE_OFFERS.get(key)
    if found is None:
        found = _remember(_TABLE_OFFERS, key, _offers_with(offers, table & ~offers[0], limit))
    return found


_FISHING_FIELDS = (
    "current_player", "phase", "moves", "_legal", "n_players", "dealer", "hands", "table", "stock", "captured",
    "last_capturer", "turn", "capture_rules", "_groups",
)


@cython.cclass
class FishingCore:
    """What a fishing game's moves read and write at every move, as fixed fields of a C struct in the compiled build
    (a fishing game's base beside :class:`engine.state.State`, as :class:`engine.trickgame.TrickCore` is a trick
    game's): the seat to act, the phase, the moves and legal ids, the hands, table, stock, capture piles, the last
    capturer, the capture being decided and the capture rules. Compiled, ``_apply`` and ``_legal_ids`` reach them
    without a dictionary look-up and ``clone`` copies them field by field (``_copy_fields``); from source this is a
    plain class and they are ordinary instance attributes (an attribute not set yet reads None when compiled)."""

    # The fields are declared in engine/fishing.pxd (so that other compiled modules that cimport FishingCore, the
    # environments' encoder, read them as C struct fields); these annotations are for mypy alone (annotation_typing is
    # off), and from source each field reads None until it is set, as compiled (after the class).
    current_player: Any
    phase: Any
    moves: Any
    _legal: Any
    n_players: Any
    dealer: Any
    hands: Any
    table: Any
    stock: Any
    captured: Any
    last_capturer: Any
    turn: Any
    capture_rules: Any
    # the groups a card played to the table can take, kept with the table and card they were found for (_groups_for)
    _groups: Any

    # The fields, in _copy_fields' order, for engine.clone (compiled; from source they are in the instance's
    # __dict__ and copied with it).
    FIELDS: ClassVar[tuple[str, ...]] = _FISHING_FIELDS if cython.compiled else ()

    @cython.locals(c=tuple)
    def _copy_fields(self, new: FishingCore, copiers: tuple[Copier | None, ...]) -> None:
        """Give ``new`` these fields, each copied as ``copiers`` (aligned with FIELDS: a class's COPY) says."""
        twin = cython.declare(FishingCore, new)
        c = copiers
        twin.current_player = field_copy(self.current_player, c[0])
        twin.phase = field_copy(self.phase, c[1])
        twin.moves = field_copy(self.moves, c[2])
        twin._legal = field_copy(self._legal, c[3])
        twin.n_players = field_copy(self.n_players, c[4])
        twin.dealer = field_copy(self.dealer, c[5])
        twin.hands = field_copy(self.hands, c[6])
        twin.table = field_copy(self.table, c[7])
        twin.stock = field_copy(self.stock, c[8])
        twin.captured = field_copy(self.captured, c[9])
        twin.last_capturer = field_copy(self.last_capturer, c[10])
        twin.turn = field_copy(self.turn, c[11])
        twin.capture_rules = field_copy(self.capture_rules, c[12])
        twin._groups = field_copy(self._groups, c[13])


if not cython.compiled:
    for _name in _FISHING_FIELDS:
        setattr(FishingCore, _name, None)


@cython.cfunc
@cython.locals(table=cython.ulonglong, limit=cython.int)
def _capturing_cards(state: FishingState, table: int, limit: int) -> int:
    """The cards that capture something on the capturable ``table`` of ``state``: compiled and up to
    ``_SMALL_LIMIT``, found again each time in C integers (cheaper than keeping them); otherwise the table's offers
    are kept on the state with the table they were found for (``FishingState._offers``: cheaper for the
    interpreter)."""
    if cython.compiled and limit <= _SMALL_LIMIT:
        return _capturing(table, _small_sums(_small_reach(table, 1, limit), limit))
    offers = state._offers
    if offers[0] != table:
        offers = state._offers = _table_offers(offers, table, limit)
    return offers[1]


@cython.cfunc
@cython.locals(me=FishingCore, capturable=cython.ulonglong, played=cython.int, limit=cython.int,
               sums=cython.ulonglong, kept_table=cython.ulonglong, kept_card=cython.int)
def _groups_for(state: FishingState, capturable: int, played: int) -> Groups:
    """The groups that ``played`` can take from the capturable table of ``state``, found when the capture begins
    and kept on the state for its steps (``FishingCore._groups``)."""
    me = state
    found: tuple[int, int, Groups] | None = me._groups
    if found is not None:
        kept_table, kept_card = found[0], found[1]  # (compiled: compared as C integers, not boxed)
        if kept_table == capturable and kept_card == played:
            return found[2]
    limit = me.capture_rules.max_sum_cards
    if cython.compiled and limit <= _SMALL_LIMIT:
        sums = _small_sums(_small_reach(capturable, 1, limit), limit)
    else:
        offers = state._offers
        sums = offers[2] if offers[0] == capturable else SUM_BITS
    groups = _turn_groups(capturable, played, limit, sums)
    me._groups = (capturable, played, groups)
    return groups


def _turn_path(turn: Turn, target: int, table: int, rules: CaptureRules) -> list[int] | None:
    """Decisions that end ``turn`` capturing exactly ``target``, or None: groups are built from the lowest card of
    ``target`` not yet taken, so only the ways to split ``target`` into groups are tried."""
    played, values, taken, group = turn
    left = target & ~taken & ~group
    options = set(turn_options(turn, table, rules))
    if group:
        above = left >> (group.bit_length()) << (group.bit_length())
        choices = [TAKE | c for c in cards_in(above)] + [NEXT] + ([DONE] if not left else [])
    elif left:
        choices = [TAKE | (left & -left).bit_length() - 1]
    else:
        choices = [DONE]
    for decision in choices:
        if decision not in options:
            continue
        after, ended = turn_step(turn, decision, table, rules)
        if ended:
            if after[2] == target:
                return [decision]
            continue
        rest = _turn_path(after, target, table, rules)
        if rest is not None:
            return [decision, *rest]
    return None


def _completions(turn: Turn, table: int, rules: CaptureRules, limit: int) -> set[int] | None:
    """Every capture (mask) that the decisions from ``turn`` can end with, or None past ``limit`` of them (or past
    ``20 * limit`` turns in progress on the way: groups taken in another order meet again in one turn state)."""
    found: set[int] = set()
    seen = {turn}
    waiting = [turn]
    while waiting:
        now = waiting.pop()
        for decision in turn_options(now, table, rules):
            after, ended = turn_step(now, decision, table, rules)
            if ended:
                found.add(after[2])
                if len(found) > limit:
                    return None
            elif after not in seen:
                seen.add(after)
                if len(seen) > 20 * limit:
                    return None
                waiting.append(after)
    return found


class _ActionStrings(dict[int, str]):
    """Memo of action strings: ``STRINGS[a]`` builds the string of ``a`` once."""

    def __missing__(self, action: int) -> str:
        if action & DECISION_BITS:
            text = ("next" if action & NEXT else "done" if action & DONE
                    else "+" + CODES[action & 63] if action & TAKE else CODES[action & 63] + ":")
        else:
            played, captured = action & 63, action >> 6
            text = CODES[played] + (":" + format_cards(cards_in(captured)) if captured else "")
        self[action] = text
        return text


_STRINGS = _ActionStrings()
_string_of = _STRINGS.__getitem__


def capture_action_string(action: int) -> str:
    """``"QS"`` for a trail, ``"QS:3C,TD"`` for a whole capture (captured cards in canonical order), ``"QS:"``,
    ``"+3C"``, ``"next"`` and ``"done"`` for the decisions of a capture."""
    return _string_of(action)


def join_turns(moves: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Whole turns in the rules' notation from a list of (seat, action) decisions.

    >>> join_turns([(0, "7H"), (1, "KS:"), (1, "+4C"), (1, "+TD"), (1, "next"), (1, "+KH"), (0, "2C")])
    [(0, '7H'), (1, 'KS:4C,TD,KH'), (0, '2C')]
    """
    turns: list[tuple[int, str]] = []
    taken: list[str] = []
    for seat, action in moves:
        if action.endswith(":"):
            turns.append((seat, action))
            taken = []
        elif action.startswith("+"):
            taken.append(action[1:])
            played = turns[-1][1].partition(":")[0]
            turns[-1] = (seat, played + ":" + ",".join(sorted(taken, key=CARD_OF_CODE.__getitem__)))
        elif action not in ("next", "done"):
            turns.append((seat, action))
    return turns


# The cards worth a point, and the ten of diamonds' second point.
_POINT_CARDS = sum(BIT[c] for c in range(52) if CARD_POINTS[c])
_SECOND_POINT = sum(BIT[c] for c in range(52) if CARD_POINTS[c] == 2)


def card_points(captured_mask: int) -> int:
    return (captured_mask & _POINT_CARDS).bit_count() + (captured_mask & _SECOND_POINT).bit_count()


def most_cards_bonus(pile_sizes: list[int]) -> list[int]:
    """3 points to the side with strictly the most captured cards, none on a tie (§7.2 / §7.1)."""
    top = max(pile_sizes)
    if pile_sizes.count(top) > 1:
        return [0] * len(pile_sizes)
    return [MOST_CARDS_BONUS if size == top else 0 for size in pile_sizes]


class SweepRule(NamedTuple):
    """What a sweep (a capture that empties the table) scores, as a game declares it (``FishingState.SWEEP``):
    ``worth`` of the card played and the cards captured under the capture rules (None: 1 a sweep); the deal's last
    play sweeps for points only when the option ``last_play`` is on (None: always); with ``at_once`` its points count
    toward the match score as it is made (and may end the match there)."""

    worth: Callable[[int, int, CaptureRules], int] | None = None
    last_play: str | None = None
    at_once: bool = False


F = TypeVar("F", bound="FishingState")


class FishingDeal(Phase[F]):
    """The phase that deals a fishing game's deal (``deal``, declared before :data:`CAPTURE_PLAY`), and says how
    the new hands are dealt from the stock once every hand is empty: each seat from the dealer's left, in
    ``packets`` (``FishingState._refill``)."""

    @abstractmethod
    def packets(self, game: F) -> tuple[int, ...]:
        """The cards each seat is dealt at a time, in order, for one hand."""


class DealtRound(NamedTuple):
    """A round of hands as ``deal_deck`` dealt it: the cards each seat received (masks) and the stock left after."""

    hands: list[int]
    stock: list[int]


class CapturePlay(Phase["FishingState"]):
    """The play of a fishing deal, as a phase: hands, table, stock, capture piles, the last capturer, the sweeps
    and the capture being decided (``turn_*``, phase ``capture``), loaded and checked without a replay."""

    KEYS = ("hands", "table", "stock", "captured", "last_capturer", "sweeps", "sweep_points", "turn_card",
            "turn_taken", "turn_group")

    def save(self, game: FishingState) -> dict[str, Any]:
        keys = {
            "hands": [[CODES[c] for c in cards_in(h)] for h in game.hands],
            "table": [CODES[c] for c in cards_in(game.table)],
            "stock": [CODES[c] for c in game.stock],
            "captured": [[CODES[c] for c in cards_in(pile)] for pile in game.captured],
            "last_capturer": game.last_capturer,
            "sweeps": list(game.sweeps),
            "sweep_points": list(game.sweep_points),
        }
        turn = game._turn_keys()
        if turn is not None:
            keys.update(turn_card=turn["card"], turn_taken=turn["taken"], turn_group=turn["group"])
        return keys

    def load(self, game: FishingState, loading: Loading) -> None:
        """Load and check a position (docs/positions/<game>.md lists the checks): every card once, set-like lists in
        canonical order, the hand sizes and the seat to play as the turns go round, the last capturer and the sweeps
        consistent with the capture piles and the scores, the hands, the stock and the piles with the deal that
        ``deal_deck`` makes."""
        p = loading.position
        n_sides = len(game.side_scores)
        hands = [_canonical(cards, f"hands[{seat}]") for seat, cards in enumerate(_list_of(p, "hands", game.n_players))]
        table = _canonical(p["table"], "table")
        stock = position_cards(p["stock"], "stock")
        piles_of = enumerate(_list_of(p, "captured", game.n_players))
        captured = [_canonical(cards, f"captured[{seat}]") for seat, cards in piles_of]
        turn_keys = ("turn_card", "turn_taken", "turn_group")
        turn = {key[5:]: p[key] for key in turn_keys if key in p} or None
        piles = {f"hands[{s}]": cards_in(h) for s, h in enumerate(hands)}
        piles.update({"table": cards_in(table), "stock": stock})
        piles.update({f"captured[{s}]": cards_in(pile) for s, pile in enumerate(captured)})
        if turn is not None:
            piles["turn_card"] = [parse_card(cast(str, turn.get("card")))]  # parse_card refuses a non-code
        check_cards_once(piles, game._deck_cards())
        game.hands, game.table, game.stock, game.captured = hands, table, stock, captured
        game.last_capturer = position_seat(p["last_capturer"], "last_capturer", game.n_players, nullable=True)
        game.sweeps = _counts(p, "sweeps", n_sides)
        game.sweep_points = _counts(p, "sweep_points", n_sides)
        game.turn = game._load_turn(turn)
        game._check_hands()
        game._check_captures()
        game._check_table()
        game._check_dealt()


CAPTURE_PLAY = CapturePlay()


class FishingState(State, FishingCore):
    """The deal of a fishing game: hands, a face-up table, a stock, capture piles, sweeps and the last capture.

    A game subclass sets ``capture_rules`` in its ``SETTINGS``, deals the first hands and table in the phase that deals
    (a :class:`FishingDeal`, declared before :data:`CAPTURE_PLAY`), which refills empty hands from the stock too, and
    declares what a sweep is worth (``SWEEP``).
    """

    capture_rules: CaptureRules
    hands: list[int]
    table: int
    stock: list[int]
    captured: list[int]
    last_capturer: int | None
    sweeps: list[int]
    sweep_points: list[int]
    target: int  # the match target (each game sets it in its SETTINGS)

    SWEEP_COUNTER = "sweeps"
    # The observation key that shows a seat, face up, the cards of known place (``_known_places``) while they are
    # still hidden, in the stock or a hand (Tablić's ``bottom_card``, one card), or None: they are known cards only.
    KNOWN_FACE_UP: ClassVar[str | None] = None
    SWEEP: ClassVar[SweepRule]
    _dealing: ClassVar[FishingDeal[Any] | None]  # (State sets it for each class: the game's FishingDeal)
    PHASES = ("play", "capture", "over")  # "capture": a capture being decided step by step
    DEAL_PHASES: ClassVar[tuple[Phase[Any], ...]] = (CAPTURE_PLAY,)
    DECK = tuple(range(52))
    POSITION_CARD_PILES = ("turn_card",)  # the card played to a capture being decided (its other cards are on table)

    @classmethod
    @abstractmethod
    def capture_rules_for(cls, options: Mapping[str, Any]) -> CaptureRules:
        """How the game captures with these (resolved) options."""
    # (sweeps, sweep_points: replaced whole as a sweep scores)
    COPY = {"hands": LIST, "stock": LIST, "captured": LIST, "sweeps": SHARED, "sweep_points": SHARED}

    def _begin_fishing_deal(self) -> None:
        n_sides = len(self.side_scores)
        self.hands = [0] * self.n_players
        self.table = 0
        self.stock = []
        self.captured = [0] * self.n_players
        self.last_capturer = None
        self.sweeps = [0] * n_sides
        self.sweep_points = [0] * n_sides
        self.turn: Turn | None = None
        self.phase = "play"
        self.current_player = (self.dealer + 1) % self.n_players

    def _refill(self) -> None:
        """Deal new hands from the stock's top when every hand is empty, in the dealing phase's ``packets``."""
        dealing = self._dealing
        assert dealing is not None  # (a fishing game declares a FishingDeal)
        top = deal_round(self.stock, 0, self.hands, seats_from(self.dealer + 1, self.n_players), dealing.packets(self))
        del self.stock[:top]

    def _sweep_points(self, played: int, captured: int) -> int:
        """What the capture of ``captured`` by ``played`` that emptied the table scores (``SWEEP``; 0: no sweep)."""
        rule = self.SWEEP
        if rule.last_play is not None and not self.stock and not any(self.hands) and not self.options[rule.last_play]:
            return 0
        return 1 if rule.worth is None else rule.worth(played, captured, self.capture_rules)

    # ---- play ---------------------------------------------------------------------------------------------------

    def _capturable(self) -> int:
        """The table cards that a capture may take (§5.6 (c): not Tablanette's special jacks)."""
        return self.table & ~JACKS_MASK if self.capture_rules.jack_takes_all else self.table

    # Compiled, the state's fields that a move reads and writes are FishingCore's struct fields (``me``: ``self``,
    # typed).
    @cython.locals(me=FishingCore, whole=cython.ulonglong, table=cython.ulonglong, fields=tuple)
    def _legal_ids(self) -> list[int]:
        me = self
        rules = me.capture_rules
        # (unpacked: fewer attribute look-ups in the hot loop; compiled, a named tuple's fields read as a tuple's, in C)
        fields = cython.cast(tuple, rules)
        jack_takes_all, limit, compulsory = fields
        whole = me.table
        table = whole & ~_JACKS if jack_takes_all else whole
        turn = me.turn
        if turn is not None:
            return _turn_options(turn, table, rules, _groups_for(self, table, turn[0]))
        seat = me.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        # The actions between turns, in string order: each card's trail, start of a capture (the cards that capture
        # something here), or (Tablanette's special jack) taking the whole table.
        return _between_turns(me.hands[seat], _capturing_cards(self, table, limit), compulsory, jack_takes_all,
                              whole)

    # What the table offers, kept with the table it was found for (``_capturing_cards``; the groups a card played to
    # it can take are FishingCore's ``_groups``).
    _offers: Offers = (-1, 0, 0, 0)

    def action_string(self, action: int) -> str:
        return capture_action_string(action)

    def legal_turns(self) -> list[str]:
        """Every whole turn the player to act may play, in the rules' notation (``"KS:4C,TD"``), in string order.

        Only at the start of a turn. Their number can grow exponentially with the table in Tablić, so past
        ``MAX_CAPTURE_CHOICES`` for one card this raises ``ActionLimitExceeded``; play goes by the decisions of
        ``legal_actions()``, which stay few.
        """
        return [_string_of(a) for a in self.legal_turn_ids()]

    def legal_turn_ids(self) -> list[int]:
        if self.turn is not None or self.current_player is None:
            return []
        rules = self.capture_rules
        groups = TableGroups(self.table, rules)
        actions = [
            played | captured << 6
            for played in cards_in(self.hands[self.current_player])
            for captured in capture_sets(played, self.table, rules, groups)
        ]
        actions.sort(key=_string_of)
        return actions

    def turn_choices(self) -> list[str]:
        """Every whole turn the player to act may play, in the rules' notation, in string order: between turns each
        trail and each capture (``legal_turns()``); during a capture already begun step by step, the whole turns
        that complete it. A card with more captures than ``MAX_TURNS_LISTED`` (on Tablić's large tables) is
        offered as its steps instead (``KS``, ``KS:``), and so is a capture begun with more completions than that:
        it is then built step by step."""
        seat, turn = self.current_player, self.turn
        if seat is None:
            return []
        rules = self.capture_rules
        choices: list[int] = []
        if turn is None:
            table, groups = self.table, None
            capturing = _capturing_cards(self, self._capturable(), rules.max_sum_cards)
            jacks = JACKS_MASK if rules.jack_takes_all else 0
            for played in cards_in(self.hands[seat]):
                if not (capturing | jacks) >> played & 1:
                    choices.append(played)  # its trail alone
                    continue
                groups = groups or TableGroups(table, rules)
                listed = _listed_captures(played, table, rules, groups)
                if listed is None:
                    choices += [a for a in self.legal_action_ids() if a & 63 == played]
                else:
                    choices += [played | captured << 6 for captured in listed]
        else:
            captures = _completions(turn, self._capturable(), rules, MAX_TURNS_LISTED)
            if captures is None:
                return self.legal_actions()
            choices = [turn[0] | captured << 6 for captured in captures]
        choices.sort(key=_string_of)
        return [_string_of(a) for a in choices]

    def turn_decisions(self, turn_id: int) -> list[int] | None:
        """The decisions that play the whole turn ``turn_id`` (played card | captured mask << 6) from the start of a
        turn, or None if that turn is not legal now."""
        legal = self.legal_action_ids()
        if turn_id in legal:
            return [turn_id]
        played, captured = split_action(turn_id)
        if not captured or BEGIN | played not in legal or captured & ~self._capturable():
            return None
        path = _turn_path(start_turn(played), captured, self._capturable(), self.capture_rules)
        return None if path is None else [BEGIN | played, *path]

    def action_ids(self, action: str) -> list[int]:
        """A decision of ``legal_actions()``, or a whole turn in the rules' notation (``"KS:4C,TD"``, cards in any
        order) as the decisions that play it: at the start of a turn, or during a capture begun step by step (the
        decisions that complete it); IllegalAction, naming the whole turns too, if neither."""
        legal = self.legal_action_ids()
        for a in legal:
            if _string_of(a) == action:
                return [a]
        whole = _parse_turn(action) if isinstance(action, str) else None
        path = None
        if whole is not None and self.turn is None:
            path = self.turn_decisions(whole)
        elif whole is not None and self.turn is not None and whole & 63 == self.turn[0] and whole >> 6:
            path = _turn_path(self.turn, whole >> 6, self._capturable(), self.capture_rules)
        if path is None:
            raise IllegalAction(action, self.legal_actions(), self._where(), turns=self.turn_choices())
        return path

    @cython.locals(me=FishingCore, action=cython.ulonglong, seat=cython.int, played=cython.int,
                   captured=cython.ulonglong, table=cython.ulonglong, ended=cython.bint, hand=cython.ulonglong,
                   pile=cython.ulonglong)
    def _apply(self, action: int) -> None:
        me = self
        player = me.current_player
        assert player is not None  # State.apply_id applies only a legal action
        seat, hands = player, me.hands
        if action & _DECISION:  # (compiled: C constants, the action not boxed to test its bits)
            if action & _BEGIN:
                played = action & 63
                hand = hands[seat]
                hands[seat] = hand & ~(_ONE << played)
                me.turn = (played, VALUE_BITS[played], 0, 0)  # start_turn(played)
                me.phase = "capture"
                return
            turn = me.turn
            assert turn is not None  # a decision after the first is made inside a turn
            rules = me.capture_rules
            table = me.table & ~_JACKS if rules.jack_takes_all else me.table
            turn, ended = _turn_step(turn, action, table, rules, _groups_for(self, table, turn[0]))
            if not ended:
                me.turn = turn
                return
            played, _, captured, _ = turn
            me.turn = None
            me.phase = "play"
        else:
            played, captured = action & 63, action >> 6
            hand = hands[seat]
            hands[seat] = hand & ~(_ONE << played)
        # the turn ends
        table = me.table
        if captured:
            table &= ~captured
            me.table = table
            piles = me.captured
            pile = piles[seat]
            piles[seat] = pile | captured | _ONE << played
            me.last_capturer = seat
            if not table:
                points = self._sweep_points(played, captured)
                if points and self._score_sweep(seat, points):
                    return
        else:
            me.table = table | _ONE << played
        for hand in hands:
            if hand:
                me.current_player = (seat + 1) % me.n_players
                return
        if me.stock:
            self._refill()
            me.current_player = (me.dealer + 1) % me.n_players
        else:
            self._end_deal()

    def _score_sweep(self, seat: int, points: int) -> bool:
        """Count a sweep; True when it ended the match on the spot."""
        side = self.side_of[seat]
        sweeps = self.sweeps = self.sweeps[:]
        sweeps[side] += 1
        swept = self.sweep_points = self.sweep_points[:]
        swept[side] += points
        if not self.SWEEP.at_once:
            return False
        scores = self.side_scores = self.side_scores[:]
        scores[side] += points
        if self.side_scores[side] < self.target:
            return False
        self._record_deal(list(self.sweep_points), {"ended_match": True, self.SWEEP_COUNTER: list(self.sweeps)})
        self._finish_match([side])
        return True

    def _end_deal(self) -> None:
        if self.last_capturer is not None:
            self.captured[self.last_capturer] |= self.table  # the remainder goes to the last capturer (§5.9 / §5.6)
            self.table = 0
        piles = self.side_piles()
        sizes = [pile.bit_count() for pile in piles]
        bonus = most_cards_bonus(sizes)
        points = [card_points(pile) + bonus[side] + self.sweep_points[side] for side, pile in enumerate(piles)]
        scored = self.sweep_points if self.SWEEP.at_once else None
        self._deal_over(points, scored, cards=sizes, **{self.SWEEP_COUNTER: list(self.sweeps)})

    def side_piles(self) -> list[int]:
        piles = [0] * len(self.side_scores)
        for seat, pile in enumerate(self.captured):
            piles[self.side_of[seat]] |= pile
        return piles

    # ---- determinization (engine/determinize.py) ----------------------------------------------------------------

    def _known_places(self, seat: int) -> int:
        """Cards whose place ``seat`` knows although it does not see them (a mask): none unless a game says so."""
        return 0

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        """Deal the other hands and the stock again from the cards ``seat`` has not seen; the table, the captured
        piles and the cards of known place stay. Nothing else is hidden: every play and capture is public. ``memo``
        (see ``engine.determinize``) keeps the slots from the first sample on."""
        slots = None if memo is None else memo.get("slots")
        if slots is None:
            known, ordered = self.hands[seat] | self._known_places(seat), in_deck_order(self.deal_deck)
            slots = [Slot(ordered(cards_in(self.hands[s] & ~known))) for s in range(self.n_players) if s != seat]
            slots.append(Slot([c for c in self.stock if not BIT[c] & known]))
            if memo is not None:
                memo["slots"] = slots
        new = relabeling(slots, redeal(slots, rng))
        self.hands = [relabel_mask(hand, new) for hand in self.hands]
        self.stock = [new[c] for c in self.stock]
        self.deal_deck = [new[c] for c in self.deal_deck]

    # ---- observation and positions ------------------------------------------------------------------------------

    def _observe(self, seat: int, obs: dict[str, Any]) -> None:
        obs["hand"] = [CODES[c] for c in cards_in(self.hands[seat])]
        obs["table"] = [CODES[c] for c in cards_in(self.table)]
        obs["hand_sizes"] = [h.bit_count() for h in self.hands]
        obs["stock_size"] = len(self.stock)
        obs["captured_counts"] = [pile.bit_count() for pile in self.captured]
        obs["last_capturer"] = self.last_capturer
        obs[self.SWEEP_COUNTER] = list(self.sweeps)
        face_up, known, _ = self.shown_cards(seat)
        obs["known_cards"] = [CODES[c] for c in cards_in(known)]
        obs["turn"] = self._turn_keys()
        if face_up:
            shown = [CODES[c] for c in cards_in(face_up)]
            obs[cast(str, self.KNOWN_FACE_UP)] = shown[0] if len(shown) == 1 else shown

    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """What ``seat``'s observation shows beside its hand and the table, as masks for numeric encoders (envs/, as
        ``TrickGame.shown_cards``): the cards of known place still hidden shown face up (``KNOWN_FACE_UP``), those in
        the stock or another seat's hand (``known_cards``) and ``stock_size``."""
        face_up = known = 0
        places = self._known_places(seat)
        if places:
            hands, stock = self.hands, mask_of(self.stock)
            held = sum(hands)  # (disjoint masks)
            known = places & (stock | (held ^ hands[seat]))
            if self.KNOWN_FACE_UP is not None:
                face_up = places & (stock | held)
        return face_up, known, len(self.stock)

    def _turn_keys(self) -> dict[str, Any] | None:
        """The capture being decided (phase ``capture``): the card played, the cards of the groups taken so far and
        of the group being built; None between turns."""
        if self.turn is None:
            return None
        played, _, taken, group = self.turn
        return {"card": CODES[played], "taken": [CODES[c] for c in cards_in(taken)],
                "group": [CODES[c] for c in cards_in(group)]}

    def _check_hands(self) -> None:
        """A seat holds one card fewer for each turn it has played: the turns go round from the dealer's left
        (rules §5.1), so the seats before the seat to play in that order hold one card fewer than the others."""
        if self.phase == "over":
            return
        seat, first = self.current_player, (self.dealer + 1) % self.n_players
        if seat is None:
            raise PositionError(f"phase {self.phase!r} needs a seat to act (current_player)")
        if self.phase == "play" and not self.hands[seat]:
            raise PositionError(f"seat {seat} is to play but holds no card")
        base = self.hands[seat].bit_count() + (self.turn is not None)
        n = self.n_players
        expected = [base - ((s - first) % n < (seat - first) % n) for s in range(n)]
        if self.turn is not None:
            expected[seat] -= 1
        sizes = [h.bit_count() for h in self.hands]
        if sizes != expected:
            raise PositionError(f"with seat {first} playing first and seat {seat} to play ({self.phase}), the hands "
                                f"hold {expected} cards, got {sizes}")

    def _check_captures(self) -> None:
        """The last capturer is a seat whose pile holds cards, set as soon as any pile does; a side with sweeps has
        their points, and (where sweeps score at once) its score includes them."""
        piles = [pile for pile in self.captured if pile]
        if (self.last_capturer is None) != (not piles):
            raise PositionError("last_capturer is null exactly when no capture pile holds a card")
        if self.last_capturer is not None and not self.captured[self.last_capturer]:
            raise PositionError(f"last_capturer seat {self.last_capturer} has an empty capture pile")
        for seat, pile in enumerate(self.captured):
            if pile.bit_count() == 1:
                raise PositionError(f"captured[{seat}] holds {CODES[pile.bit_length() - 1]} alone: a capture takes the "
                                    "card played and at least one table card")
        for side, (count, points) in enumerate(zip(self.sweeps, self.sweep_points, strict=True)):
            if (count == 0) != (points == 0):
                raise PositionError(f"side {side}: {self.SWEEP_COUNTER} {count} worth {points} points")
            if self.SWEEP.at_once and self.side_scores[side] < points:
                raise PositionError(f"side {side}'s score {self.side_scores[side]} leaves out the {points} points of "
                                    f"its {self.SWEEP_COUNTER} (they count at once)")
            if not self.side_piles()[side] and count:
                raise PositionError(f"side {side} has {self.SWEEP_COUNTER} but no captured card")

    def dealt_rounds(self) -> tuple[int, list[DealtRound]]:
        """``deal_deck`` dealt again as this deal was (rules §3): the table laid out at its start (a mask, after
        Tablanette's initial jacks went back into the stock) and every round of hands from the first, each with
        what it dealt every seat (masks) and the stock it left (top first).

        >>> import engine
        >>> state = engine.new_match("tablanette", seed=42)
        >>> table, rounds = state.dealt_rounds()
        >>> len(rounds), [h.bit_count() for h in rounds[0].hands], len(rounds[0].stock), len(rounds[-1].stock)
        (4, [6, 6], 36, 0)
        >>> rounds[0].stock == state.stock and table == state.table
        True
        """
        probe = self.clone()
        probe._start_deal(list(self.deal_deck))
        rounds = [DealtRound(list(probe.hands), list(probe.stock))]
        while probe.stock:
            probe.hands = [0] * self.n_players
            probe._refill()
            rounds.append(DealtRound(list(probe.hands), list(probe.stock)))
        return probe.table, rounds

    def _check_table(self) -> None:
        """Tablanette's special jacks (§5.6): a jack is trailed only to an empty table, which then empties only when a
        jack takes it all, so the table holds one jack at most."""
        jacks = self.table & JACKS_MASK
        if self.capture_rules.jack_takes_all and jacks & (jacks - 1):
            raise PositionError(f"the table holds {' '.join(CODES[c] for c in cards_in(jacks))}: a jack is trailed "
                                "only to an empty table, and a jack played to a table takes every card on it (§5.6)")

    def _check_dealt(self) -> None:
        """The cards against the deal that ``deal_deck`` makes (``dealt_rounds``): the stock is the undealt rest of
        the round of hands being played, in order; each hand, and a capture's played card, is part of what that round
        dealt its seat; and a capture pile holds a card its seat was dealt (every capture takes the card played)."""
        table, rounds = self.dealt_rounds()
        now = next((k for k, dealt in enumerate(rounds) if len(dealt.stock) == len(self.stock)), None)
        if now is None:
            sizes = ", ".join(str(len(dealt.stock)) for dealt in rounds)
            raise PositionError(f"the stock holds {len(self.stock)} cards, but the rounds of hands dealt from "
                                f"deal_deck leave {sizes}")
        for i, (card, rest) in enumerate(zip(self.stock, rounds[now].stock, strict=True)):
            if card != rest:
                raise PositionError(f"stock[{i}] is {CODES[card]} where the deal from deal_deck left {CODES[rest]} "
                                    f"(round {now + 1} of hands): the stock is the rest of deal_deck, in order")
        held = list(self.hands)
        if self.turn is not None:
            assert self.current_player is not None  # phase 'capture' has a seat to act
            held[self.current_player] |= BIT[self.turn[0]]
        for seat, cards in enumerate(held):
            stray = cards & ~rounds[now].hands[seat]
            if stray:
                card = (stray & -stray).bit_length() - 1
                key = f"hands[{seat}]" if BIT[card] & self.hands[seat] else "turn_card"
                raise PositionError(f"{key}: seat {seat} holds {CODES[card]}, but {_dealt_where(card, table, rounds)}; "
                                    f"round {now + 1} of hands is being played")
        for seat, pile in enumerate(self.captured):
            played = 0
            for dealt in rounds[:now + 1]:
                played |= dealt.hands[seat]
            if pile and not pile & played & ~held[seat]:
                raise PositionError(f"captured[{seat}] holds no card that deal_deck dealt seat {seat} and it played: "
                                    "every capture puts the card played into the pile")

    def _load_turn(self, keys: Any) -> Turn | None:
        """A capture being decided (phase ``capture``): one the engine reaches by its decisions."""
        if self.phase != "capture":
            if keys is not None:
                raise PositionError(f"a turn in progress (turn_card...) goes with phase 'capture', not {self.phase!r}")
            if self.phase not in ("play", "over"):
                raise PositionError(f"phase must be 'play', 'capture' or 'over', got {self.phase!r}")
            return None
        if not isinstance(keys, Mapping) or set(keys) != {"card", "taken", "group"}:
            raise PositionError("phase 'capture' needs turn_card, turn_taken and turn_group")
        played = parse_card(keys["card"])
        taken, group = _canonical(keys["taken"], "turn_taken"), _canonical(keys["group"], "turn_group")
        rules, table = self.capture_rules, self._capturable()
        if (taken | group) & ~table or taken & group:
            raise PositionError("a turn's taken cards and group are distinct capturable table cards")
        if rules.jack_takes_all and RANK[played] == JACK:
            raise PositionError("a special jack takes the whole table in one move: it never has a turn in progress")
        values = VALUE_BITS[played]
        if values & (values - 1) == 0 and not _partitions(taken, values.bit_length() - 1, RANK[played],
                                                           rules.max_sum_cards):
            values = 0
        turn = (played, turn_values(played, taken, rules) & values, taken, group)
        free = table & ~taken & ~group
        top = group.bit_length() - 1
        reach = _subset_reach(free >> (top + 1) << (top + 1), rules.max_sum_cards)
        complete, grown = _fit(turn[1], group == BIT[top] and RANK[top] == RANK[played], group.bit_count(),
                               _sums_of(group), reach, rules.max_sum_cards) if group else (0, 1)
        ended = not group and taken and not turn[1] & group_values(played, free, rules)
        if not turn[1] or not (complete | grown) or (complete and not grown) or ended \
                or not turn_options(turn, table, rules):
            raise PositionError(f"turn_card {keys['card']}, turn_taken {keys['taken']}, turn_group {keys['group']} is "
                                "not a capture in progress that the decisions reach")
        return turn


def _dealt_where(card: int, table: int, rounds: list[DealtRound]) -> str:
    """Where the deal from ``deal_deck`` put ``card``, in words."""
    if BIT[card] & table:
        return "deal_deck laid it out on the table"
    for k, dealt in enumerate(rounds):
        for seat, hand in enumerate(dealt.hands):
            if BIT[card] & hand:
                return f"deal_deck dealt it to seat {seat} in round {k + 1} of hands"
    return "deal_deck left it in the stock"


def _parse_turn(action: str) -> int | None:
    """``"KS:TD,4C"`` as played card | captured mask << 6 (captured cards in any order), or None."""
    played, colon, taken = action.partition(":")
    codes = taken.split(",") if taken else []
    if played not in CARD_OF_CODE or not all(code in CARD_OF_CODE for code in codes) or (colon and not codes):
        return None
    captured = 0
    for code in codes:
        captured |= BIT[CARD_OF_CODE[code]]
    if captured.bit_count() != len(codes) or captured & BIT[CARD_OF_CODE[played]]:
        return None
    return CARD_OF_CODE[played] | captured << 6


def _canonical(codes: Any, key: str) -> int:
    """A set of cards written in canonical order (a hand, the table, a pile) as a mask; PositionError naming the
    key and the card otherwise."""
    cards = position_cards(codes, key)
    for before, after in zip(cards, cards[1:], strict=False):
        if before >= after:
            what = "twice" if before == after else f"before {CODES[after]}: not in canonical order"
            raise PositionError(f"{key} lists {CODES[before]} {what} (suits C D H S, then ranks 2..A)")
    return mask_of(cards)


def _list_of(p: Mapping[str, Any], key: str, n: int) -> list[Any]:
    value = p[key]
    if not isinstance(value, list) or len(value) != n:
        raise PositionError(f"{key} must be a list of {n} card lists (one per seat)")
    return value


def _counts(p: Mapping[str, Any], key: str, n: int) -> list[int]:
    value = p[key]
    if not isinstance(value, list) or len(value) != n or not all(type(x) is int and x >= 0 for x in value):
        raise PositionError(f"{key} must be a list of {n} non-negative integers (one per side)")
    return list(value)
