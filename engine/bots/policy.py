"""The policy contract and the simplest policy, ``random``.

Writing your own (``docs/bots.md`` walks through it): subclass :class:`Policy` and override :meth:`Policy.choose`,
which gets the observation of the seat to act (a dict: ``state.observation(seat)``, its ``legal_actions`` listed in
it, never another seat's hidden cards) and returns one of those action strings; draw any randomness from
``self.rng`` (an :class:`engine.rng.Rng` seeded per seat and deal, so runs repeat). ``choose`` is asked only when
there are at least two legal actions. The class's label is its import path (``mybots.cautious:Cautious``) unless it
sets ``name``; ``summary`` defaults to the docstring's first line; ``param_spec`` declares parameters; a policy that
reads the observation's ``history`` sets ``uses_history = True``. A ``choose`` that returns anything but one of the
legal actions raises :class:`IllegalPolicyAction`.

>>> class Lowest(Policy):
...     "Plays the first legal action in string order."
...     def choose(self, observation):
...         return observation["legal_actions"][0]
>>> Lowest.name, Lowest.summary
('engine.bots.policy:Lowest', 'Plays the first legal action in string order.')
>>> Lowest("tablanette", seat=0, seed=1)({"legal_actions": ["7H", "QS:3C,TD"]})
'7H'

A policy plays one seat. It sees only that seat's observation (``state.observation(seat)``, which lists the
``legal_actions``) and draws from its own seeded :class:`engine.rng.Rng`, never from the state's. It declares its
parameters as data (``param_spec``: :class:`engine.options.Option` with ``noun="parameter"``); an instance holds their
values, checked, in ``self.params``.

Two ways to ask for a move, which give the same choice and leave the policy's RNG in the same state:

- ``policy(observation) -> action string``: the edges (CLI, services, tests);
- ``policy.choose_id(legal_ids, observe) -> action int``: hot loops. ``legal_ids`` is ``state.legal_action_ids()``
  (the same actions in the same order as ``legal_actions``); ``observe`` is a zero-argument function returning the
  seat's observation, called only by policies that need more than the number of legal actions.

>>> from engine.bots import make_policy
>>> policy = make_policy("random", "tablanette", seat=0, seed=7)
>>> policy({"legal_actions": ["7H", "QS:3C,TD"]}) in ("7H", "QS:3C,TD")
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..budget import NO_BUDGET, Budget, Cancel, Cost
from ..options import Option, resolve_options
from ..registry import game_class, list_games
from ..rng import Rng, derive_seed
from ..state import Chooser

Observation = dict[str, Any]  # state.observation(seat): JSON-ready
Observe = Callable[[], Observation]


class IllegalPolicyAction(ValueError):
    """A policy's ``choose`` returned something that is not one of the legal actions it was given."""


class Policy(ABC):
    """A seat's decision maker. Policies of one's own override :meth:`choose`; the built-in ones implement
    :meth:`_choose_index` (and a faster :meth:`choose_id`). Either is called only with two or more choices."""

    name: ClassVar[str]
    summary: ClassVar[str]  # what it plays, in a line for people (``cardtable policies``)
    # Whether the policy reads the observation's "history"; hot loops leave it out for those that don't.
    uses_history: ClassVar[bool] = False
    # Whether the policy searches samples of the hidden cards: its ``observe`` is then an engine.bots.view.SeatView.
    searches: ClassVar[bool] = False
    param_spec: ClassVar[tuple[Option, ...]] = ()
    # What each decision may spend, and the flag that abandons one (see bound()): the searching policies heed them.
    budget: Budget = NO_BUDGET
    cancel: Cancel | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:  # a policy of one's own is known by its import path
            cls.name = f"{cls.__module__}:{cls.__qualname__}"
        if "summary" not in cls.__dict__:
            cls.summary = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        if "choose" in cls.__dict__:  # written against the public interface: every path asks choose()
            if "_choose_index" not in cls.__dict__:
                cls._choose_index = Policy._index_of_choice  # type: ignore[method-assign]
            if "choose_id" not in cls.__dict__:
                cls.choose_id = Policy.choose_id  # type: ignore[method-assign]

    def __init__(self, game_id: str, seat: int, seed: int, params: Mapping[str, Any] | None = None) -> None:
        game_class(game_id)  # a clear ValueError for an unknown game
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            raise ValueError(f"seat must be a non-negative integer, got {seat!r}")
        self.game_id = game_id
        self.seat = seat
        if params is None:  # bots are built for every deal of a job: the defaults need no checking
            self.params = {option.name: option.default for option in self.param_spec}
        else:
            self.params = self.resolve_params(params)
        # Each seat gets its own stream, so two bots built from one seed never mirror each other's draws.
        self.rng = Rng(derive_seed(seed, seat))

    def __call__(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if not legal:
            raise ValueError(f"seat {self.seat} has no legal action in this observation (is it this seat's turn?)")
        return str(legal[0] if len(legal) == 1 else legal[self._choose_index(observation)])

    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        """The hot-loop form of ``__call__``: the same choice, as an action int."""
        if len(legal_ids) == 1:
            return legal_ids[0]
        return legal_ids[self._choose_index(observe())]

    def chooser(self) -> Chooser:
        """What a rollout loop calls for each of this seat's moves, ``(legal_ids, observe) -> action id``: the same
        choice as ``choose_id``, and the same draws."""
        return self.choose_id

    def choose(self, observation: Observation) -> str:
        """The action to play: one of ``observation["legal_actions"]`` (at least two). Override it to write a policy;
        ``self.rng`` gives its random draws, ``self.params`` its parameters, ``self.seat`` the seat it plays."""
        return str(observation["legal_actions"][self._choose_index(observation)])

    def _index_of_choice(self, observation: Observation) -> int:
        """:meth:`_choose_index` of a policy that overrides :meth:`choose`: where its answer is in the legal list."""
        action = self.choose(observation)
        legal = observation["legal_actions"]
        if isinstance(action, str) and action in legal:
            return int(legal.index(action))
        raise IllegalPolicyAction(f"policy {self.name!r} (seat {self.seat}) chose {action!r}, which is not one of "
                                  f"its legal actions: {', '.join(legal)}")

    def bound(self, budget: Budget, cancel: Cancel | None = None) -> Policy:
        """Bound each of this policy's decisions by ``budget`` and let ``cancel`` abandon one (see
        :mod:`engine.budget`: ``pimc`` and ``ismcts`` stop there; a policy of one's own is trusted to be quick);
        returns the policy."""
        self.budget, self.cancel = budget, cancel
        return self

    @classmethod
    def work_cost(cls, params: Mapping[str, Any]) -> Cost | None:
        """What a decision with these parameters (checked, every one given) asks at most, in work units (see
        :mod:`engine.budget`); None for a policy that does not search (a few moves' work, or unknown)."""
        return None

    @classmethod
    def param_option(cls, name: str) -> Option:
        """The declared parameter called ``name``; a ValueError lists the ones there are."""
        for param in cls.param_spec:
            if param.name == name:
                return param
        takes = ", ".join(param.name for param in cls.param_spec) or "none"
        raise ValueError(f"policy {cls.name!r} has no parameter {name!r}; it takes {takes}")

    @classmethod
    def games(cls) -> list[str]:
        """The games this policy can play (every registered game, unless a subclass says otherwise)."""
        return list_games()

    @classmethod
    def resolve_params(cls, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every parameter with its value (the given one, checked, or its default); a ValueError names what is allowed.

        >>> RandomPolicy.resolve_params({"depth": 2})
        Traceback (most recent call last):
        ValueError: policy 'random' has no parameter 'depth'; it takes none
        """
        if given is not None and not isinstance(given, Mapping):
            raise ValueError(f"policy {cls.name!r} parameters are a mapping of names to values, not {given!r}")
        for name in given or ():
            cls.param_option(name)
        try:
            return resolve_options(list(cls.param_spec), given, None)
        except ValueError as exc:
            raise ValueError(f"policy {cls.name!r}: {exc}") from None

    @abstractmethod
    def _choose_index(self, observation: Observation) -> int:
        """The index of the chosen action in ``observation["legal_actions"]`` (at least two of them)."""

    def __repr__(self) -> str:
        params = "".join(f" {name}={value!r}" for name, value in self.params.items())
        return f"<{type(self).__name__} {self.name!r}{params} {self.game_id} seat {self.seat}>"


class RandomPolicy(Policy):
    """Uniform over the legal actions; needs nothing but their number."""

    name = "random"
    summary = "Plays a uniformly random legal move."

    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        return int(self.rng.pick(legal_ids))

    def chooser(self) -> Chooser:
        # the same choice with one call less per move: the generator's own pick (unless a subclass chooses)
        return self.rng.pick if type(self).choose_id is RandomPolicy.choose_id else self.choose_id

    def _choose_index(self, observation: Observation) -> int:
        return self.rng.below(len(observation["legal_actions"]))
