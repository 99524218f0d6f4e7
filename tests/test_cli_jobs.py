"""``cardtable jobs``: list, show, results and cancel the simulation jobs kept in a real Redis."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterator

import pytest
import redis
from click.testing import CliRunner

from services.cli.main import cli
from workers.chunk import play_chunk
from workers.jobstore import CANCELLED, RUNNING, SUCCEEDED, JobStore
from workers.plan import Chunk
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import side_seats, summarize, total


@pytest.fixture
def job_store(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[JobStore]:
    """A job store under a prefix of its own, which the command uses too; wiped afterwards."""
    client = redis.Redis.from_url(redis_url)
    prefix = f"cttest:jobs:{secrets.token_hex(4)}:"
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr("services.cli.jobs.JobStore", lambda c: JobStore(c, prefix))
    yield JobStore(client, prefix)
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


def _run(*args: str):
    return CliRunner().invoke(cli, ["jobs", *args])


def _finished_job(store: JobStore, unit: str = "deal", count: int = 30) -> str:
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=count, seed=3, unit=unit,
                            log=LogSpec("sample", 2)))
    record = store.create(spec)
    result = play_chunk(spec, Chunk(0, 0, count))
    store.save_chunk(record.job_id, result)
    results = summarize(spec, total([result], len(side_seats(spec))), 1.0)
    store.set_state(record.job_id, SUCCEEDED, results=results, started=time.time(), finished=time.time())
    return record.job_id


def test_registered_in_the_main_command() -> None:
    assert sorted(cli.commands["jobs"].commands) == ["cancel", "list", "results", "show"]


def test_list_newest_first_with_pages(job_store: JobStore) -> None:
    older = _finished_job(job_store)
    newer = job_store.create(validate(JobSpec(game="belote", policies=("random",), count=200, seed=1,
                                              unit="match"))).job_id
    listed = _run("list")
    assert listed.exit_code == 0, listed.output
    assert listed.output.index(newer) < listed.output.index(older)
    assert re.search(rf"^{newer} +queued +0/200 matches +belote +random,random,random,random +\d{{4}}-",
                     listed.output, re.M), listed.output
    assert re.search(rf"^{older} +succeeded +30/30 deals +tablanette +greedy,random ", listed.output, re.M)
    first = _run("list", "--count", "1")
    assert newer in first.output and older not in first.output
    cursor = re.search(r"more: cardtable jobs list --before (\d+)", first.output).group(1)
    second = json.loads(_run("list", "--count", "1", "--before", cursor, "--json").output)
    assert [job["job_id"] for job in second["jobs"]] == [older] and second["next_before"] is None
    assert second["jobs"][0]["spec"]["policies"] == ["greedy", "random"]


def test_show_and_results(job_store: JobStore) -> None:
    job_id = _finished_job(job_store)
    shown = _run("show", job_id)
    assert shown.exit_code == 0, shown.output
    assert re.search(r"^state +succeeded$", shown.output, re.M)
    assert f"cardtable replay list {job_id}" in shown.output and f"cardtable jobs results {job_id}" in shown.output
    assert "seat 0 greedy, seat 1 random" in shown.output
    table = _run("results", job_id)
    assert table.exit_code == 0 and "seat 0 (greedy)" in table.output and "win rate" in table.output
    matches = _run("results", _finished_job(job_store, unit="match", count=2)).output
    assert "tablanette: 2 matches (" in matches and "matchs" not in matches
    report = json.loads(_run("results", job_id, "--json").output)
    assert report["job_id"] == job_id and report["units"] == 30 and len(report["sides"]) == 2


def test_results_of_an_unfinished_job_and_a_missing_job_are_errors(job_store: JobStore) -> None:
    job_id = job_store.create(validate(JobSpec(game="tablic", policies=("random",), count=100, seed=1))).job_id
    pending = _run("results", job_id)
    assert pending.exit_code == 1
    assert f"job {job_id} is queued (0/100 deals played) and has no results" in pending.output
    missing = _run("show", "sim-nothing")
    assert missing.exit_code == 1 and "no simulation job 'sim-nothing'" in missing.output
    assert "Traceback" not in missing.output


def test_cancel(job_store: JobStore) -> None:
    queued = job_store.create(validate(JobSpec(game="tablic", policies=("random",), count=100, seed=1))).job_id
    assert f"job {queued} cancelled" in _run("cancel", queued).output
    assert job_store.get(queued).state == CANCELLED
    running = job_store.create(validate(JobSpec(game="tablic", policies=("random",), count=100, seed=2))).job_id
    job_store.set_state(running, RUNNING, started=time.time())
    asked = _run("cancel", running)
    assert asked.exit_code == 0 and "cancel requested" in asked.output and job_store.cancel_requested(running)
    again = _run("cancel", queued)
    assert again.exit_code == 1 and "already cancelled" in again.output
