"""``cardtable bench --clone``: microseconds per mid-deal clone of every game, with the floor from the same run."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import engine
from services.cli.main import cli


def test_bench_clone_reports_every_game_against_the_floor(cli_runner: CliRunner, tmp_path: Path) -> None:
    floor = tmp_path / "floor.py"  # a stand-in floor: the real one runs for seconds
    floor.write_text('import json\nprint(json.dumps({"moves_per_s": 500000}))\n')
    result = cli_runner.invoke(cli, ["bench", "--clone", "--json", "--floor", str(floor)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["floor_moves_per_s"] == 500000
    assert set(report["games"]) == set(engine.list_games())
    for row in report["games"].values():
        assert row["us_per_clone"] > 0
        assert abs(row["floor_moves_per_clone"] - row["us_per_clone"] * 0.5) < 0.01  # 2 µs per floor move


def test_bench_clone_text(cli_runner: CliRunner, tmp_path: Path) -> None:
    floor = tmp_path / "floor.py"
    floor.write_text('import json\nprint(json.dumps({"moves_per_s": 1000000}))\n')
    result = cli_runner.invoke(cli, ["bench", "--clone", "--floor", str(floor)])
    assert result.exit_code == 0, result.output
    assert "µs per mid-deal clone" in result.output and "floor moves" in result.output
