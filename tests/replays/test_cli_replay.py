"""``cardtable replay``: list, show, export, import and stream against a real Redis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import replay
from replay.store import ReplayStore
from services.cli.main import cli
from services.cli.replay import replay as replay_group


@pytest.fixture
def run(store: ReplayStore, replay_redis_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))

    def invoke(*args: str):
        return CliRunner().invoke(cli, ["replay", *args], catch_exceptions=False)
    return invoke


def test_registered_in_the_main_command() -> None:
    assert cli.commands["replay"] is replay_group


def test_list_show_export_stream(run, store: ReplayStore, tmp_path: Path) -> None:
    data = [replay.record_deal("tablanette", seed=s) for s in range(3)]
    store.put_many("sim:job9", enumerate(data))
    listed = run("list")
    assert "sim:job9\t3 replays" in listed.output
    page = run("list", "sim:job9", "--count", "2")
    assert "sim:job9/1\ttablanette\t2p\tdeal 0" in page.output and "--start 2" in page.output
    shown = run("show", "sim:job9/1", "--hands")
    assert '[Game "tablanette"]' in shown.output and "(hand: " in shown.output
    exported = run("export", "sim:job9/2", "--format", "json", "-o", str(tmp_path / "r.json"))
    assert exported.exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["moves"] == [
        list(m) for m in replay.decode(data[2]).moves]
    text = run("export", "sim:job9/2", "--format", "text")
    assert "Result: points" in text.output
    streamed = run("stream", "sim:job9/0")
    assert streamed.output.count("seat ") == len(replay.decode(data[0]).moves)


def test_import_gives_back_the_same_bytes(run, store: ReplayStore, tmp_path: Path) -> None:
    data = replay.record_deal("german_whist", seed=5)
    (tmp_path / "d.json").write_text(replay.export.export_json(data))
    (tmp_path / "d.ctr").write_bytes(data)
    first = run("import", str(tmp_path / "d.json")).output.strip()
    second = run("import", str(tmp_path / "d.ctr"), "--collection", "files").output.strip()
    assert (first, second) == ("imported/0", "files/0")
    assert store.get(first) == store.get(second) == data


def test_errors_are_messages_not_tracebacks(run, store: ReplayStore, tmp_path: Path) -> None:
    missing = run("show", "nothing/4")
    assert missing.exit_code == 1 and "no replay 'nothing/4'" in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "cardtable-replay", "version": 1, "header": {"game": "chess"}}')
    result = run("import", str(bad))
    assert result.exit_code == 1 and "Error:" in result.output
    store.redis.hset(store.bucket_key("c", 0), "0", b"CT\x01garbage")
    corrupt = run("show", "c/0")
    assert corrupt.exit_code == 1 and store.bucket_key("c", 0) in corrupt.output
