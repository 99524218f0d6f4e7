"""``cardtable simulate --results parquet:PATH`` and ``cardtable replay export COLLECTION --format parquet`` of the
same job (the session's Ray and Redis): the rows add up to the job's results, agree with its replays' JSON export,
and read the same in pyarrow, DuckDB, polars and pandas."""

from __future__ import annotations

import errno
import json
import os
from collections import Counter
from pathlib import Path

import duckdb
import pandas
import polars
import pyarrow.parquet as pq
import pytest
import redis

from replay.columnar import DEAL_FIELDS, REPLAY_SCHEMA
from replay.export import export_dict
from replay.store import ReplayStore
from services.cli.main import cli
from workers.counters import add_deal_counters
from workers.jobstore import JobStore
from workers.results import JOB_SCHEMA, ResultsFile

pytestmark = pytest.mark.usefixtures("local_ray")

COMMON = [field.name for field in DEAL_FIELDS]


@pytest.fixture
def simulate(cli_runner, redis_url, redis_client: redis.Redis):
    """Runs ``cardtable simulate ... --json`` against the test Redis; deletes the jobs and their replays after."""
    made: list[str] = []

    def invoke(*args: str):
        result = cli_runner.invoke(cli, ["simulate", *args, "--redis-url", redis_url, "--json"])
        if result.exit_code == 0:
            made.append(json.loads(result.stdout)["job_id"])
        return result

    yield invoke
    replays = ReplayStore(redis_client)
    for job_id in made:
        record = JobStore(redis_client).get(job_id)
        if replays.exists(record.replay_collection):
            replays.delete_collection(record.replay_collection)
        JobStore(redis_client).delete(job_id)


def export(cli_runner, redis_url: str, *args: str):
    return cli_runner.invoke(cli, ["replay", "--redis-url", redis_url, "export", *args])


def side_means(table, sides: list[list[int]]) -> list[float]:
    scores = table.column("scores").to_pylist()
    return [sum(row[seats[0]] for row in scores) / len(scores) for seats in sides]


@pytest.mark.parametrize(("game", "policies", "log"), [
    ("tablanette", "greedy,random", "all"),
    ("belote", "greedy,random", "sample:40"),
])
def test_the_rows_of_a_job_add_up_to_its_results_and_match_its_replays(simulate, cli_runner, redis_url, tmp_path,
                                                                      game, policies, log):
    path = tmp_path / "job.parquet"
    result = simulate(game, "--deals", "400", "--policies", policies, "--seed", "11", "--chunk-size", "60",
                      "--log", log, "--results", f"parquet:{path}")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["results_file"] == str(path)
    table = pq.read_table(path)
    assert table.schema.equals(JOB_SCHEMA), table.schema
    meta = pq.read_metadata(path).metadata
    assert meta[b"cardtable.job_id"].decode() == report["job_id"]
    assert json.loads(meta[b"cardtable.spec"])["seed"] == 11

    # one row per deal, numbered as the job numbers them
    rows = sorted(table.to_pylist(), key=lambda row: row["number"])
    assert [row["number"] for row in rows] == list(range(400))
    assert {row["job_id"] for row in rows} == {report["job_id"]}
    assert {row["game"] for row in rows} == {game} and {row["scope"] for row in rows} == {"deal"}
    assert {tuple(row["policies"]) for row in rows} == {tuple(report["spec"]["policies"])}

    # the rows add up to the job's results
    sides = [side["seats"] for side in report["sides"]]
    assert side_means(table, sides) == pytest.approx([side["mean"] for side in report["sides"]])
    for side in report["sides"]:
        assert sum(1 for row in rows if set(row["winners"]) == set(side["seats"])) == side["wins"]
    counted: Counter[str] = Counter()
    for row in rows:
        counted.update(dict(row["counters"]))
    assert dict(counted) == report["counters"]
    assert sum(row["move_count"] for row in rows) == report["moves"]
    assert sum(row["deals"] for row in rows) == report["deals"] == 400

    # the logged deals have a replay id, and the collection's export agrees with the job's rows column by column
    logged = [row for row in rows if row["replay_id"] is not None]
    assert len(logged) == report["replays"] == (400 if log == "all" else 40)
    assert all(row["replay_id"] == f"{report['replay_collection']}/{row['number']}" for row in logged)
    exported_path = tmp_path / "replays.parquet"
    exported = export(cli_runner, redis_url, report["replay_collection"], "--format", "parquet", "-o",
                      str(exported_path), "--workers", "2")
    assert exported.exit_code == 0, exported.output
    assert f"wrote {exported_path}: {len(logged)} replays" in exported.output
    replays = pq.read_table(exported_path)
    assert replays.schema.equals(REPLAY_SCHEMA)
    by_id = {row["replay_id"]: row for row in replays.to_pylist()}
    assert list(by_id) == sorted(by_id, key=lambda replay_id: int(replay_id.rpartition("/")[2])), "in index order"
    assert len(by_id) == len(logged)
    for row in logged:
        assert {name: by_id[row["replay_id"]][name] for name in COMMON} == {name: row[name] for name in COMMON}


def test_a_collection_export_matches_the_json_export(cli_runner, redis_url, redis_client, tmp_path):
    from replay import record_deal, record_match, record_match_deals

    store = ReplayStore(redis_client)
    data = [record_deal("tablanette", seed=s, policies=["greedy", "random"]) for s in range(5)]
    data += [record_match("belote", seed=3, options={"target_score": 301}),
             *record_match_deals("tablic", seed=4, policies=["random", "greedy"], options={"max_deals": 3})]
    store.put_many("parquet-vs-json", [(10 * i, d) for i, d in enumerate(data)])
    path = tmp_path / "c.parquet"
    try:
        result = export(cli_runner, redis_url, "parquet-vs-json", "--format", "parquet", "-o", str(path))
    finally:
        store.delete_collection("parquet-vs-json")
    assert result.exit_code == 0, result.output
    rows = pq.read_table(path).to_pylist()
    assert [row["index"] for row in rows] == [10 * i for i in range(len(data))]
    for row, replay_bytes in zip(rows, data, strict=True):
        record = export_dict(replay_bytes)
        header = record["header"]
        counters: Counter[str] = Counter()
        for deal_result in record["deal_results"]:
            add_deal_counters(counters, deal_result)
        assert row["replay_id"] == f"parquet-vs-json/{row['index']}" and row["collection"] == "parquet-vs-json"
        assert (row["game"], row["players"], row["scope"], row["seed"], row["deal_index"], row["first_dealer"]) == (
            header["game"], header["players"], header["scope"], header["seed"], header["deal_index"],
            header["first_dealer"])
        assert row["policies"] == header["policies"] and json.loads(row["options"]) == header["options"]
        assert row["scores"] == record["scores"] and row["winners"] == record.get("winners")
        assert dict(row["counters"]) == dict(counters) and row["deals"] == len(record["deal_results"])
        assert [[move["seat"], move["action"]] for move in row["moves"]] == record["moves"]
        assert row["move_count"] == len(record["moves"]) and row["bytes"] == record["bytes"]
    assert rows[5]["scope"] == "match" and rows[5]["winners"]
    assert json.loads(rows[5]["options"]) == {"target_score": 301}
    assert [row["deal_index"] for row in rows[6:]] == [0, 1, 2], "a match's deals each have a row"


def test_duckdb_polars_and_pandas_read_the_files_as_they_are(simulate, tmp_path):
    path = tmp_path / "tablic.parquet"
    result = simulate("tablic", "--deals", "150", "--policies", "greedy,random", "--seed", "2", "--results",
                      f"parquet:{path}")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    mean = report["sides"][0]["mean"]
    assert duckdb.execute(f"SELECT count(*), avg(scores[1]) FROM '{path}'").fetchone() == (150, pytest.approx(mean))
    assert duckdb.execute(f"SELECT sum(counters['tablas[0]']) FROM '{path}'").fetchone()[0] == \
        report["counters"]["tablas[0]"]
    frame = polars.read_parquet(path)
    assert frame.height == 150 and frame["scores"].list.get(0).mean() == pytest.approx(mean)
    assert frame["seed"].dtype == polars.UInt64 and frame["replay_id"].null_count() == 150
    pandas_frame = pandas.read_parquet(path)
    assert len(pandas_frame) == 150 and pandas_frame["scores"].map(lambda s: s[0]).mean() == pytest.approx(mean)
    assert set(pandas_frame.columns) == set(JOB_SCHEMA.names)


def test_a_chunk_played_in_time_slices_has_each_row_once(simulate, tmp_path, monkeypatch):
    # A task hands back the rest of its chunk after its first deal or few: 1 ms, as 45 greedy Tablanette deals take far
    # longer than that (at 0.05 s a faster engine played a whole chunk in one slice, and nothing was sliced).
    monkeypatch.setattr("workers.runner.SLICE_SECONDS", 0.001)
    slices: list[int] = []
    write = ResultsFile.write
    monkeypatch.setattr(ResultsFile, "write", lambda self, result: (slices.append(len(result.rows)),
                                                                     write(self, result)))
    path = tmp_path / "sliced.parquet"
    result = simulate("tablanette", "--deals", "90", "--chunk-size", "45", "--policies", "greedy", "--seed", "4",
                      "--results", f"parquet:{path}")
    assert result.exit_code == 0, result.output
    numbers = pq.read_table(path, columns=["number"]).column("number").to_pylist()
    assert sorted(numbers) == list(range(90))
    assert len(slices) == 2 and max(slices) > 1, "a chunk's rows came in several slices"


@pytest.mark.parametrize(("target", "message"), [
    ("csv:deals.csv", "unknown results format 'csv'"),
    ("deals.parquet", "FORMAT:PATH"),
])
def test_a_bad_results_option_is_a_usage_error(simulate, target, message):
    result = simulate("tablic", "--deals", "5", "--policies", "random", "--results", target)
    assert result.exit_code == 2 and message in result.output


def test_an_unwritable_results_path_fails_before_the_job_starts(simulate, tmp_path, redis_client):
    jobs_before = len(JobStore(redis_client).list(1000)[0])
    for target, reason in ((tmp_path / "missing" / "deals.parquet", "No such file or directory"),
                           (tmp_path, "Is a directory")):
        result = simulate("tablic", "--deals", "5", "--policies", "random", "--results", f"parquet:{target}")
        assert result.exit_code == 1, result.output
        assert f"Error: cannot write the results to {target}: {reason}" in result.output
    assert list(tmp_path.iterdir()) == []
    assert len(JobStore(redis_client).list(1000)[0]) == jobs_before, "no job was stored"


def test_a_failed_job_leaves_no_results_file(simulate, tmp_path, user_policies):
    path = tmp_path / "deals.parquet"
    path.write_bytes(b"an older file")
    result = simulate("tablic", "--deals", "40", "--chunk-size", "10", "--policies", "ctpolicies:Faulty,random",
                      "--seed", "1", "--results", f"parquet:{path}")
    assert result.exit_code == 1, result.output
    assert f"{path} not written: the job failed" in result.output
    assert list(tmp_path.iterdir()) == [path] and path.read_bytes() == b"an older file", "the older file stays"


def test_a_full_disk_stops_the_job_and_leaves_no_file(simulate, tmp_path, monkeypatch):
    def full(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("replay.columnar.ROW_GROUP_ROWS", 10)  # a row group per chunk: written as the job runs
    monkeypatch.setattr("replay.columnar.ParquetOut._flush", full)
    path = tmp_path / "deals.parquet"
    result = simulate("tablic", "--deals", "40", "--chunk-size", "20", "--policies", "random", "--results",
                      f"parquet:{path}")
    assert result.exit_code == 1, result.output
    assert f"stopped: cannot write the results to {path}: No space left on device" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_finished_job_replaces_an_older_file(simulate, tmp_path: Path):
    path = tmp_path / "deals.parquet"
    path.write_bytes(b"an older file")
    result = simulate("tablic", "--deals", "5", "--policies", "random", "--results", f"parquet:{path}")
    assert result.exit_code == 0, result.output
    assert pq.read_table(path).num_rows == 5 and [p.name for p in tmp_path.iterdir()] == ["deals.parquet"]
