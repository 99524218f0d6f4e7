"""Samples of what the CLI prints as JSON (tests/cli/test_cli_json.py), built without Redis, Ray or a clock.

The jobs and the replays are the web's samples (tests/web/samples.py: every state, with and without results, policy
parameters, options, a 64-bit seed, a tournament's job, a game this server does not know; three games, both scopes,
bytes that do not decode) and a later deal of a match, with retries and the times the store wrote the replays. The
tournaments: two and three policies, a partnership game, options, a 64-bit seed, one as its command finished it and
one read back from Redis (resumed). The games: every game.

tests/cli/data/cli_json.json holds each as the CLI printed it before its JSON was mapped from the API's messages (the
hand-written ``job_dict``, ``jobs_page``, ``job_results``, ``simulate_report``, ``standings_json``, ``replay_row`` and
``games_json`` of services/cli/ at the commit that added this file)."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from replay.record import record_match_deals
from workers.jobstore import JobRecord
from workers.tournament import TournamentSpec, check_tournament, standings, tournament_jobs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
from samples import BIG_SEED, CREATED, sample_jobs  # noqa: E402
from samples import sample_replays as web_replays  # noqa: E402

__all__ = ["sample_jobs"]


def sample_replays() -> list[tuple[str, bytes]]:
    """The web's sample replays, and a later deal of a match (its deal index is listed)."""
    later = record_match_deals("tablanette", seed=11, policies=("greedy", "random"), options={"max_deals": 2})[1]
    return [*web_replays(), ("sample/4", later)]


def cli_jobs() -> list[JobRecord]:
    """The web's sample jobs, every other one retried (only the CLI prints the retries)."""
    return [replace(record, retries=number % 3) for number, record in enumerate(sample_jobs())]


def written_times() -> list[float | None]:
    """When the store wrote each sample replay (None: written before the store kept the time)."""
    return [CREATED, CREATED + 0.0004567, None, 1.5, CREATED + 3600]


def sample_tournaments() -> list[dict[str, Any]]:
    """Finished tournaments' records, as ``workers.tournament`` leaves them (per-deal side scores drawn at random)."""
    specs = [
        TournamentSpec("german_whist", ("random", "greedy"), 6, seed=1),
        TournamentSpec("tablanette", ("random", "greedy:epsilon=0.25", "greedy"), 8, seed=BIG_SEED,
                       options={"target": 61, "jack_mode": "value12"}, chunk_size=4),
        TournamentSpec("belote_contree", ("random", "greedy"), 5, seed=9, players=4, options={"target_score": 1000}),
    ]
    records = []
    for number, spec in enumerate(specs, 1):
        spec = check_tournament(spec)
        draw = random.Random(number)
        jobs = tournament_jobs(spec)
        scores = {(pairing, arrangement): [[draw.randrange(0, 40) for _ in range(2)] for _ in range(spec.deals)]
                  for pairing, arrangement, _ in jobs}
        job_ids = [f"sim-{number:06d}{j:06d}" for j in range(len(jobs))]
        record: dict[str, Any] = {"tournament_id": f"tournament-{number}", "state": "running",
                                  "spec": spec.to_dict(), "jobs": job_ids}
        record.update(state="succeeded", finished=CREATED + number + 0.0004567, **standings(spec, scores))
        records.append(record)
    records.append(json.loads(json.dumps(records[1])))  # resumed: read back from Redis
    return records
