"""The exact double-dummy solver of the trick games: every hand (and stock) known, the best play by everyone.

A :class:`DoubleDummy` takes a :class:`engine.trickgame.TrickGame` in its card play and computes what one side (by
default the side of the seat to play) takes from the remaining tricks with best play by everyone, as the game counts
it: tricks (``RULES.points`` is None), else card points with the last trick's bonus; tricks a game does not count
(German Whist's first phase by default, 7.1) count nothing (the game's ``_trick_counts(index)``, when it has one).
With more than two sides the other sides are assumed to play against it together.

The search is fail-soft alpha-beta over the card plays, with a transposition table of bounds at trick starts (keyed by
the hands and the leader, which also fix the stock still to draw), move ordering (the table's best card, then cheap
winners and low discards) and equivalent cards merged: two cards of one hand with nothing unplayed between them in
their suit, worth the same points, lead to the same results.

It plays the game's own trick rules from ``RULES`` (rank order, follow rule, points, stock drawn after each trick), so
it solves the games whose card play is exactly the base's: a game that declares it (``TrickGame.DOUBLE_DUMMY``)
and keeps the base's legal cards, trick winner and turn order, with every card still to play in a hand or the stock
(:func:`unsolvable` says why not otherwise).

>>> import engine
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
>>> while len(state.tricks) < 20:
...     state.apply_id(state.legal_action_ids()[0])
>>> solver = DoubleDummy(state)
>>> solver.solve() == max(solver.card_values().values())
True
"""

from __future__ import annotations

from collections.abc import Callable

from ..budget import Meter
from ..cards import BIT, SUIT, SUIT_MASK, cards_in
from ..state import State
from ..trickgame import TrickGame
from ..tricks import legal_mask, trick_winner

INFINITY = 1 << 30
CHARGE_EVERY = 256  # nodes between two charges to a meter (and looks at its clock and cancel flag)
# TT entry: (lower bound, upper bound, best card)
Entry = tuple[int, int, int]


class NodeBudgetExceeded(Exception):
    """The search visited more nodes than its budget allowed."""


def unsolvable(state: State) -> str | None:
    """Why ``state`` cannot be solved double dummy (None when it can): not a trick game's card play, a game with its
    own trick rules, or cards still to play that are in no hand and no stock (German Whist's face-down cards)."""
    if not isinstance(state, TrickGame):
        return f"{state.game_id} is not a trick game"
    cls = type(state)
    if not cls.DOUBLE_DUMMY or any(getattr(cls, name) is not getattr(TrickGame, name)
                                   for name in ("_card_ids", "_won_by", "_next_seats", "_winner_rule")):
        return f"{state.game_id} plays its tricks by rules of its own"
    if state.RULES.trick_cards:
        return f"{state.game_id} has tricks of more cards than seats"
    seat = state.current_player
    if seat is None:
        return f"{state.game_id}: the match is over"
    card_of = state.ACTIONS.card_of
    if any(card_of[a] is None for a in state.legal_action_ids()):
        return f"{state.game_id} is in its {state.phase} phase, not playing cards"
    held = sum(bin(hand).count("1") for hand in state.hands) + _stock_left(state)
    to_play = (state.RULES.tricks - len(state.tricks)) * state.n - len(state.trick)
    if held != to_play:
        return f"{state.game_id}: {to_play - held} of the cards still to play are in no hand (face down)"
    return None


def _stock_left(state: TrickGame) -> int:
    return len(state.stock) - state.stock_top if state.RULES.draw_after_trick else 0


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
        self.n = state.n
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
        self.best_seat, self.best_card, self.over = state.best_seat, state.best_card, state.over
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
        return legal_mask(self.follow, hand, SUIT[trick[0][1]], self.trump, self.over, partner)

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
        saved = self.best_seat, self.best_card, self.over
        hands[seat] ^= BIT[card]
        trick.append((seat, card))
        if len(trick) == 1:
            self.best_seat, self.best_card, self.over = seat, card, self.beaters[card]
        else:
            power, best = self.power, self.best_card
            if power[card] > power[best] and (SUIT[card] == SUIT[best] or SUIT[card] == self.trump):
                self.best_seat, self.best_card, self.over = seat, card, self.beaters[card]
        if len(trick) < self.n:
            value = self._node(seat + 1 if seat + 1 < self.n else 0, alpha, beta)
        else:
            value = self._trick_over(alpha, beta)
        trick.pop()
        hands[seat] ^= BIT[card]
        self.best_seat, self.best_card, self.over = saved
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


def taken(state: State, side: int) -> int:
    """What ``side`` has taken so far this deal, as the solver counts it (counted tricks, or card points with the last
    trick's bonus once it is played): added to a solver's value, the side's total for the deal."""
    assert isinstance(state, TrickGame)
    if state.RULES.points is not None:
        return state.trick_totals()[side]
    counts: Callable[[int], bool] | None = getattr(state, "_trick_counts", None)
    ranking, trump = state.RULES.ranking, state.trump
    won = 0
    for k, trick in enumerate(state.tricks):
        if counts is None or counts(k):
            winner = trick[trick_winner([c for _s, c in trick], trump, ranking)][0]
            won += state.side_of[winner] == side
    return won


def solve(state: State, side: int | None = None) -> int:
    """What ``side`` (default: the seat to play's side) takes from the remaining tricks with best play by everyone."""
    return DoubleDummy(state, side).solve()


def card_values(state: State) -> dict[int, int]:
    """Each legal card of the seat to play and what its side takes after playing it, with best play by everyone."""
    return DoubleDummy(state).card_values()


def nominal_nodes(cards: int) -> int:
    """A double-dummy search's node count with ``cards`` left to play, as budgets reckon it: 5,000 at 16 cards and ten
    times more for every four cards more (about the most measured over deals of Belote, Belote contree, Thunee and
    German Whist: a few thousand at 16 cards, up to 70,000 at 20, 600,000 at 28, two million and more at 32).

    >>> nominal_nodes(0), nominal_nodes(16), nominal_nodes(24)
    (0, 5000, 500000)
    """
    return round(5000 * 10 ** ((cards - 16) / 4)) if cards > 0 else 0


def cards_left(state: State) -> int:
    """The cards still to play in a trick game's deal (hands, stock and face-down ones): what ``dd_cards`` counts."""
    assert isinstance(state, TrickGame)
    return (state.RULES.tricks - len(state.tricks)) * (state.RULES.trick_cards or state.n) - len(state.trick)


