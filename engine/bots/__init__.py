"""Bot policies: ``random`` and ``greedy`` (per game family), built by name from a registry.

>>> from engine.bots import make_policy
>>> bot = make_policy("greedy", "tablanette", seat=1, seed=42)
>>> bot({"game": "tablanette", "options": {}, "table": ["3C"], "legal_actions": ["3D:3C", "9H:3C"]})
'3D:3C'
"""

from __future__ import annotations

from collections.abc import Sequence

from . import fishing as _fishing  # noqa: F401  (registers the fishing games' greedy)
from . import greedy_tricks as _greedy_tricks  # noqa: F401  (registers the trick games' greedy)
from .greedy import GreedyPolicy, greedy_games, register_greedy
from .policy import Policy, RandomPolicy
from .rollout import play_out

_POLICIES: dict[str, type[Policy]] = {cls.name: cls for cls in (RandomPolicy, GreedyPolicy)}


def policy_names() -> list[str]:
    return sorted(_POLICIES)


def make_policy(name: str, game_id: str, seat: int, seed: int) -> Policy:
    """A policy by name for one seat of a game, with its own RNG seeded from ``seed`` and the seat."""
    try:
        cls = _POLICIES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown policy {name!r}; policies are {policy_names()}") from None
    return cls(game_id, seat, seed)


def make_policies(names: Sequence[str], game_id: str, seed: int) -> list[Policy]:
    """One policy per seat: ``make_policies(["greedy", "random"], "tablanette", seed=1)``."""
    return [make_policy(name, game_id, seat, seed) for seat, name in enumerate(names)]


__all__ = [
    "GreedyPolicy",
    "Policy",
    "RandomPolicy",
    "greedy_games",
    "make_policies",
    "make_policy",
    "play_out",
    "policy_names",
    "register_greedy",
]
