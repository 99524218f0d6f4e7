"""Tournaments: every pair of policies plays the same deals from every seat arrangement (duplicate deals), as
ordinary simulation jobs on the Ray job machinery, then a table of score differences, win rates and ratings.

A pairing of policies A and B plays, for each arrangement (a way to seat A and B on the game's sides with both
playing: with two sides A on side 0 and B on side 1, then the other way round; with three sides the six of AAB, ABA,
BAA, ABB, BAB and BBA), one deal job with the tournament's seed and deal count: a job's deal ``k`` is dealt from
``match_seed(seed, k)`` and its bots are seeded from ``bot_seed(seed, k)``, so every job of the tournament deals the
same cards to the same seats (duplicate deals, which cancel the luck of the cards). The jobs keep each deal's scores
(``JobSpec.unit_scores``); deal ``k`` of a pairing scores A's sides' mean less B's, averaged over the arrangements
(each side is A's in as many of them as B's). The table gives each pairing's mean difference with a 95% confidence
interval and A's win rate over the duplicate deals (a draw half), and a rating per policy with its 95% interval, fit
by least squares to the pairings' margins and ranked never against a head-to-head result (:mod:`workers.ratings`).

>>> spec = TournamentSpec("german_whist", ("random", "greedy"), deals=4, seed=1)
>>> [(job.policies, pairing, arrangement) for pairing, arrangement, job in tournament_jobs(spec)]
[(('random', 'greedy'), (0, 1), 0), (('greedy', 'random'), (0, 1), 1)]
>>> [job.policies for _p, _a, job in tournament_jobs(TournamentSpec("two_ten_jack", ("a", "b"), 4, 1, players=3))]
... # doctest: +NORMALIZE_WHITESPACE
[('a', 'a', 'b'), ('a', 'b', 'a'), ('a', 'b', 'b'), ('b', 'a', 'a'), ('b', 'a', 'b'), ('b', 'b', 'a')]
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations, product
from typing import Any

import engine
from engine.bots import canonical_label

from .jobstore import CANCELLED, SUCCEEDED, JobRecord, JobStore
from .ratings import margin_stats, rate_pairings
from .slots import FairSlots
from .spec import JobSpec, JobSpecError, LogSpec, validate

Pairing = tuple[int, int]  # indexes of the two policies in TournamentSpec.policies, the first lower
Arrangement = tuple[int, ...]  # per side, which of the pairing's two policies plays it (0: the first)


@dataclass(frozen=True)
class TournamentSpec:
    """What to play: ``policies`` (labels, at least two, all different) over ``deals`` duplicate deals."""

    game: str
    policies: tuple[str, ...]
    deals: int
    seed: int
    players: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    chunk_size: int = 0
    bot_time_limit: float = 0.0  # seconds a searching bot's decision may take (0: no limit; JobSpec.bot_time_limit)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["policies"], out["options"] = list(self.policies), dict(self.options)
        if not self.bot_time_limit:  # left out unless set, as in JobSpec.to_dict
            del out["bot_time_limit"]
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TournamentSpec:
        return cls(game=d["game"], policies=tuple(d["policies"]), deals=d["deals"], seed=d["seed"],
                   players=d["players"], options=dict(d["options"]), chunk_size=d["chunk_size"],
                   bot_time_limit=d.get("bot_time_limit", 0.0))  # a tournament stored before limits had none


def check_tournament(spec: TournamentSpec) -> TournamentSpec:
    """The spec with canonical labels; JobSpecError when it cannot be played (two policies and two sides needed)."""
    try:
        policies = tuple(canonical_label(label) for label in spec.policies)
    except ValueError as exc:
        raise JobSpecError(str(exc)) from None
    if len(policies) < 2:
        raise JobSpecError("a tournament needs at least two policies")
    if len(set(policies)) != len(policies):
        raise JobSpecError(f"a tournament lists each policy once, got {', '.join(policies)}")
    try:
        side_of = _side_of(spec)
    except ValueError as exc:
        raise JobSpecError(str(exc)) from None
    if max(side_of) < 1:
        raise JobSpecError(f"duplicate deals seat two policies on two sides or more; {spec.game} with "
                           f"{len(side_of)} players has one")
    checked = TournamentSpec(spec.game, policies, spec.deals, spec.seed, len(side_of), dict(spec.options),
                             spec.chunk_size, spec.bot_time_limit)
    for _pairing, _arrangement, job in tournament_jobs(checked):
        validate(job)  # the count, the seed, the options and the policies, checked as for any job
    return checked


def pairings(count: int) -> list[Pairing]:
    return list(combinations(range(count), 2))


def arrangements(sides: int) -> list[Arrangement]:
    """Every way to seat a pairing's two policies on ``sides`` sides with both playing, in order: with two sides,
    the first policy on side 0, then on side 1.

    >>> arrangements(2), len(arrangements(3))
    ([(0, 1), (1, 0)], 6)
    """
    return [pattern for pattern in product((0, 1), repeat=sides) if 0 < sum(pattern) < sides]


def _side_of(spec: TournamentSpec) -> list[int]:
    """Each seat's side in the spec's game (its players and options)."""
    return engine.new_match(spec.game, seed=0, players=spec.players, options=spec.options).side_of


def side_count(spec: TournamentSpec) -> int:
    return max(_side_of(spec)) + 1


def tournament_jobs(spec: TournamentSpec) -> list[tuple[Pairing, int, JobSpec]]:
    """Each pairing's jobs, one per arrangement (numbered as :func:`arrangements` lists them)."""
    side_of = _side_of(spec)
    jobs = []
    for pairing in pairings(len(spec.policies)):
        for arrangement, pattern in enumerate(arrangements(max(side_of) + 1)):
            seats = tuple(spec.policies[pairing[pattern[side]]] for side in side_of)
            jobs.append((pairing, arrangement, JobSpec(
                game=spec.game, policies=seats, count=spec.deals, seed=spec.seed, unit="deal", players=spec.players,
                options=dict(spec.options), log=LogSpec("none"), chunk_size=spec.chunk_size, unit_scores=True,
                bot_time_limit=spec.bot_time_limit)))
    return jobs


def duplicate_margins(scores: Sequence[Sequence[Sequence[int]]]) -> list[float]:
    """Per deal, the pairing's first policy's sides' mean score less the second's, averaged over the arrangements
    (``scores[i]``: the side scores of each deal in arrangement ``arrangements(sides)[i]``).

    >>> duplicate_margins([[[10, 3]], [[2, 9]]])  # two sides: (10 - 3 + 9 - 2) / 2
    [7.0]
    """
    if len({len(deals) for deals in scores}) > 1:
        raise ValueError(f"the arrangements played {', '.join(str(len(deals)) for deals in scores)} deals")
    patterns = arrangements(len(scores[0][0])) if scores and scores[0] else []
    if scores and scores[0] and len(patterns) != len(scores):
        raise ValueError(f"{len(scores)} arrangements given for {len(patterns)}")
    return [sum(_margin(pattern, deal) for pattern, deal in zip(patterns, deals, strict=True)) / len(patterns)
            for deals in zip(*scores, strict=True)]


def _margin(pattern: Arrangement, scores: Sequence[int]) -> float:
    """The first policy's sides' mean score less the second's, in one deal played in arrangement ``pattern``."""
    first = [score for side, score in enumerate(scores) if pattern[side] == 0]
    second = [score for side, score in enumerate(scores) if pattern[side] == 1]
    return sum(first) / len(first) - sum(second) / len(second)


def standings(spec: TournamentSpec, scores: Mapping[tuple[Pairing, int], Sequence[Sequence[int]]]) -> dict[str, Any]:
    """The tournament's results, JSON-ready, from each job's per-deal side scores (keyed by pairing and
    arrangement): per pairing the mean difference (95% CI) and win rate, per policy its rating (95% CI) in the order
    of :mod:`workers.ratings`."""
    rows = []
    margins_of = {}
    count = len(arrangements(side_count(spec)))
    for pairing in pairings(len(spec.policies)):
        margins = duplicate_margins([scores[pairing, k] for k in range(count)])
        a, b = (spec.policies[i] for i in pairing)
        margins_of[a, b] = margins
        rows.append({"a": a, "b": b, "deals": len(margins), **margin_stats(margins)})
    return {"spec": spec.to_dict(), "pairings": rows, "ratings": rate_pairings(spec.policies, margins_of)}


# ---- running on Ray and storing in Redis ------------------------------------------------------------------------

OnJob = Callable[[int, int, JobRecord], None]  # (job number, jobs in all, the job's record as it runs)
WAIT_SECONDS = 1.0  # between looks at a job another driver plays


def new_tournament(store: JobStore, spec: TournamentSpec) -> dict[str, Any]:
    """Store a new tournament (running, no jobs yet); its record."""
    tournament_id = f"tournament-{store.redis.incr(store.prefix + 'tournaments:next')}"
    record: dict[str, Any] = {"tournament_id": tournament_id, "state": "running", "spec": spec.to_dict(), "jobs": []}
    save_tournament(store, record)
    return record


def run_tournament(store: JobStore, spec: TournamentSpec, redis_url: str, max_workers: int = 0,
                   on_update: OnJob | None = None, record: dict[str, Any] | None = None,
                   leave: threading.Event | None = None, slots: FairSlots | None = None) -> dict[str, Any]:
    """Play a checked tournament on the connected Ray cluster: its jobs one after the other, each over every worker
    (stored, retried and cancelled as any job), then the standings, stored in Redis with the jobs' ids.

    ``record`` is one :func:`new_tournament` stored (else a new one), or one whose driver stopped part way (a server
    that stopped, :func:`unfinished_tournaments`): its jobs are kept, a finished one's results read and an unfinished
    one resumed (only its missing chunks played). ``leave`` stops the driver as it stops a job's: the tournament is
    left running, for the next driver. A tournament has one driver at a time (a lease, as a job has): when another
    live driver holds it, its record is returned as it is. Its jobs take their turns in ``slots`` (see
    :func:`workers.runner.run_job`)."""
    record = record if record is not None else new_tournament(store, spec)
    driver = f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"
    lease = _lease(record["tournament_id"])
    if not store.claim(lease, driver):
        return record
    stop = threading.Event()  # set when ``leave`` is, or when the lease was lost: the current job's driver steps aside

    def keep_lease() -> bool:
        if (leave is not None and leave.is_set()) or not store.renew(lease, driver):
            stop.set()
        return not stop.is_set()

    try:
        return _play_tournament(store, spec, redis_url, max_workers, on_update, record, stop, keep_lease, slots)
    finally:
        store.release(lease, driver)


def cancel_tournament(store: JobStore, tournament_id: str, error: str = "cancelled") -> dict[str, Any] | None:
    """Record a running tournament as cancelled (its command was interrupted): no server resumes it then; its record,
    or None when there is none. A tournament already over is left as it is."""
    record = load_tournament(store, tournament_id)
    if record is not None and record["state"] == "running":
        record.update(state=CANCELLED, error=error, finished=time.time())
        save_tournament(store, record)
    return record


def _play_tournament(store: JobStore, spec: TournamentSpec, redis_url: str, max_workers: int,
                     on_update: OnJob | None, record: dict[str, Any], stop: threading.Event,
                     keep_lease: Callable[[], bool], slots: FairSlots | None) -> dict[str, Any]:
    from .stats import total

    jobs = tournament_jobs(spec)
    sides = side_count(spec)
    scores = {}
    for number, (pairing, arrangement, job) in enumerate(jobs):
        if number == len(record["jobs"]):
            record["jobs"].append(store.create(validate(job)).job_id)
            save_tournament(store, record)
        job_id = record["jobs"][number]
        done = _play_job(store, job_id, redis_url, max_workers, _reporter(on_update, number, len(jobs), keep_lease),
                         stop, keep_lease, slots)
        if not done.is_final:  # the driver is leaving: the tournament stays running, for the next one
            return record
        if done.state != SUCCEEDED:
            record.update(state=done.state, error=f"job {done.job_id} {done.state}: {done.error}")
            save_tournament(store, record)
            return record
        results = store.chunk_results(job_id)
        scores[pairing, arrangement] = total((results[i] for i in sorted(results)), sides).unit_scores
    record.update(state="succeeded", finished=time.time(), **standings(spec, scores))
    save_tournament(store, record)
    return record


def _play_job(store: JobStore, job_id: str, redis_url: str, max_workers: int,
              on_update: Callable[[JobRecord], None], stop: threading.Event,
              keep_lease: Callable[[], bool], slots: FairSlots | None) -> JobRecord:
    """Run (or resume) one of the tournament's jobs until it is over or the driver leaves; while another live driver
    plays it (a server that resumed its unfinished jobs), wait for that one."""
    from .runner import run_job

    while True:
        done = run_job(store, job_id, redis_url, max_workers=max_workers, on_update=on_update, leave=stop,
                       slots=slots)
        if done.is_final or stop.is_set():
            return done
        if store.has_driver(job_id) and keep_lease():
            stop.wait(WAIT_SECONDS)
        elif not keep_lease():
            return done


def _reporter(on_update: OnJob | None, number: int, jobs: int,
              keep_lease: Callable[[], bool]) -> Callable[[JobRecord], None]:
    def report(record: JobRecord) -> None:  # called as the job's driver polls: the lease is kept meanwhile
        keep_lease()
        if on_update is not None:
            on_update(number, jobs, record)

    return report


def _lease(tournament_id: str) -> str:
    """The name a tournament's driver lease goes by in the job store (beside its jobs' own, which are ``sim-...``)."""
    return tournament_id


def tournament_has_driver(store: JobStore, tournament_id: str) -> bool:
    """A live driver holds the tournament (its lease has not lapsed)."""
    return store.has_driver(_lease(tournament_id))


def unfinished_tournaments(store: JobStore) -> list[str]:
    """The ids of the tournaments still running (oldest first): on a server's start, their drivers are gone."""
    return [i.decode() if isinstance(i, bytes) else str(i) for i in store.redis.zrange(_unfinished_key(store), 0, -1)]


def _unfinished_key(store: JobStore) -> str:
    return f"{store.prefix}tournaments:unfinished"


def _record_key(store: JobStore, tournament_id: str) -> str:
    """A tournament's record: tagged with its id, so in the slot of its driver's lease (``P job:{<id>}:driver``)."""
    return f"{store.prefix}tournament:{{{tournament_id}}}"


def _untagged_record_key(store: JobStore, tournament_id: str) -> str:
    """Where a tournament stored before the tags keeps its record until it is saved again."""
    return f"{store.prefix}tournament:{tournament_id}"


def save_tournament(store: JobStore, record: Mapping[str, Any]) -> None:
    tournament_id = record["tournament_id"]
    # The record (moved off an untagged key: one key, so a crash between leaves the tagged one to be read), then the
    # list of the unfinished ones (another slot): a finished tournament still listed is only looked at again.
    store.redis.set(_record_key(store, tournament_id), json.dumps(record))
    store.redis.delete(_untagged_record_key(store, tournament_id))
    if record["state"] == "running":
        store.redis.zadd(_unfinished_key(store), {tournament_id: int(tournament_id.rsplit("-", 1)[1])})
    else:
        store.redis.zrem(_unfinished_key(store), tournament_id)


def load_tournament(store: JobStore, tournament_id: str) -> dict[str, Any] | None:
    pipe = store.redis.pipeline(transaction=False)  # two slots
    pipe.get(_record_key(store, tournament_id))
    pipe.get(_untagged_record_key(store, tournament_id))
    tagged, untagged = pipe.execute()
    data = tagged if tagged is not None else untagged
    return None if data is None else dict(json.loads(data))
