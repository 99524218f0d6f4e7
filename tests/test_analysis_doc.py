"""docs/analysis.md runs when pasted, at a small size: its shell commands in order, in a fresh folder with a fresh
embedded Valkey, its ``analysis.py`` (the first Python block) as the commands run it, its other Python block, and
each of its SQL queries in DuckDB against the files the commands wrote.

The job is smaller (1,000 deals, 100 logged, instead of a million and 1,000): nothing else is changed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "analysis.md"
SMALLER = {"--deals 1000000": "--deals 1000", "--log sample:1000": "--log sample:100"}


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.S)


def test_the_walk_through_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script, *others = blocks("python")
    assert "margin.png" in script
    (tmp_path / "analysis.py").write_text(script)
    commands = blocks("sh")[0]
    for written, smaller in SMALLER.items():
        assert written in commands
        commands = commands.replace(written, smaller)
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "RAY_ADDRESS")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), PATH=f"{Path(sys.executable).parent}:{env['PATH']}")
    done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + commands], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert "margin.png: 1,000 deals" in done.stdout
    assert (tmp_path / "margin.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    monkeypatch.chdir(tmp_path)  # the queries name the files as the doc's folder has them
    first, by_taker, worst = (duckdb.execute(query).fetchall() for query in blocks("sql"))
    for block in others:
        run = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
    assert first[0][0] == 1000 and first[0][1] > first[0][2], "greedy scores more than random"
    assert sorted(row[0] for row in by_taker) == ["greedy", "random"] and sum(row[1] for row in by_taker) == 1000
    assert len(worst) == 5 and all(row[0].startswith("sim-") for row in worst)
