"""Simulation jobs and tournaments: submitting, reading, watching, cancelling and listing them (:class:`Jobs`), the
drivers that play them (:class:`JobDrivers`), and their projection, the API's messages (:func:`job_message`,
:func:`tournament_message`), which the gRPC service answers with and the web maps to its JSON
(:mod:`services.web.mapping`).

Jobs live in Redis (:mod:`workers.jobstore`); each running job has a driver thread in some server process that keeps
its Ray tasks going (:mod:`workers.runner`). A driver holds a lease on its job, so when a server stops, the next
server to start (or any other one) picks up its unfinished jobs and plays only the chunks that are missing.

Ray is joined on the first job: ``RAY_ADDRESS`` names a cluster, otherwise a local Ray starts on this machine's CPUs,
in a process of its own (:mod:`workers.ray_head`) that lives as long as the server. When the server stops, its
drivers stop and leave their jobs as they are (released: the next server resumes them at once), and Ray is left.
A job whose driver died without releasing it (a server killed) is adopted by a running server once its lease lapsed
(``ADOPT_INTERVAL_S``).

    jobs = start_jobs(backends)
    record = await jobs.submit(spec_from_proto(request.spec, jobs.policies), client)
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import redis

from engine.bots import label_parts
from engine.budget import Budget
from engine.rng import fresh_seed
from replay.connect import sync_client
from workers.jobstore import (
    CANCELLED,
    DRIVER_LEASE_SECONDS,
    FAILED,
    JobNotFound,
    JobRecord,
    JobStore,
    PatientStore,
    RedisAway,
)
from workers.ray_head import RayHost
from workers.slots import FairSlots
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import counter_groups
from workers.tournament import (
    OnJob,
    TournamentSpec,
    check_tournament,
    load_tournament,
    new_tournament,
    run_tournament,
    save_tournament,
    tournament_has_driver,
    unfinished_tournaments,
)

from ..generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from .allowed_policies import PolicyAllowList
from .backends import Backends
from .budgets import DEFAULT_BOT_BUDGET, check_costs
from .convert import option_value, options_from_request, policy_label_of
from .errors import FailedPrecondition, InvalidArgument, NotFound
from .limits import Clients
from .paging import page_size, start_of, token_of

log = logging.getLogger("cardtable.simulations")

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000
WATCH_INTERVAL_S = 0.25
# How often a server looks for unfinished jobs and tournaments whose driver's lease lapsed (a server killed, or cut off
# from Redis), to drive them itself (one seen so twice in a row): a job waits at most a lease and two of these.
ADOPT_INTERVAL_S = DRIVER_LEASE_SECONDS / 3

_UNITS = {sim_pb2.SIMULATION_UNIT_UNSPECIFIED: "deal", sim_pb2.SIMULATION_UNIT_DEAL: "deal",
          sim_pb2.SIMULATION_UNIT_MATCH: "match"}
_UNIT_ENUMS = {"deal": sim_pb2.SIMULATION_UNIT_DEAL, "match": sim_pb2.SIMULATION_UNIT_MATCH}
_LOG_MODES = {sim_pb2.REPLAY_LOGGING_UNSPECIFIED: "none", sim_pb2.REPLAY_LOGGING_NONE: "none",
              sim_pb2.REPLAY_LOGGING_ALL: "all", sim_pb2.REPLAY_LOGGING_SAMPLE: "sample"}
_LOG_ENUMS = {"none": sim_pb2.REPLAY_LOGGING_NONE, "all": sim_pb2.REPLAY_LOGGING_ALL,
              "sample": sim_pb2.REPLAY_LOGGING_SAMPLE}
_STATES = {"queued": sim_pb2.JOB_STATE_QUEUED, "running": sim_pb2.JOB_STATE_RUNNING,
           "succeeded": sim_pb2.JOB_STATE_SUCCEEDED, "failed": sim_pb2.JOB_STATE_FAILED,
           "cancelled": sim_pb2.JOB_STATE_CANCELLED}


class JobDrivers:
    """Driver threads of this process: one per running job. Ray is joined on the first job and left by close()."""

    def __init__(self, store: JobStore, redis_url: str, ray_host: RayHost | None = None) -> None:
        self.store = store
        self.redis_url = redis_url
        self.ray = ray_host or RayHost()
        self._closing = threading.Event()
        self._threads: set[threading.Thread] = set()
        self._threads_lock = threading.Lock()
        self._adopter: threading.Thread | None = None
        self._orphans: set[str] = set()  # seen without a live driver by the last adopt_orphans()
        self._slots: FairSlots | None = None  # the cluster's share of this process's jobs, once Ray is joined
        self._process = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"

    def driving(self) -> set[str]:
        """The ids of the jobs and tournaments this process has a driver thread for."""
        with self._threads_lock:
            return {thread.name.removeprefix("driver-") for thread in self._threads if thread.is_alive()}

    def adopt_orphans(self) -> list[str]:
        """Start a driver for every unfinished job and tournament that has none here and had no live driver at this
        call and the one before (its driver died: a server killed, or one that gave up on Redis; twice, so that a
        job just submitted, not yet claimed by its driver, is left to it); their ids."""
        if self._closing.is_set():
            return []
        mine = self.driving()
        records, jobs = self._without_driver()
        tournaments = {record["tournament_id"]: record for record in records if record["tournament_id"] not in mine}
        jobs = [i for i in jobs if i not in mine]
        seen_before, self._orphans = self._orphans, set(jobs) | set(tournaments)
        adopted = []
        for job_id in jobs:
            if job_id in seen_before:
                log.info("adopting job", extra={"job_id": job_id})
                self.start(job_id, resumed=True)
                adopted.append(job_id)
        for tournament_id, record in tournaments.items():
            if tournament_id in seen_before:
                log.info("adopting tournament", extra={"tournament_id": tournament_id})
                self.start_tournament(record, TournamentSpec.from_dict(record["spec"]))
                adopted.append(tournament_id)
        self._orphans -= set(adopted)
        return adopted

    def _without_driver(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The unfinished tournaments (their records) and jobs (their ids) that no live driver holds: not a job of a
        tournament whose driver lives either, which that driver plays in its turn (made but not yet claimed)."""
        tournaments = []
        driven = set()
        for tournament_id in unfinished_tournaments(self.store):
            record = load_tournament(self.store, tournament_id)
            if record is None:
                continue
            if tournament_has_driver(self.store, tournament_id):
                driven.update(record["jobs"])
            else:
                tournaments.append(record)
        return tournaments, [i for i in self.store.unfinished() if i not in driven and not self.store.has_driver(i)]

    def keep_adopting(self, interval: float | None = None) -> threading.Thread:
        """Run :meth:`adopt_orphans` every ``interval`` seconds (by default ``ADOPT_INTERVAL_S``) until close()."""
        thread = threading.Thread(target=self._adopt_loop, args=(interval or ADOPT_INTERVAL_S,),
                                  name="driver-adopter", daemon=True)
        self._adopter = thread
        thread.start()
        return thread

    def _adopt_loop(self, interval: float) -> None:
        failing = False
        while not self._closing.wait(interval):
            try:
                self.adopt_orphans()
                failing = False
            except Exception as exc:  # noqa: BLE001  (Redis away: try again at the next round; one line per outage)
                if not failing:
                    log.warning("cannot look for jobs to adopt", extra={"error": str(exc)})
                failing = True

    def start(self, job_id: str, resumed: bool = False) -> threading.Thread:
        thread = threading.Thread(target=self._drive, args=(job_id, resumed), name=f"driver-{job_id}", daemon=True)
        with self._threads_lock:
            self._threads.add(thread)
        thread.start()
        return thread

    def start_tournament(self, record: dict[str, Any], spec: TournamentSpec) -> threading.Thread:
        """Play a stored tournament (``new_tournament``) in a thread of its own, job after job."""
        thread = threading.Thread(target=self._drive_tournament, args=(record, spec),
                                  name=f"driver-{record['tournament_id']}", daemon=True)
        with self._threads_lock:
            self._threads.add(thread)
        thread.start()
        return thread

    def _join_ray(self) -> bool:
        """Ray joined (and imported) on the first job, so a server that runs none never pays for it; False when the
        server is stopping."""
        if self.ray.description is None:
            log.info("joined Ray", extra={"cluster": self.ray.connect()})
        return not self._closing.is_set()

    def slots(self) -> FairSlots:
        """The task slots this process's jobs share fairly, and share with the jobs of the other processes that
        drive jobs on this Redis (and cluster)."""
        with self._threads_lock:
            if self._slots is None:
                from workers.cluster import cluster_cpus

                self._slots = FairSlots(cluster_cpus, self._jobs_elsewhere)
            return self._slots

    def _jobs_elsewhere(self, mine: int) -> int:
        try:
            return self.store.jobs_elsewhere(self._process, mine)
        except redis.RedisError:  # Redis away: share as if alone until it answers (the drivers wait for it anyway)
            return 0

    def _drive_tournament(self, record: dict[str, Any], spec: TournamentSpec) -> None:
        tournament_id = record["tournament_id"]
        try:
            if tournament_has_driver(self.store, tournament_id):  # a live driver elsewhere plays it
                return
            if self._join_ray():
                record = run_tournament(self.store, spec, self.redis_url, record=record, leave=self._closing,
                                        slots=self.slots())
                log.info("tournament over" if record["state"] != "running" else "tournament left to the next server",
                         extra={"tournament_id": tournament_id, "state": record["state"]})
            return  # stopping before it started, the tournament stays running: the next server resumes it
        except Exception as exc:  # noqa: BLE001  (a driver thread has nobody to raise to: the record says it)
            if self._closing.is_set():  # Ray went with the server's stop: the next server resumes it
                log.info("tournament left to the next server", extra={"tournament_id": tournament_id})
                return
            log.exception("tournament driver failed", extra={"tournament_id": tournament_id})
            record.update(state="failed", error=f"the tournament's driver failed: {exc}")
        finally:
            with self._threads_lock:
                self._threads.discard(threading.current_thread())
        save_tournament(self.store, record)

    def resume_unfinished(self) -> list[str]:
        """Start a driver for every queued or running job and tournament whose driver is gone (its lease lapsed or
        released: a server that stopped or was killed); the ids of the jobs. One whose driver lives (another server, a
        `cardtable simulate` or `cardtable tournament` still running), or a job of such a tournament, which that
        driver plays in its turn, is left to it, unannounced."""
        tournaments, job_ids = self._without_driver()
        for job_id in job_ids:
            self.start(job_id, resumed=True)
        for record in tournaments:
            log.info("resuming tournament", extra={"tournament_id": record["tournament_id"],
                                                   "jobs": len(record["jobs"])})
            self.start_tournament(record, TournamentSpec.from_dict(record["spec"]))
        return job_ids

    def close(self, timeout: float = 60.0) -> None:
        """Stop the drivers (their jobs stay as they are, for the next server to resume), then leave Ray."""
        self._closing.set()
        with self._threads_lock:
            threads = list(self._threads)
        if self._adopter is not None:
            threads.append(self._adopter)
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.ray.close()

    def _drive(self, job_id: str, resumed: bool) -> None:
        # Every Redis call of the driver waits for Redis through a short outage; past that, the job is left as a
        # server's stop leaves it (RedisAway), never with a dead driver thread that holds it.
        store = PatientStore(self.store, leave=self._closing, on_wait=lambda exc: log.warning(
            "job driver waiting for Redis", extra={"job_id": job_id, "error": str(exc)}))
        try:
            if self._closing.is_set() or store.has_driver(job_id):  # a live driver elsewhere runs it
                return
            if resumed:
                record = store.get(job_id)
                log.info("resuming job", extra={"job_id": job_id, "state": record.state, "game": record.spec.game,
                                                "units_done": record.units_done, "count": record.spec.count})
            if not self._join_ray():  # the server stopped while Ray started: the job waits for the next one
                return
            from workers.runner import run_job

            record = run_job(store, job_id, self.redis_url, leave=self._closing, slots=self.slots())
            if record.is_final:
                log.info("job over", extra={"job_id": job_id, "state": record.state, "units": record.units_done})
            else:
                log.info("job left to the next server", extra={"job_id": job_id, "units": record.units_done})
        except RedisAway as exc:
            log.warning("job left to the next server", extra={"job_id": job_id, "error": str(exc)})
        except Exception as exc:  # noqa: BLE001  (a driver thread has nobody to raise to: the job records it)
            if self._closing.is_set():  # Ray went with the server's stop: the next server resumes the job
                log.info("job left to the next server", extra={"job_id": job_id, "stopped_by": repr(exc)})
                return
            log.exception("job driver failed", extra={"job_id": job_id})
            try:
                store.set_state(job_id, FAILED, error=f"the job's driver failed: {exc}")
            except RedisAway as away:
                log.warning("job left to the next server", extra={"job_id": job_id, "error": str(away)})
        finally:
            with self._threads_lock:
                self._threads.discard(threading.current_thread())


def job_store(backends: Backends, prefix: str | None = None) -> JobStore:
    """The jobs on the backends' Redis (under ``prefix``, by default the key namespace's), their replays in the
    backends' replay store."""
    return JobStore(sync_client(backends.redis_url), prefix, backends.replays.prefix)


def start_jobs(backends: Backends, prefix: str | None = None, verbose: bool = False) -> Jobs:
    """The jobs of :func:`job_store`, with this process's drivers: those left unfinished are resumed now, those whose
    driver dies later adopted; the drivers stop when the backends close (``verbose``: Ray's own log lines shown)."""
    store = job_store(backends, prefix)
    drivers = JobDrivers(store, backends.redis_url, RayHost(verbose=verbose))
    backends.on_close(drivers.close)
    drivers.resume_unfinished()
    drivers.keep_adopting()  # and, later, those whose driver died (a killed server's, within its lease)
    return Jobs(store, drivers, clients=backends.clients, policies=backends.policies, bot_budget=backends.bot_budget)


class Jobs:
    """The jobs and tournaments on one Redis, driven by ``drivers``: a client (:meth:`Clients.of_call` or
    :meth:`Clients.of_request`) has at most its limit of them unfinished; a job's or a tournament's policies are
    among ``policies`` and ask no more than ``bot_budget`` a decision (services.app.budgets)."""

    def __init__(self, store: JobStore, drivers: JobDrivers, clients: Clients | None = None,
                 policies: PolicyAllowList | None = None, bot_budget: Budget = DEFAULT_BOT_BUDGET) -> None:
        self.store = store
        self.drivers = drivers
        self.clients = clients or Clients()
        self.policies = policies or PolicyAllowList()
        self.bot_budget = bot_budget

    async def submit(self, spec: JobSpec, client: str) -> JobRecord:
        """Store a checked job and start its driver."""
        check_costs(spec.policies, self.bot_budget)
        async with self.clients.job_place(client, self._unfinished) as place:
            record = await asyncio.to_thread(self.store.create, spec)
            place.take(record.job_id)
        self.drivers.start(record.job_id)
        log.info("job submitted", extra={"job_id": record.job_id, "game": spec.game, "count": spec.count})
        return record

    async def get(self, job_id: str) -> JobRecord:
        return await load_job(self.store, job_id)

    async def watch(self, job_id: str, interval_s: float = WATCH_INTERVAL_S) -> AsyncIterator[JobRecord]:
        """The job now and at each change of its state or progress, until it is over."""
        last = None
        while True:
            record = await self.get(job_id)
            seen = (record.state, record.units_done, record.chunks_done, record.cancel_requested)
            if seen != last:
                yield record
                last = seen
            if record.is_final:
                return
            await asyncio.sleep(interval_s)

    async def cancel(self, job_id: str) -> JobRecord:
        record = await self.get(job_id)
        if record.is_final:
            raise FailedPrecondition(f"job {record.job_id} is already over ({record.state}): nothing to cancel")
        record = await asyncio.to_thread(self.store.request_cancel, record.job_id)
        log.info("job cancel requested", extra={"job_id": record.job_id})
        return record

    async def page(self, page_token: str, size: int) -> tuple[list[JobRecord], str]:
        return await list_jobs(self.store, page_token, size)

    async def submit_tournament(self, spec: TournamentSpec, client: str) -> dict[str, Any]:
        """Store a checked tournament and start its driver; its record."""
        check_costs(spec.policies, self.bot_budget)
        async with self.clients.job_place(client, self._unfinished) as place:
            record = await asyncio.to_thread(new_tournament, self.store, spec)
            place.take(record["tournament_id"])
        self.drivers.start_tournament(record, spec)
        log.info("tournament submitted", extra={"tournament_id": record["tournament_id"], "game": spec.game})
        return record

    async def get_tournament(self, tournament_id: str) -> dict[str, Any]:
        if not tournament_id:
            raise InvalidArgument("tournament_id is empty")
        record = await asyncio.to_thread(load_tournament, self.store, tournament_id)
        if record is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return record

    async def _unfinished(self, ids: list[str]) -> list[bool]:
        """Whether each job or tournament is still queued or running (the per-client limit counts those)."""
        return await asyncio.to_thread(lambda: [self._is_unfinished(i) for i in ids])

    def _is_unfinished(self, job_or_tournament_id: str) -> bool:
        if job_or_tournament_id.startswith("tournament-"):
            tournament = load_tournament(self.store, job_or_tournament_id)
            return tournament is not None and tournament["state"] == "running"
        try:
            return not self.store.get(job_or_tournament_id).is_final
        except JobNotFound:
            return False


async def load_job(store: JobStore, job_id: str) -> JobRecord:
    """The job ``job_id`` with its progress (read in a worker thread); NotFound if there is none."""
    if not job_id:
        raise InvalidArgument("job_id is empty")
    try:
        return await asyncio.to_thread(store.get, job_id)
    except JobNotFound as exc:
        raise NotFound(str(exc)) from None


async def list_jobs(store: JobStore, page_token: str, size: int) -> tuple[list[JobRecord], str]:
    """A page of jobs, newest first, and the next page's token ("": none); ``size`` 0 is the default page size."""
    records, next_cursor = await asyncio.to_thread(store.list, page_size(size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
                                                   start_of(page_token))
    return records, token_of(next_cursor)


# ---- jobs this process drives itself (`cardtable simulate`, `cardtable tournament`) -------------------------------

def join_ray(address: str | None, workers: int | None, verbose: bool, policies: Sequence[str]) -> str:
    """Join the Ray cluster at ``address`` (None: a local Ray with ``workers`` CPUs, by default every one) to drive
    jobs from this process, the code of policies of one's own sent along to the workers (Ray's py_modules); a line
    that describes the cluster. ConnectionError when it cannot be reached (``verbose``: Ray's own log lines shown)."""
    from workers.cluster import connect_ray, policy_code  # Ray takes a second to import: for these commands only

    return connect_ray(address, cpus=workers, verbose=verbose, py_modules=policy_code(policies))


def jobs_at(redis_url: str) -> JobStore:
    """The jobs on the Redis at ``redis_url``, over this process's one connection pool for it (its chunks' too)."""
    from workers.runner import redis_client

    return JobStore(redis_client(redis_url))


def drive(store: JobStore, job_id: str, redis_url: str, workers: int = 0,
          on_update: Callable[[JobRecord], None] | None = None, on_chunk: Callable[[Any], None] | None = None
          ) -> JobRecord:
    """Play the stored job ``job_id`` from this process until it is over, ``workers`` tasks at a time (0: every CPU of
    the cluster); ``on_update`` sees its record as it goes, ``on_chunk`` each chunk's rows."""
    from workers.runner import run_job

    return run_job(store, job_id, redis_url, max_workers=workers, on_update=on_update, on_chunk=on_chunk)


def drive_tournament(store: JobStore, spec: TournamentSpec, redis_url: str, workers: int = 0,
                     on_update: OnJob | None = None, record: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play a checked tournament from this process (its stored ``record``: resume it), job after job; its record."""
    return run_tournament(store, spec, redis_url, max_workers=workers, on_update=on_update, record=record)


def stop_here(store: JobStore, job_id: str, why: str) -> JobRecord:
    """Cancel a job this process drives and stops driving (interrupted): cancelled now, unless its driver finished it
    first."""
    job = store.request_cancel(job_id)
    if not job.is_final:
        store.set_state(job.job_id, CANCELLED, finished=time.time(), error=why)
        job = store.get(job.job_id)
    return job


# ---- conversions --------------------------------------------------------------------------------------------------

def spec_from_proto(message: sim_pb2.JobSpec, policies: PolicyAllowList) -> JobSpec:
    """A checked job spec from a request, naming only the ``policies`` allowed; InvalidArgument or JobSpecError says
    what is wrong with it."""
    if message.logging not in _LOG_MODES:
        raise InvalidArgument(f"unknown logging value {message.logging}")
    if message.unit not in _UNITS:
        raise InvalidArgument(f"unknown unit value {message.unit}")
    mode = _LOG_MODES[message.logging]
    if mode != "sample" and message.sample_size:
        raise InvalidArgument("sample_size goes with logging REPLAY_LOGGING_SAMPLE only")
    if not message.policies:
        raise InvalidArgument("a job needs at least one policy (one per seat, one per side, or one for all)")
    spec = JobSpec(
        game=message.game_id, policies=tuple(policy_label_of(p.name, p.params, policies) for p in message.policies),
        count=message.count,
        seed=message.seed if message.HasField("seed") else fresh_seed(), unit=_UNITS[message.unit],
        players=message.players if message.HasField("players") else None,
        options=options_from_request(message.options), log=LogSpec(mode, message.sample_size),
        chunk_size=message.chunk_size, bot_time_limit=message.bot_time_limit)
    return validate(spec)  # a JobSpecError refuses it (services.app.errors.STATUS_OF)


def tournament_from_proto(message: sim_pb2.TournamentSpec, policies: PolicyAllowList) -> TournamentSpec:
    """A checked tournament spec from a request, naming only the ``policies`` allowed; InvalidArgument or JobSpecError
    says what is wrong with it."""
    spec = TournamentSpec(
        game=message.game_id, policies=tuple(policy_label_of(p.name, p.params, policies) for p in message.policies),
        deals=message.deals, seed=message.seed if message.HasField("seed") else fresh_seed(),
        players=message.players if message.HasField("players") else None,
        options=options_from_request(message.options), chunk_size=message.chunk_size,
        bot_time_limit=message.bot_time_limit)
    return check_tournament(spec)


def tournament_message(record: dict[str, Any]) -> sim_pb2.Tournament:
    spec = TournamentSpec.from_dict(record["spec"])
    pairings = [sim_pb2.PairingResult(
        policy_a=row["a"], policy_b=row["b"], deals=row["deals"], mean_difference=row["mean_difference"],
        mean_difference_ci95_low=row["ci95"][0], mean_difference_ci95_high=row["ci95"][1], win_rate=row["win_rate"])
        for row in record.get("pairings", [])]
    ratings = [sim_pb2.PolicyRating(policy=row["policy"], rating=row["rating"], rating_ci95_low=row["ci95"][0],
                                    rating_ci95_high=row["ci95"][1], note=row["note"])
               if "ci95" in row else sim_pb2.PolicyRating(  # stored before the ratings were fit to the pairings
                   policy=row["policy"], rating=row["rating"], note="an openskill rating (mu - 3 sigma), no interval")
               for row in record.get("ratings", [])]
    return sim_pb2.Tournament(
        tournament_id=record["tournament_id"], state=_STATES[record["state"]], job_ids=record["jobs"],
        pairings=pairings, ratings=ratings, error=record.get("error", ""), spec=sim_pb2.TournamentSpec(
            game_id=spec.game, players=spec.players, options={k: option_value(v) for k, v in spec.options.items()},
            policies=[policy_message(label) for label in spec.policies], deals=spec.deals, seed=spec.seed,
            chunk_size=spec.chunk_size, bot_time_limit=spec.bot_time_limit))


def policy_message(label: str) -> sim_pb2.PolicySpec:
    """A job's policy as the request would give it: the name and the parameters that differ from the defaults."""
    name, params = label_parts(label)
    return sim_pb2.PolicySpec(name=name, params=params)


def spec_message(spec: JobSpec) -> sim_pb2.JobSpec:
    return sim_pb2.JobSpec(
        game_id=spec.game, players=spec.players, options={k: option_value(v) for k, v in spec.options.items()},
        policies=[policy_message(label) for label in spec.policies], count=spec.count,
        unit=_UNIT_ENUMS[spec.unit], seed=spec.seed, logging=_LOG_ENUMS[spec.log.mode], sample_size=spec.log.size,
        chunk_size=spec.chunk_size, bot_time_limit=spec.bot_time_limit)


def job_message(record: JobRecord, with_results: bool = True) -> sim_pb2.Job:
    job = sim_pb2.Job(
        job_id=record.job_id, spec=spec_message(record.spec), state=_STATES[record.state],
        progress=sim_pb2.JobProgress(units_done=record.units_done, units_total=record.spec.count,
                                     chunks_done=record.chunks_done, chunks_total=record.chunks_total),
        error=record.error, created_unix_ms=_ms(record.created), started_unix_ms=_ms(record.started),
        finished_unix_ms=_ms(record.finished), replay_collection=record.replay_collection,
        cancel_requested=record.cancel_requested)
    if with_results and record.results is not None:
        job.results.CopyFrom(results_message(record.results))
    return job


def results_message(results: dict[str, Any]) -> sim_pb2.JobResults:
    sides = [sim_pb2.SideResult(
        side=s["side"], seats=s["seats"], policies=s["policies"], mean_score=s["mean"],
        mean_score_ci95_low=s["ci95"][0], mean_score_ci95_high=s["ci95"][1], score_stdev=s["stdev"],
        wins=s["wins"], win_rate=s["win_rate"], win_rate_ci95_low=s["win_rate_ci95"][0],
        win_rate_ci95_high=s["win_rate_ci95"][1]) for s in results["sides"]]
    counters = [sim_pb2.GameCounter(name=name, label=label, value=value)
                for name, group in grouped_counters(results).items() for label, value in group.items()]
    return sim_pb2.JobResults(
        units=results["units"], deals=results["deals"], moves=results["moves"], replays=results["replays"],
        sides=sides, draws=results["draws"], counters=counters, seconds=results["seconds"],
        deals_per_second=results["deals_per_s"], json=json.dumps(results))


def grouped_counters(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A job's game counters, grouped by fact (``contract``: its values and their counts)."""
    return {name: dict(group) for name, group in counter_groups(results["counters"]).items()}


def _ms(seconds: float | None) -> int:
    return round(seconds * 1000) if seconds else 0
