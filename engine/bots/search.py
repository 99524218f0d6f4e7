"""What the searching policies share: the seat's view checked, bots that play rollouts, and a deal's utility.

A searching policy (:class:`SearchPolicy`) decides from its :class:`engine.bots.view.SeatView` only: the seat's
observation and samples of the hidden cards (``engine.determinize``). It measures a line of play by the current deal's
result (the points each side scored in it, as the game records them): its side's points less the mean of the other
sides' (:func:`deal_margin`), since a deal is what every game has and what tournaments compare.

It counts its work on a :class:`engine.budget.Meter`: a decision bounded by ``Policy.bound`` stops where its budget
is spent and plays the best it has, or as its rollout policy would when it has nothing yet (the same move for the
same seed under a work budget; a time budget makes it depend on the machine); an abandoned one raises
:class:`engine.budget.Cancelled`. Its parameters' cost (``Policy.work_cost``) is reckoned on a nominal decision:
``NOMINAL_LEGAL`` legal moves, play-outs of ``NOMINAL_MOVES`` moves.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..budget import BudgetSpent, Meter
from ..options import Option
from ..rng import derive_seed
from ..state import State, draws_only
from .policy import Observation, Observe, Policy
from .rollout import unobserved
from .view import SeatObserver, SeatView, seat_observer

if TYPE_CHECKING:
    from .. import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from .. import _cython_shim as cython

ROLLOUT_POLICIES = ("greedy", "random")
PLAY_PHASES = ("play", "capture")  # the phases of the play of the cards (trick games; fishing games' captures)
NOMINAL_LEGAL = 8  # legal moves in a nominal decision (what work_cost reckons with)
NOMINAL_MOVES = 30  # moves of a nominal play-out to the end of the deal


def rollout_option(default: str) -> Option:
    return Option("rollout", str, default, "the policy that plays every seat in a play-out to the end of the deal",
                  choices=ROLLOUT_POLICIES, noun="parameter")


def bids_option() -> Option:
    """Who makes a searching policy's moves outside the play of the cards. Searched bids measured far worse than
    greedy's in Belote contrée (pimc with 4 samples lost 83 points a deal to greedy's bids; ismcts with random
    play-outs lost 324 a deal to greedy): a few noisy samples favour the bid whose play-outs happened to go well."""
    return Option("bids", str, "greedy", "moves outside the play of the cards (bids, redeal answers, declarations): "
                  "played by greedy or random (seeded as that policy would be in this seat), or searched (search)",
                  choices=(*ROLLOUT_POLICIES, "search"), noun="parameter")


def deal_margin(state: State, side: int, results_before: int) -> float:
    """The deal recorded after ``results_before`` deal results: ``side``'s points less the others' mean (0 if the
    match ended without scoring it)."""
    if len(state.deal_results) <= results_before:
        return 0.0
    points = state.deal_results[results_before]["points"]
    others, count = 0, 0
    for s in range(len(points)):  # (a loop, not a list and sum(): it runs after every play-out)
        if s != side:
            others += points[s]
            count += 1
    return float(points[side] - others / count)


_last_options: tuple[dict[str, Any], int, dict[str, Any]] | None = None  # last_deal's last: options, deals, made


def last_deal(world: State) -> State:
    """``world`` (a sample, the searcher's own) made to end its match with the current deal, so that play-outs of
    it take the engine's fused loop (``State.play_to_end``) and stop where the deal is scored. (Options are shared
    between a state and its clones, never changed in place: the samples of one position share the options made for
    the first.)"""
    global _last_options
    options, deals, last = world.options, world.deal_index + 1, _last_options
    if last is None or last[0] is not options or last[1] != deals:
        last = _last_options = (options, deals, {**options, "max_deals": deals})
    world.options = last[2]
    return world


class Playouts:
    """Rollout bots (one per seat) made ready once to play the play-outs of a search, each to the end of its match
    (a :func:`last_deal`): their choosers, and their observers, each made at the first play-out and brought to each
    next one's state (``SeatObserver.rebind``) rather than made again, with the Seen it keeps. The moves are those of
    :func:`engine.bots.rollout.play_out` with these bots: a play-out's observer gives the facts a new one would."""

    __slots__ = ("blind", "bots", "choosers", "kind", "observers")

    def __init__(self, bots: Sequence[Policy]) -> None:
        self.bots = bots
        self.choosers = [bot.chooser() for bot in bots]
        self.blind = all(map(draws_only, self.choosers))  # random seats: no observation is asked for, none is made
        self.observers: list[SeatObserver] = []
        self.kind: type | None = None  # the class of the states the observers were made for

    @cython.locals(k=cython.Py_ssize_t, observers=list)
    def play(self, state: State) -> int:
        """Play ``state`` to the end of its match; the moves played."""
        if state.is_terminal:
            return 0
        if self.blind:
            return state.play_to_end(self.choosers, [unobserved] * len(self.choosers))
        observers = self.observers
        if type(state) is not self.kind:
            self.kind = type(state)
            self.choosers = [bot.chooser() for bot in self.bots]  # (a chooser may hold the observer it saw)
            observers = self.observers = [cast(SeatObserver, seat_observer(state, seat, bot))
                                          for seat, bot in enumerate(self.bots)]
        else:
            for k in range(len(observers)):
                observers[k].rebind(state)
        return state.play_to_end(self.choosers, observers)


def play_deal(state: State, playouts: Playouts) -> int:
    """Play ``state`` (a :func:`last_deal`) to its end with ``playouts``' bots; the moves played."""
    return playouts.play(state)


class SearchPolicy(Policy):
    """A policy that samples the hidden cards; its ``observe`` must be a SeatView (``seat_observer`` builds it)."""

    searches = True

    def __init__(self, game_id: str, seat: int, seed: int, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(game_id, seat, seed, params)
        from .registry import make_policy, policy_class  # (the registry imports this module's policies)
        rollout = self.params["rollout"]
        if game_id not in policy_class(rollout).games():
            raise ValueError(f"{self.name}'s rollout policy {rollout!r} does not play {game_id!r}")
        self._rollout_seed = derive_seed(seed, seat, 1)
        self._bots: list[Policy] | None = None
        self._playouts: Playouts | None = None
        self._fallback: Policy | None = None
        bids = self.params["bids"]
        # seeded as that policy would be in this seat: it bids exactly as it would (duplicate deals then see the
        # same auctions, whichever of the two sits here)
        self._bidder = None if bids == "search" else make_policy(bids, game_id, seat, seed)

    def rollout_bots(self, players: int) -> list[Policy]:
        """The rollout policy for each seat (made once, their RNGs running on from decision to decision)."""
        if self._bots is None or len(self._bots) != players:
            from .registry import make_policies  # (the registry imports this module's policies)
            self._bots = make_policies([self.params["rollout"]] * players, self.game_id, self._rollout_seed)
            self._playouts = None
        return self._bots

    def playouts(self, players: int) -> Playouts:
        """The rollout bots (:meth:`rollout_bots`) made ready to play play-outs (made once with them)."""
        bots = self.rollout_bots(players)
        if self._playouts is None:
            self._playouts = Playouts(bots)
        return self._playouts

    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        if len(legal_ids) == 1:
            return legal_ids[0]
        if self._bidder is not None and observe()["phase"] not in PLAY_PHASES:
            return self._bidder.choose_id(legal_ids, observe)
        if not isinstance(observe, SeatView):
            raise ValueError(f"{self.name} samples the cards seat {self.seat} has not seen: its observe must be an "
                             "engine.bots.view.SeatView (engine.bots.seat_observer builds it)")
        meter = Meter(self.budget, self.cancel)
        try:
            meter.look()  # abandoned before it began (Cancelled goes on up)
        except BudgetSpent:  # its time was up before it began (this process was made to wait): it found nothing
            return self._rollout_choice(legal_ids, observe)
        found = self._search(legal_ids, observe, meter)
        return found if found is not None else self._rollout_choice(legal_ids, observe)

    def _rollout_choice(self, legal_ids: Sequence[int], view: SeatView) -> int:
        """The move of the rollout policy in this seat: a search cut before it found anything plays it."""
        if self._fallback is None:
            from .registry import make_policy  # (the registry imports this module's policies)
            self._fallback = make_policy(self.params["rollout"], self.game_id, self.seat, self._rollout_seed)
        return self._fallback.choose_id(legal_ids, view)

    def _choose_index(self, observation: Observation) -> int:
        raise ValueError(f"{self.name} needs more than an observation to search: call choose_id with a SeatView "
                         "(engine.bots.seat_observer(state, seat, policy))")

    @abstractmethod
    def _search(self, legal_ids: Sequence[int], view: SeatView, meter: Meter) -> int | None:
        """The chosen action among ``legal_ids`` (at least two), the work charged to ``meter``: once it raises
        :class:`engine.budget.BudgetSpent`, the best found so far, or None if nothing was."""
