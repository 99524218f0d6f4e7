"""The policy contract and the simplest policy, ``random``.

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

from ..options import Option, resolve_options
from ..registry import game_class, list_games
from ..rng import Rng, derive_seed

Observation = dict[str, Any]  # state.observation(seat): JSON-ready
Observe = Callable[[], Observation]


class Policy(ABC):
    """A seat's decision maker; subclasses implement :meth:`_choose_index` (called only with two or more choices)."""

    name: ClassVar[str]
    summary: ClassVar[str]  # what it plays, in a line for people (``cardtable policies``)
    # Whether the policy reads the observation's "history"; hot loops leave it out for those that don't.
    uses_history: ClassVar[bool] = False
    # Whether the policy searches samples of the hidden cards: its ``observe`` is then an engine.bots.view.SeatView.
    searches: ClassVar[bool] = False
    param_spec: ClassVar[tuple[Option, ...]] = ()

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
        count = len(legal_ids)
        return legal_ids[0] if count == 1 else legal_ids[self.rng.below(count)]

    def _choose_index(self, observation: Observation) -> int:
        return self.rng.below(len(observation["legal_actions"]))
