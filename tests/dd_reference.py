"""The double-dummy solver the present one (engine/search/double_dummy.py) replaced, kept as the reference its tests
compare with on endings too large for brute force: fail-soft alpha-beta over the card plays with one full window, a
transposition table of bounds at trick starts, move ordering and equivalent cards merged."""

from __future__ import annotations

from collections.abc import Callable

from engine.budget import Meter
from engine.cards import BIT, SUIT, SUIT_MASK, cards_in
from engine.search.dd_search import NodeBudgetExceeded
from engine.search.double_dummy import unsolvable
from engine.state import State
from engine.trickgame import TrickGame
from engine.tricks import legal_mask

INFINITY = 1 << 30
CHARGE_EVERY = 256
Entry = tuple[int, int, int]


class DoubleDummy:
    """A solver for one position and one side; its transposition table serves every search from that position on.

    ``max_nodes`` (0: no limit) stops a search that visits more nodes with :class:`NodeBudgetExceeded`. A ``meter``
    (:class:`engine.budget.Meter`) is charged the nodes as the search goes (every ``CHARGE_EVERY``; the rest by
    :meth:`settle`), so that a decision's budget or its cancellation stops even one long search.
    """

    def __init__(self, state: State, side: int | None = None, max_nodes: int = 0, meter: Meter | None = None) -> None:
        reason = unsolvable(state)
        if reason is not None:
            raise ValueError(f"no double-dummy search here: {reason}")
        assert isinstance(state, TrickGame) and state.current_player is not None  # unsolvable says so
        rules, trump = state.RULES, state.trump
        self.state = state
        self.side_of = state.side_of
        self.side = self.side_of[state.current_player] if side is None else side
        if self.side not in self.side_of:
            raise ValueError(f"side must be one of {sorted(set(self.side_of))}, got {side!r}")
        self.n = state.n_players
        self.trump = trump
        self.power = rules.ranking.power[trump]
        self.follow = rules.follow
        self.beaters = rules.beaters[trump]
        self.points = rules.points[trump] if rules.points is not None else None
        self.last_bonus = rules.last_trick
        self.total_tricks = rules.tricks
        self.lead_passes = rules.lead_passes
        self.stock = list(state.stock[state.stock_top:]) if rules.draw_after_trick else []
        counts: Callable[[int], bool] | None = getattr(state, "_trick_counts", None)
        self.counts = [counts is None or counts(k) for k in range(rules.tricks)]
        # each suit's cards, most powerful first (trumps in trump order)
        self.order = [sorted((c for c in range(52) if SUIT[c] == s), key=lambda c: -self.power[c]) for s in range(4)]
        self.max_nodes = max_nodes
        self.meter = meter
        self.nodes = 0
        self._charged = 0  # the nodes charged to the meter so far
        self._check_at = self._next_check()
        self.tt: dict[tuple[int, ...], Entry] = {}
        # the search's position: hands, the trick so far, tricks done, stock drawn
        self.hands = list(state.hands)
        self.trick = list(state.trick)
        self.done = len(state.tricks)
        self.drawn = 0
        self.best_seat, self.best_card, self.overtrumps = state.best_seat, state.best_card, state.overtrumps
        # the most the side can still take: per tricks done, the counted tricks left (a trick game), or the points of
        # the cards not yet won with the last trick's bonus (kept as the tricks are won and taken back)
        self.tricks_left = [sum(self.counts[k:]) for k in range(rules.tricks + 1)]
        unwon = sum(self.hands) + sum(BIT[c] for _s, c in self.trick) + sum(BIT[c] for c in self.stock)  # disjoint
        self.points_left = sum(self.points[c] for c in cards_in(unwon)) + self.last_bonus if self.points else 0

    # ---- the public searches ------------------------------------------------------------------------------------

    def solve(self) -> int:
        """What the side takes from here on with best play by everyone."""
        seat = self.state.current_player
        assert seat is not None
        return self._node(seat, -INFINITY, INFINITY)

    def card_values(self) -> dict[int, int]:
        """Each legal card of the seat to play (merged equivalents included) and what the side takes after it."""
        seat = self.state.current_player
        assert seat is not None
        values = {}
        legal = self._legal(seat)
        for card in cards_in(legal):
            values[card] = self._after(seat, card, -INFINITY, INFINITY)
        return values

    def action_values(self) -> dict[int, int]:
        """:meth:`card_values` by the legal action ids (a card with an announcement is worth its card)."""
        values = self.card_values()
        card_of = self.state.ACTIONS.card_of
        return {a: values[card_of[a]] for a in self.state.legal_action_ids()}  # type: ignore[index]

    def settle(self) -> None:
        """Charge the meter the nodes it was not charged yet (a search done)."""
        if self.meter is not None and self.nodes > self._charged:
            self.meter.charge(self.nodes - self._charged)
            self._charged = self.nodes

    # ---- the search ---------------------------------------------------------------------------------------------

    def _next_check(self) -> int:
        """The node count at which the search next checks its limits (one int compare per node until then)."""
        limit = self.max_nodes + 1 if self.max_nodes else 1 << 62
        return min(limit, self.nodes + CHARGE_EVERY) if self.meter is not None else limit

    def _check(self) -> None:
        if self.max_nodes and self.nodes > self.max_nodes:
            raise NodeBudgetExceeded(f"double-dummy search over {self.max_nodes} nodes")
        self.settle()
        self._check_at = self._next_check()

    def _legal(self, seat: int) -> int:
        hand, trick = self.hands[seat], self.trick
        if not trick:
            return hand
        partner = self.side_of[self.best_seat] == self.side_of[seat]
        return legal_mask(self.follow, hand, SUIT[trick[0][1]], self.trump, self.overtrumps, partner)

    def _node(self, seat: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self._check_at:
            self._check()
        most = self.tricks_left[self.done] if self.points is None else self.points_left
        if most <= alpha:  # even every point left is not enough: a bound that fails low
            return most
        if beta <= 0:
            return 0
        key: tuple[int, ...] | None = None
        first = -1
        if not self.trick:
            if self.done == self.total_tricks:
                return 0
            key = (seat, self.done, *self.hands)
            entry = self.tt.get(key)
            if entry is not None:
                low, high, first = entry
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                if low == high:
                    return low
                if low > alpha:
                    alpha = low
                if high < beta:
                    beta = high
        start_alpha, start_beta = alpha, beta
        maximizing = self.side_of[seat] == self.side
        best = -INFINITY if maximizing else INFINITY
        best_card = -1
        for card in self._ordered(seat, first):
            value = self._after(seat, card, alpha, beta)
            if maximizing:
                if value > best:
                    best, best_card = value, card
                    if best > alpha:
                        alpha = best
            elif value < best:
                best, best_card = value, card
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if key is not None:
            low, high = -INFINITY, INFINITY
            if best <= start_alpha:
                high = best
            elif best >= start_beta:
                low = best
            else:
                low = high = best
            old = self.tt.get(key)
            if old is not None:
                low, high = max(low, old[0]), min(high, old[1])
            self.tt[key] = (low, high, best_card)
        return best

    def _after(self, seat: int, card: int, alpha: int, beta: int) -> int:
        """Play ``card`` for ``seat``, search on, take it back: the side's value from here."""
        hands, trick = self.hands, self.trick
        saved = self.best_seat, self.best_card, self.overtrumps
        hands[seat] ^= BIT[card]
        trick.append((seat, card))
        if len(trick) == 1:
            self.best_seat, self.best_card, self.overtrumps = seat, card, self.beaters[card]
        else:
            power, best = self.power, self.best_card
            if power[card] > power[best] and (SUIT[card] == SUIT[best] or SUIT[card] == self.trump):
                self.best_seat, self.best_card, self.overtrumps = seat, card, self.beaters[card]
        if len(trick) < self.n:
            value = self._node(seat + 1 if seat + 1 < self.n else 0, alpha, beta)
        else:
            value = self._trick_over(alpha, beta)
        trick.pop()
        hands[seat] ^= BIT[card]
        self.best_seat, self.best_card, self.overtrumps = saved
        return value

    def _trick_over(self, alpha: int, beta: int) -> int:
        trick, winner = self.trick, self.best_seat
        gain = 0
        if self.side_of[winner] == self.side and self.counts[self.done]:
            if self.points is None:
                gain = 1
            else:
                points = self.points
                for _s, c in trick:
                    gain += points[c]
                if self.done + 1 == self.total_tricks:
                    gain += self.last_bonus
        won = self._trick_points(trick)
        self.points_left -= won
        self.trick = []
        self.done += 1
        drawn = self._draw(winner)
        leader = (trick[0][0] + 1) % self.n if self.lead_passes else winner
        value = gain + self._node(leader, alpha - gain, beta - gain)
        self._undraw(winner, drawn)
        self.done -= 1
        self.trick = trick
        self.points_left += won
        return value

    def _trick_points(self, trick: list[tuple[int, int]]) -> int:
        """What a finished trick takes out of the points left (its cards, and the bonus with the last trick)."""
        if self.points is None:
            return 0
        won = sum(self.points[c] for _s, c in trick)
        return won + self.last_bonus if self.done + 1 == self.total_tricks else won

    def _draw(self, winner: int) -> int:
        stock, start = self.stock, self.drawn
        k = 0
        while k < self.n and start + k < len(stock):
            self.hands[(winner + k) % self.n] |= BIT[stock[start + k]]
            k += 1
        self.drawn = start + k
        return k

    def _undraw(self, winner: int, drawn: int) -> None:
        start = self.drawn - drawn
        for k in range(drawn):
            self.hands[(winner + k) % self.n] ^= BIT[self.stock[start + k]]
        self.drawn = start

    # ---- move ordering ------------------------------------------------------------------------------------------

    def _ordered(self, seat: int, first: int) -> list[int]:
        """The legal cards, one of each equivalent run, the likeliest best first."""
        legal = self._legal(seat)
        unplayed = 0
        for hand in self.hands:
            unplayed |= hand
        for _s, c in self.trick:
            unplayed |= BIT[c]
        for c in self.stock[self.drawn:]:
            unplayed |= BIT[c]
        points = self.points
        cards = []
        for suit in range(4):
            if not legal & SUIT_MASK[suit]:
                continue
            run_points = None
            for c in self.order[suit]:
                bit = BIT[c]
                if not unplayed & bit:
                    continue
                if not legal & bit:
                    run_points = None
                    continue
                worth = points[c] if points is not None else 0
                if run_points is not None and worth == run_points and c != first:
                    continue  # the card above it in this run plays the same
                cards.append(c)
                run_points = worth
        return self._sort(seat, cards, first)

    def _masters(self) -> int:
        """The most powerful unplayed card of each suit (a mask)."""
        unplayed = sum(self.hands) + sum(BIT[c] for c in self.stock[self.drawn:])  # disjoint masks
        tops = 0
        for suit in range(4):
            for c in self.order[suit]:
                if unplayed & BIT[c]:
                    tops |= BIT[c]
                    break
        return tops

    def _sort(self, seat: int, cards: list[int], first: int) -> list[int]:
        power, points = self.power, self.points
        if not self.trick:  # leads: the masters of their suits (nothing unplayed above them) first, then low cards
            tops = self._masters()
            keyed = sorted(cards, key=lambda c: (0, -power[c]) if BIT[c] & tops else (1, power[c]))
        else:
            best = self.best_card
            partner = self.side_of[self.best_seat] == self.side_of[seat]
            trump = self.trump

            def rank(c: int) -> tuple[int, int]:
                worth = points[c] if points is not None else 0
                wins = power[c] > power[best] and (SUIT[c] == SUIT[best] or SUIT[c] == trump)
                if partner:
                    return (0 if not wins else 1, -worth)  # give the partner points, keep winners
                if wins:
                    return (0, power[c])  # the cheapest winner
                return (1, worth * 100 + power[c])  # else the lowest discard

            keyed = sorted(cards, key=rank)
        if first in keyed:
            keyed.remove(first)
            keyed.insert(0, first)
        return keyed
