"""The policies by name, and policy labels: a policy and its parameters in one string, ``greedy:epsilon=0.2``.

A label is a policy's name followed by ``:param=value`` for each parameter given (``name:p1=v1:p2=v2``); values are
written as on the command line (``0.2``, ``true``, ``151``). The canonical label (:func:`policy_label`) lists only the
parameters that differ from their defaults, in declared order, so a plain name is the label of a policy with its
defaults, and two canonical labels are equal exactly when they make the same policy. Labels go wherever a policy
name goes: job specs, results, replay headers.

Besides the built-in names, a policy is named by its import path (``mybots.cautious:Cautious``, so a label
``mybots.cautious:Cautious:depth=2``) or by the name an installed package registers under the entry-point group
``cardtable.policies`` (see :mod:`engine.bots.plugins`).

>>> parse_policy("greedy:epsilon=0.25")
('greedy', {'epsilon': 0.25})
>>> policy_label("greedy", {"epsilon": 0}), policy_label("greedy", {"epsilon": 1})
('greedy', 'greedy:epsilon=1.0')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..errors import UnknownPolicy
from ..options import Option
from .greedy import GreedyPolicy
from .ismcts import IsmctsPolicy
from .pimc import PimcPolicy
from .plugins import entry_point_names, entry_point_policy, entry_point_value, is_import_path, load_policy
from .policy import Policy, RandomPolicy

_POLICIES: dict[str, type[Policy]] = {cls.name: cls for cls in (RandomPolicy, GreedyPolicy, PimcPolicy, IsmctsPolicy)}
# Characters that separate a label's parts, so a text value may not hold them.
_SEPARATORS = (":", "=", ",")


def builtin_policy_names() -> list[str]:
    """The policies cardtable itself has: ``['greedy', 'ismcts', 'pimc', 'random']``."""
    return sorted(_POLICIES)


def policy_names() -> list[str]:
    """The built-in policies and those installed packages register (import paths name any others)."""
    return sorted({*_POLICIES, *entry_point_names()})


def policy_class(name: str) -> type[Policy]:
    """The policy class called ``name`` (built in, registered by a package, or an import path ``module:Class``); a
    ValueError lists the policies."""
    if name in _POLICIES:
        return _POLICIES[name]
    if isinstance(name, str) and is_import_path(name):
        return load_policy(name)
    found = entry_point_policy(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownPolicy(name, f"policies are {', '.join(policy_names())} (or an import path, module:Class)")
    return found


def label_parts(label: str) -> tuple[str, dict[str, str]]:
    """A label split into the policy name and its parameters' texts, unchecked: ``("greedy", {"epsilon": "0.2"})``."""
    if not isinstance(label, str):
        raise ValueError(f"a policy is written as text (name or name:param=value), not {label!r}")
    name, *pairs = label.split(":")
    name = name.strip()
    if not name:
        raise ValueError(f"a policy label starts with the policy's name, got {label!r}")
    if pairs and "=" not in pairs[0] and name not in policy_names():  # an import path module:Class, then parameters
        name = f"{name}:{pairs.pop(0).strip()}"
    texts: dict[str, str] = {}
    for pair in pairs:
        param, sep, text = pair.partition("=")
        param = param.strip()
        if not sep or not param:
            raise ValueError(f"policy parameters are written {name}:param=value, got {pair!r} in {label!r}")
        if param in texts:
            raise ValueError(f"policy parameter {param!r} is given twice in {label!r}")
        texts[param] = text.strip()
    return name, texts


def parse_params(name: str, texts: Mapping[str, str]) -> dict[str, Any]:
    """The parameters of policy ``name`` from their texts, typed, checked and with defaults filled in."""
    cls = policy_class(name)
    given = {}
    for param, text in texts.items():
        option = cls.param_option(param)
        try:
            given[param] = option.from_text(text)
        except ValueError as exc:
            raise ValueError(f"policy {name!r}: {exc}") from None
    return cls.resolve_params(given)


def parse_policy(label: str) -> tuple[str, dict[str, Any]]:
    """A label's policy name and its parameters (checked, defaults filled in); a clear ValueError otherwise."""
    name, texts = label_parts(label)
    return name, parse_params(name, texts)


def policy_label(name: str, params: Mapping[str, Any] | None = None) -> str:
    """The canonical label of policy ``name`` with ``params`` (checked): only the values that are not the default."""
    cls = policy_class(name)
    values = cls.resolve_params(params)
    parts = [name]
    for option in cls.param_spec:
        value = values[option.name]
        if value != option.default:
            parts.append(f"{option.name}={_value_text(option, value)}")
    return ":".join(parts)


def canonical_label(label: str) -> str:
    """``canonical_label("greedy:epsilon=0")`` is ``"greedy"``; a ValueError for a bad label."""
    return policy_label(*parse_policy(label))


def _value_text(option: Option, value: Any) -> str:
    text = option.to_text(value)
    if any(sep in text for sep in _SEPARATORS):
        raise ValueError(f"a parameter value in a policy label may not hold {' '.join(_SEPARATORS)}: {text!r}")
    return text


def make_policy(name: str, game_id: str, seat: int, seed: int, params: Mapping[str, Any] | None = None) -> Policy:
    """A policy by name (with ``params``, checked) for one seat of a game, with its own RNG seeded from ``seed``
    and the seat: ``make_policy("greedy", "tablanette", 0, seed=7, params={"epsilon": 0.1})``."""
    cls = policy_class(name)
    try:
        return cls(game_id, seat, seed, params)
    except ValueError:
        raise
    except Exception as exc:  # a policy of one's own that fails as it is built
        raise ValueError(f"policy {name!r} could not be built for {game_id} seat {seat}: {type(exc).__name__}: "
                         f"{exc}") from exc


@lru_cache(maxsize=256)
def _parsed(label: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """A label's name and its non-default parameters: hot loops build bots from the same few labels every deal."""
    name, params = parse_policy(label)
    defaults = {option.name: option.default for option in policy_class(name).param_spec}
    return name, tuple((param, value) for param, value in params.items() if value != defaults[param])


def make_policies(labels: Sequence[str], game_id: str, seed: int) -> list[Policy]:
    """One policy per seat from labels: ``make_policies(["greedy:epsilon=0.1", "random"], "tablanette", seed=1)``."""
    policies = []
    for seat, label in enumerate(labels):
        name, params = _parsed(label) if isinstance(label, str) else parse_policy(label)
        policies.append(make_policy(name, game_id, seat, seed, dict(params) if params else None))
    return policies


def policy_infos() -> list[dict[str, Any]]:
    """Each policy as data: its name, what it does, its parameters (as options are described) and its games."""
    infos: list[dict[str, Any]] = []
    for name in policy_names():
        source = "built in" if name in _POLICIES else f"entry point {entry_point_value(name)}"
        try:
            cls = policy_class(name)
        except ValueError as exc:  # an installed package's policy that does not load: say so, list the others
            infos.append({"name": name, "doc": str(exc), "params": [], "games": [], "source": source})
            continue
        infos.append({"name": name, "doc": cls.summary, "params": [option.to_dict() for option in cls.param_spec],
                      "games": cls.games(), "source": source})
    return infos

