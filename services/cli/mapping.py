"""The CLI's JSON of a job, a job's results, a simulation's report, a tournament's standings, a listed replay and a
game: the API message the app builds for it (the one projection of the resource, which the gRPC services answer with
and the web maps too, services/web/mapping.py), mapped under the CLI's names by
:func:`services.app.projection.mapped`.

Each table lists the CLI's fields in the order it prints them. A :class:`Field` reads the message; a :class:`Kept` is
a value the message does not carry as the CLI has always printed it (or at all: only the CLI prints it), read from
what the message was built from, with the reason; a :class:`Spread` puts a job's results in place, field by field.
The envelopes of a listing (``jobs``, ``next_before``; ``collection``, ``items``, ``next_start``) are the CLI's
paging, not a resource.

>>> from services.generated.cardtable.v1.replay_service_pb2 import ReplaySummary
>>> mapped(ReplaySummary(replay_id="live/3", size_bytes=9, error="truncated"), UNREADABLE_REPLAY, None)
{'id': 'live/3', 'bytes': 9, 'written': None, 'error': 'truncated'}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine

from ..app.convert import game_summary
from ..app.projection import GAME_SUMMARY, JOB_TIMES, Field, Fields, Kept, Spread, from_json, mapped, word

if TYPE_CHECKING:  # the jobs' modules (Redis, and numpy for the ratings): for the commands of jobs only
    from workers.jobstore import JobRecord

    from ..generated.cardtable.v1.replay_service_pb2 import ReplaySummary

_SPEC = ("the spec as the store keeps it: the message's maps do not keep the order of the options and of a policy's "
         "parameters, and it has no unit_scores or unit_rows")
_RETRIES = "the chunks retried: no message carries them (only the CLI prints them)"
_state = word("JOB_STATE_")


@dataclass(frozen=True)
class Simulated:
    """What ``cardtable simulate`` reports beside the job: the workers ("node:pid") that played it and, with
    ``--results``, the file of its rows (None: not asked for)."""

    record: JobRecord
    workers: list[str]
    results_path: Path | None = None


# `jobs show --json`: a job read alone (GetJob's answer, with its results).
JOB: Fields = (
    Field("job_id", "job_id"),
    Field("state", "state", _state),
    Kept("spec", lambda record: record.spec.to_dict(), _SPEC),
    Field("units_done", "progress.units_done"),
    Field("chunks_done", "progress.chunks_done"),
    Field("chunks_total", "progress.chunks_total"),
    Kept("retries", lambda record: record.retries, _RETRIES),
    *JOB_TIMES,
    Field("error", "error"),
    Field("cancel_requested", "cancel_requested"),
    Field("replay_collection", "replay_collection"),
    Field("has_results", "results", lambda results: results is not None),
)
# Each job of `jobs list --json` (ListJobs' answer: without the results, which take the most to build).
LISTED_JOB: Fields = (
    *JOB[:-1],
    Kept("has_results", lambda record: record.results is not None, "a listed job's message leaves its results out"),
)

_results = Spread("results.json", from_json)

# `jobs results --json`: a job with results.
JOB_RESULTS = (
    Field("job_id", "job_id"),
    Field("state", "state", _state),
    Kept("spec", lambda record: record.spec.to_dict(), _SPEC),
    Field("replay_collection", "replay_collection"),
    _results,
)

# `simulate --json` and `--output`: a job with results, played by this command (built from a :class:`Simulated`).
SIMULATED = (
    Field("job_id", "job_id"),
    Field("state", "state", _state),
    Kept("spec", lambda done: done.record.spec.to_dict(), _SPEC),
    Field("replay_collection", "replay_collection"),
    Kept("retries", lambda done: done.record.retries, _RETRIES),
    Kept("workers", lambda done: done.workers, "the workers that played the job's chunks: no message carries them"),
    _results,
)


def _results_file(done: Simulated) -> str | None:
    from workers.jobstore import SUCCEEDED

    return str(done.results_path) if done.record.state == SUCCEEDED else None


# With --results: the rows' file once the job has succeeded (None otherwise).
SIMULATED_WITH_ROWS: Fields = (
    *SIMULATED,
    Kept("results_file", _results_file, "a file this command wrote: no message names it"),
)


def _low_high(low: str, high: str) -> Callable[[Any], list[float]]:
    """A 95% interval as the CLI prints it, ``[low, high]``, from the message's two bounds."""
    return lambda message: [getattr(message, low), getattr(message, high)]


PAIRING = (
    Field("a", "policy_a"),
    Field("b", "policy_b"),
    Field("deals", "deals"),
    Field("mean_difference", "mean_difference"),
    Field("ci95", "", _low_high("mean_difference_ci95_low", "mean_difference_ci95_high")),
    Field("win_rate", "win_rate"),
)

RATING = (
    Field("policy", "policy"),
    Field("rating", "rating"),
    Field("ci95", "", _low_high("rating_ci95_low", "rating_ci95_high")),
    Field("note", "note"),
)


def _each(fields: tuple[Field, ...]) -> Callable[[list[Any]], list[dict[str, Any]]]:
    return lambda messages: [mapped(message, fields) for message in messages]


# `tournament --json`: a tournament its command played to the end (a stored record; the message has an error only
# for one that did not succeed, which the command says in words instead).
TOURNAMENT = (
    Field("tournament_id", "tournament_id"),
    Field("state", "state", _state),
    Kept("spec", lambda record: record["spec"], "the spec as the store keeps it: the message's maps do not keep the "
                                                "order of the options and of a policy's parameters"),
    Field("jobs", "job_ids"),
    Kept("finished", lambda record: record["finished"], "when it finished, in Unix seconds: no message carries it"),
    Field("pairings", "pairings", _each(PAIRING)),
    Field("ratings", "ratings", _each(RATING)),
)


_WRITTEN = "when the store wrote the replay (ISO 8601, UTC; None: before the store kept it): no message carries it"


def _written(written: float | None) -> str | None:
    return None if written is None else datetime.fromtimestamp(written, UTC).isoformat().replace("+00:00", "Z")


# A replay of `replay list COLLECTION --json` (built from the time the store wrote it).
REPLAY = (
    Field("id", "replay_id"),
    Field("bytes", "size_bytes"),
    Kept("written", _written, _WRITTEN),
    Field("game", "game_id"),
    Field("players", "players"),
    Field("scope", "scope"),
    Field("deal_index", "header_json", lambda header: json.loads(header)["deal_index"]),
    Field("policies", "policies"),
)
# A listed replay whose bytes do not decode: its id, its size, when it was written and why.
UNREADABLE_REPLAY = (
    Field("id", "replay_id"),
    Field("bytes", "size_bytes"),
    Kept("written", _written, _WRITTEN),
    Field("error", "error"),
)

_ENGINE_DESCRIBES = "as the engine describes the game (GameInfo.to_dict)"

# A game of `games --json` (ListGames' summary; built from the engine's description of the game).
GAME: Fields = (
    *GAME_SUMMARY,
    Kept("deck_size", lambda info: info["deck_size"],
         f"the game's deck, {_ENGINE_DESCRIBES}: GetGameInfo's deck_size is the deck at one player count"),
    Kept("options", lambda info: info["options"],
         f"each option for all the game's player counts at once (a default that depends on the count given per "
         f"count, the values allowed at any count), {_ENGINE_DESCRIBES}: GetGameInfo describes them at one count"),
    Kept("max_length", lambda info: info["max_length"],
         f"the longest match per player count, {_ENGINE_DESCRIBES}: no message carries it"),
    Kept("engine", lambda info: engine.engine_kind(),
         "which engine plays the game here (\"compiled\" or \"python\"): no message carries it"),
)


def job_json(record: JobRecord) -> dict[str, Any]:
    from ..app.jobs import job_message

    return mapped(job_message(record), JOB, record)


def listed_job_json(record: JobRecord) -> dict[str, Any]:
    from ..app.jobs import job_message

    return mapped(job_message(record, with_results=False), LISTED_JOB, record)


def job_results_json(record: JobRecord) -> dict[str, Any]:
    from ..app.jobs import job_message

    return mapped(job_message(record), JOB_RESULTS, record)


def simulated_json(done: Simulated) -> dict[str, Any]:
    from ..app.jobs import job_message

    return mapped(job_message(done.record), SIMULATED if done.results_path is None else SIMULATED_WITH_ROWS, done)


def tournament_json(record: dict[str, Any]) -> dict[str, Any]:
    from ..app.jobs import tournament_message

    return mapped(tournament_message(record), TOURNAMENT, record)


def replay_json(replay: ReplaySummary, written: float | None) -> dict[str, Any]:
    return mapped(replay, UNREADABLE_REPLAY if replay.error else REPLAY, written)


def game_json(game_id: str) -> dict[str, Any]:
    return mapped(game_summary(game_id), GAME, engine.game_info(game_id).to_dict())
