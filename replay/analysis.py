"""Move-by-move analysis of a logged trick-game deal: for every card played, the double-dummy result of each legal
card in that position (what the player's side takes in the whole deal with best play by everyone from there), the
card's loss against the best, and the deal's turning points (the cards that lost something).

The analysis is exact from the first trick of a deal whose first position the solver settles within ``max_nodes``
nodes (found from the last trick back); the cards before it are marked too large, and a later position that needs
more than the budget is marked so too. ``from_trick`` starts the analysis at a later trick (1 is the first). A
``cancel`` flag (:class:`engine.budget.Cancel`) raised from another thread abandons the analysis within milliseconds
(:class:`engine.budget.Cancelled`): its caller gave up on it.

>>> from replay.record import record_deal
>>> report = analyze(record_deal("german_whist", 3, ["greedy", "random"]), from_trick=20)
>>> report["moves"][-1]["status"], report["exact_from_move"] is not None
('exact', True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.budget import Cancel, Meter
from engine.cards import CODES, cards_in
from engine.search.double_dummy import DoubleDummy, NodeBudgetExceeded, Table, taken, unsolvable
from engine.trickgame import TrickGame

from .record import Replayer, Step

MAX_NODES = 200_000  # per position: a few seconds of search at most

EXACT, TOO_LARGE, BEFORE = "exact", "too large", "before from_trick"


def analyze(data: bytes, from_trick: int = 1, max_nodes: int = MAX_NODES,
            cancel: Cancel | None = None) -> dict[str, Any]:
    """The analysis of a replay (its bytes), JSON-ready: ``moves`` (one per card played), ``turning_points`` (the
    numbers of the moves that lost something, the costliest first) and ``exact_from_move``."""
    if from_trick < 1:
        raise ValueError(f"from_trick counts tricks from 1, got {from_trick}")
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    replayer = Replayer(data)
    if not isinstance(replayer.state, TrickGame):
        raise ValueError(f"{replayer.header.game} is not a trick game: there is no double-dummy analysis of it")
    plays = []  # (the position before the card, the step that played it)
    before = replayer.state.clone()
    for step in replayer:
        if unsolvable(before) is None:
            plays.append((before, step))
        before = replayer.state.clone()
    meter = Meter(cancel=cancel) if cancel is not None else None  # counts the nodes, looks at the flag
    table = Table()  # one per deal and side: each search reuses what the ones before it settled
    searched = _searched_side(replayer.state)
    exact = _exact_from(plays, from_trick, max_nodes, meter, table, searched)
    moves = [_row(state, step, from_trick, exact, max_nodes, meter, table, searched) for state, step in plays]
    exact_from = next((row["move"] for row in moves if row["status"] == EXACT), None)
    losing = sorted((row for row in moves if row.get("loss")), key=lambda row: (-row["loss"], row["move"]))
    return {"game": replayer.header.game, "unit": "tricks" if replayer.state.RULES.points is None else "card points",
            "from_trick": from_trick, "max_nodes": max_nodes, "exact_from_move": exact_from,
            "turning_points": [row["move"] for row in losing], "moves": moves}


def _searched_side(state: TrickGame) -> int | None:
    """The side every position is searched for, when there are two: what one side takes the other does not, so one
    side's searches (and one transposition table) answer for both; None with more sides (each searched for its own)."""
    return 0 if max(state.side_of) == 1 else None


def _left(state: TrickGame) -> int:
    """What the sides take together from ``state`` on, as the solver counts it (see :func:`taken`): the card points
    still to play and the last trick's bonus, or the counted tricks still to play."""
    rules = state.RULES
    if rules.points is not None:
        worth = rules.points[state.trump]
        cards = [c for hand in state.hands for c in cards_in(hand)] + [c for _s, c in state.trick]
        cards += state.stock[state.stock_top:] if rules.draw_after_trick else []
        return sum(worth[c] for c in cards) + rules.last_trick
    counts: Callable[[int], bool] | None = getattr(state, "_trick_counts", None)
    return sum(counts is None or counts(k) for k in range(len(state.tricks), rules.tricks))


def _exact_from(plays: list[tuple[TrickGame, Step]], from_trick: int, max_nodes: int,
                meter: Meter | None, table: Table, searched: int | None) -> dict[int, int]:
    """Per deal, the first trick (from ``from_trick`` on) whose first card solves within the budget, found from the
    last trick back (earlier positions only grow harder, so the search stops at the first that does not solve)."""
    leads: dict[int, list[tuple[int, TrickGame]]] = {}
    for state, _step in plays:
        if not state.trick:
            leads.setdefault(state.deal_index, []).append((len(state.tricks) + 1, state))
    first: dict[int, int] = {}
    for deal, starts in leads.items():
        for trick, state in reversed(starts):
            if trick < from_trick:
                break
            try:
                DoubleDummy(state, searched, max_nodes=max_nodes, meter=meter, table=table).solve()
            except NodeBudgetExceeded:
                break
            first[deal] = trick
    return first


def _row(state: TrickGame, step: Step, from_trick: int, exact: dict[int, int], max_nodes: int,
         meter: Meter | None, table: Table, searched: int | None) -> dict[str, Any]:
    trick = len(state.tricks) + 1
    card = step.action.split(":")[0]
    row: dict[str, Any] = {"move": step.number, "deal": state.deal_index, "trick": trick, "seat": step.seat,
                           "card": card}
    if trick < from_trick:
        return {**row, "status": BEFORE}
    if trick < exact.get(state.deal_index, len(state.tricks) + 2):
        return {**row, "status": TOO_LARGE}
    side = state.side_of[step.seat]
    solver = DoubleDummy(state, side if searched is None else searched, max_nodes=max_nodes, meter=meter, table=table)
    try:
        values = solver.card_values()
    except NodeBudgetExceeded:
        return {**row, "status": TOO_LARGE}
    so_far = taken(state, solver.side)
    totals = {CODES[c]: so_far + v for c, v in sorted(values.items())}
    if solver.side != side:  # the other side's totals: the deal's whole less them
        whole = so_far + taken(state, side) + _left(state)
        totals = {c: whole - v for c, v in totals.items()}
    best = max(totals.values())
    return {**row, "status": EXACT, "side": side, "values": totals, "value": totals[card], "best": best,
            "loss": best - totals[card], "nodes": solver.nodes}
