"""``cardtable simulate`` and ``cardtable bench --simulate``, run in-process on the session's Ray and Redis."""

from __future__ import annotations

import json
import re

import pytest
from timed_meter import timed_meters

import replay
from engine.bots import policy_class, policy_names
from replay.store import ReplayStore
from services.cli.main import cli
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import Chunk

pytestmark = pytest.mark.usefixtures("local_ray")


@pytest.fixture
def simulate(cli_runner, redis_url, redis_client):
    """Runs ``cardtable simulate ...`` against the test Redis and deletes the job it made."""
    made = []

    def invoke(*args: str):
        result = cli_runner.invoke(cli, ["simulate", *args, "--redis-url", redis_url])
        if result.exit_code in (0, 1) and "--json" in args:
            made.append(json.loads(result.stdout)["job_id"])
        return result

    yield invoke
    for job_id in made:
        JobStore(redis_client).delete(job_id)


def test_json_results(simulate):
    result = simulate("tablanette", "--deals", "300", "--policies", "greedy,random", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["state"] == "succeeded" and report["units"] == 300 and report["spec"]["seed"] == 3
    greedy, rand = report["sides"]
    assert greedy["policies"] == ["greedy"] and greedy["win_rate"] > rand["win_rate"]
    assert greedy["ci95"][0] < greedy["mean"] < greedy["ci95"][1]
    assert report["replays"] == 0 and report["workers"]


def test_policy_parameters_on_the_command_line(simulate):
    result = simulate("tablanette", "--deals", "200", "--policies", "greedy:epsilon=0.50,greedy", "--seed", "3",
                      "--log", "sample:2", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["spec"]["policies"] == ["greedy:epsilon=0.5", "greedy"]
    noisy, plain = report["sides"]
    assert noisy["policies"] == ["greedy:epsilon=0.5"] and plain["policies"] == ["greedy"]
    assert plain["win_rate"] > noisy["win_rate"]  # half its moves at random: plain greedy does better


def test_the_policies_command_lists_policies_and_their_parameters(cli_runner):
    table = cli_runner.invoke(cli, ["policies"])
    assert table.exit_code == 0, table.output
    assert "greedy" in table.output and "epsilon" in table.output and "0.0..1.0" in table.output
    infos = json.loads(cli_runner.invoke(cli, ["policies", "--json"]).stdout)
    assert [info["name"] for info in infos] == policy_names() and {"greedy", "random"} <= set(policy_names())
    by_name = {info["name"]: info for info in infos}
    assert by_name["greedy"]["params"][0]["name"] == "epsilon" and by_name["random"]["params"] == []
    assert "NAME:PARAM=VALUE" in cli_runner.invoke(cli, ["simulate", "--help"]).output


def test_table_plot_and_output_file(simulate, tmp_path, redis_client):
    plot, output = tmp_path / "scores.png", tmp_path / "results.json"
    result = simulate("belote", "--matches", "4", "--policies", "random", "--seed", "1", "--plot", str(plot),
                      "--output", str(output))
    assert result.exit_code == 0, result.output
    assert "mean score per match ± 95% CI" in result.output
    assert "seats 0+2 (random)" in result.output and "outcome" in result.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads(output.read_text())
    JobStore(redis_client).delete(report["job_id"])
    assert report["job_id"] in result.output and report["units"] == 4 and report["unit"] == "match"


@pytest.mark.parametrize(("args", "message"), [
    (["tablic", "--policies", "random"], "--deals N or --matches N"),
    (["tablic", "--deals", "5", "--matches", "5", "--policies", "random"], "--deals N or --matches N"),
    (["tablic", "--deals", "5", "--policies", "random,random,random"], "needs 2 policies"),
    (["tablic", "--deals", "0", "--policies", "random"], "must be between 1"),
    (["tablic", "--deals", "5", "--policies", "random", "--log", "sample:x"], "sample:K"),
    (["tablic", "--deals", "5", "--policies", "random", "--option", "max_deals=2"], "max_deals cannot be set"),
    (["mahjong", "--deals", "5", "--policies", "random"], "unknown game 'mahjong'"),
    (["tablic", "--deals", "5", "--policies", "greedy:epsilon=2,random"],
     "policy 'greedy': parameter 'epsilon' = 2.0 is out of range; allowed: 0.0..1.0"),
    (["tablic", "--deals", "5", "--policies", "greedy:epsilon=lots"], "parameter 'epsilon' is a number"),
    (["tablic", "--deals", "5", "--policies", "greedy:depth=3"], "policy 'greedy' has no parameter 'depth'; it takes "
                                                                   "epsilon"),
    (["tablic", "--deals", "5", "--policies", "random:epsilon=0.1"], "policy 'random' has no parameter 'epsilon'"),
    (["tablic", "--deals", "5", "--policies", "greedy:epsilon"], "written greedy:param=value"),
    (["tablic", "--deals", "5", "--policies", "pimc", "--bot-time-limit", "-0.5"],
     "a bot's time limit must be from 0 (no limit) to 60 seconds a decision, not -0.5"),
    (["tablic", "--deals", "5", "--policies", "pimc", "--bot-time-limit", "600"], "to 60 seconds a decision, not 600"),
    (["tablic", "--deals", "5", "--policies", "pimc", "--bot-time-limit", "nan"], "to 60 seconds a decision, not nan"),
    (["tablic", "--deals", "5", "--policies", "pimc", "--bot-time-limit", "fast"], "'fast' is not a valid float"),
])
def test_usage_errors(simulate, args, message):
    result = simulate(*args)
    assert result.exit_code == 2
    assert message in result.output


def test_the_help_tells_of_the_bot_time_limit(cli_runner):
    text = " ".join(cli_runner.invoke(cli, ["simulate", "--help"]).output.split())
    assert "--bot-time-limit SECONDS Seconds each decision of a searching bot (pimc, ismcts) may take" in text
    assert "(0: no limit; at most 60)" in text


@pytest.fixture
def replays(redis_client):
    """The replay store jobs write to; the collections made while the test ran are deleted afterwards."""
    store = ReplayStore(redis_client)
    before = {name for name, _ in store.collections()}
    yield store
    for name, _ in store.collections():
        if name not in before:
            store.delete_collection(name)


SEARCHERS = "pimc:samples=10000,ismcts:iters=100000"  # far more than either can search in 20 ms a decision


def test_a_bot_time_limit_reaches_the_job_and_its_replays_replay(simulate, cli_runner, redis_url, redis_client,
                                                                  replays):
    result = simulate("german_whist", "--deals", "2", "--policies", SEARCHERS, "--seed", "4", "--bot-time-limit",
                      "0.02", "--log", "all")
    assert result.exit_code == 0, result.output
    assert "0.02 s a decision (results depend on the machine and its load)" in " ".join(result.output.split())
    result = simulate("german_whist", "--deals", "2", "--policies", SEARCHERS, "--seed", "4", "--bot-time-limit",
                      "0.02", "--log", "all", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["state"] == "succeeded" and report["spec"]["bot_time_limit"] == 0.02
    assert JobStore(redis_client).get(report["job_id"]).spec.bot_time_limit == 0.02
    shown = cli_runner.invoke(cli, ["jobs", "--redis-url", redis_url, "show", report["job_id"]])
    assert "2 deals with seed 4, 0.02 s a decision" in " ".join(shown.output.split()), shown.output
    # The replays hold the moves the clocked bots played: they replay through the engine to the job's scores.
    decoded = [replay.decode(replays.get(f"{report['replay_collection']}/{n}")) for n in range(2)]
    assert [r.header.policies for r in decoded] == [("pimc:samples=10000", "ismcts:iters=100000")] * 2
    for side, result_side in enumerate(report["sides"]):
        assert sum(r.scores[side] for r in decoded) == pytest.approx(result_side["mean"] * 2)
    show = cli_runner.invoke(cli, ["replay", "--redis-url", redis_url, "show", f"{report['replay_collection']}/1"])
    assert show.exit_code == 0, show.output


def test_a_bot_time_limit_bounds_every_searching_decision_of_the_job(simulate, redis_client, monkeypatch):
    """The job ``simulate --bot-time-limit`` stores, played by the hot loop its Ray tasks run (here in this process,
    where each decision's account can be read): every decision of pimc and of ismcts is given the limit (their
    Meter's deadline), and searches that ask far more than the limit allows are cut by it."""
    result = simulate("german_whist", "--deals", "1", "--policies", SEARCHERS, "--seed", "6", "--bot-time-limit",
                      "0.02", "--json")
    assert result.exit_code == 0, result.output
    spec = JobStore(redis_client).get(json.loads(result.stdout)["job_id"]).spec
    meters, searched = timed_meters(monkeypatch), []
    for name in ("pimc", "ismcts"):
        cls = policy_class(name)

        def spy(self, legal_ids, view, meter, _search=cls._search):
            searched.append((self.name, meter))
            return _search(self, legal_ids, view, meter)

        monkeypatch.setattr(cls, "_search", spy)
    assert play_chunk(spec, Chunk(0, 0, 1)).units == 1
    assert {name for name, _meter in searched} == {"pimc", "ismcts"}
    assert [meter for _name, meter in searched] == meters  # each search is one decision, on its own account
    assert {meter.seconds for meter in meters} == {0.02}
    for name in ("pimc", "ismcts"):
        assert any(meter.late >= 0 for bot, meter in searched if bot == name), name  # cut at its deadline


def test_bench_simulate(cli_runner, redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # stderr taken for a terminal: the progress bar is drawn there
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    result = cli_runner.invoke(cli, ["bench", "--simulate", "--deals", "400", "--json"])
    assert result.exit_code == 0, result.output
    for step in ("two plain processes against one", "starting Ray and its 2 workers",
                 "400 deals in one process, run 1 of 2", "400 deals on Ray, 2 workers, run 2 of 2", "6/6"):
        assert step in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert report["identical_results"] and report["replays_logged_per_run"] == [400]
    assert len(report["ray_runs_deals_per_s"]) == len(report["single_process_runs_deals_per_s"]) == 2
    assert report["single_process_deals_per_s"] > 0 and report["ray_deals_per_s"] > 0
    assert report["machine_parallel_capacity"] > 0  # a ratio of two timings: its size is the machine's, not the code's
    cpu = report["cpu_us_per_deal"]  # measured, so only their signs and sources are known in advance
    assert cpu["single_process"] > 0 and cpu["workers"] > 0 and cpu["driver"] > 0 and cpu["redis"] >= 0
    assert report["driver_to_workers"] == pytest.approx(cpu["driver"] / cpu["workers"], rel=0.01)
    assert cpu["ray_processes"] >= 0 and report["projected_speedup"] > 0  # Linux: /proc tells
    assert report["redis_replay_bytes_per_logged_deal"] > 20 and report["redis_job_record_bytes_per_deal"] > 0
    assert report["redis_net_bytes_per_deal"]["in"] > 20  # each replay crosses to Redis once


def test_bench_simulate_other_game_in_words(cli_runner, redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    result = cli_runner.invoke(cli, ["bench", "--simulate", "--game", "tablanette", "--policy", "greedy",
                                     "--deals", "200"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())  # as the console wrapped it
    assert "200 deals of tablanette (greedy,greedy)" in text
    assert re.search(r"CPU per deal: one process [\d,.]+ µs; on Ray, workers [\d,.]+ µs, driver [\d,.]+ µs "
                     r"\([\d.]+% of the workers'\)", text), text
    assert re.search(r"Redis per deal: [\d,.]+ bytes of replay", text), text
