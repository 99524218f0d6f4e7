"""A server's stderr is its log, one JSON object a line: Python's warnings are log lines too, those raised while the
server imports the engine (before its log is set up) and those of its replay worker, a process of its own. Elsewhere a
warning held for the log that never came is printed as Python prints it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grpc_harness import ROOT, ServerProcess
from waiting import wait_until

from engine import _native

EDITED = "engine.rng"  # a compiled module, edited in a copy of the engine: it warns when imported


def _tree_with_an_edited_engine(tmp_path: Path) -> Path:
    """A checkout whose engine is a copy with ``EDITED`` changed since the build, and whose other folders (the build
    among them) are this checkout's."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("services", "replay", "workers", "envs", "protos", "build"):
        (tree / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "engine", tree / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    edited = _native.module_source(EDITED, tree / "engine")
    edited.write_text(edited.read_text() + "\n# edited after the build\n")
    return tree


def _warnings_about(lines: list[dict], module: str) -> list[dict]:
    return [line for line in lines if line.get("logger") == "cardtable.warnings" and module in line.get("msg", "")]


def test_a_servers_warnings_and_its_replay_workers_are_json_log_lines(tmp_path: Path, redis_url: str) -> None:
    if not (_native.build_dir() / _native.MANIFEST).is_file():
        pytest.skip("no compiled engine here: nothing warns of a module edited since the build")
    tree = _tree_with_an_edited_engine(tmp_path)
    server = ServerProcess("--redis-url", redis_url, cwd=tmp_path,  # (a server takes its working folder off its path)
                           env={"PYTHONPATH": str(tree), "CARDTABLE_ENGINE": None, "RAY_ADDRESS": None})
    with server:  # (the replay worker imports the engine as it starts, after the server)
        wait_until(lambda: len(_warnings_about(server.log_lines, EDITED)) >= 2, 60, "two warnings were not logged")
    assert [line for line in server.log_lines if "text" in line] == []  # every line was JSON
    warned = _warnings_about(server.log_lines, EDITED)
    assert len(warned) == 2, server.log_lines  # the server's, and its replay worker's
    for line in warned:
        assert line["level"] == "warning" and line["category"] == "RuntimeWarning"
        assert line["msg"].startswith(f"{EDITED} was edited since the build: it runs from its source")


HOLD = """
import warnings
from services.logs import configure_logging, hold_warnings
hold_warnings()
warnings.warn("before the log", UserWarning)
if {configure}:
    configure_logging("info")
    warnings.warn("after the log", DeprecationWarning)
"""


def _run(script: str) -> list[str]:
    done = subprocess.run([sys.executable, "-W", "always", "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


def test_held_warnings_are_written_to_the_log_once_it_is_set_up() -> None:
    lines = [json.loads(line) for line in _run(HOLD.format(configure=True))]
    assert [(line["logger"], line["level"], line["msg"], line["category"]) for line in lines] == [
        ("cardtable.warnings", "warning", "before the log", "UserWarning"),
        ("cardtable.warnings", "warning", "after the log", "DeprecationWarning"),
    ]
    assert lines[0]["file"] == "<string>" and lines[0]["line"] == 5


def test_warnings_held_for_a_log_that_never_came_are_printed_at_exit_as_python_prints_them() -> None:
    assert _run(HOLD.format(configure=False)) == ["<string>:5: UserWarning: before the log"]
