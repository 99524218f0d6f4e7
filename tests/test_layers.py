"""The layers point one way (issue 32, ARCHITECTURE.md's layout): the engine imports no other part; ``services/app/``
holds the use cases and imports no edge; the edges (the gRPC servicers and server, the web app, the CLI, the benches)
translate over the app and never reach into each other; a refusal's words are written once.

What a module imports is read with ``ast`` (every ``import`` and ``from ... import``, inside functions too). The app
may import the generated stubs: a resource's projection is its API message, which the gRPC servicers answer with (and
the web and the CLI map a job's, a replay's, a match view's, a tournament's and a game's to their JSON,
services/web/mapping.py and services/cli/mapping.py). The CLI's launchers start the other edges (``cardtable serve``
the gRPC server, ``cardtable web`` the web app, ``cardtable bench`` the benches); that is all the CLI imports of them.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import engine

ROOT = Path(engine.__file__).resolve().parent.parent
PARTS = ("engine", "replay", "workers", "envs", "services")

GRPC_EDGE = ("services.server", "services.rpc", "services.health", "services.game_service", "services.replay_service",
             "services.simulation_service")
EDGES = {"grpc": GRPC_EDGE, "web": ("services.web",), "cli": ("services.cli",), "bench": ("services.bench",)}
# The frameworks of the edges: the app answers in its own terms (typed errors, API messages), whoever asked.
EDGE_FRAMEWORKS = ("grpc", "grpc_health", "grpc_reflection", "starlette", "uvicorn", "click", "rich")
# The CLI commands that start another edge, and what they start.
LAUNCHERS = {"services.cli.serve": ("services.server",), "services.cli.web": ("services.web",),
             "services.cli.bench": ("services.bench",)}
# The workers' modules that run jobs (Ray, the chunk task, the driver loop): an edge reaches them through the app's
# use cases (services.app.jobs), the CLI's own jobs included; the benches measure them directly.
RUNNING = ("workers.runner", "workers.chunk", "workers.cluster", "workers.ray_head", "workers.slots", "workers.plan",
           "workers.replays")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for part in PARTS for p in (ROOT / part).rglob("*.py")
            if "generated" not in p.parts and "_pb2" not in p.name}


@cache
def imports_of(module: str) -> frozenset[str]:
    """The absolute names of the modules ``module`` imports (``from a import b`` gives ``a.b`` when that is a module,
    else ``a``)."""
    path = _modules()[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]) \
                if node.level else node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in _modules() else base)
    return frozenset(found)


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _of(prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in _modules() if _within(m, prefixes))


def _edge_of(module: str) -> str | None:
    return next((edge for edge, prefixes in EDGES.items() if _within(module, prefixes)), None)


def test_the_engine_imports_no_other_part() -> None:
    wrong = {m: sorted(i for i in imports_of(m) if _within(i, PARTS[1:])) for m in _of(("engine",))}
    assert {m: i for m, i in wrong.items() if i} == {}


@pytest.mark.parametrize(("part", "below"), [("replay", ("engine",)), ("workers", ("engine", "replay"))])
def test_replay_and_workers_import_only_what_is_below_them(part: str, below: tuple[str, ...]) -> None:
    others = tuple(p for p in PARTS if p not in below and p != part)
    wrong = {m: sorted(i for i in imports_of(m) if _within(i, others)) for m in _of((part,))}
    assert {m: i for m, i in wrong.items() if i} == {}


def test_the_app_imports_no_edge_and_no_edge_framework() -> None:
    edges = tuple(p for prefixes in EDGES.values() for p in prefixes)
    wrong = {m: sorted(i for i in imports_of(m) if _within(i, edges + EDGE_FRAMEWORKS)) for m in _of(("services.app",))}
    assert {m: i for m, i in wrong.items() if i} == {}


def test_no_support_module_imports_an_edge() -> None:
    """The modules of ``services/`` that are neither the app nor an edge (the live matches' Redis store, logging,
    the stubs' generation, the lifecycle) serve every edge, so they import none."""
    support = [m for m in _of(("services",)) if _edge_of(m) is None and not _within(m, ("services.app",))]
    assert "services.match_store" in support
    edges = tuple(p for prefixes in EDGES.values() for p in prefixes)
    wrong = {m: sorted(i for i in imports_of(m) if _within(i, edges)) for m in support}
    assert {m: i for m, i in wrong.items() if i} == {}


def test_the_edges_do_not_import_each_other() -> None:
    wrong = {}
    for module in _of(tuple(p for prefixes in EDGES.values() for p in prefixes)):
        own = _edge_of(module)
        allowed = LAUNCHERS.get(module, ())
        crossed = sorted(i for i in imports_of(module) if _edge_of(i) not in (None, own)
                         and not _within(i, allowed))
        if crossed:
            wrong[module] = crossed
    assert wrong == {}


def test_the_edges_reach_the_workers_through_the_app() -> None:
    """The gRPC servicers and the web import no workers' module at all; the CLI reads the workers' records and specs
    (what it prints) but runs nothing of theirs itself."""
    found = {m: sorted(i for i in imports_of(m) if _within(i, ("workers",)))
             for m in _of(EDGES["grpc"] + EDGES["web"])}
    assert {m: i for m, i in found.items() if i} == {}
    running = {m: sorted(i for i in imports_of(m) if _within(i, RUNNING)) for m in _of(EDGES["cli"])}
    assert {m: i for m, i in running.items() if i} == {}


# The start of each refusal that the engine, the workers or the replays define once, as a typed error.
ONCE = {"unknown game": "engine.errors", "unknown option": "engine.errors", "unknown policy": "engine.errors",
        "players, not": "engine.errors", "characters long; at most": "services.app.errors"}


@cache  # (each module parsed once for all the ONCE cases)
def _messages(module: str) -> list[str]:
    """The texts ``module`` passes to a call (an error's message among them; docstrings and comments aside): string
    constants and the literal parts of f-strings."""
    path = _modules()[module]
    calls = [node for node in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(node, ast.Call)]
    return [sub.value for call in calls for arg in [*call.args, *(k.value for k in call.keywords)]
            for sub in ast.walk(arg) if isinstance(sub, ast.Constant) and isinstance(sub.value, str)]


@pytest.mark.parametrize("words", sorted(ONCE))
def test_a_validation_message_is_written_once(words: str) -> None:
    pattern = re.compile(rf"(^|\W){re.escape(words)}\b")
    writers = sorted(m for m in _modules() if any(pattern.search(text) for text in _messages(m)))
    assert writers == [ONCE[words]]


def _statuses() -> set[str]:
    """Every status a refusal can carry: the app's errors' and those of the typed errors of the other parts."""
    from services.app import errors

    kinds = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.ServiceError)]
    return {c.status for c in kinds} | set(errors.STATUS_OF.values()) | {"UNAVAILABLE"}


def test_every_edge_maps_every_refusal_in_its_one_table() -> None:
    import grpc

    from services.cli.main import EXIT_CODE
    from services.web.app import HTTP_STATUS
    from services.web.serving import ClientGone

    statuses = _statuses() - {ClientGone.status}  # the web's own: nobody reads its answer
    assert "INVALID_ARGUMENT" in statuses and "NOT_FOUND" in statuses
    assert all(grpc.StatusCode[status].name == status for status in statuses)
    assert statuses <= set(HTTP_STATUS) and statuses <= set(EXIT_CODE)


@pytest.mark.parametrize(("error", "code", "message"), [
    (engine.UnknownGame("snap", ["belote", "tablanette"]), 2, "unknown game 'snap'; games are belote, tablanette"),
    (engine.UnsupportedPlayers("tablanette", 7, (2, 3, 4)), 2, "tablanette is played by 2, 3, 4 players, not 7"),
])
def test_the_cli_answers_a_refusal_with_its_message_and_exit_code(error: Exception, code: int, message: str) -> None:
    import click
    from click.testing import CliRunner

    from services.cli.main import _Cardtable

    @click.group(cls=_Cardtable)
    def group() -> None:
        pass

    @group.command()
    def refused() -> None:
        raise error

    result = CliRunner().invoke(group, ["refused"])
    assert (result.exit_code, result.output) == (code, f"Error: {message}\n")


# Keys that only a job's, a replay summary's, a live match view's, a tournament's or a game's JSON holds, by the edge
# that writes it from the app's message: a dict with one of them (a display, dict(key=...), or d[key] = ...) built in
# one of the edge's modules builds the resource by hand.
MAPPED_KEYS = {
    "web": {"job_id": "a job", "units_done": "a job", "move_count": "a replay summary",
            "size_bytes": "a replay summary", "legal_turns": "a live match's view",
            "game_over": "a live match's view", "default_players": "a game", "player_counts": "a game"},
    "cli": {"job_id": "a job", "units_done": "a job", "has_results": "a job", "replay_collection": "a job",
            "tournament_id": "a tournament", "pairings": "a tournament", "ratings": "a tournament",
            "mean_difference": "a tournament's pairing", "deal_index": "a listed replay", "written": "a listed replay",
            "default_players": "a game", "player_counts": "a game", "max_length": "a game"},
}
# The module of each edge whose tables map the messages (services.app.projection.mapped).
MAPPING = {"web": "services.web.mapping", "cli": "services.cli.mapping"}


def _keys_built(tree: ast.AST, keys: set[str]) -> set[str]:
    """The ``keys`` a dict display, a ``dict(...)`` call or a subscript assignment of ``tree`` writes."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found |= {k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in keys}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            found |= {k.arg for k in node.keywords if k.arg in keys}
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.slice.value for t in targets if isinstance(t, ast.Subscript)
                      and isinstance(t.slice, ast.Constant) and t.slice.value in keys}
    return found


def _built_by_hand(module: str, keys: set[str]) -> set[str]:
    path = _modules()[module]
    return _keys_built(ast.parse(path.read_text(), str(path)), keys)


@pytest.mark.parametrize("edge", sorted(MAPPED_KEYS))
def test_the_edges_map_their_resources_from_their_messages(edge: str) -> None:
    """The web's and the CLI's JSON of a job, a replay summary, a live match's view, a tournament or a game is the
    app's message mapped by the tables of the edge's mapping module (services/web/mapping.py, services/cli/mapping.py;
    one projection per resource): no module of the edge writes one as a dict of its own."""
    import importlib

    from services.app.projection import Field, Kept, Spread

    tables = [value for value in vars(importlib.import_module(MAPPING[edge])).values()
              if isinstance(value, tuple) and value and all(isinstance(f, Field | Kept | Spread) for f in value)]
    names = {f.name for table in tables for f in table if isinstance(f, Field | Kept)}
    assert names >= set(MAPPED_KEYS[edge])
    by_hand = {m: sorted(keys) for m in _of(EDGES[edge]) if (keys := _built_by_hand(m, set(MAPPED_KEYS[edge])))}
    assert by_hand == {}


def test_a_resource_built_by_hand_is_found() -> None:
    """The check above sees each way of building a dict."""
    source = """
a = {"job_id": 1, "name": "x"}
b = dict(tournament_id=2, size=3)
c = {}
c["pairings"] = []
"""
    assert _keys_built(ast.parse(source), set(MAPPED_KEYS["cli"])) == {"job_id", "tournament_id", "pairings"}
