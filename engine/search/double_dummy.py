"""The exact double-dummy solver of the trick games: every hand (and stock) known, the best play by everyone.

A :class:`DoubleDummy` takes a :class:`engine.trickgame.TrickGame` in its card play and computes what one side (by
default the side of the seat to play) takes from the remaining tricks with best play by everyone, as the game counts
it: tricks (``RULES.points`` is None), else card points with the last trick's bonus; tricks a game does not count
(German Whist's first phase by default, 7.1) count nothing (the game's ``_trick_counts(index)``, when it has one).
With more than two sides the other sides are assumed to play against it together.

It plays the game's own trick rules from ``RULES`` (rank order, follow rule, points, stock drawn after each trick), so
it solves the games whose card play is exactly the base's: a game that declares it (``TrickGame.DOUBLE_DUMMY``)
and keeps the base's legal cards, trick winner and turn order, with every card still to play in a hand or the stock
(:func:`unsolvable` says why not otherwise).

The search (:mod:`engine.search.dd_search`, written once for every such game) is alpha-beta over the card plays,
driven by zero-window tests to exact values, with a transposition table of bounds at trick starts keyed by the
remaining cards, equivalent cards merged, quick bounds from the trumps each side is sure to win with and from the
points left, and move ordering.

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
from ..state import State
from ..trickgame import TrickGame
from ..tricks import trick_winner
from .dd_search import CHARGE_EVERY, Entries, NodeBudgetExceeded, Search

__all__ = ["CHARGE_EVERY", "DoubleDummy", "NodeBudgetExceeded", "Table", "card_values", "cards_left",
           "nominal_nodes", "solve", "taken", "unsolvable"]


def unsolvable(state: State) -> str | None:
    """Why ``state`` cannot be solved double dummy (None when it can): not a trick game's card play, a game with its
    own trick rules, or cards still to play that are in no hand and no stock (German Whist's face-down cards)."""
    if not isinstance(state, TrickGame):
        return f"{state.game_id} is not a trick game"
    cls = type(state)
    if not cls.DOUBLE_DUMMY or any(getattr(cls, name) is not getattr(TrickGame, name)
                                   for name in ("_card_ids", "_won_by", "_next_seats", "_winner_rule")):
        return f"{state.game_id} plays its tricks by rules of its own"
    refusal = state.double_dummy_refusal()
    if refusal is not None:
        return f"{state.game_id}: {refusal}"
    if state.RULES.trick_cards:
        return f"{state.game_id} has tricks of more cards than seats"
    seat = state.current_player
    if seat is None:
        return f"{state.game_id}: the match is over"
    card_of = state.ACTIONS.card_of
    if any(card_of[a] is None for a in state.legal_action_ids()):
        return f"{state.game_id} is in its {state.phase} phase, not playing cards"
    held = sum(bin(hand).count("1") for hand in state.hands) + _stock_left(state)
    to_play = (state.RULES.tricks - len(state.tricks)) * state.n_players - len(state.trick)
    if held != to_play:
        return f"{state.game_id}: {to_play - held} of the cards still to play are in no hand (face down)"
    return None


def _stock_left(state: TrickGame) -> int:
    return len(state.stock) - state.stock_top if state.RULES.draw_after_trick else 0


class Table:
    """A transposition table that solvers of one deal share, one for each side (and trump): what a side takes from a
    position on depends on the remaining cards alone, so the positions a search settled serve every later one of the
    deal (``cardtable replay analyze`` solves each card of a deal)."""

    def __init__(self) -> None:
        self._tables: dict[tuple[int, int, int], Entries] = {}

    def entries(self, state: TrickGame, side: int) -> Entries:
        """The table of ``side`` in ``state``'s deal (a new deal clears the others)."""
        key = (state.deal_index, side, state.trump)
        if key not in self._tables and any(k[0] != state.deal_index for k in self._tables):
            self._tables.clear()
        return self._tables.setdefault(key, Entries())


class DoubleDummy:
    """A solver for one position and one side; its transposition table serves every search from that position on.

    ``max_nodes`` (0: no limit) stops a search that visits more nodes with :class:`NodeBudgetExceeded`. A ``meter``
    (:class:`engine.budget.Meter`) is charged the nodes as the search goes (every ``CHARGE_EVERY``; the rest by
    :meth:`settle`), so that a decision's budget or its cancellation stops even one long search.
    """

    def __init__(self, state: State, side: int | None = None, max_nodes: int = 0, meter: Meter | None = None,
                 table: Table | None = None) -> None:
        reason = unsolvable(state)
        if reason is not None:
            raise ValueError(f"no double-dummy search here: {reason}")
        assert isinstance(state, TrickGame) and state.current_player is not None  # unsolvable says so
        self.state = state
        self.side = state.side_of[state.current_player] if side is None else side
        if self.side not in state.side_of:
            raise ValueError(f"side must be one of {sorted(set(state.side_of))}, got {side!r}")
        rules = state.RULES
        counts: Callable[[int], bool] | None = getattr(state, "_trick_counts", None)
        stock = list(state.stock[state.stock_top:]) if rules.draw_after_trick else []
        self._search = Search(rules, state.trump, state.side_of, self.side, state.current_player, state.hands,
                              state.trick, len(state.tricks), stock,
                              [counts is None or counts(k) for k in range(rules.tricks)], max_nodes, meter,
                              None if table is None else table.entries(state, self.side))

    @property
    def nodes(self) -> int:
        """The nodes the searches visited so far."""
        return self._search.nodes

    @property
    def tt(self) -> Entries:
        """The transposition table: bounds on what the side takes from a trick's start, and the best lead."""
        return self._search.tt

    # ---- the public searches ------------------------------------------------------------------------------------

    def solve(self) -> int:
        """What the side takes from here on with best play by everyone."""
        return self._search.solve()

    def card_values(self) -> dict[int, int]:
        """Each legal card of the seat to play (merged equivalents included) and what the side takes after it."""
        return self._search.card_values()

    def action_values(self) -> dict[int, int]:
        """:meth:`card_values` by the legal action ids (a card with an announcement is worth its card)."""
        values = self.card_values()
        card_of = self.state.ACTIONS.card_of
        return {a: values[card_of[a]] for a in self.state.legal_action_ids()}  # type: ignore[index]

    def settle(self) -> None:
        """Charge the meter the nodes it was not charged yet (a search done)."""
        self._search.settle()


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
    """A double-dummy search's node count with ``cards`` left to play, as budgets reckon it: 4,000 at 16 cards and ten
    times more for every five cards more: about the most measured for every card's value (``card_values``, as pimc
    solves a world) over positions of Belote contree and German Whist (s40, the s39 solver: at 16 cards up to 2,900,
    at 20 up to 29,000, at 24 up to 150,000, at 28 up to 430,000, at 32 up to 4 million, at 36 up to 10 million).

    >>> nominal_nodes(0), nominal_nodes(16), nominal_nodes(24)
    (0, 4000, 159243)
    """
    return round(4000 * 10 ** ((cards - 16) / 5)) if cards > 0 else 0


def cards_left(state: State) -> int:
    """The cards still to play in a trick game's deal (hands, stock and face-down ones): what ``dd_cards`` counts."""
    assert isinstance(state, TrickGame)
    return (state.RULES.tricks - len(state.tricks)) * (state.RULES.trick_cards or state.n_players) - len(state.trick)
