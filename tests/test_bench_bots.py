"""``cardtable bench --bots``: decisions/s of each policy in a game and the double-dummy solver's figures, as JSON."""

from __future__ import annotations

import json

from click.testing import CliRunner

from services.bench.bots import bridge_against_dds
from services.cli.main import cli


def test_bench_bots_json_names_every_policy_and_the_solver() -> None:
    terminal = {"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}  # stderr taken for a terminal: the progress is drawn
    result = CliRunner(env=terminal).invoke(cli, ["bench", "--bots", "--game", "german_whist", "--seconds", "0.01",
                                                  "--positions", "1", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for step in ("german_whist: pimc", "german_whist: ismcts", "double dummy, belote_contree: position 1",
                 "double dummy, belote_contree:5: position 1", "double dummy, bridge: ending 1",
                 "double dummy against colver's, belote_contree:5: ending 1", "12/12"):
        assert step in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert set(report["policies"]) == {"german_whist"}
    assert set(report["policies"]["german_whist"]) == {"random", "greedy", "pimc", "ismcts"}
    assert all(row["decisions"] >= 1 for row in report["policies"]["german_whist"].values())
    assert {game: row["cards"] for game, row in report["double_dummy"].items()} == {
        "german_whist": 16, "belote_contree": 32, "belote_contree:6": 24, "belote_contree:5": 20}
    assert all(row["nodes_per_s"] > 0 for row in report["double_dummy"].values())
    bridge = report["bridge"]
    assert bridge["cards"] == 32 and bridge["dds"].startswith("endplay")  # the dev extra installs it
    assert all(bridge[name]["mean_seconds"] > 0 and bridge[name]["dds_mean_seconds"] > 0
               for name in ("no_trump", "spades"))
    assert report["colver_double_dummy"]["solver"].startswith("colver")  # the dev extra installs it


def test_the_solver_agrees_with_dds_on_bridge_endings() -> None:
    """The tricks North-South take on bridge endings of 4 hands of 8 cards, by this solver and by DDS (the bench
    raises where they differ)."""
    report = bridge_against_dds(4, seed=5)
    assert report["no_trump"]["dds_mean_seconds"] is not None
