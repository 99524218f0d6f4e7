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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import BIT, CODES, RANK, cards_in, format_cards, parse_card, parse_cards
from .clone import LIST
from .determinize import Slot, redeal, relabel_mask, relabeling
from .errors import ActionLimitExceeded, PositionError
from .rng import Rng
from .state import State

ACE, TEN, JACK, QUEEN, KING = 12, 8, 9, 10, 11
ACE_VALUES = (1, 11)

# Card points at the end of a deal, the same in both games (tablanette.md §2.2, tablic.md §2.2): 22 in the pack.
CARD_POINTS: tuple[int, ...] = tuple(
    2 if CODES[c] == "TD" else 1 if RANK[c] in (TEN, JACK, QUEEN, KING, ACE) or CODES[c] == "2C" else 0
    for c in range(52)
)
MOST_CARDS_BONUS = 3
MAX_VALUE = 14  # the king; no played card is worth more
# Tablić lets a player take any union of disjoint groups, so a table that grew over many trails offers exponentially
# many captures (about 8,000 for six cards on an 18-card table). Past this many for one card the engine refuses.
MAX_CAPTURE_CHOICES = 50_000
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


@dataclass(frozen=True)
class CaptureRules:
    """How a game captures: ``jack_takes_all`` (Tablanette's special jack), group size limit, compulsory capture."""

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
        lows = [LOW_VALUE[c] for c in cards]
        limit = rules.max_sum_cards or len(cards)
        n = len(cards)
        by_sum = self.by_sum

        def extend(start: int, mask: int, size: int, low: int, aces: int) -> None:
            if size >= 2:
                for v in range(low, min(low + 10 * aces, MAX_VALUE) + 1, 10):
                    by_sum.setdefault(v, []).append(mask)
            if size == limit:
                return
            for i in range(start, n):
                total = low + lows[i]
                if total <= MAX_VALUE:
                    extend(i + 1, mask | BIT[cards[i]], size + 1, total, aces + (RANK[cards[i]] == ACE))

        extend(0, 0, 0, 0, 0)

    def groups(self, played: int, v: int) -> list[int]:
        return self.by_rank.get(RANK[played], []) + self.by_sum.get(v, [])


def capture_groups(played: int, v: int, table: list[int], rules: CaptureRules) -> list[int]:
    """The groups (as masks) that ``played`` valued ``v`` can take from the ``table`` cards."""
    return TableGroups(sum(BIT[c] for c in table), rules).groups(played, v)


def _maximal_unions(groups: list[int]) -> set[int]:
    """Unions of every maximal set of pairwise-disjoint groups (tablanette.md §5.4)."""
    unions: set[int] = set()
    budget = [MAX_CAPTURE_CHOICES * 20]

    def pick(i: int, used: int) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            _too_many(len(groups))
        if i == len(groups):
            if all(g & used for g in groups):
                unions.add(used)
            return
        if not groups[i] & used:
            pick(i + 1, used | groups[i])
        pick(i + 1, used)

    pick(0, 0)
    return unions


def _all_unions(groups: list[int]) -> set[int]:
    """Unions of every non-empty set of pairwise-disjoint groups (tablic.md §5.4)."""
    reach = {0}
    for g in groups:
        reach |= {u | g for u in reach if not u & g}
        if len(reach) > MAX_CAPTURE_CHOICES:
            _too_many(len(groups))
    reach.discard(0)
    return reach


def _too_many(group_count: int) -> None:
    raise ActionLimitExceeded(
        f"the table offers {group_count} capture groups whose disjoint unions exceed {MAX_CAPTURE_CHOICES:,} "
        "capture choices for one card; cardtable does not list that many legal actions"
    )


def capture_sets(played: int, table_mask: int, rules: CaptureRules, table: TableGroups | None = None) -> set[int]:
    """Every legal capture of ``played`` on the table, as masks; 0 stands for trailing the card."""
    if rules.jack_takes_all and RANK[played] == JACK:
        return {table_mask}  # §5.6: a jack takes the whole table, or trails to an empty one
    table = table or TableGroups(table_mask, rules)
    unions: set[int] = set()
    for v in capture_value(RANK[played], rules.jack_value):
        groups = table.groups(played, v)
        if groups:
            unions |= _maximal_unions(groups) if rules.compulsory else _all_unions(groups)
    if not unions or not rules.compulsory:
        unions.add(0)
    return unions


def sweep_value(played: int, captured_mask: int, rules: CaptureRules) -> int:
    """Tablanette's score for a capture that empties the table (tablanette.md §5.7, §9.2).

    The played card's value plus each captured group's value (a rank-matched ace counts 11), maximised over the
    played card's values for which the captured cards split into groups.
    """
    cards = cards_in(captured_mask)
    best = 0
    for v in capture_value(RANK[played], rules.jack_value):
        groups = capture_groups(played, v, cards, rules)
        worth = {g: (11 if RANK[played] == ACE else v) if g.bit_count() == 1 and RANK[cards_in(g)[0]] == RANK[played]
                 else v for g in groups}
        total = _best_partition(captured_mask, groups, worth)
        if total is not None:
            best = max(best, v + total)
    return best


def _best_partition(mask: int, groups: list[int], worth: Mapping[int, int]) -> int | None:
    """The largest total worth of groups that partition ``mask`` exactly, or None if none does."""
    if not mask:
        return 0
    lowest = mask & -mask
    best = None
    for g in groups:
        if g & lowest and g & mask == g:
            rest = _best_partition(mask & ~g, groups, worth)
            if rest is not None and (best is None or worth[g] + rest > best):
                best = worth[g] + rest
    return best


def split_action(action: int) -> tuple[int, int]:
    return action & 63, action >> 6


class _ActionStrings(dict):
    """Memo of action strings: ``STRINGS[a]`` builds the string of ``a`` once."""

    def __missing__(self, action: int) -> str:
        played, captured = action & 63, action >> 6
        text = self[action] = CODES[played] + (":" + format_cards(cards_in(captured)) if captured else "")
        return text


_STRINGS = _ActionStrings()
_string_of = _STRINGS.__getitem__


def capture_action_string(action: int) -> str:
    """``"QS"`` for a trail, ``"QS:3C,TD"`` for a capture (captured cards in canonical order)."""
    return _string_of(action)


def card_points(captured_mask: int) -> int:
    return sum(CARD_POINTS[c] for c in cards_in(captured_mask))


def most_cards_bonus(pile_sizes: list[int]) -> list[int]:
    """3 points to the side with strictly the most captured cards, none on a tie (§7.2 / §7.1)."""
    top = max(pile_sizes)
    if pile_sizes.count(top) > 1:
        return [0] * len(pile_sizes)
    return [MOST_CARDS_BONUS if size == top else 0 for size in pile_sizes]


class FishingState(State):
    """The deal of a fishing game: hands, a face-up table, a stock, capture piles, sweeps and the last capture.

    A game subclass sets ``capture_rules`` in ``_configure``, deals the first hands and table in ``_start_deal``,
    refills empty hands in ``_refill``, and says what a sweep is worth in ``_sweep``.
    """

    capture_rules: CaptureRules
    hands: list[int]
    table: int
    stock: list[int]
    captured: list[int]
    last_capturer: int | None
    sweeps: list[int]
    sweep_points: list[int]

    SWEEP_COUNTER = "sweeps"
    COPY = {"hands": LIST, "stock": LIST, "captured": LIST, "sweeps": LIST, "sweep_points": LIST}

    def _deck_cards(self) -> list[int]:
        return list(range(52))

    def _begin_fishing_deal(self) -> None:
        n_sides = len(self.side_scores)
        self.hands = [0] * self.n
        self.table = 0
        self.stock = []
        self.captured = [0] * self.n
        self.last_capturer = None
        self.sweeps = [0] * n_sides
        self.sweep_points = [0] * n_sides
        self.phase = "play"
        self.current_player = (self.dealer + 1) % self.n

    def _refill(self) -> None:
        """Deal new hands from the stock when every hand is empty."""

    def _sweep(self, seat: int, played: int, captured: int, last_play: bool) -> int:
        """Points for a capture that emptied the table (0 when it does not count as a sweep)."""
        return 0

    def _sweep_scored_at_once(self) -> bool:
        return False

    # ---- play ---------------------------------------------------------------------------------------------------

    def _legal_ids(self) -> list[int]:
        rules = self.capture_rules
        table = self.table
        groups = TableGroups(table, rules)
        actions = [
            played | captured << 6
            for played in cards_in(self.hands[self.current_player])
            for captured in capture_sets(played, table, rules, groups)
        ]
        actions.sort(key=_string_of)
        return actions

    def action_string(self, action: int) -> str:
        return capture_action_string(action)

    def _apply(self, action: int) -> None:
        seat = self.current_player
        played, captured = split_action(action)
        self.hands[seat] &= ~BIT[played]
        if captured:
            self.table &= ~captured
            self.captured[seat] |= captured | BIT[played]
            self.last_capturer = seat
            if not self.table:
                last_play = not self.stock and not any(self.hands)
                points = self._sweep(seat, played, captured, last_play)
                if points and self._score_sweep(seat, points):
                    return
        else:
            self.table |= BIT[played]
        if any(self.hands):
            self.current_player = (seat + 1) % self.n
        elif self.stock:
            self._refill()
            self.current_player = (self.dealer + 1) % self.n
        else:
            self._end_deal()

    def _score_sweep(self, seat: int, points: int) -> bool:
        """Count a sweep; True when it ended the match on the spot."""
        side = self.side_of[seat]
        self.sweeps[side] += 1
        self.sweep_points[side] += points
        if not self._sweep_scored_at_once():
            return False
        self.side_scores[side] += points
        if self.side_scores[side] < self.target:
            return False
        self._record_deal(list(self.sweep_points), ended_match=True, **{self.SWEEP_COUNTER: list(self.sweeps)})
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
        scored = self.sweep_points if self._sweep_scored_at_once() else None
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

    def _determinize(self, seat: int, rng: Rng) -> None:
        """Deal the other hands and the stock again from the cards ``seat`` has not seen; the table, the captured
        piles and the cards of known place stay. Nothing else is hidden: every play and capture is public."""
        known = self.hands[seat] | self._known_places(seat)
        slots = [Slot([c for c in cards_in(self.hands[s]) if not BIT[c] & known]) for s in range(self.n) if s != seat]
        slots.append(Slot([c for c in self.stock if not BIT[c] & known]))
        new = relabeling(slots, redeal(slots, rng))
        self.hands = [relabel_mask(hand, new) for hand in self.hands]
        self.stock = [new[c] for c in self.stock]
        self.deal_deck = [new[c] for c in self.deal_deck]

    # ---- observation and positions ------------------------------------------------------------------------------

    def _observe(self, seat: int, obs: dict) -> None:
        obs["hand"] = [CODES[c] for c in cards_in(self.hands[seat])]
        obs["table"] = [CODES[c] for c in cards_in(self.table)]
        obs["hand_sizes"] = [h.bit_count() for h in self.hands]
        obs["stock_size"] = len(self.stock)
        obs["captured_counts"] = [pile.bit_count() for pile in self.captured]
        obs["last_capturer"] = self.last_capturer
        obs[self.SWEEP_COUNTER] = list(self.sweeps)
        obs["known_cards"] = []

    def _position_keys(self) -> dict:
        return {
            "hands": [[CODES[c] for c in cards_in(h)] for h in self.hands],
            "table": [CODES[c] for c in cards_in(self.table)],
            "stock": [CODES[c] for c in self.stock],
            "captured": [[CODES[c] for c in cards_in(pile)] for pile in self.captured],
            "last_capturer": self.last_capturer,
            "sweeps": list(self.sweeps),
            "sweep_points": list(self.sweep_points),
        }

    def _load_position(self, p: Mapping[str, Any]) -> None:
        n_sides = len(self.side_scores)
        self.hands = [_mask(cards) for cards in _list_of(p, "hands", self.n)]
        self.table = _mask(p["table"])
        self.stock = parse_cards(p["stock"])
        self.captured = [_mask(cards) for cards in _list_of(p, "captured", self.n)]
        self.last_capturer = p["last_capturer"]
        if self.last_capturer is not None and self.last_capturer not in range(self.n):
            raise PositionError(f"last_capturer must be a seat or null, got {self.last_capturer!r}")
        self.sweeps = _counts(p, "sweeps", n_sides)
        self.sweep_points = _counts(p, "sweep_points", n_sides)
        every = [*self.hands, self.table, _mask(p["stock"]), *self.captured]
        held = [c for m in every for c in cards_in(m)]
        if len(held) != 52 or len(set(held)) != 52 or len(self.stock) != len(set(self.stock)):
            raise PositionError("hands, table, stock and captured must hold each of the 52 cards exactly once")
        if self.phase != "over" and (self.phase != "play" or not self.hands[self.current_player]):
            raise PositionError("in play the current player must be a seat holding cards (phase 'play')")


def _mask(codes: Any) -> int:
    if not isinstance(codes, list):
        raise PositionError(f"expected a list of card codes, got {codes!r}")
    cards = [parse_card(code) for code in codes]
    if len(set(cards)) != len(cards):
        raise PositionError(f"repeated card in {codes}")
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


def _list_of(p: Mapping[str, Any], key: str, n: int) -> list:
    value = p[key]
    if not isinstance(value, list) or len(value) != n:
        raise PositionError(f"{key} must be a list of {n} card lists (one per seat)")
    return value


def _counts(p: Mapping[str, Any], key: str, n: int) -> list[int]:
    value = p[key]
    if not isinstance(value, list) or len(value) != n or not all(type(x) is int and x >= 0 for x in value):
        raise PositionError(f"{key} must be a list of {n} non-negative integers (one per side)")
    return list(value)
