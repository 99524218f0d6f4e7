"""``pimc``: determinized (perfect-information) Monte Carlo.

For each decision the policy samples ``samples`` worlds the seat cannot tell from the real one (its SeatView, so
``engine.determinize``), evaluates every legal action in each and plays the best mean (the first listed among equals).
An action is evaluated by ``rollouts`` play-outs to the end of the deal by the ``rollout`` policy on every seat, each
scored by the deal's margin for the seat's side (:func:`engine.bots.search.deal_margin`), the count the side took
breaking ties where a contract scores the deal (a contract failed by one point or by forty scores the same: without
it, pimc played the first card listed wherever the contract's fate looked settled); the play-outs of every action in
a world draw the same random numbers (common random numbers), so that their differences are the actions'.
In a trick game's card play with at most ``dd_cards`` cards left to play (0: never), the exact double-dummy value of
each card takes over (:mod:`engine.search.double_dummy`: tricks or card points with best play by everyone); there an
action that plays the same card with an announcement (belote) is worth half a point more, as announcing costs nothing.
``budget`` bounds a decision's work (0: none): once the work units of the samples so far reach it (play-out moves,
double-dummy nodes ``NODE_WORK`` to a unit: :mod:`engine.budget`), no more samples are drawn (always at least one), so
the decision stays a function of the seed. A decision bounded from outside (``Policy.bound``, :mod:`engine.budget`) is
cut wherever its budget runs out, between play-outs and inside the double-dummy search too: it plays the best mean over
the worlds evaluated in full. Moves outside the play of the cards (an auction's bids, redeal answers) are ``greedy``'s
unless ``bids`` says otherwise (:func:`engine.bots.search.bids_option`).

>>> import engine
>>> from engine.bots import make_policies, play_out
>>> state = engine.new_match("german_whist", seed=4, first_dealer=0)
>>> bots = make_policies(["pimc:samples=2:dd_cards=6", "greedy"], "german_whist", seed=1)
>>> play_out(state, bots) > 0 and state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..budget import NODE_WORK, SAMPLE_WORK, BudgetSpent, Cost, Meter, NodeMeter
from ..options import Option
from ..search.double_dummy import DoubleDummy, cards_left, nominal_nodes, unsolvable
from ..state import State
from ..trickgame import TrickGame
from .inference import infer_option, infer_sample
from .search import (
    NOMINAL_LEGAL,
    NOMINAL_MOVES,
    SearchPolicy,
    bids_option,
    deal_margin,
    last_deal,
    play_deal,
    rollout_option,
)
from .view import SeatView

ANNOUNCING = 0.5  # what playing a card with its announcement adds to the card's double-dummy value
TIE_BREAK = 1e-3  # the count searched, among actions of equal deal margins (below any margin's step, 1 point)


def contract_scored(world: State, side: int) -> bool:
    """Whether ``world``'s deal is scored by a contract over the count (``double_dummy_points``: a contract made or
    failed), so that play-outs of equal deal margins differ by the count they took."""
    return isinstance(world, TrickGame) and world.phase == "play" and world.double_dummy_points(side, 0) is not None


def count_margin(line: TrickGame, side: int) -> float:
    """``side``'s count in a played-out trick game (card points with the last trick's bonus) less the others'
    mean."""
    totals = line.trick_totals()
    others, count = 0, 0
    for s in range(len(totals)):  # (a loop, not a list and sum(): it runs after every play-out)
        if s != side:
            others += totals[s]
            count += 1
    return totals[side] - others / count


class PimcPolicy(SearchPolicy):
    """Samples worlds, evaluates each legal action in each (play-outs, or double dummy near a trick game's end)."""

    name = "pimc"
    summary = ("Determinized Monte Carlo: samples the unseen cards, scores each legal move by play-outs (or an exact "
               "double-dummy search once few cards are left in a trick game) and plays the best mean.")
    param_spec = (
        Option("samples", int, 16, "worlds sampled per decision", minimum=1, maximum=10_000, noun="parameter"),
        Option("rollouts", int, 1, "play-outs per legal move and world", minimum=1, maximum=1000, noun="parameter"),
        # 24 from measured speed (s40, compiled, the s39 solver; tools/pimc_dd_cards.py, docs/ratings.md): the largest
        # that keeps every decision measured within 0.3 s. At 24 cards a decision solves 16 worlds of 45,000 nodes
        # on average in Belote contrée (up to 150,000 nodes, 10 ms), of 7,500 in German Whist; at 28 the slowest
        # decisions take 0.4-0.8 s, at 32 2-3 s. One default whatever engine runs (the same seed plays the same
        # match compiled or not): from source the solver is 30-120 times slower, a decision at 24 cards of
        # contrée up to several seconds (dd_cards=20 keeps it near one). docs/ratings.md: against 16, the default
        # until s40, at 0.2 s a decision.
        Option("dd_cards", int, 24, "cards left to play at which the double-dummy search takes over (0: never)",
               minimum=0, maximum=52, noun="parameter"),
        Option("budget", int, 0, "play-out moves and search nodes per decision after which no more worlds are "
               "sampled (0: no bound)", minimum=0, noun="parameter"),
        rollout_option("greedy"),
        bids_option(),
        # 8 from measurement (s46, docs/ratings.md "Auction inference"): pimc:samples=8:dd_cards=16:infer=8 beat
        # the same without inference by +14.2 [+7.2, +21.3] points a deal over 1,000 duplicate contrée deals
        # (pimc:infer=8 against pimc at the other defaults: +6.3 [-6.3, +18.8] over 300); a draw and its fit cost
        # about 160k instructions compiled in contrée (s47), nothing where there are no bids to fit
        infer_option(8),
    )

    @classmethod
    def work_cost(cls, params: Mapping[str, Any]) -> Cost:
        samples, rollouts, dd_cards = params["samples"], params["rollouts"], params["dd_cards"]
        sample = SAMPLE_WORK * max(1, params["infer"])  # (each draw of auction inference a sample's work)
        playouts = rollouts * NOMINAL_LEGAL * NOMINAL_MOVES
        nodes = nominal_nodes(dd_cards)
        solve = nodes // NODE_WORK
        world = sample + max(playouts, solve)
        work = samples * world if not params["budget"] else min(samples * world, params["budget"] + world)
        searched = (f" or about {nodes:,} double-dummy nodes at dd_cards={dd_cards}, {NODE_WORK} to a unit"
                    if solve > playouts else "")
        reckoning = (f"samples {samples:,} x ({sample} a world + rollouts {rollouts:,} x "
                     f"{NOMINAL_LEGAL * NOMINAL_MOVES} moves{searched})")
        return Cost(work, reckoning, "samples, rollouts or dd_cards")

    def _search(self, legal_ids: Sequence[int], view: SeatView, meter: Meter) -> int | None:
        totals = [0.0] * len(legal_ids)
        budget, spent, worlds = self.params["budget"], 0, 0
        infer = self.params["infer"]
        try:
            for _ in range(1 if view.fixed() else self.params["samples"]):
                meter.charge(SAMPLE_WORK)  # (and each further draw of auction inference, as it is made)
                world = last_deal(infer_sample(view, self.rng, infer, meter.charge))
                values, cost = self._evaluate(world, legal_ids, meter)
                for i, value in enumerate(values):
                    totals[i] += value
                worlds += 1
                spent += cost
                if budget and spent >= budget:
                    break
        except BudgetSpent:
            if not worlds:
                return None
        best = max(totals)
        return legal_ids[totals.index(best)]

    def _evaluate(self, world: State, legal_ids: Sequence[int], meter: Meter) -> tuple[list[float], int]:
        """Each legal action's value in ``world`` and the work it took (moves or nodes), charged to ``meter``."""
        if self._double_dummy(world):
            return self._solved(world, legal_ids, meter)
        side = world.side_of[self.seat]
        playouts = self.playouts(world.players)
        bots = playouts.bots
        rollouts = self.params["rollouts"]
        counted = contract_scored(world, side)  # a contract failed by any amount scores the same: the count breaks ties
        values, moves = [], 0
        streams = [bot.rng.state for bot in bots]
        world.legal_action_ids()  # (listed once: each clone below copies the list, its apply_id lists none again)
        for action in legal_ids:
            for k in range(len(bots)):  # (an index loop: zip(..., strict=True) is a keyword call, compiled too)
                bots[k].rng.state = streams[k]  # every move's play-outs draw the same numbers: their differences count
            total = 0.0
            for _ in range(rollouts):
                line = world.clone()
                before = len(line.deal_results)
                line.apply_id(action)
                played = 1 + play_deal(line, playouts)
                meter.charge(played)
                moves += played
                total += deal_margin(line, side, before)
                if counted:
                    assert isinstance(line, TrickGame)
                    total += TIE_BREAK * count_margin(line, side)
            values.append(total / rollouts)
        return values, moves

    def _double_dummy(self, world: State) -> bool:
        limit = self.params["dd_cards"]
        return bool(limit) and isinstance(world, TrickGame) and world.phase == "play" and \
            cards_left(world) <= limit and unsolvable(world) is None

    def _solved(self, world: State, legal_ids: Sequence[int], meter: Meter) -> tuple[list[float], int]:
        """Each action's double-dummy value: the deal's margin for the seat's side when the game scores the deal
        otherwise than by the count searched (a contract made or failed: ``double_dummy_points``), the count breaking
        ties among equal margins; else the count."""
        assert isinstance(world, TrickGame)
        nodes = NodeMeter(meter)
        solver = DoubleDummy(world, meter=nodes)
        values = solver.action_values()
        solver.settle()
        width = world.ACTIONS.width
        side = world.side_of[self.seat]
        out = []
        for a in legal_ids:
            value = float(values[a])
            points = world.double_dummy_points(side, values[a])
            if points is not None:
                others = [p for s, p in enumerate(points) if s != side]
                value = points[side] - sum(others) / len(others) + value * TIE_BREAK
            out.append(value + (ANNOUNCING if a % width else 0.0))
        return out, nodes.spent
