"""``greedy``: a one-move heuristic per game family, looked up in a per-game registry.

A game contributes a *ranker*: a function of what the seat has seen (:class:`engine.bots.seen.Seen`: the facts of
card play, and the seat's observation) that returns one sort key per legal action (higher is
better). The policy plays an action with the highest key and breaks ties with its own RNG. Each game registers its
ranker in its own package's ``greedy`` module (``engine/games/<game>/greedy.py``), which :func:`load_game_greedies`
finds through the game registry; games of one family share one ranker (the fishing games' in
:mod:`engine.bots.fishing`).

Its one parameter, ``epsilon``, is the probability of playing a uniformly random legal action instead (an
epsilon-greedy player). The coin is tossed only when there is a choice: a 53-bit draw ``u`` of the policy's RNG
(``next_u64() >> 11``) explores when ``u < epsilon * 2**53``, and the random action is then ``rng.below(count)``.
``epsilon`` 0 and 1 toss no coin, so ``greedy`` with ``epsilon=0`` plays exactly as plain ``greedy`` and with
``epsilon=1`` exactly as ``random`` from the same seed.

>>> from engine.bots.greedy import greedy_games
>>> "tablanette" in greedy_games()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..options import Option
from ..registry import game_package, list_games
from ..rng import Rng
from ..state import Chooser
from .policy import Observation, Observe, Policy
from .seen import Seen, SeenInObservation
from .view import SeatObserver

if TYPE_CHECKING:
    from .. import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from .. import _cython_shim as cython

SortKey = tuple[int, ...]  # compared as tuples: the greatest is the best action (bools count as 0 and 1)
# One key per legal action, in the order of the seat's legal actions, from what the seat has seen: all SortKeys, or
# all ints (what a tuple would say packed in one int, ``kind * KIND + value`` say: one C comparison, no tuple made).
Ranker = Callable[[Seen], Sequence[SortKey] | Sequence[int]]

_RANKERS: dict[str, Ranker] = {}


def register_greedy(*game_ids: str) -> Callable[[Ranker], Ranker]:
    """Decorator: ``@register_greedy("tres")`` in ``engine/games/tres/greedy.py`` makes the ranker Très' greedy."""

    def register(ranker: Ranker) -> Ranker:
        for game_id in game_ids:
            _RANKERS[game_id] = ranker
        return ranker

    return register


def load_game_greedies() -> None:
    """Import each registered game's ``greedy`` module (``<its package>.greedy``, if it has one), which registers its
    rankers."""
    for game_id in list_games():
        module = f"{game_package(game_id)}.greedy"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def greedy_games() -> list[str]:
    """The registered games that have a greedy heuristic (those of a game registered since are loaded first)."""
    load_game_greedies()
    games = set(list_games())
    return sorted(game for game in _RANKERS if game in games)


KEYS_MOST = cython.declare(cython.Py_ssize_t, 128)  # the most legal actions a Keyer ranks (its keys in greedy.pxd)


@cython.cclass
class Keyer:
    """A ranker whose keys are C integers (compiled): :meth:`rank` writes one key per legal action in ``keys``, in
    the order of the seat's legal actions, and returns their count; called, it is a Ranker (the keys as a list).
    GreedyPolicy compiled reads ``keys`` in C: no Python call, list or int per decision."""

    def __init__(self) -> None:
        if not cython.compiled:  # (compiled, a C array of KEYS_MOST: greedy.pxd)
            self.keys = [0] * KEYS_MOST

    def rank(self, seen: Seen) -> int:
        """Write each legal action's key in ``keys``; return how many (at most KEYS_MOST: :meth:`room`)."""
        raise NotImplementedError

    def room(self, count: int) -> int:
        """``count``, checked to fit in ``keys``."""
        if count > KEYS_MOST:
            raise ValueError(f"{count} legal actions: a Keyer ranks at most {KEYS_MOST}")
        return count

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def __call__(self, seen: Seen) -> list[int]:
        n = self.rank(seen)
        return [self.keys[i] for i in range(n)]


EPSILON = Option("epsilon", float, 0.0, "probability of playing a uniformly random legal move instead of the best",
                 minimum=0.0, maximum=1.0, noun="parameter")
# A 53-bit draw u explores when u < epsilon * 2**53 (Python compares the int and the float exactly).
_UNIT_53 = float(1 << 53)


class GreedyPolicy(Policy):
    """Plays the legal action its game's ranker rates highest (ties go to its RNG), or a random one with probability
    ``epsilon``."""

    name = "greedy"
    summary = ("Plays the move its game's one-move heuristic rates best (ties broken at random), or, with "
               "probability epsilon, a uniformly random legal move.")
    param_spec = (EPSILON,)

    def __init__(self, game_id: str, seat: int, seed: int, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(game_id, seat, seed, params)
        if game_id not in _RANKERS:
            load_game_greedies()  # a game registered since the engine loaded (engine.registry.registered)
        try:
            self._rank = _RANKERS[game_id]
        except KeyError:
            raise ValueError(f"no greedy heuristic for {game_id!r} yet; greedy plays {greedy_games()}") from None
        self.epsilon = self.params["epsilon"]
        self._explore_below = self.epsilon * _UNIT_53

    @classmethod
    def games(cls) -> list[str]:
        return greedy_games()

    def _explores(self) -> bool:
        """Toss the epsilon coin; callers skip it for epsilon 0 (no draw), and epsilon 1 draws nothing either."""
        if self.epsilon == 1.0:
            return True
        return bool(self.rng.next_u64() >> 11 < self._explore_below)

    def chooser(self) -> Chooser:
        # the same choices and draws with the policy's facts in fields (compiled, C fields: GreedyChooser);
        # epsilon-greedy, choose_id itself
        return self.choose_id if self.epsilon else GreedyChooser(self)

    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        count = len(legal_ids)
        if count == 1:
            return legal_ids[0]
        if self.epsilon and self._explores():  # no observation needed for a random move
            return legal_ids[self.rng.below(count)]
        if isinstance(observe, SeatObserver):
            kept = observe.kept  # (brought to this turn here: one call less a move)
            seen = cython.cast(Seen, kept).at(legal_ids) if isinstance(kept, Seen) else observe.seen(legal_ids)
            rank = self._rank
            if isinstance(rank, Keyer):  # (its keys read as C integers where they are written)
                keyer = cython.cast(Keyer, rank)
                return legal_ids[_greatest_key(keyer, keyer.rank(seen), self.rng)]
            return legal_ids[_greatest(rank(seen), self.rng)]
        return legal_ids[self._best_index(observe())]

    def _choose_index(self, observation: Observation) -> int:
        if self.epsilon and self._explores():
            return self.rng.below(len(observation["legal_actions"]))
        return self._best_index(observation)

    def _best_index(self, observation: Observation) -> int:
        return self._best_of(self._rank(SeenInObservation(observation)))

    def _best_of(self, keys: Sequence[Any]) -> int:  # (a Ranker's keys: all SortKeys, or all ints)
        return _greatest(keys, self.rng)


@cython.cclass
class GreedyChooser:
    """A GreedyPolicy's choice as a rollout loop asks for it (:meth:`GreedyPolicy.chooser`, epsilon 0): its
    ``choose_id``, with the ranker, the RNG and the seat's Seen (kept from its first turn of the loop, where the seat's
    observer keeps one) in C fields."""

    # (compiled, the fields are declared in greedy.pxd)

    def __init__(self, policy: GreedyPolicy) -> None:
        self.policy, self.rng, self.rank = policy, policy.rng, policy._rank
        self.keyer = policy._rank if isinstance(policy._rank, Keyer) else None
        self.observer: SeatObserver | None = None
        self.seen: Seen | None = None

    @cython.locals(keyer=Keyer)
    def __call__(self, legal_ids: Sequence[int], observe: Observe) -> int:
        if len(legal_ids) == 1:
            return legal_ids[0]
        if observe is not self.observer or self.seen is None:  # (a turn whose observer keeps no Seen yet)
            action: int = self.policy.choose_id(legal_ids, observe)
            if isinstance(observe, SeatObserver) and isinstance(observe.kept, Seen):
                self.observer, self.seen = observe, observe.kept
            return action
        seen = self.seen.at(legal_ids)
        keyer = self.keyer
        if keyer is not None:
            return legal_ids[_greatest_key(keyer, keyer.rank(seen), self.rng)]
        return legal_ids[_greatest(self.rank(seen), self.rng)]


@cython.cfunc
@cython.locals(keyer=Keyer, count=cython.Py_ssize_t, i=cython.Py_ssize_t, index=cython.Py_ssize_t,
               ties=cython.Py_ssize_t, top=cython.longlong, k=cython.longlong)
def _greatest_key(keyer: Keyer, count: int, rng: Rng) -> int:
    """The index of the greatest of ``keyer``'s first ``count`` keys, ties broken by ``rng`` as :func:`_greatest`
    breaks them."""
    top, index, ties = keyer.keys[0], 0, 1
    for i in range(1, count):
        k = keyer.keys[i]
        if k > top:
            top, index, ties = k, i, 1
        elif k == top:
            ties += 1
    if ties == 1:
        return index
    ties = rng.below(ties)  # the ties-th of the tied keys, in order
    for i in range(count):
        if keyer.keys[i] == top:
            if ties == 0:
                return i
            ties -= 1
    raise AssertionError("a tied key not found")


@cython.cfunc
@cython.locals(i=cython.Py_ssize_t, index=cython.Py_ssize_t, ties=cython.Py_ssize_t, count=cython.Py_ssize_t)
def _greatest(keys: Sequence[Any], rng: Rng) -> int:
    """The index of the greatest of ``keys``, ties broken by ``rng`` (the ties-th of the tied keys, in order, for a
    draw of ``rng.below(ties)``): one pass, then a second only among ties."""
    best, index, ties, count = keys[0], 0, 1, len(keys)
    for i in range(1, count):
        key = keys[i]
        if key > best:
            best, index, ties = key, i, 1
        elif key == best:
            ties += 1
    if ties == 1:
        return index
    ties = rng.below(ties)
    for i in range(count):
        if keys[i] == best:
            if ties == 0:
                return i
            ties -= 1
    raise AssertionError("a tied key not found")
