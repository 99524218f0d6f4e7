"""``cardtable replay``: list, show, export, import and stream against a real Redis."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from forged import REASONS, store_one_bad_replay

import replay
from engine.fishing import join_turns
from replay import Replayer
from replay.export import text_record
from replay.store import ReplayStore
from services.cli.main import cli
from services.cli.replay import replay as replay_group
from services.cli.replay import stream_lines


@pytest.fixture
def run(store: ReplayStore, replay_redis_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))

    def invoke(*args: str, input: str | None = None):
        return CliRunner().invoke(cli, ["replay", *args], catch_exceptions=False, input=input)
    return invoke


def test_registered_in_the_main_command() -> None:
    assert cli.commands["replay"] is replay_group


@pytest.mark.cluster_too
def test_list_show_export_stream(run, store: ReplayStore, tmp_path: Path) -> None:
    data = [replay.record_deal("tablanette", seed=s) for s in range(3)]
    store.put_many("sim:job9", enumerate(data))
    listed = run("list")
    assert re.search(r"^sim:job9 +3 replays$", listed.output, re.M)
    page = run("list", "sim:job9", "--count", "2")
    assert re.search(r"^sim:job9/1 +tablanette +2 +deal +\d{4}-\d\d-\d\d \d\d:\d\d +random,random +\d+$",
                     page.output, re.M), page.output
    assert "more: cardtable replay list sim:job9 --start 2" in page.output
    shown = run("show", "sim:job9/1", "--hands")
    assert '[Game "tablanette"]' in shown.output and "(hand: " in shown.output
    assert '[Deal "1"]' in shown.output and "\nDeal 1 (dealer seat " in shown.output, "deals counted from 1"
    exported = run("export", "sim:job9/2", "--format", "json", "-o", str(tmp_path / "r.json"))
    assert exported.exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["moves"] == [
        list(m) for m in replay.decode(data[2]).moves]
    text = run("export", "sim:job9/2", "--format", "text")
    assert "Result: points" in text.output
    streamed = run("stream", "sim:job9/0")
    assert streamed.output.count(" deal 1 seat ") == len(join_turns(list(replay.decode(data[0]).moves)))


def test_stream_prints_a_fishing_capture_as_one_whole_turn() -> None:
    data = replay.record_match_deals("tablanette", seed=3, options={"max_deals": 2})[1]
    moves = list(replay.decode(data).moves)
    lines = list(stream_lines(Replayer(data)))
    assert [line.split(": ", 1)[1] for line in lines] == [turn for _, turn in join_turns(moves)]
    assert all(" deal 2 seat " in line for line in lines), "the second deal, counted from 1 as watch and play do"
    numbers = [line.split(".")[0].strip().split("-") for line in lines]
    assert [int(n[0]) for n in numbers] == [1] + [int(n[-1]) + 1 for n in numbers[:-1]]
    assert int(numbers[-1][-1]) == len(moves), "every stored move is in one line"
    captures = [line for line in lines if re.match(r" *\d+-\d+\. deal 2 seat \d: ..:..", line)]
    assert captures and all("+" not in line and not line.endswith(":") for line in lines)
    record = text_record(data)  # replay show and export --format text: the same turns
    assert re.findall(r"^  (\d+(?:-\d+)?)\. S\d (\S+)$", record, re.M) == [
        (line.split(".")[0].strip(), line.split(": ", 1)[1]) for line in lines]
    assert '[Deal "2"]' in record and "\nDeal 2 (dealer seat " in record


def test_import_gives_back_the_same_bytes(run, store: ReplayStore, tmp_path: Path) -> None:
    data = replay.record_deal("german_whist", seed=5)
    (tmp_path / "d.json").write_text(replay.export.export_json(data))
    (tmp_path / "d.ctr").write_bytes(data)
    first = run("import", str(tmp_path / "d.json")).output.strip()
    second = run("import", str(tmp_path / "d.ctr"), "--collection", "files").output.strip()
    assert (first, second) == ("imported/0", "files/0")
    assert store.get(first) == store.get(second) == data


def test_a_text_export_is_refused_by_name_and_nothing_is_stored(run, store: ReplayStore, tmp_path: Path) -> None:
    store.put_many("sim:job4", enumerate([replay.record_deal("tablanette", seed=2)]))
    assert run("export", "sim:job4/0", "--format", "text", "-o", str(tmp_path / "deal.txt")).exit_code == 0
    result = run("import", str(tmp_path / "deal.txt"))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "Error: this is a text export (`replay export --format text`), a record to read that cannot be imported: "
        "export the replay with --format json or --format bin to import it"]
    assert store.count("imported") == 0


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


@pytest.mark.cluster_too
def test_list_pages_a_sparse_collection_by_replay(run, store: ReplayStore) -> None:
    """A sample of 100 replays over 100,000 deals (deal n*1000): a page of 50 holds 50 replays."""
    data = replay.record_deal("tablic", seed=4, policies=["greedy:epsilon=0.3", "random"])
    store.put_many("sim-sample", [(n * 1000, data) for n in range(100)])
    first = run("list", "sim-sample")
    assert len(re.findall(r"^sim-sample/", first.output, re.M)) == 50
    assert "sim-sample/49000 " in first.output and "sim-sample/50000 " not in first.output
    assert "greedy:epsilon=0.3,random" in first.output
    assert "more: cardtable replay list sim-sample --start 49001" in first.output
    second = run("list", "sim-sample", "--start", "49001", "--json")
    page = json.loads(second.output)
    assert [item["id"] for item in page["items"]] == [f"sim-sample/{n * 1000}" for n in range(50, 100)]
    assert page["replays"] == 100 and page["next_start"] is None
    item = page["items"][0]
    assert item["game"] == "tablic" and item["policies"] == ["greedy:epsilon=0.3", "random"]
    assert item["bytes"] == len(data) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z", item["written"])


@pytest.mark.parametrize("kind", ["forged", "corrupt"])
def test_list_marks_a_bad_replay_and_lists_the_others(run, store: ReplayStore, kind: str) -> None:
    stored = store_one_bad_replay(store, "mixed", kind)
    listed = run("list", "mixed")
    assert listed.exit_code == 0, listed.output
    assert re.findall(r"^(mixed/\d+)  ", listed.output, re.M) == stored.ids  # the table's rows
    assert re.search(rf"^{stored.bad_id} +unreadable +- +- ", listed.output, re.M)
    assert f"\n{stored.bad_id} is unreadable: {REASONS[kind]}" in listed.output
    page = json.loads(run("list", "mixed", "--json").output)
    (bad,) = [item for item in page["items"] if "error" in item]
    assert bad["id"] == stored.bad_id and bad["bytes"] == stored.bad_size and bad["error"].startswith(REASONS[kind])
    assert [item["game"] for item in page["items"] if item is not bad] == ["tablic"] * len(stored.good)
    shown = run("show", stored.bad_id)
    assert shown.exit_code == 1 and REASONS[kind] in shown.output and "Traceback" not in shown.output


def test_list_of_a_missing_collection_is_an_error(run, store: ReplayStore) -> None:
    store.put_many("here", [(0, replay.record_deal("tablanette", seed=1))])
    missing = run("list", "nosuch")
    assert missing.exit_code == 1
    assert "no collection 'nosuch'; the collections are here" in missing.output
    assert re.search(r"^here +1 replay$", run("list").output, re.M)
    assert json.loads(run("list", "--json").output) == [{"collection": "here", "replays": 1}]


def test_show_words_facts_without_python_values(run, store: ReplayStore) -> None:
    replay_id = store.save(replay.record_match("belote", seed=11, options={"target_score": 300}), "m")
    shown = run("show", replay_id).output
    assert "Result: points" in shown and "taker seat " in shown
    for python in ("None", "False", "True", "[", "]"):
        assert python not in shown.split("\n\n", 1)[1], python


def test_export_bin_imports_back(run, store: ReplayStore, tmp_path: Path) -> None:
    data = replay.record_deal("belote_contree", seed=6)
    replay_id = store.save(data, "b")
    written = run("export", replay_id, "--format", "bin", "-o", str(tmp_path / "deal.ctr"))
    assert written.exit_code == 0 and (tmp_path / "deal.ctr").read_bytes() == data
    piped = CliRunner().invoke(cli, ["replay", "export", replay_id, "--format", "bin"])
    assert piped.stdout_bytes == data
    imported = run("import", str(tmp_path / "deal.ctr")).output.strip()
    assert store.get(imported) == data


def test_import_refuses_a_damaged_binary(run, store: ReplayStore, tmp_path: Path) -> None:
    data = replay.record_deal("tablanette", seed=2)
    (tmp_path / "bad.ctr").write_bytes(data[:-5] + bytes(5))
    result = run("import", str(tmp_path / "bad.ctr"))
    assert result.exit_code == 1 and "Error:" in result.output and store.count("imported") == 0


def test_delete_a_replay_or_a_collection(run, store: ReplayStore) -> None:
    store.put_many("gone", enumerate(replay.record_deal("tablanette", seed=s) for s in range(3)))
    assert "deleted replay gone/1" in run("delete", "gone/1", "--yes").output
    assert store.count("gone") == 2 and run("show", "gone/1").exit_code == 1
    kept = run("delete", "gone", input="n\n")
    assert kept.exit_code == 1 and "Delete collection gone and its 2 replays?" in kept.output
    assert store.count("gone") == 2
    deleted = run("delete", "gone", input="y\n")
    assert deleted.exit_code == 0 and "deleted collection gone and its 2 replays" in deleted.output
    assert not store.exists("gone") and run("list", "gone").exit_code == 1
    assert "no replay 'gone/0'" in run("delete", "gone/0", "--yes").output
