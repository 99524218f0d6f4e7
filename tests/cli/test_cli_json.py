"""The CLI's JSON of a job, a page of jobs, a job's results, a simulation's report, a tournament's standings, a
listed replay and the games is mapped from the API's messages (services/cli/mapping.py) and is byte for byte what it
printed before (tests/cli/data/cli_json.json, from the hand-written dicts of services/cli/ that the mapping
replaced); the values the messages do not carry are few, declared, and are the ones the messages would change."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_samples import cli_jobs, sample_replays, sample_tournaments, written_times
from click.testing import CliRunner
from google.protobuf.message import Message

import engine
from services.app.convert import game_info_response, game_summary
from services.app.jobs import job_message, tournament_message
from services.app.projection import Field, Fields, Kept, Spread
from services.app.replays import list_entry, summary_of
from services.cli.jobs import jobs_page
from services.cli.main import cli
from services.cli.mapping import (
    GAME,
    JOB,
    JOB_RESULTS,
    LISTED_JOB,
    PAIRING,
    RATING,
    REPLAY,
    SIMULATED,
    SIMULATED_WITH_ROWS,
    TOURNAMENT,
    UNREADABLE_REPLAY,
    Simulated,
    game_json,
    job_json,
    job_results_json,
    replay_json,
    simulated_json,
    tournament_json,
)

pytestmark = pytest.mark.unit

DATA = Path(__file__).parent / "data" / "cli_json.json"
WORKERS = ["node-a:101", "node-b:7"]


def _job_texts() -> list[str]:
    return [json.dumps(job_json(record), indent=2) for record in cli_jobs()]


def _page_texts() -> list[str]:
    records = cli_jobs()
    return [json.dumps(jobs_page(records, None), indent=2), json.dumps(jobs_page(records[:2], 4), indent=2),
            json.dumps(jobs_page([], None), indent=2)]


def _results_texts() -> list[str]:
    return [json.dumps(job_results_json(record)) for record in cli_jobs() if record.results is not None]


def _simulate_texts() -> list[str]:
    return [json.dumps(simulated_json(Simulated(record, WORKERS, path))) for record in cli_jobs()
            if record.results is not None for path in (None, Path("rows.parquet"))]


def _tournament_texts() -> list[str]:
    return [json.dumps(tournament_json(record)) for record in sample_tournaments()]


def _replay_texts() -> list[str]:
    rows = []
    for (replay_id, data), written in zip(sample_replays(), written_times(), strict=True):
        rows.append(json.dumps(replay_json(summary_of(list_entry(replay_id, data)), written), indent=2))
    return rows


def _games_texts() -> list[str]:
    return [json.dumps([game_json(game_id) for game_id in engine.list_games()], indent=2)]


OUTPUTS: dict[str, Callable[[], list[str]]] = {
    "job": _job_texts, "jobs_page": _page_texts, "job_results": _results_texts, "simulate": _simulate_texts,
    "tournament": _tournament_texts, "replay_row": _replay_texts, "games": _games_texts,
}


def current_outputs() -> dict[str, list[str]]:
    """What the CLI prints for every sample (how tests/cli/data/cli_json.json was written), the games said to be
    played by the Python engine."""
    kind = engine.engine_kind
    engine.engine_kind = lambda: "python"  # type: ignore[assignment]
    try:
        return {name: texts() for name, texts in OUTPUTS.items()}
    finally:
        engine.engine_kind = kind  # type: ignore[assignment]


@pytest.fixture(scope="module")
def before() -> dict[str, list[str]]:
    return json.loads(DATA.read_text())


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_the_cli_prints_as_before(name: str, before: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "engine_kind", lambda: "python")
    now = OUTPUTS[name]()
    assert len(now) == len(before[name])
    for number, (text, old) in enumerate(zip(now, before[name], strict=True)):
        assert text == old, (name, number)


def _kept(*tables: Fields) -> set[str]:
    return {f.name for table in tables for f in table if isinstance(f, Kept)}


def _read(*tables: Fields) -> set[str]:
    """The message's fields the tables read (a path's first step; the whole message read as "")."""
    return {f.path.split(".")[0] for table in tables for f in table if isinstance(f, Field | Spread)}


def _names(message: Message) -> set[str]:
    return {f.name for f in message.DESCRIPTOR.fields}


def test_only_what_the_messages_lack_is_kept() -> None:
    """The CLI's own fields (retries, workers, the rows' file, when a replay was written or a tournament finished,
    the engine's description of a game) are in no message; the spec and the times are, but not as the CLI prints
    them (the options' order, whole milliseconds)."""
    assert _kept(JOB, JOB_RESULTS, SIMULATED_WITH_ROWS) == {"spec", "retries", "created", "started", "finished",
                                                            "workers", "results_file"}
    assert _kept(LISTED_JOB) - _kept(JOB) == {"has_results"}  # a listed job's message has no results
    assert not job_message(cli_jobs()[2], with_results=False).HasField("results")
    assert _kept(TOURNAMENT) == {"spec", "finished"}
    assert _kept(REPLAY, UNREADABLE_REPLAY) == {"written"}
    assert _kept(GAME) == {"deck_size", "options", "max_length", "engine"}
    job = job_message(cli_jobs()[2])
    assert not {"retries", "workers", "results_file", "created", "started", "finished"} & _names(job)
    assert any(job_message(r).created_unix_ms / 1000 != r.created for r in cli_jobs())
    assert not {"finished", "finished_unix_ms"} & _names(tournament_message(sample_tournaments()[0]))
    assert "written" not in _names(summary_of(list_entry(*sample_replays()[0])))
    # a game's deck at its default player count is not its deck (Two-Ten-Jack with 3 players deals 51 of 52 cards)
    assert game_info_response("two_ten_jack", 3).deck_size != engine.game_info("two_ten_jack").deck_size


def test_every_field_of_the_messages_is_printed_or_named() -> None:
    """A field added to a message is printed or left out here on purpose, so that the CLI and gRPC cannot drift
    apart unnoticed."""
    not_printed = {"spec", "created_unix_ms", "started_unix_ms", "finished_unix_ms"}  # kept as stored
    assert _names(job_message(cli_jobs()[2])) == not_printed | _read(JOB)
    assert {"job_id", "state", "replay_collection", "results"} == _read(JOB_RESULTS) == _read(SIMULATED)
    tournament = tournament_message(sample_tournaments()[0])
    assert _names(tournament) == {"spec", "error"} | _read(TOURNAMENT)  # only a tournament that succeeded is printed
    assert _names(tournament.pairings[0]) == {*_read(PAIRING), "mean_difference_ci95_low",
                                              "mean_difference_ci95_high"} - {""}
    assert _names(tournament.ratings[0]) == {*_read(RATING), "rating_ci95_low", "rating_ci95_high"} - {""}
    replay = summary_of(list_entry(*sample_replays()[0]))
    assert _names(replay) == {"seed", "move_count"} | _read(REPLAY, UNREADABLE_REPLAY)  # never listed by the CLI
    assert _names(game_summary("belote")) == _read(GAME)


def test_games_json_is_what_the_command_prints(before: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "engine_kind", lambda: "python")
    result = CliRunner().invoke(cli, ["games", "--json"])
    assert (result.exit_code, result.output) == (0, before["games"][0] + "\n")
