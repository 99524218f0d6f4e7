"""Policies of one's own, found by import path (``mybots.cautious:Cautious``) or by entry point.

An import path is ``MODULE:ATTRIBUTE`` (the form of Python's entry points): the module is imported and the attribute
must be a subclass of :class:`engine.bots.Policy`. A package can instead publish its policies under the entry-point
group ``cardtable.policies``, each by a short name, in its ``pyproject.toml``::

    [project.entry-points."cardtable.policies"]
    cautious = "mybots.cautious:Cautious"

and then ``cautious`` names it wherever a policy is named, and ``cardtable policies`` lists it. Either way the policy
runs in the simulation's workers: :func:`policy_sources` says which code they need (``workers`` ships it to Ray).

>>> load_policy("engine.bots.policy:RandomPolicy").name
'random'
>>> load_policy("engine.bots.policy:Observation")
Traceback (most recent call last):
ValueError: policy 'engine.bots.policy:Observation' is dict[str, typing.Any], not a subclass of engine.bots.Policy
"""

from __future__ import annotations

import importlib
import sys
import sysconfig
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .policy import Policy

ENTRY_POINT_GROUP = "cardtable.policies"
CARDTABLE_PACKAGES = ("engine", "replay", "workers", "services")  # installed with cardtable wherever it runs
_LOADED: dict[str, type[Policy]] = {}


def is_import_path(name: str) -> bool:
    """Whether a policy name is an import path (``module:attribute``) rather than a registered name."""
    return ":" in name


def load_policy(path: str) -> type[Policy]:
    """The Policy subclass at an import path ``module:attribute`` (imported once); a ValueError says what is wrong."""
    if path in _LOADED:
        return _LOADED[path]
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a policy's import path is MODULE:CLASS (mybots.cautious:Cautious), not {path!r}")
    try:
        found: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"policy {path!r}: cannot import {module_name!r} ({exc}); is its folder the current "
                         "directory or on PYTHONPATH?") from None
    except BaseException as exc:  # the module failed as it was imported: sys.exit() and KeyboardInterrupt too
        raise ValueError(f"policy {path!r}: importing {module_name!r} raised {_described(exc)}") from None
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ValueError(f"policy {path!r}: {module_name!r} has no {attribute!r}") from None
    _LOADED[path] = cls = _policy_class(found, path)
    return cls


def _described(exc: BaseException) -> str:
    """``SystemExit: 2``, ``KeyboardInterrupt`` (no colon when the exception says nothing more)."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _policy_class(found: object, label: str) -> type[Policy]:
    if not (isinstance(found, type) and issubclass(found, Policy)):
        raise ValueError(f"policy {label!r} is {found!r}, not a subclass of engine.bots.Policy")
    if getattr(found, "__abstractmethods__", None):
        missing = ", ".join(sorted(found.__abstractmethods__))
        raise ValueError(f"policy {label!r} cannot play: it does not define choose() (nor {missing})")
    return found


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {entry.name: entry for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def entry_point_names() -> list[str]:
    """The names that installed packages register under ``cardtable.policies``."""
    return sorted(_entry_points())


def entry_point_value(name: str) -> str:
    """What an entry point ``name`` points at (``mybots.cautious:Cautious``), and the package that registers it."""
    entry = _entry_points()[name]
    return f"{entry.value} ({entry.dist.name})" if entry.dist is not None else entry.value


def entry_point_policy(name: str) -> type[Policy] | None:
    """The policy an installed package registers as ``name``, or None if none does."""
    entry = _entry_points().get(name)
    if entry is None:
        return None
    if name not in _LOADED:
        try:
            found = entry.load()
        except BaseException as exc:  # as for an import path: whatever the package's code raises
            raise ValueError(f"policy {name!r} (entry point {entry_point_value(name)}) cannot be loaded: "
                             f"{_described(exc)}") from None
        _LOADED[name] = _policy_class(found, name)
    return _LOADED[name]


def refresh_entry_points() -> None:
    """Read the installed packages' entry points again (after a package was installed in this process)."""
    _entry_points.cache_clear()
    for name in [name for name in _LOADED if not is_import_path(name)]:
        del _LOADED[name]


def policy_sources(classes: list[type[Policy]]) -> list[str]:
    """The code the given policies need beyond cardtable and the installed packages: the folder of each one's top
    package (or the file of a top-level module), for a cluster's workers to import them as this machine does."""
    installed = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib", "stdlib")}
    sources: list[str] = []
    for cls in classes:
        top_name = cls.__module__.split(".")[0]
        if top_name in CARDTABLE_PACKAGES:
            continue
        top = sys.modules.get(top_name)
        where = getattr(top, "__file__", None)
        if where is None:
            continue  # a namespace package or a class defined in __main__ and the like: nothing to point at
        path = Path(where).resolve()
        source = path.parent if path.name == "__init__.py" else path
        if any(folder in source.parents for folder in installed):
            continue
        if str(source) not in sources:
            sources.append(str(source))
    return sources
