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

if cython.compiled:
    from cython.cimports.libc.stdlib import free, realloc  # type: ignore[import-untyped]  # C's own

SortKey = tuple[int, ...]  # compared as tuples: the greatest is the best action (bools count as 0 and 1)
# One key per legal action, in the order of the seat's legal actions, from what the seat has seen: all SortKeys, or
# all ints (what a tuple would say packed in one int, ``kind * KIND + value`` say).
RankFunction = Callable[[Seen], Sequence[SortKey] | Sequence[int]]

# key_of packs a tuple of at most KEY_FIELDS ints, each within +-HALF, in fields of FIELD bits (a field holds its
# value + HALF; a field the tuple has not holds 0, below every value, as a shorter tuple compares below a longer one
# it begins).
FIELD = cython.declare(cython.int, 12)
HALF = cython.declare(cython.longlong, 1 << 11)
KEY_FIELDS = 4
NO_FIELD = cython.declare(cython.longlong, -(1 << 11))  # (-HALF: a field the tuple has not)


@cython.locals(a=cython.longlong, b=cython.longlong, c=cython.longlong, d=cython.longlong)
@cython.returns(cython.longlong)
def key_of(a: int, b: int = NO_FIELD, c: int = NO_FIELD, d: int = NO_FIELD) -> int:
    """The tuple ``(a, b, c, d)`` (or ``(a,)``, ``(a, b)``, ``(a, b, c)``) as one int in the same order: one C
    comparison compiled, no tuple made. Each value lies within +-HALF (exclusive).

    >>> key_of(1, -3) > key_of(1, -4, 9) > key_of(1, -4) > key_of(0, 500, 500, 500)
    True
    >>> fields(key_of(2, True, -7))
    (2, 1, -7)
    """
    return (((((a + HALF) << FIELD | (b + HALF)) << FIELD) | (c + HALF)) << FIELD) | (d + HALF)


def fields(key: int) -> SortKey:
    """The tuple :func:`key_of` packed in ``key`` (its fields read back, those it had not dropped)."""
    values = [(key >> (FIELD * (KEY_FIELDS - 1 - i)) & ((1 << FIELD) - 1)) - HALF for i in range(KEY_FIELDS)]
    while values[-1] == NO_FIELD:
        values.pop()
    return tuple(values)


@cython.cclass
class Keyer:
    """A ranker whose keys are C integers (compiled): :meth:`rank` writes one key per legal action in ``keys``, in
    the order of the seat's legal actions, and returns their count; called, it returns the keys as a list.
    GreedyPolicy reads ``keys`` (compiled, in C: no Python call, list or int per decision)."""

    def __init__(self) -> None:
        if not cython.compiled:  # (compiled, a C array grown by room: greedy.pxd; NULL and 0 at first)
            self.keys: list[int] = []
            self.size = 0

    def __dealloc__(self) -> None:
        if cython.compiled:
            free(self.keys)

    def rank(self, seen: Seen) -> int:
        """Write each legal action's key in ``keys`` (made room for by :meth:`room`); return how many."""
        raise NotImplementedError

    @cython.locals(grown=cython.p_longlong)
    def room(self, count: int) -> int:
        """``count``, once ``keys`` holds that many."""
        if count > self.size:
            if cython.compiled:
                grown = cython.cast(cython.p_longlong, realloc(self.keys, count * cython.sizeof(cython.longlong)))
                if not grown:
                    raise MemoryError()
                self.keys = grown
            else:
                self.keys.extend([0] * (count - self.size))
            self.size = count
        return count

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def __call__(self, seen: Seen) -> list[int]:
        n = self.rank(seen)
        return [self.keys[i] for i in range(n)]


@cython.cclass
class FunctionKeyer(Keyer):
    """A :data:`RankFunction` (a game's ranker written as a function of the Seen) as a Keyer: its SortKeys packed by
    :func:`key_of`, its ints as they are."""

    function: RankFunction

    def __init__(self, function: RankFunction) -> None:
        super().__init__()
        self.function = function

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def rank(self, seen: Seen) -> int:
        keys = self.function(seen)
        n = self.room(len(keys))
        for i in range(n):
            self.keys[i] = _packed(keys[i])
        return n


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, a=cython.longlong, b=cython.longlong, c=cython.longlong, d=cython.longlong)
@cython.returns(cython.longlong)
def _packed(key: SortKey | int) -> int:
    """A RankFunction's key as a Keyer's: a SortKey packed by :func:`key_of`, an int as it is."""
    if not isinstance(key, tuple):
        return key
    n = len(key)
    if not 0 < n <= KEY_FIELDS:
        raise ValueError(f"a sort key of 1 to {KEY_FIELDS} ints: {key!r}")
    a = key[0]
    b = key[1] if n > 1 else NO_FIELD
    c = key[2] if n > 2 else NO_FIELD
    d = key[3] if n > 3 else NO_FIELD
    if not (-HALF < a < HALF and (n < 2 or -HALF < b < HALF) and (n < 3 or -HALF < c < HALF)
            and (n < 4 or -HALF < d < HALF)):
        raise ValueError(f"a sort key of ints within +-{HALF} (exclusive): {key!r}")
    return key_of(a, b, c, d)


Ranker = Keyer | RankFunction

_RANKERS: dict[str, Keyer] = {}


def register_greedy(*game_ids: str) -> Callable[[Ranker], Ranker]:
    """Decorator: ``@register_greedy("tres")`` in ``engine/games/tres/greedy.py`` makes the ranker Très' greedy (a
    :class:`Keyer`, or a :data:`RankFunction`, which greedy ranks with as a :class:`FunctionKeyer`)."""

    def register(ranker: Ranker) -> Ranker:
        keyer = ranker if isinstance(ranker, Keyer) else FunctionKeyer(ranker)
        for game_id in game_ids:
            _RANKERS[game_id] = keyer
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

    @cython.locals(keyer=Keyer)
    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        count = len(legal_ids)
        if count == 1:
            return legal_ids[0]
        if self.epsilon and self._explores():  # no observation needed for a random move
            return legal_ids[self.rng.below(count)]
        if isinstance(observe, SeatObserver):
            kept = observe.kept  # (brought to this turn here: one call less a move)
            seen = cython.cast(Seen, kept).at(legal_ids) if isinstance(kept, Seen) else observe.seen(legal_ids)
            keyer = self._rank
            return legal_ids[_greatest_key(keyer, keyer.rank(seen), self.rng)]
        return legal_ids[self._best_index(observe())]

    def _choose_index(self, observation: Observation) -> int:
        if self.epsilon and self._explores():
            return self.rng.below(len(observation["legal_actions"]))
        return self._best_index(observation)

    @cython.locals(keyer=Keyer)
    def _best_index(self, observation: Observation) -> int:
        keyer = self._rank
        return _greatest_key(keyer, keyer.rank(SeenInObservation(observation)), self.rng)


@cython.cclass
class GreedyChooser:
    """A GreedyPolicy's choice as a rollout loop asks for it (:meth:`GreedyPolicy.chooser`, epsilon 0): its
    ``choose_id``, with the ranker, the RNG and the seat's Seen (kept from its first turn of the loop, where the seat's
    observer keeps one) in C fields."""

    # (compiled, the fields are declared in greedy.pxd)

    def __init__(self, policy: GreedyPolicy) -> None:
        self.policy, self.rng, self.keyer = policy, policy.rng, policy._rank
        self.observer: SeatObserver | None = None
        self.seen: Seen | None = None

    @cython.locals(keyer=Keyer, ids=list, index=cython.Py_ssize_t)
    def __call__(self, legal_ids: Sequence[int], observe: Observe) -> int:
        if len(legal_ids) == 1:
            return legal_ids[0]
        if observe is not self.observer or self.seen is None:  # (a turn whose observer keeps no Seen yet)
            action: int = self.policy.choose_id(legal_ids, observe)
            if isinstance(observe, SeatObserver) and isinstance(observe.kept, Seen):
                self.observer, self.seen = observe, observe.kept
            return action
        keyer = self.keyer
        index = _greatest_key(keyer, keyer.rank(self.seen.at(legal_ids)), self.rng)
        if type(legal_ids) is list:  # (the trick loop's ids: compiled, a C read of the list)
            ids = legal_ids
            return ids[index]  # type: ignore[no-any-return]
        return legal_ids[index]


@cython.cfunc
@cython.locals(keyer=Keyer, count=cython.Py_ssize_t, i=cython.Py_ssize_t, index=cython.Py_ssize_t,
               ties=cython.Py_ssize_t, top=cython.longlong, k=cython.longlong)
def _greatest_key(keyer: Keyer, count: int, rng: Rng) -> int:
    """The index of the greatest of ``keyer``'s first ``count`` keys, ties broken by ``rng`` (the ties-th of the tied
    keys, in order, for a draw of ``rng.below(ties)``): one pass, then a second only among ties."""
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

