"""``ismcts``: single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012, SO-ISMCTS).

One tree over the seat's information sets: a node is the sequence of moves from the decision on as the seat sees them
(every seat's moves, each as ``action_seen_by`` shows it to the seat). Each of the ``iters`` iterations samples a world
the seat cannot tell from the real one (its SeatView), descends the tree choosing among the moves legal in that world
by UCB1 with availability counts (a child's exploration term counts the iterations in which it could have been
chosen, not its parent's visits), adds one untried move, plays the deal out with the ``rollout`` policy and backs up,
for the side of each move's player, the deal's margin scaled into 0..1 (``0.5 + margin / (2 * points in the deal)``).
With ``pool`` the first iterations' worlds are kept and the later iterations play clones of them in turn; with
``count`` a side's count weighs in its reward where a contract scores the deal. The decision is the most visited
legal move at the root (the first listed among equals). A decision bounded from
outside (``Policy.bound``, :mod:`engine.budget`) stops after the iteration that spends its budget. Moves outside the
play of the cards are ``greedy``'s unless ``bids`` says otherwise (:func:`engine.bots.search.bids_option`).

>>> import engine
>>> from engine.bots import make_policies, play_out
>>> state = engine.new_match("german_whist", seed=4, first_dealer=0)
>>> play_out(state, make_policies(["ismcts:iters=20", "random"], "german_whist", seed=1)) > 0 and state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..budget import NODE_WORK, SAMPLE_WORK, BudgetSpent, Cost, Meter
from ..options import Option
from ..rng import Rng
from ..search.double_dummy import Table, nominal_nodes
from ..state import State
from ..trickgame import TrickGame
from .exact import exact_from, play_exactly
from .inference import infer_option, infer_sample
from .pimc import contract_scored
from .search import NOMINAL_MOVES, SearchPolicy, bids_option, last_deal, play_deal, rollout_option
from .view import SeatView

if TYPE_CHECKING:
    from .. import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from .. import _cython_shim as cython

if cython.compiled:
    from cython.cimports.libc.math import log, sqrt  # type: ignore[import-untyped]  # C's own
else:
    from math import log, sqrt

Key = int | tuple[int, str]  # a move as the observer sees it: the action id, or (seat, the action as shown)
KeyFunction = Callable[[int, int], Key]
# below every score (a score is at least 0: rewards are in 0..1)
_NONE = cython.declare(cython.double, -1.0e308)


@cython.final
@cython.cclass
class Node:
    """A move's node: visits, availability count and the total reward of its mover's side (compiled, C fields)."""

    cython.declare(visits=cython.longlong, available=cython.longlong, reward=cython.double, children=dict)

    def __init__(self) -> None:
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[Key, Node] = {}


class IsmctsPolicy(SearchPolicy):
    """Grows one tree over the seat's information sets from sampled worlds; plays the most visited move."""

    name = "ismcts"
    summary = ("Information-set Monte Carlo tree search (single observer): samples a world per iteration, descends "
               "one tree of what the seat sees by UCB, plays out and plays the most visited move.")
    param_spec = (
        Option("iters", int, 400, "iterations (sampled worlds) per decision", minimum=1, maximum=1_000_000,
               noun="parameter"),
        Option("exploration", float, 0.7, "the UCB1 exploration constant", minimum=0.0, maximum=10.0,
               noun="parameter"),
        rollout_option("random"),
        Option("dd_cards", int, 0, "cards left to play from which a trick game's play-out goes on by best play with "
               "every hand known (double dummy) instead of by the rollout policy (0: never)", minimum=0,
               maximum=52, noun="parameter"),
        bids_option(),
        infer_option(0),
        Option("pool", int, 0, "worlds kept for the decision: the first iterations draw them (each with `infer`), "
               "the later ones play clones of them in turn (0: a world drawn for every iteration)", minimum=0,
               maximum=100_000, noun="parameter"),
        Option("count", float, 0.0, "where a contract scores the deal (a contract failed by one point or by forty "
               "scores the same), each side's points in a play-out's reward raised by this many times its count "
               "(card points and the last trick's bonus) (0: the deal's points alone)", minimum=0.0, maximum=10.0,
               noun="parameter"),
    )

    @classmethod
    def work_cost(cls, params: Mapping[str, Any]) -> Cost:
        iters, dd_cards = params["iters"], params["dd_cards"]
        sample = SAMPLE_WORK * max(1, params["infer"])  # (each draw of auction inference a sample's work)
        pool = params.get("pool", 0)
        if pool and pool < iters:  # (the worlds drawn once; a clone of one, far less than a draw, counted as nothing)
            drawn = pool * sample
            plays = NOMINAL_MOVES if not dd_cards else NOMINAL_MOVES + 2 * -(-nominal_nodes(dd_cards) // NODE_WORK)
            return Cost(drawn + iters * plays, f"pool {pool:,} x {sample} a world + iters {iters:,} x {plays:,} "
                        "moves and searches", "iters, pool or dd_cards")
        if not dd_cards:
            return Cost(iters * (sample + NOMINAL_MOVES),
                        f"iters {iters:,} x ({sample} a world + {NOMINAL_MOVES} moves)", "iters")
        # an exact play-out: a search at each of its moves, the first the largest (later ones find its table)
        exact = 2 * -(-nominal_nodes(dd_cards) // NODE_WORK)
        return Cost(iters * (sample + NOMINAL_MOVES + exact),
                    f"iters {iters:,} x ({sample} a world + {NOMINAL_MOVES} moves + {exact:,} for an exact "
                    f"play-out from {dd_cards} cards)", "iters or dd_cards")

    @cython.locals(root=Node)
    def _search(self, legal_ids: Sequence[int], view: SeatView, meter: Meter) -> int | None:
        root = Node()
        table = Table()  # the exact play-outs' searches of this decision share it (engine.bots.exact)
        infer = self.params["infer"]
        try:
            meter.charge(SAMPLE_WORK)  # (and each further draw of auction inference, as it is made)
            world = last_deal(infer_sample(view, self.rng, infer, meter.charge))
        except BudgetSpent:
            return None
        keys = self._key_function(world)
        count = self.params["count"] if contract_scored(world, world.side_of[self.seat]) else 0.0
        fixed = view.fixed()  # every sample the same deal: copies of the first will do
        iters, size = self.params["iters"], self.params["pool"]
        pool: list[State] = []  # (the worlds kept, if ``pool``: clones, as an iteration consumes its own)
        try:
            for k in range(iters):
                if fixed:
                    sample = world.clone() if k + 1 < iters else world
                elif size and k >= size:
                    sample = pool[k % size].clone()
                elif k:
                    meter.charge(SAMPLE_WORK)
                    sample = last_deal(infer_sample(view, self.rng, infer, meter.charge))
                else:
                    sample = world
                if size and len(pool) < size and not fixed:
                    pool.append(sample.clone())
                meter.charge(self._iterate(root, sample, keys, meter, table, count))
        except BudgetSpent:
            if not root.children:
                return None
        return _most_visited(root, legal_ids, self.seat, keys)

    def _key_function(self, world: State) -> KeyFunction | None:
        """How the observer tells moves apart: by their ids (None), unless the game shows some moves only in part
        (action ids and strings are context free, so one world serves every sample)."""
        if type(world).action_seen_by is State.action_seen_by and not world._seeing:
            return None
        me = self.seat
        return lambda seat, action: (seat, world.action_seen_by(me, seat, world.action_string(action)))

    def _iterate(self, root: Node, world: State, keys: KeyFunction | None, meter: Meter, table: Table,
                 count: float = 0.0) -> int:
        """One iteration from ``world`` (consumed); the moves it played (an exact play-out's searches charge
        ``meter`` themselves). ``count``: the weight of each side's count in its points (:func:`_rewards`)."""
        before = len(world.deal_results)
        nodes: list[Node] = []
        sides: list[int] = []
        _descend(root, world, keys, self.params["exploration"], self.rng, nodes, sides)
        moves = len(nodes)
        if len(world.deal_results) == before and exact_from(world, self.params["dd_cards"]):
            moves += play_exactly(world, table, meter)
        if len(world.deal_results) == before:
            moves += play_deal(world, self.playouts(world.players))
        _back_up(nodes, sides, _rewards(world, before, count))
        return moves


@cython.cfunc
@cython.locals(root=Node, child=Node, visits=cython.longlong, best_visits=cython.longlong)
def _most_visited(root: Node, legal_ids: Sequence[int], me: int, keys: KeyFunction | None) -> int:
    """The most visited of ``legal_ids`` at the root (the first listed among equals)."""
    best, best_visits = legal_ids[0], -1
    for action in legal_ids:
        child = root.children.get(action if keys is None else keys(me, action))
        visits = child.visits if child is not None else 0
        if visits > best_visits:
            best, best_visits = action, visits
    return best


@cython.cfunc
@cython.locals(root=Node, node=Node, child=Node, c=cython.double, score=cython.double, choice_score=cython.double,
               seat=cython.Py_ssize_t, deal=cython.Py_ssize_t, before=cython.Py_ssize_t,
               untried=list, legal=list, children=dict, side_of=tuple, rng=Rng)
def _descend(root: Node, world: State, keys: KeyFunction | None, exploration: float, rng: Rng, nodes: list[Node],
             sides: list[int]) -> None:
    """The tree part of an iteration: from ``root`` down by UCB1 with availability counts, among the moves legal in
    ``world``, to the first untried move (a random one of them, added) or the deal's end, playing them in ``world``;
    the nodes passed into ``nodes`` and their movers' sides into ``sides``."""
    deal, before = world.deal_index, len(world.deal_results)
    node, c = root, exploration
    side_of = world.side_of
    legal_action_ids, apply_id = world.legal_action_ids, world.apply_id  # (looked up once, not at each move)
    while True:
        player = world.current_player
        if player is None or world.deal_index != deal or len(world.deal_results) != before:
            return
        seat = player
        legal = legal_action_ids()
        children = node.children
        untried = []
        choice, choice_score = -1, _NONE
        for action in legal:
            child = children.get(action if keys is None else keys(seat, action))
            if child is None:
                untried.append(action)
                continue
            child.available += 1
            if not untried:
                score = child.reward / child.visits + c * sqrt(log(child.available) / child.visits)
                if score > choice_score:
                    choice, choice_score = action, score
        if untried:
            choice = untried[rng.pick_index(len(untried))]  # (no draw for one: below(n) for more)
            child = Node()
            child.available = 1
            children[choice if keys is None else keys(seat, choice)] = child
            nodes.append(child)
            sides.append(side_of[seat])
            apply_id(choice)
            return
        node = children[choice if keys is None else keys(seat, choice)]
        nodes.append(node)
        sides.append(side_of[seat])
        apply_id(choice)


@cython.cfunc
@cython.locals(k=cython.longlong, node=Node)
def _back_up(nodes: list[Node], sides: list[int], rewards: list[float]) -> None:
    """Each node visited once more, with the reward of its mover's side."""
    for k in range(len(nodes)):
        node = nodes[k]
        node.visits += 1
        node.reward += rewards[sides[k]]


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, side=cython.Py_ssize_t, s=cython.Py_ssize_t, count=cython.Py_ssize_t,
               points=list, total=cython.double, others=cython.double, scale=cython.double, weight=cython.double)
def _rewards(world: State, results_before: int, weight: float = 0.0) -> list[float]:
    """Each side's reward in 0..1 for the deal recorded after ``results_before`` results (0.5 each if none), each
    side's points raised by ``weight`` times its count (a trick game's card points with the last trick's bonus) if
    ``weight``."""
    if len(world.deal_results) <= results_before:
        return [0.5] * (max(world.side_of) + 1)
    points = world.deal_results[results_before]["points"]
    n = len(points)
    if weight:
        assert isinstance(world, TrickGame)  # (contract_scored: a trick game)
        totals = world.trick_totals()
        points = [points[s] + weight * totals[s] for s in range(n)]
    # (loops, not generators and lists: this runs at every iteration; compiled, the sums are C doubles, exact for
    # points of a deal, and each quotient is the one Python's int division gives)
    total = 0
    for s in range(n):
        total += abs(points[s])
    scale = 2 * max(1.0, total)
    rewards = []
    for side in range(n):
        others, count = 0, 0
        for s in range(n):
            if s != side:
                others += points[s]
                count += 1
        rewards.append(0.5 + (points[side] - others / count) / scale)
    return rewards
