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
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

from ..budget import Meter
from ..cards import BIT, RANKS, SUIT, SUIT_MASK, cards_in
from ..trickgame import TrickRules
from ..tricks import NO_TRUMP, FollowRule, legal_mask

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
    block_points: tuple[tuple[int, ...], ...]  # block_points[suit][bits]: the points of those cards of the suit
    above: tuple[int, ...]  # above[card]: the cards above it in its suit
    kind: tuple[int, ...]  # kind[card]: its suit and points (cards of one kind with no live card between play alike)
    follow: FollowRule  # the rule, its free trump named in the inner numbering
    plain_follow: tuple[bool, ...]  # per led suit: a hand that holds the suit plays exactly its cards of it


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

    def renumber(mask: int) -> int:
        out = 0
        while mask:
            low = mask & -mask
            out |= BIT[inner[low.bit_length() - 1]]
            mask ^= low
        return out

    beat = tuple(renumber(rules.ranking.beat[trump][c]) for c in card_of)
    over = tuple(renumber(rules.beaters[trump][c]) for c in card_of)
    worth = tuple(points[c] for c in card_of)
    follow = rules.follow
    if follow.free_trump and trump != NO_TRUMP:
        free = inner[13 * trump + RANKS.index(follow.free_trump)] - 13 * trump
        follow = dataclasses.replace(follow, free_trump=RANKS[free])
    plain = tuple(not ((led == trump and (follow.must_overtrump or follow.free_trump)) or
                       (led != trump and trump != NO_TRUMP and follow.trump_with_suit)) for led in range(4))
    block_points = tuple(_block_points(worth[13 * s:13 * s + 13]) for s in range(4))
    above = tuple(SUIT_MASK[SUIT[i]] & ~((2 << i) - 1) for i in range(52))
    kind = tuple(SUIT[i] << 16 | worth[i] for i in range(52))
    return Tables(tuple(inner), tuple(card_of), beat, over, worth, block_points, above, kind, follow, plain)


@lru_cache(maxsize=64)
def _block_points(worths: tuple[int, ...]) -> tuple[int, ...]:
    """For a suit's 13 cards worth ``worths`` (weakest first), the points of each mask of them (kept by the worths:
    the games and trumps share a few suits' worths, and a table is 8192 long)."""
    points = [0] * (BLOCK + 1)
    for bits in range(1, BLOCK + 1):
        low = bits & -bits
        points[bits] = points[bits ^ low] + worths[low.bit_length() - 1]
    return tuple(points)


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


class Search:
    """The search from one position for one side (see the module's docstring); ``DoubleDummy`` is its face."""

    def __init__(self, rules: TrickRules, trump: int, side_of: Sequence[int], side: int, seat: int,
                 hands: Sequence[int], trick: Sequence[tuple[int, int]], done: int, stock: Sequence[int],
                 counts: Sequence[bool], max_nodes: int = 0, meter: Meter | None = None,
                 table: dict[object, tuple[int, int, int]] | None = None) -> None:
        self.t = t = tables(rules, trump)
        self.rules, self.trump, self.side_of, self.side = rules, trump, tuple(side_of), side
        self.n = len(side_of)
        self._seat = seat
        self.hands = [self._inner_mask(h) for h in hands]
        self.trick = [(s, t.inner[c]) for s, c in trick]
        self.done = done
        self.stock = [t.inner[c] for c in stock]
        self.counts = list(counts)
        self.max_nodes, self.meter = max_nodes, meter
        self.nodes = 0
        self._charged = 0
        self.tt: dict[object, tuple[int, int, int]] = {} if table is None else table
        self._build()

    def _inner_mask(self, mask: int) -> int:
        inner, out = self.t.inner, 0
        while mask:
            low = mask & -mask
            out |= BIT[inner[low.bit_length() - 1]]
            mask ^= low
        return out

    # ---- the public searches ------------------------------------------------------------------------------------

    def solve(self) -> int:
        """What the side takes from the position on."""
        def search() -> int:
            guess = self._estimate()
            return exact_value(self._root, 0, self._most(), guess, 0 if guess is None else MTD_STEPS)

        return self._run(search)

    def card_values(self) -> dict[int, int]:
        """Each legal card of the seat to play (game numbering) and what the side takes after it."""
        return self._run(self._card_values)

    def settle(self) -> None:
        """Charge the meter the nodes it was not charged yet."""
        if self.meter is not None and self.nodes > self._charged:
            self.meter.charge(self.nodes - self._charged)
            self._charged = self.nodes

    # ---- set-up -------------------------------------------------------------------------------------------------

    def _run(self, search: Callable[[], _T]) -> _T:
        """Run a search from the position; whatever ends it (an exception too), the position is put back."""
        hands = self.hands[:]
        try:
            return search()
        finally:
            self.nodes = self._sync()
            self.hands[:] = hands
            self._reset()

    def _card_values(self) -> dict[int, int]:
        """Each run of equivalent cards searched once, from the last card's value as the first guess."""
        values: dict[int, int] = {}
        guess = None
        for card, equal in self._root_moves():

            def test(alpha: int, beta: int, card: int = card) -> int:
                return self._after(card, alpha, beta)

            guess = exact_value(test, 0, self._most(), guess)
            for c in equal:
                values[self.t.card_of[c]] = guess
        return values

    def _build(self) -> None:  # noqa: C901  (the search's closures share its state: one scope on purpose)
        t, rules, n, side_of, side = self.t, self.rules, self.n, self.side_of, self.side
        hands, stock, counts = self.hands, self.stock, self.counts
        beat, over_of, worth, block_points, above, kind = t.beat, t.over, t.points, t.block_points, t.above, t.kind
        follow, plain_follow = t.follow, t.plain_follow
        trump = self.trump
        trump_mask = SUIT_MASK[trump] if trump != NO_TRUMP else 0
        quick_lead = QUICK_LEAD
        # the move orders' sort keys, the card in the low 6 bits: leads (masters from the top, then low cards from the
        # bottom) and follows (the richest first, or the poorest)
        master_key = tuple((64 - c) << 6 | c for c in range(52))
        low_key = tuple((128 + c) << 6 | c for c in range(52))
        rich_key = tuple((63 - worth[c]) * 64 + c for c in range(52))
        poor_key = tuple(8192 + worth[c] * 64 + c for c in range(52))
        trump_shift = 13 * trump if trump != NO_TRUMP else 0
        trump_points = block_points[trump] if trump != NO_TRUMP else block_points[0]
        scored = rules.points is not None
        bonus, total = rules.last_trick, rules.tricks
        lead_passes = rules.lead_passes
        maxi, nxt, rivals, max_seats, min_seats = seats(side_of, side)
        tricks_left = [sum(counts[k:]) for k in range(total + 1)]
        all_count = [all(counts[k:]) for k in range(total + 1)]
        nstock = len(stock)
        tt = self.tt
        tt_get = tt.get
        meter = self.meter
        suit_masks = SUIT_MASK

        suit_cache: list[dict[tuple[int, ...], int]] = [{}, {}, {}, {}]
        canonical_of: dict[tuple[int, ...], tuple[int, ...]] = {}  # by the plain key: its positions recur in each pass
        canonical_get = canonical_of.get
        free_card = -1 if not follow.free_trump or trump == NO_TRUMP else 13 * trump + RANKS.index(follow.free_trump)
        # Where card points count, they keep most cards apart: in Belote contrée the key by ranks merged 4% of the
        # nodes at 24 cards and cost 11% more instructions (callgrind); on bridge endings it saves a fifth of them.
        by_ranks = not scored and n <= 8
        live = 0
        points_left = 0
        drawn = 0
        nodes = 0
        check_at = 0
        lead_move = -1

        def reset() -> None:
            nonlocal live, points_left, drawn, check_at, lead_move
            live = sum(hands) + sum(BIT[c] for _s, c in self.trick) + sum(BIT[c] for c in stock)
            points_left = 0
            if scored:
                m = live
                for s in range(4):
                    points_left += block_points[s][m >> (13 * s) & BLOCK]
                points_left += bonus
            drawn = 0
            check_at = next_check()
            lead_move = -1

        def next_check() -> int:
            limit = self.max_nodes + 1 if self.max_nodes else 1 << 62
            return min(limit, nodes + CHARGE_EVERY) if meter is not None else limit

        def check() -> None:
            nonlocal check_at
            self.nodes = nodes
            if self.max_nodes and nodes > self.max_nodes:
                raise NodeBudgetExceeded(f"double-dummy search over {self.max_nodes} nodes")
            self.settle()
            check_at = next_check()

        def sync() -> int:
            return nodes

        def sure_tricks(sure_cards: int, of: tuple[int, ...]) -> int:
            return max((hands[s] & sure_cards).bit_count() for s in of)

        def cashes(leader: int) -> bool:
            """Whether the leader holds the top live card of a suit that no opponent can trump (each holds the suit
            and must follow it, or holds no trump): its side is sure of the trick it leads."""
            hand = hands[leader]
            for s in range(4):
                top = (live & suit_masks[s]).bit_length() - 1
                if top < 0 or not hand >> top & 1:
                    continue
                if s == trump:
                    return True
                for o in rivals[leader][0]:
                    h = hands[o]
                    if h & trump_mask and not (plain_follow[s] and h & suit_masks[s]):
                        break
                else:
                    return True
            return False

        def boundary(leader: int, done: int, alpha: int, beta: int) -> int:
            """The side's take from trick ``done`` on, ``leader`` to lead (fail-soft)."""
            nonlocal nodes, lead_move
            nodes += 1
            if nodes >= check_at:
                check()
            if done == total - 1:
                return last_trick(leader, done)
            low = 0
            high = most_left = points_left if scored else tricks_left[done]
            if high <= alpha:
                return high
            if trump_mask:
                own = 0
                for s in max_seats:
                    own |= hands[s]
                # each side's sure trumps: above every other live trump, they win their trick whenever played (a plain
                # card may be discarded, a trump never loses to a lower card); the stock's trumps are the others'
                live_trumps = live & trump_mask
                own_trumps = own & trump_mask
                if drawn == nstock:
                    their_trumps = live_trumps ^ own_trumps
                else:
                    their_trumps = 0
                    for s in min_seats:
                        their_trumps |= hands[s] & trump_mask
                mine = own_trumps & -(1 << (live_trumps ^ own_trumps).bit_length())
                against = their_trumps & -(1 << (live_trumps ^ their_trumps).bit_length())
                if scored:
                    if mine:
                        low = trump_points[mine >> trump_shift]
                    if against:
                        high -= trump_points[against >> trump_shift]
                elif all_count[done]:
                    if mine:
                        low = sure_tricks(mine, max_seats)
                    if against:
                        high -= sure_tricks(against, min_seats)
            if quick_lead and not scored and counts[done] and cashes(leader):
                if maxi[leader]:
                    if low < 1:
                        low = 1
                elif high > most_left - 1:
                    high = most_left - 1
            key = (-1 - leader, *hands)
            if drawn == nstock and by_ranks:
                ranked = canonical_get(key)
                if ranked is None:
                    ranked = canonical_of[key] = canonical(leader)
                key = ranked
            entry = tt_get(key)
            first = -1
            if entry is not None:
                lo, hi, first = entry
                if lo > low:
                    low = lo
                if hi < high:
                    high = hi
            if high <= alpha:
                return high
            if low >= beta or low == high:
                return low
            a = alpha if alpha > low else low
            b = beta if beta < high else high
            value = ply(leader, 0, 0, -1, -1, 0, 0, leader, done, a, b, first)
            if value <= a:
                high = value
            elif value >= b:
                low = value
            else:
                low = high = value
            tt[key] = (low, high, lead_move)
            return value

        def canonical(leader: int) -> tuple[int, ...]:
            """The transposition key of a trick start with no stock left, where tricks are counted: per suit, the
            owners of its live cards from the weakest up (and which is the free trump), whatever their ranks.
            Positions that differ only by the ranks the played cards leave between the live ones play alike (a card's
            suit and its order among the live cards are all the rules read), so they share one entry."""
            key = [leader]
            for s in range(4):
                shift = 13 * s
                key.append(suit_code(s, tuple([h >> shift & BLOCK for h in hands])))
            return tuple(key)

        def suit_code(s: int, blocks: tuple[int, ...]) -> int:
            cache = suit_cache[s]
            code = cache.get(blocks)
            if code is None:
                code = 1
                live_block = 0
                for b in blocks:
                    live_block |= b
                base = 13 * s
                while live_block:
                    low = live_block & -live_block
                    live_block ^= low
                    i = low.bit_length() - 1
                    owner = 0
                    while not blocks[owner] & low:
                        owner += 1
                    code = code << 4 | (8 if base + i == free_card else 0) | owner
                cache[blocks] = code
            return code

        def last_trick(leader: int, done: int) -> int:
            """The last trick: one card in each hand, nothing to choose."""
            seat = leader
            best = hands[seat].bit_length() - 1
            best_seat, cards = seat, worth[best]
            for _ in range(n - 1):
                seat = nxt[seat]
                card = hands[seat].bit_length() - 1
                cards += worth[card]
                if beat[best] & BIT[card]:
                    best, best_seat = card, seat
            if not maxi[best_seat] or not counts[done]:
                return 0
            return cards + bonus if scored else 1

        def ply(seat: int, k: int, led: int, best: int, best_seat: int, trick: int, trick_points: int, leader: int,
                done: int, alpha: int, beta: int, first: int) -> int:
            """``seat`` plays the trick's ``k``-th card (from 0) to a trick led in ``led``, won so far by ``best``
            of ``best_seat`` (its cards ``trick`` and their points), from trick ``done`` on; fail-soft."""
            nonlocal nodes, lead_move
            nodes += 1
            if nodes >= check_at:
                check()
            hand = hands[seat]
            if k == 0:
                moves = leads(hand, first)
            else:
                same = hand & suit_masks[led]
                if same and plain_follow[led]:
                    legal = same
                else:
                    legal = legal_mask(follow, hand, led, trump, over_of[best], side_of[best_seat] == side_of[seat])
                if not legal & (legal - 1):  # one card to play: no choice to order or compare
                    card = legal.bit_length() - 1
                    hands[seat] = hand ^ legal
                    if beat[best] & legal:
                        best, best_seat = card, seat
                    if k == n - 1:
                        v = trick_over(best_seat, trick | legal, trick_points + worth[card], leader, done, alpha, beta)
                    else:
                        v = ply(nxt[seat], k + 1, led, best, best_seat, trick | legal, trick_points + worth[card],
                                leader, done, alpha, beta, -1)
                    hands[seat] = hand
                    lead_move = card
                    return v
                moves = follows(legal, best, best_seat, seat, k, led)
            maximizing = maxi[seat]
            value = -INFINITY if maximizing else INFINITY
            chosen = -1
            after = nxt[seat]
            beaters = beat[best]
            last = k == n - 1
            for key in moves:
                card = key & 63
                bit = BIT[card]
                hands[seat] = hand ^ bit
                if k == 0:
                    v = ply(after, 1, card // 13, card, seat, bit, worth[card], leader, done, alpha, beta, -1)
                elif last:
                    v = trick_over(seat if beaters & bit else best_seat, trick | bit, trick_points + worth[card],
                                   leader, done, alpha, beta)
                elif beaters & bit:
                    v = ply(after, k + 1, led, card, seat, trick | bit, trick_points + worth[card], leader, done,
                            alpha, beta, -1)
                else:
                    v = ply(after, k + 1, led, best, best_seat, trick | bit, trick_points + worth[card], leader,
                            done, alpha, beta, -1)
                hands[seat] = hand
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
            lead_move = chosen
            return value

        def trick_over(winner: int, trick: int, trick_points: int, leader: int, done: int, alpha: int,
                       beta: int) -> int:
            nonlocal live, points_left, drawn
            last = done + 1 == total
            gain = 0
            if maxi[winner] and counts[done]:
                gain = trick_points + (bonus if last else 0) if scored else 1
            if last:
                return gain
            live ^= trick
            points_left -= trick_points
            start = drawn
            if start < nstock:
                for j in range(n):
                    if drawn == nstock:
                        break
                    hands[(winner + j) % n] |= BIT[stock[drawn]]
                    drawn += 1
            value = gain + boundary(nxt[leader] if lead_passes else winner, done + 1, alpha - gain, beta - gain)
            for j in range(drawn - start):
                hands[(winner + j) % n] ^= BIT[stock[start + j]]
            drawn = start
            points_left += trick_points
            live ^= trick
            return value

        def heads(cards: int) -> list[int]:
            """The first card of each run of equivalent ones in ``cards`` (a mask), from the top: a card whose next
            card above in the mask is of its suit, worth the same, with no live card between them, plays as that
            one does."""
            card = cards.bit_length() - 1
            out = [card]
            cards ^= BIT[card]
            while cards:
                prev = card
                card = cards.bit_length() - 1
                cards ^= BIT[card]
                if kind[prev] != kind[card] or live & (BIT[prev] - BIT[card + 1]):
                    out.append(card)
            return out

        def leads(hand: int, first: int) -> list[int]:
            """The cards to lead, one of each equivalent run (:func:`heads`, inline), as sorted keys (the card in the
            low 6 bits): the table's best first, then the masters of their suits (nothing live above them), then the
            low cards."""
            keyed = []
            card = -1
            while hand:
                prev = card
                card = hand.bit_length() - 1
                hand ^= BIT[card]
                if prev >= 0 and kind[prev] == kind[card] and not live & (BIT[prev] - BIT[card + 1]):
                    continue
                if card == first:
                    keyed.append(card)
                else:
                    keyed.append(low_key[card] if live & above[card] else master_key[card])
            keyed.sort()
            return keyed

        def follows(legal: int, best: int, best_seat: int, seat: int, k: int, led: int) -> list[int]:
            """The legal cards to follow with, one of each equivalent run (:func:`heads`, inline), as sorted keys (the
            card in the low 6 bits). While the trick is safe for the seat's side (its partner wins and no opponent to
            play can beat him), the richest non-winners first; else the cheapest winner no later opponent can beat,
            the other winners, then the poorest discards."""
            led_mask = suit_masks[led]
            threat = 0  # the cards later opponents could beat with
            for s in rivals[seat][k]:
                h = hands[s]
                threat |= h & led_mask or h
            winners = beat[best]
            safe = maxi[best_seat] == maxi[seat] and not winners & threat
            keyed = []
            card = -1
            while legal:
                prev = card
                card = legal.bit_length() - 1
                bit = BIT[card]
                legal ^= bit
                if prev >= 0 and kind[prev] == kind[card] and not live & (BIT[prev] - BIT[card + 1]):
                    continue
                if safe:
                    keyed.append(rich_key[card])
                elif winners & bit:
                    keyed.append(card if not beat[card] & threat else 4096 + card)
                else:
                    keyed.append(poor_key[card])
            keyed.sort()
            return keyed

        def root() -> tuple[int, int, int, int, int, int, int]:
            """The position's trick: (seat, k, led, best, best_seat, cards, points)."""
            trick = self.trick
            if not trick:
                return (self._seat, 0, 0, -1, -1, 0, 0)
            led = trick[0][1] // 13
            best_seat, best = trick[0]
            cards = points = 0
            for s, c in trick:
                if beat[best] & BIT[c]:
                    best_seat, best = s, c
                cards |= BIT[c]
                points += worth[c]
            last_seat = trick[-1][0]
            return (nxt[last_seat], len(trick), led, best, best_seat, cards, points)

        def root_value(alpha: int, beta: int) -> int:
            seat, k, led, best, best_seat, cards, points = root()
            if k == 0:
                return boundary(seat, self.done, alpha, beta)
            return ply(seat, k, led, best, best_seat, cards, points, self.trick[0][0], self.done, alpha, beta, -1)

        def after(card: int, alpha: int, beta: int) -> int:
            """The side's take after the seat to play plays ``card``."""
            seat, k, led, best, best_seat, cards, points = root()
            bit = BIT[card]
            hands[seat] ^= bit
            try:
                if k == 0:
                    led, best, best_seat, leader = card // 13, card, seat, seat
                else:
                    leader = self.trick[0][0]
                    if beat[best] & bit:
                        best, best_seat = card, seat
                if k + 1 < n:
                    return ply(nxt[seat], k + 1, led, best, best_seat, cards | bit, points + worth[card], leader,
                               self.done, alpha, beta, -1)
                return trick_over(best_seat, cards | bit, points + worth[card], leader, self.done, alpha, beta)
            finally:
                hands[seat] ^= bit

        def root_moves() -> list[tuple[int, list[int]]]:
            """The legal cards of the seat to play, by equivalent runs: (the one searched, all of them)."""
            seat, k, led, best, best_seat, _cards, _points = root()
            hand = hands[seat]
            if k == 0:
                legal = hand
                searched = [x & 63 for x in leads(hand, -1)]
            else:
                legal = legal_mask(follow, hand, led, trump, over_of[best], side_of[best_seat] == side_of[seat])
                searched = [x & 63 for x in follows(legal, best, best_seat, seat, k, led)]
            runs: dict[int, list[int]] = {c: [] for c in searched}
            tops = heads(legal)
            for card in cards_in(legal):
                runs[min(c for c in tops if c >= card)].append(card)  # its run's first card: the lowest above it
            return list(runs.items())

        def estimate() -> int | None:
            """A first guess of the value: the side's take when every seat plays the card the ordering tries first
            (None while stock is left to draw)."""
            nonlocal live
            if nstock or total - self.done < GUESS_TRICKS:
                return None
            seat, k, led, best, best_seat, cards, points = root()
            leader = self.trick[0][0] if k else seat
            played: list[tuple[int, int]] = []
            start_live, gain = live, 0
            for done in range(self.done, total):
                for j in range(k, n):
                    hand = hands[seat]
                    if j == 0:
                        card = leads(hand, -1)[0] & 63
                        led, best, best_seat = card // 13, card, seat
                    else:
                        legal = legal_mask(follow, hand, led, trump, over_of[best], side_of[best_seat] == side_of[seat])
                        card = follows(legal, best, best_seat, seat, j, led)[0] & 63 if legal & (legal - 1) else \
                            legal.bit_length() - 1
                        if beat[best] & BIT[card]:
                            best, best_seat = card, seat
                    hands[seat] = hand ^ BIT[card]
                    played.append((seat, card))
                    cards |= BIT[card]
                    points += worth[card]
                    seat = nxt[seat]
                if maxi[best_seat] and counts[done]:
                    gain += points + (bonus if done == total - 1 else 0) if scored else 1
                live ^= cards
                leader = seat = nxt[leader] if lead_passes else best_seat
                k, cards, points = 0, 0, 0
            for s, c in played:
                hands[s] |= BIT[c]
            live = start_live
            return gain

        def most() -> int:
            """The most the side can take from the position: the points left, or the counted tricks left."""
            return points_left if scored else tricks_left[self.done]

        self._reset, self._sync = reset, sync
        self._root, self._after, self._root_moves = root_value, after, root_moves
        self._most, self._estimate = most, estimate
        reset()
