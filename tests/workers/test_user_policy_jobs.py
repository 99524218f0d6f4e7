"""Policies of one's own in jobs on a real Ray (issue 16): their code reaches the workers with the job (the session's
Ray gets it as `cardtable simulate` gives it, a runtime environment's py_modules: its workers do not share this
process's sys.path), and a policy that fails loses no other chunk."""

from __future__ import annotations

import json

import pytest

from services.cli.main import cli
from workers.jobstore import FAILED, JobStore
from workers.plan import bot_seed, plan_chunks
from workers.runner import run_job
from workers.spec import JobSpec, validate

pytestmark = pytest.mark.usefixtures("local_ray", "user_policies")
FAULTY_EVERY = 4  # tests/fixtures/ctpolicies: Faulty fails in deals whose bot seed is a multiple of it


def test_simulate_plays_the_example_policy_on_the_workers(cli_runner, redis_url, redis_client):
    result = cli_runner.invoke(cli, ["simulate", "tablanette", "--deals", "400", "--policies",
                                     "mybots.cautious:Cautious,greedy", "--seed", "2", "--chunk-size", "100",
                                     "--redis-url", redis_url, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    JobStore(redis_client).delete(report["job_id"])
    cautious, greedy = report["sides"]
    assert report["state"] == "succeeded" and report["units"] == 400
    assert cautious["policies"] == ["mybots.cautious:Cautious"] and greedy["policies"] == ["greedy"]
    assert cautious["win_rate"] > 0.2 and greedy["win_rate"] > 0.2  # two sensible players: neither is crushed


def test_a_failing_policy_fails_its_chunks_only_and_the_job_says_where(job_store, redis_url):
    spec = validate(JobSpec(game="german_whist", policies=("random", "ctpolicies:Faulty"), count=60, seed=9,
                            chunk_size=5))
    failing = [chunk.index for chunk in plan_chunks(spec.count, spec.chunk_size)
               if any(bot_seed(spec.seed, n) % FAULTY_EVERY == 0 for n in range(chunk.first, chunk.stop))]
    assert 0 < len(failing) < 12
    record = run_job(job_store, job_store.create(spec).job_id, redis_url)
    assert record.state == FAILED
    first = failing[0]
    assert record.error.startswith(f"chunk {first} failed: policy 'ctpolicies:Faulty' (seat 1) failed at move ")
    assert "ZeroDivisionError" in record.error and "match seed " in record.error
    others = len(failing) - 1
    assert record.error.endswith(f"({others} more chunk{'s' if others != 1 else ''} failed too)")
    kept = job_store.chunk_results(record.job_id)
    assert sorted(kept) == [i for i in range(12) if i not in failing]  # every other chunk played and was kept
    assert record.results["units"] == 5 * len(kept) and record.retries == 0  # a policy's failure is not retried


def test_a_tournament_rates_the_example_policy_against_ours(cli_runner, redis_url):
    result = cli_runner.invoke(cli, ["tournament", "tablanette", "--policies", "mybots.cautious:Cautious,random",
                                     "--deals", "60", "--seed", "3", "--redis-url", redis_url, "--json"])
    assert result.exit_code == 0, result.output
    standings = json.loads(result.stdout)
    assert standings["state"] == "succeeded"
    assert "mybots.cautious:Cautious" in json.dumps(standings["pairings"])


def test_a_policy_the_workers_cannot_load_fails_the_whole_job_at_once(job_store, redis_url, tmp_path, monkeypatch):
    """Its module goes to the workers, but imports one of the user's folder that does not (only the policy's own
    module is shipped): the first chunk to fail ends the job, in one line naming the policy and the import error."""
    (tmp_path / "ct27_unshipped.py").write_text(
        "import ct27_sibling  # noqa: F401\nfrom engine.bots import Policy\n\n\nclass First(Policy):\n"
        "    def choose(self, observation):\n        return observation['legal_actions'][0]\n")
    (tmp_path / "ct27_sibling.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = validate(JobSpec(game="german_whist", policies=("ct27_unshipped:First", "random"), count=10_000, seed=4,
                            chunk_size=50))
    record = run_job(job_store, job_store.create(spec).job_id, redis_url)
    assert record.state == FAILED and "\n" not in record.error
    assert record.error.startswith("policy 'ct27_unshipped:First' cannot be loaded on worker ")
    assert "No module named 'ct27_sibling'" in record.error
    assert record.retries == 0 and job_store.chunk_results(record.job_id) == {}  # not played on, chunk after chunk
