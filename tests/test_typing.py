"""engine/ and replay/ type-check under mypy --strict (pyproject's [tool.mypy], also run by `make lint`): CI runs the
suite, so the suite holds the line."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_engine_and_replay_are_strictly_typed(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # the configured files are relative to the project
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and set(config["files"]) == {"engine", "replay"}
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary"])
    assert status == 0, out + err
