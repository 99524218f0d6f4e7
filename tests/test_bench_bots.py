"""``cardtable bench --bots``: decisions/s of each policy in a game and the double-dummy solver's figures, as JSON."""

from __future__ import annotations

import json

from click.testing import CliRunner

from services.cli.main import cli


def test_bench_bots_json_names_every_policy_and_the_solver() -> None:
    terminal = {"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}  # stderr taken for a terminal: the progress is drawn
    result = CliRunner(env=terminal).invoke(cli, ["bench", "--bots", "--game", "german_whist", "--seconds", "0.01",
                                                  "--positions", "1", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for step in ("german_whist: pimc", "german_whist: ismcts", "double dummy, belote_contree: position 1", "6/6"):
        assert step in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert set(report["policies"]) == {"german_whist"}
    assert set(report["policies"]["german_whist"]) == {"random", "greedy", "pimc", "ismcts"}
    assert all(row["decisions"] >= 1 for row in report["policies"]["german_whist"].values())
    assert {game: row["cards"] for game, row in report["double_dummy"].items()} == {
        "german_whist": 16, "belote_contree": 32}
    assert all(row["nodes_per_s"] > 0 for row in report["double_dummy"].values())
