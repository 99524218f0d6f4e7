"""``cardtable tournament`` in-process on the session's Ray and Redis: JSON, the table with a plot, usage errors."""

from __future__ import annotations

import json

import pytest

from services.cli.main import cli
from workers.jobstore import JobStore

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


def test_table_and_plot(tournament, tmp_path):
    plot = tmp_path / "ratings.png"
    result = tournament("tablanette", "--policies", "random,greedy", "--deals", "4", "--seed", "2", "--plot",
                        str(plot))
    assert result.exit_code == 0, result.output
    assert "random vs greedy" in result.output and "ratings" in result.output and plot.stat().st_size > 0


@pytest.mark.parametrize(("args", "message"), [
    (["german_whist", "--policies", "random", "--deals", "4"], "at least two policies"),
    (["tablanette", "--players", "3", "--policies", "random,greedy", "--deals", "4"], "two sides"),
])
def test_usage_errors(tournament, args, message):
    result = tournament(*args)
    assert result.exit_code == 2 and message in result.output
