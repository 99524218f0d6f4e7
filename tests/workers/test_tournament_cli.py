"""``cardtable tournament`` in-process on the session's Ray and Redis: JSON, the table with a plot, usage errors."""

from __future__ import annotations

import json
import threading

import pytest

from services.cli.main import cli
from workers.jobstore import JobStore
from workers.tournament import TournamentSpec, check_tournament, load_tournament, new_tournament, run_tournament

pytestmark = pytest.mark.usefixtures("local_ray")


@pytest.fixture
def tournament(cli_runner, redis_url, redis_client):
    """Runs ``cardtable tournament ...`` against the test Redis and deletes the jobs and the record it made."""
    made = []

    def invoke(*args: str):
        result = cli_runner.invoke(cli, ["tournament", *args, "--redis-url", redis_url])
        if result.exit_code == 0 and "--json" in args:
            made.append(json.loads(result.stdout))
        return result

    yield invoke
    store = JobStore(redis_client)
    for record in made:
        for job_id in record["jobs"]:
            store.delete(job_id)
        redis_client.delete(f"{store.prefix}tournament:{record['tournament_id']}")


def test_json_standings(tournament):
    result = tournament("german_whist", "--policies", "random,greedy", "--deals", "8", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["state"] == "succeeded" and len(report["jobs"]) == 2
    [pairing] = report["pairings"]
    assert (pairing["a"], pairing["b"], pairing["deals"]) == ("random", "greedy", 8)
    assert pairing["ci95"][0] <= pairing["mean_difference"] <= pairing["ci95"][1]
    assert [row["policy"] for row in report["ratings"]] == ["greedy", "random"]


def test_a_bot_time_limit_reaches_every_job_and_the_record(tournament, redis_client):
    result = tournament("german_whist", "--policies", "greedy,pimc:samples=2", "--deals", "2", "--seed", "2",
                        "--bot-time-limit", "0.5")
    assert result.exit_code == 0, result.output
    assert "0.5 s a decision (results depend on the machine and its load)" in result.output
    result = tournament("german_whist", "--policies", "greedy,pimc:samples=2", "--deals", "2", "--seed", "2",
                        "--bot-time-limit", "0.5", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["spec"]["bot_time_limit"] == 0.5
    assert load_tournament(JobStore(redis_client), report["tournament_id"])["spec"]["bot_time_limit"] == 0.5
    assert [JobStore(redis_client).get(job_id).spec.bot_time_limit for job_id in report["jobs"]] == [0.5, 0.5]


def test_resume_plays_on_a_tournament_whose_driver_left(tournament, redis_url, redis_client):
    """A tournament left part way (its driver gone, as when its command was killed) is played on by ``--resume``:
    its first job kept, the standings those of the tournament played at once."""
    args = ("german_whist", "--policies", "random,greedy", "--deals", "40", "--seed", "3", "--chunk-size", "10")
    at_once = tournament(*args, "--json")
    assert at_once.exit_code == 0, at_once.output
    store = JobStore(redis_client)
    spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy"), deals=40, seed=3, chunk_size=10))
    gone = threading.Event()
    gone.set()  # the driver leaves at its first look: the first job is made and left running
    left = run_tournament(store, spec, redis_url, record=new_tournament(store, spec), leave=gone)
    assert left["state"] == "running" and len(left["jobs"]) == 1
    resumed = tournament("german_whist", "--resume", left["tournament_id"], "--json")
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    assert report["jobs"][0] == left["jobs"][0] and len(report["jobs"]) == 2
    assert report["pairings"] == json.loads(at_once.stdout)["pairings"]
    assert load_tournament(store, left["tournament_id"])["state"] == "succeeded"
    for bad, message in [(["tablanette", "--resume", left["tournament_id"]], "not tablanette"),
                         (["german_whist", "--resume", left["tournament_id"]], "only a running one"),
                         (["german_whist", "--resume", "tournament-0"], "no tournament"),
                         (["german_whist", "--policies", "random,greedy"], "--deals are needed")]:
        result = tournament(*bad)
        assert result.exit_code != 0 and message in result.output, result.output


def test_table_and_plot(tournament, tmp_path):
    plot = tmp_path / "ratings.png"
    result = tournament("tablanette", "--policies", "random,greedy", "--deals", "4", "--seed", "2", "--plot",
                        str(plot))
    assert result.exit_code == 0, result.output
    assert "random vs greedy" in result.output and "ratings" in result.output and plot.stat().st_size > 0


@pytest.mark.parametrize(("args", "message"), [
    (["german_whist", "--policies", "random", "--deals", "4"], "at least two policies"),
    (["german_whist", "--policies", "random,greedy", "--deals", "4", "--option", "nope=1"], "nope"),
    (["german_whist", "--policies", "random,pimc", "--deals", "4", "--bot-time-limit", "-0.5"], "time limit"),
    (["german_whist", "--policies", "random,pimc", "--deals", "4", "--bot-time-limit", "600"], "to 60 seconds"),
    (["german_whist", "--policies", "random,pimc", "--deals", "4", "--bot-time-limit", "fast"], "not a valid float"),
])
def test_usage_errors(tournament, args, message):
    result = tournament(*args)
    assert result.exit_code == 2 and message in result.output
