"""The web's JSON of a job and of a replay is mapped from the API message the gRPC services answer with
(services/web/mapping.py), and is byte for byte what the web sent before (tests/web/data/web_json.json, from the
hand-written projections it replaced); the values the message does not carry are few, declared, and are the ones
the message would change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from samples import sample_game_infos, sample_jobs, sample_moves, sample_replays, sample_views

from services.app.convert import game_info_response
from services.app.jobs import job_message
from services.app.replays import list_entry, summary_of
from services.app.views import match_summary, played_message, seat_view
from services.web.mapping import (
    GAME,
    GAME_INFO,
    JOB,
    JOB_RESULTS,
    MATCH_VIEW,
    MOVE,
    OPTION,
    REPLAY,
    UNREADABLE_REPLAY,
    Field,
    Kept,
    game_info_json,
    games_json,
    job_json,
    moves_json,
    replay_json,
    view_json,
)
from services.web.wire import dumps

pytestmark = pytest.mark.unit

BEFORE: dict[str, list[str]] = json.loads((Path(__file__).parent / "data" / "web_json.json").read_text())


@pytest.mark.parametrize("index", range(len(BEFORE["job"])))
def test_a_job_is_sent_as_before(index: int) -> None:
    record = sample_jobs()[index]
    assert dumps(job_json(record)) == BEFORE["job"][index]
    assert dumps(job_json(record, with_results=False)) == BEFORE["listed_job"][index]


@pytest.mark.parametrize("index", range(len(BEFORE["replay"])))
def test_a_replay_summary_is_sent_as_before(index: int) -> None:
    replay_id, data = sample_replays()[index]
    assert dumps(replay_json(summary_of(list_entry(replay_id, data)))) == BEFORE["replay"][index]


@pytest.mark.parametrize("index", range(len(BEFORE["view"])))
def test_a_view_of_a_live_match_is_sent_as_before(index: int) -> None:
    match, state, seat, move_number, history = sample_views()[index]
    assert dumps(view_json(state, match, seat, move_number, match.replay_id, history)) == BEFORE["view"][index]


@pytest.mark.parametrize("index", range(len(BEFORE["moves"])))
def test_moves_are_sent_as_before(index: int) -> None:
    played, viewer = sample_moves()[index]
    assert dumps(moves_json(played, viewer)) == BEFORE["moves"][index]


def test_the_games_are_sent_as_before() -> None:
    assert dumps(games_json()) == BEFORE["games"][0]


def test_every_games_options_are_sent_as_before() -> None:
    for (game_id, players), before in zip(sample_game_infos(), BEFORE["game_info"], strict=True):
        assert dumps(game_info_json(game_id, int(players) if players else None)) == before, (game_id, players)


def _seconds_in_message(record: Any, name: str) -> float | None:
    """The time ``name`` as the message carries it (whole milliseconds), in the web's unit."""
    return getattr(job_message(record), f"{name}_unix_ms") / 1000 or None


def test_only_what_the_message_does_not_carry_is_read_from_the_record() -> None:
    kept = [f for f in (*JOB, *JOB_RESULTS, *REPLAY, *UNREADABLE_REPLAY, *MATCH_VIEW) if isinstance(f, Kept)]
    assert [k.name for k in kept] == ["spec", "created", "started", "finished", "replay_id", "hand_counts"]
    records = sample_jobs()
    for time in kept[1:4]:  # the message's whole milliseconds would change the seconds the web sends
        assert any(_seconds_in_message(r, time.name) != time.read(r) for r in records), time.name
    # the spec: a tournament's job pairs its deals (unit_scores), which the message does not say
    assert any(r.spec.unit_scores for r in records)
    assert "unit_scores" not in {f.name for f in job_message(records[0]).spec.DESCRIPTOR.fields}


def test_every_field_of_the_message_reaches_the_web_or_is_named() -> None:
    """A field added to the message is either mapped or left out here on purpose: the tables are checked against
    the messages, so that the web and gRPC cannot drift apart unnoticed."""
    job = job_message(sample_jobs()[2])
    mapped = {f.path.split(".")[0] for f in (*JOB, *JOB_RESULTS) if isinstance(f, Field)}
    kept_in_record = {"created_unix_ms", "started_unix_ms", "finished_unix_ms"}
    assert {f.name for f in job.DESCRIPTOR.fields} == mapped | kept_in_record
    paths = {f.path for f in (*JOB, *JOB_RESULTS) if isinstance(f, Field)}
    assert {f"progress.{f.name}" for f in job.progress.DESCRIPTOR.fields} <= paths
    replay = summary_of(list_entry(*sample_replays()[0]))
    assert {f.name for f in replay.DESCRIPTOR.fields} == {f.path for f in (*REPLAY, *UNREADABLE_REPLAY)}
    match, state, seat, number, history = sample_views()[0]
    summary = match_summary(match, seat_view(state, seat, number, history))
    assert {f.name for f in summary.DESCRIPTOR.fields} == {f.path.split(".")[0] for f in MATCH_VIEW
                                                           if isinstance(f, Field)}
    info = game_info_response("belote", None)
    not_sent = {"deck_size"}  # the web never sent a game's deck size
    assert {f.name for f in info.DESCRIPTOR.fields} == not_sent | {f.path.split(".")[0] for f in GAME_INFO}
    assert {f.name for f in info.game.DESCRIPTOR.fields} == {f.path for f in GAME}
    assert {f.name for f in info.options[0].DESCRIPTOR.fields} == {f.path for f in OPTION}
    assert {f.name for f in played_message(sample_moves()[0][0][0]).DESCRIPTOR.fields} == {f.path for f in MOVE}
    in_the_observation = {"deal_index", "phase"}  # the web sends them inside the view's observation only
    whole_view = {"perspective", "seat", "winners", "json"}  # read by the conversions of the fields of "view"
    assert {f.name for f in summary.view.DESCRIPTOR.fields} == in_the_observation | whole_view | {
        f.path.removeprefix("view.") for f in MATCH_VIEW if isinstance(f, Field) and f.path.startswith("view.")}
