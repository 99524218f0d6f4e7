"""Bot policies: ``random``, ``greedy`` (per game family, with an ``epsilon``) and the searching ``pimc`` and
``ismcts``, built by name or label.

A label names a policy and its parameters (``greedy:epsilon=0.2``); see :mod:`engine.bots.registry`.

>>> from engine.bots import make_policy
>>> bot = make_policy("greedy", "tablanette", seat=1, seed=42)
>>> bot({"game": "tablanette", "options": {}, "table": ["3C"], "legal_actions": ["3D:3C", "9H:3C"]})
'3D:3C'
"""

from __future__ import annotations

from .greedy import GreedyPolicy, greedy_games, load_game_greedies, register_greedy
from .plugins import ENTRY_POINT_GROUP, load_policy, policy_sources
from .policy import IllegalPolicyAction, Policy, RandomPolicy
from .registry import (
    builtin_policy_names,
    canonical_label,
    label_parts,
    make_policies,
    make_policy,
    parse_params,
    parse_policy,
    policy_class,
    policy_infos,
    policy_label,
    policy_names,
)
from .rollout import play_out
from .view import SeatView, seat_observer

__all__ = [
    "ENTRY_POINT_GROUP",
    "GreedyPolicy",
    "IllegalPolicyAction",
    "Policy",
    "RandomPolicy",
    "SeatView",
    "builtin_policy_names",
    "canonical_label",
    "greedy_games",
    "label_parts",
    "load_policy",
    "make_policies",
    "make_policy",
    "parse_params",
    "parse_policy",
    "play_out",
    "policy_class",
    "policy_infos",
    "policy_label",
    "policy_names",
    "policy_sources",
    "register_greedy",
    "seat_observer",
]

load_game_greedies()  # every game's own greedy, found through the registry (after this package's names exist)
