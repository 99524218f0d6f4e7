"""``cardtable bench --env pettingzoo`` (issue 16): the environment's steps/s and the engine's moves/s, measured in
one run, and the wrapper's cost worked out from them (figures are reported, never asserted)."""

from __future__ import annotations

import gc
import json

import pytest

pytest.importorskip("pettingzoo")

from services.cli.main import cli  # noqa: E402


def test_the_env_bench_reports_both_rates_and_the_wrappers_cost(cli_runner) -> None:
    result = cli_runner.invoke(cli, ["bench", "--env", "pettingzoo", "--game", "german_whist", "--seconds", "0.3",
                                     "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["game"] == "german_whist" and report["players"] == 2 and report["env"] == "pettingzoo"
    env, engine_rate = report["env_steps_per_s"], report["engine_moves_per_s"]
    assert env > 0 and engine_rate > 0 and report["engine_rollout_moves_per_s"] > 0
    assert report["wrapper_cost"] == pytest.approx(engine_rate / env - 1, abs=0.01)
    protocol = report["protocol_steps_per_s"]
    assert protocol > 0 and report["protocol_cost"] == pytest.approx(engine_rate / protocol - 1, abs=0.01)
    text = cli_runner.invoke(cli, ["bench", "--env", "pettingzoo", "--game", "tablanette", "--seconds", "0.2"])
    assert text.exit_code == 0 and "PettingZoo env: " in text.output and "the wrapper costs " in text.output \
        and "AEC protocol alone" in text.output


def test_the_vector_bench_reports_the_envs_steps_beside_the_engines_moves(cli_runner) -> None:
    callbacks = list(gc.callbacks)
    result = cli_runner.invoke(cli, ["bench", "--env", "vector", "--game", "tablanette", "--num-envs", "8",
                                     "--seconds", "0.3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["game"] == "tablanette" and report["env"] == "vector" and report["num_envs"] == 8
    env, engine_rate = report["env_steps_per_s"], report["engine_moves_per_s"]
    assert env > 0 and engine_rate > 0 and report["env_to_engine"] == pytest.approx(env / engine_rate, abs=0.01)
    assert 0 <= report["env_gc_share"] < 1 and 0 <= report["engine_gc_share"] < 1
    assert gc.callbacks == callbacks  # (the bench's collector clock is gone)
    text = cli_runner.invoke(cli, ["bench", "--env", "vector", "--game", "belote", "--num-envs", "4",
                                   "--seconds", "0.2"])
    assert text.exit_code == 0 and "vector env, 4 matches a step: " in text.output \
        and "x the engine's moves/s" in text.output
