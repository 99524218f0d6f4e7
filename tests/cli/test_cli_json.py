"""The CLI's JSON of a job, a page of jobs, a job's results, a simulation's report, a tournament's standings, a
listed replay and the games is byte for byte what it printed before (tests/cli/data/cli_json.json, from the
hand-written dicts of services/cli/ that the mapping of the API's messages replaced)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_samples import cli_jobs, sample_replays, sample_tournaments, written_times

import engine
from replay.store import parse_id
from services.cli.games import games_json
from services.cli.jobs import job_dict, job_results, jobs_page
from services.cli.replay import replay_row
from services.cli.simulate import simulate_report
from services.cli.tournament import standings_json

pytestmark = pytest.mark.unit

DATA = Path(__file__).parent / "data" / "cli_json.json"
WORKERS = ["node-a:101", "node-b:7"]


def _job_texts() -> list[str]:
    return [json.dumps(job_dict(record), indent=2) for record in cli_jobs()]


def _page_texts() -> list[str]:
    records = cli_jobs()
    return [json.dumps(jobs_page(records, None), indent=2), json.dumps(jobs_page(records[:2], 4), indent=2),
            json.dumps(jobs_page([], None), indent=2)]


def _results_texts() -> list[str]:
    return [json.dumps(job_results(record)) for record in cli_jobs() if record.results is not None]


def _simulate_texts() -> list[str]:
    return [json.dumps(simulate_report(record, WORKERS, path)) for record in cli_jobs() if record.results is not None
            for path in (None, Path("rows.parquet"))]


def _tournament_texts() -> list[str]:
    return [json.dumps(standings_json(record)) for record in sample_tournaments()]


def _replay_texts() -> list[str]:
    rows = []
    for (replay_id, data), written in zip(sample_replays(), written_times(), strict=True):
        collection, index = parse_id(replay_id)
        rows.append(json.dumps(replay_row(collection, index, data, written), indent=2))
    return rows


def _games_texts() -> list[str]:
    return [json.dumps(games_json(), indent=2)]


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
