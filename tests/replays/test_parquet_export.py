"""``cardtable replay export COLLECTION --format parquet``: its errors (a clear message, a non-zero exit, no file
left behind) and its memory, bounded whatever the collection's size. Its values against the JSON export, and
against the rows of the job that logged the replays: tests/workers/test_results_file.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from forged import REASONS, store_one_bad_replay

import replay
from replay.columnar import ROW_GROUP_BYTES
from replay.store import ReplayStore
from services.cli.main import cli

PROBE = Path(__file__).with_name("memory_probe.py")
MiB = 1 << 20


@pytest.fixture
def run(store: ReplayStore, replay_redis_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))

    def invoke(*args: str):
        return CliRunner().invoke(cli, ["replay", "export", *args])
    return invoke


@pytest.fixture
def deals(store: ReplayStore) -> str:
    store.put_many("deals", enumerate(replay.record_deal("tablic", seed=seed) for seed in range(4)))
    return "deals"


def test_a_collection_exports_in_index_order(run, deals, tmp_path: Path) -> None:
    path = tmp_path / "deals.parquet"
    result = run(deals, "--format", "parquet", "-o", str(path))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {path}: 4 replays, ")
    table = pq.read_table(path)
    assert table.column("replay_id").to_pylist() == [f"deals/{i}" for i in range(4)]
    assert table.column("seed").to_pylist() == [0, 1, 2, 3]
    assert pq.read_metadata(path).metadata[b"cardtable.collection"] == b"deals"
    assert [p.name for p in tmp_path.iterdir()] == ["deals.parquet"]


@pytest.mark.parametrize(("args", "message"), [
    (["deals", "--format", "csv", "-o", "x.csv"], "Invalid value for '--format': 'csv' is not one of"),
    (["deals", "--format", "parquet"], "a Parquet export goes to a file: add -o FILE"),
    (["deals/1", "--format", "parquet", "-o", "x.parquet"],
     "--format parquet exports a whole collection (such as deals), not one replay (deals/1)"),
])
def test_usage_errors(run, deals, args, message, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_or_empty_collection_is_an_error(run, store: ReplayStore, deals, tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    result = run("nothing-here", "--format", "parquet", "-o", str(path))
    assert result.exit_code == 1 and "no collection 'nothing-here'; the collections are deals" in result.output
    for index in range(4):
        store.delete(f"deals/{index}")
    result = run("deals", "--format", "parquet", "-o", str(path))
    assert result.exit_code == 1, result.output
    assert "collection 'deals' holds no replays: there is nothing to export" in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_path_is_an_error(run, deals, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    for path, reason in ((tmp_path / "missing" / "x.parquet", "No such file or directory"),
                         (tmp_path / "a-file" / "x.parquet", "Not a directory")):
        result = run(deals, "--format", "parquet", "-o", str(path))
        assert result.exit_code == 1, result.output
        assert f"Error: cannot write {path}: {reason}" in result.output
    result = run(deals, "--format", "parquet", "-o", str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


@pytest.mark.parametrize("kind", ["corrupt", "forged"])
def test_a_bad_replay_stops_the_export_and_leaves_the_older_file(run, store: ReplayStore, kind: str,
                                                                 tmp_path: Path) -> None:
    bad = store_one_bad_replay(store, "bad", kind)
    path = tmp_path / "x.parquet"
    path.write_bytes(b"an older file")
    result = run("bad", "--format", "parquet", "-o", str(path), "--workers", "1")
    assert result.exit_code == 1, result.output
    assert bad.bad_id in result.output and REASONS[kind] in result.output
    assert list(tmp_path.iterdir()) == [path] and path.read_bytes() == b"an older file"


def probe(*args: str) -> dict[str, int]:
    done = subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_200k_rows_are_written_in_bounded_memory(tmp_path: Path) -> None:
    """The writer holds a row group at most (ROW_GROUP_BYTES of Arrow data), not the table: 200k deals of 30 moves
    each, a page of 1000 at a time."""
    measured = probe("rows", "200000", str(tmp_path / "rows.parquet"))
    assert measured["rows"] == 200_000
    assert measured["arrow_peak"] < ROW_GROUP_BYTES + 16 * MiB < measured["arrow_total"], measured
    assert measured["rss_growth"] < 256 * MiB, measured


def test_an_export_takes_the_same_memory_for_a_larger_collection(store: ReplayStore, replay_redis_url: str,
                                                                 tmp_path: Path) -> None:
    """Pages of 100 replays and row groups of 400 rows: a collection 3 times larger takes no more memory (the
    replays are a few deals stored again and again, each decoded in turn)."""
    data = [replay.record_deal("botifarra", seed=seed) for seed in range(20)]
    store.put_many("small", ((i, data[i % 20]) for i in range(800)))
    store.put_many("large", ((i, data[i % 20]) for i in range(2400)))
    small, large = (probe("export", name, str(tmp_path / f"{name}.parquet"), replay_redis_url, store.prefix, "1",
                          "100", "400") for name in ("small", "large"))
    assert (small["rows"], large["rows"]) == (800, 2400)
    assert large["arrow_total"] > 2.5 * small["arrow_total"]
    assert large["arrow_peak"] < 1.1 * small["arrow_peak"] + 64 * 1024, (small, large)
    assert large["rss_growth"] < small["rss_growth"] + 8 * MiB, (small, large)
