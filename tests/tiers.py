"""The suite's three tiers, as pytest markers (loaded for the whole tree by the root conftest.py):

- ``unit``: the engine, codec, bots, environments and the code around them, with no I/O: no Redis, no gRPC server or
  channel, no Ray, no subprocess, no browser (``make test-fast``, ``pytest -m unit``);
- ``integration``: a real Redis, gRPC server, Ray or ``cardtable`` process, or a long statistical play-strength
  match that measures no unit property (tests/test_bot_strength.py) (``make test-integration``);
- ``e2e``: a browser, or a client in another language (``make test-e2e``).

A test's tier is the one it is marked with itself (``@pytest.mark.integration`` in a module of unit tests), else the
one of a fixture it uses in ``BY_FIXTURE`` (a browser), else the one of its folder or module in ``BY_PATH`` (the
longest matching prefix). A test with no tier, or with two, stops the collection. A unit test that connects or binds
a socket, starts a process, opens a gRPC server or channel, or starts Ray fails, whatever it caught on the way
(``IOGuard``; it sees Python's sockets, not those an event loop such as uvloop opens in C)."""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

TIERS = ("unit", "integration", "e2e")
ROOT = Path(__file__).resolve().parents[1]

# Folders and modules (paths from the project's root; a folder ends with "/"), the longest prefix winning.
BY_PATH: dict[str, str] = {
    # --doctest-modules: every package's docstring examples
    "engine/": "unit",
    "envs/": "unit",
    "replay/": "unit",
    "services/": "unit",
    "services/bench/bots.py": "integration",  # its example loads DDS through ctypes, which runs ldconfig
    "workers/": "unit",
    # the suite
    "tests/": "unit",
    "tests/clients/": "e2e",
    "tests/envs/test_extras.py": "integration",
    "tests/replays/test_analysis.py": "integration",
    "tests/replays/test_bench.py": "integration",
    "tests/replays/test_cli_replay.py": "integration",
    "tests/replays/test_cli_save.py": "integration",
    "tests/replays/test_clients.py": "integration",
    "tests/replays/test_embedded.py": "integration",
    "tests/replays/test_parquet_export.py": "integration",
    "tests/replays/test_store.py": "integration",
    "tests/replays/test_store_layouts.py": "integration",
    "tests/services/": "integration",
    "tests/services/test_service_units.py": "unit",
    "tests/test_analysis_doc.py": "integration",
    "tests/test_bench_bots.py": "integration",  # endplay loads DDS through ctypes, which runs ldconfig
    "tests/test_bench_clone.py": "integration",
    "tests/test_cli_jobs.py": "integration",
    "tests/test_readme.py": "integration",
    "tests/test_redis_cluster_nodes.py": "integration",
    "tests/test_typing.py": "integration",
    "tests/web/": "integration",
    "tests/workers/": "integration",
    "tests/workers/test_chunk.py": "unit",
    "tests/workers/test_plan.py": "unit",
    "tests/workers/test_slots.py": "unit",
    "tests/workers/test_spec.py": "unit",
}

# Fixtures that make a test of their tier wherever it is.
BY_FIXTURE: dict[str, str] = {"browser": "e2e"}  # tests/web/conftest.py's Chromium


def tier_by_path(relative: str) -> str | None:
    """The tier ``BY_PATH`` gives a file (its path from the project's root, with "/"), or None.

    >>> tier_by_path("tests/clients/test_codegen.py"), tier_by_path("tests/web/test_api.py"), tier_by_path("setup.py")
    ('e2e', 'integration', None)
    """
    matches = [prefix for prefix in BY_PATH if relative == prefix or (prefix.endswith("/") and
                                                                      relative.startswith(prefix))]
    return BY_PATH[max(matches, key=len)] if matches else None


def tier_of(marked: list[str], fixtures: list[str], relative: str) -> str:
    """The one tier of a test with these tier markers of its own and these fixtures, in this file; ValueError if it
    has none or two.

    >>> tier_of([], [], "tests/test_cards.py"), tier_of(["integration"], [], "tests/test_cli.py")
    ('unit', 'integration')
    >>> tier_of([], ["page", "browser"], "tests/web/test_live_turns.py")
    'e2e'
    >>> tier_of(["unit", "e2e"], [], "tests/test_cli.py")
    Traceback (most recent call last):
    ValueError: two tiers: unit, e2e (one of unit, integration, e2e)
    """
    if len(marked) > 1:
        raise ValueError(f"two tiers: {', '.join(marked)} (one of {', '.join(TIERS)})")
    if marked:
        return marked[0]
    tier = next((BY_FIXTURE[name] for name in fixtures if name in BY_FIXTURE), None) or tier_by_path(relative)
    if tier is None:
        raise ValueError(f"no tier: mark it with one of {', '.join(TIERS)}, or give its folder or module one in "
                         "tests/tiers.py's BY_PATH")
    return tier


# The ``-m`` expressions of the Makefile's runs, by the tiers they select.
SELECTED: dict[str, frozenset[str]] = {
    "unit": frozenset({"unit"}),
    "not unit": frozenset({"integration", "e2e"}),
    "integration": frozenset({"integration"}),
    "e2e": frozenset({"e2e"}),
    "not e2e": frozenset({"unit", "integration"}),
}


def may_hold(relative: str, source: str, tiers: frozenset[str]) -> bool:
    """Whether a module (its path from the project's root, and its source) may hold a test of one of ``tiers``: its
    folder's or module's tier is one of them, or it names one of them as a marker (``mark.unit``), or a fixture of
    ``BY_FIXTURE`` that gives one, or it has no tier by path (it could then only error, which must be seen).

    >>> may_hold("tests/services/test_lifecycle.py", "def test_x(): ...", frozenset({"unit"}))
    False
    >>> may_hold("tests/test_cli.py", "@pytest.mark.integration\\ndef test_x(): ...", frozenset({"integration"}))
    True
    >>> may_hold("tests/web/test_browser.py", "def test_x(browser): ...", frozenset({"e2e"}))
    True
    """
    by_path = tier_by_path(relative)
    return (by_path is None or by_path in tiers or any(f"mark.{tier}" in source for tier in tiers)
            or any(name in source for name, tier in BY_FIXTURE.items() if tier in tiers))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under one of the Makefile's ``-m`` selections (``SELECTED``), a module that cannot hold a selected test is not
    imported at all (``-m`` would deselect all of its tests after collecting them): each run collects its own tier
    only. Any other ``-m`` expression collects every module, as pytest does."""
    tiers = SELECTED.get(" ".join(str(config.option.markexpr or "").split()))
    if tiers is None or collection_path.suffix != ".py" or not collection_path.is_file():
        return None
    try:
        relative = collection_path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # outside the project (pytester's)
        return None
    return None if may_hold(relative, collection_path.read_text(errors="replace"), tiers) else True


def _relative(item: pytest.Item) -> str:
    path = Path(item.path)
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:  # a test outside the project (pytester's)
        return path.as_posix()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets exactly one tier marker, before ``-m`` selects among them (tryfirst)."""
    errors = []
    for item in items:
        marked = list(dict.fromkeys(mark.name for mark in item.iter_markers() if mark.name in TIERS))
        try:
            tier = tier_of(marked, list(getattr(item, "fixturenames", ())), _relative(item))
        except ValueError as error:
            errors.append(f"{item.nodeid}: {error}")
            continue
        if not marked:
            item.add_marker(tier)
    if errors:
        raise pytest.UsageError("tests without exactly one tier:\n" + "\n".join(errors))


def refusal(what: str) -> str:
    return f"a unit test does no I/O, but this one tried to {what}: mark it integration (tests/tiers.py)"


class UnitIOError(RuntimeError):
    """A unit test reached for I/O."""


class IOGuard:
    """While active, refuses (and remembers) a socket's connect or bind, a new process, a gRPC server or channel, and
    ``ray.init``, from this thread and any thread started meanwhile; threads that were running before (a server an
    integration test left for the session) go on as they were."""

    def __init__(self) -> None:
        self.refused: list[str] = []
        self._before: set[int] = set()

    def _check(self, what: str) -> None:
        if threading.get_ident() in self._before and threading.current_thread() is not threading.main_thread():
            return
        self.refused.append(what)
        raise UnitIOError(refusal(what))

    def _wrap(self, name: str, original: Callable[..., Any], describe: Callable[..., str]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self._check(describe(*args, **kwargs))
            return original(*args, **kwargs)

        guarded.__name__ = name
        return guarded

    @contextmanager
    def active(self) -> Iterator[IOGuard]:
        self._before = {thread.ident for thread in threading.enumerate() if thread.ident is not None}
        with pytest.MonkeyPatch.context() as patch:
            for name in ("connect", "connect_ex", "bind"):
                patch.setattr(socket.socket, name, self._wrap(
                    name, getattr(socket.socket, name),
                    lambda sock, address, _name=name: f"{_name} a socket to {address!r}"))
            patch.setattr(subprocess.Popen, "_execute_child", self._wrap(
                "_execute_child", subprocess.Popen._execute_child,
                lambda popen, args, *rest, **kwargs: f"start a process {args!r}"))
            patch.setattr(_posixsubprocess, "fork_exec", self._wrap(  # multiprocessing's way
                "fork_exec", _posixsubprocess.fork_exec, lambda *args, **kwargs: f"start a process {args[0]!r}"))
            for name in ("fork", "system", "posix_spawn", "posix_spawnp"):
                if hasattr(os, name):
                    patch.setattr(os, name, self._wrap(name, getattr(os, name),
                                                       lambda *args, _name=name, **kwargs: f"call os.{_name}"))
            for module in (sys.modules.get("grpc"), sys.modules.get("grpc.aio")):
                if module is not None:
                    self._guard_grpc(patch, module)
            ray = sys.modules.get("ray")
            if ray is not None:
                patch.setattr(ray, "init", self._wrap("init", ray.init, lambda *args, **kwargs: "start Ray"))
            yield self

    def _guard_grpc(self, patch: pytest.MonkeyPatch, module: Any) -> None:
        for name in ("server", "insecure_channel", "secure_channel"):
            patch.setattr(module, name, self._wrap(
                name, getattr(module, name), lambda *args, _name=name, **kwargs: f"open a gRPC {_name}"))


def _guarded(item: pytest.Item) -> Generator[None, object, object]:
    """Runs a phase of a unit test under an IOGuard; fails it if it reached for I/O, even if it caught the refusal
    (a fallback, a retry)."""
    if item.get_closest_marker("unit") is None:
        return (yield)
    guard = IOGuard()
    with guard.active():
        result = yield
    if guard.refused:
        pytest.fail(refusal(guard.refused[0]), pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _guarded(item))
