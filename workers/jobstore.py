"""Jobs in Redis: the spec, the state, progress, each chunk's result and the final results.

Everything a job is lives here, so any process that reaches the same Redis (a restarted server, the CLI) can read
it, and a driver can pick up a job where another one stopped: chunk results are stored once per chunk index
(``HSETNX``), so a retried or duplicated chunk can never be counted twice.

Keys (``P`` is the prefix, ``ct:sim:`` by default; ``{...}`` a Redis Cluster hash tag: a job's keys share one slot)::

    P seq                   counter of submitted jobs (orders the list)
    P jobs                  sorted set: job id, scored by its sequence number
    P job:{<id>}            hash: spec (JSON), state, times, error, results (JSON), cancel flag
    P job:{<id>}:chunks     hash: chunk index -> chunk result (JSON)
    P job:{<id>}:progress   hash: chunk index -> deals done in that chunk so far (overwritten by a retry)
    P job:{<id>}:workers    hash: chunk index -> the worker playing (or that played) it, "node:pid"
    P job:{<id>}:stopped    set with a time to live: the marks of the drivers that ended or left the job, whose tasks
                            must stop (see JobStore.stop_tasks)
    P job:{<id>}:driver     string with a time to live: the driver running the job (renewed while it runs); a
                            tournament's driver holds ``P job:{tournament-<n>}:driver``, in its record's slot
    P drivers               hash: process -> "<jobs it drives> <until, ms>" (the processes sharing the cluster)

A job's updates that go together (a chunk's result with its deal count, a progress report with the cancel flag, the
job's state and its driver's stop mark, a retry's count with the progress it forgets, the reads of
:meth:`JobStore.get`) are one MULTI/EXEC in the job's slot, on a Redis Cluster as on one server. Jobs stored before
the keys had a tag (``P job:<id>``, ``P job:<id>:chunks``...) keep those keys: they are read and written as they are
(a finished job's results stay readable); the store tells the two apart by which record exists. Their leases, live
state of 15 s, take the tagged key (one version of drivers runs at a time).

>>> store = JobStore(redis.Redis())  # doctest: +SKIP
>>> record = store.create(validate(JobSpec("tablic", ("greedy", "random"), 1000, seed=1)))  # doctest: +SKIP
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from replay.clients import Client, confirm_replicated, is_cluster, is_failover
from replay.namespace import namespaced
from replay.store import DEFAULT_PREFIX as REPLAY_PREFIX

from .chunk import ChunkResult
from .plan import job_chunks
from .spec import JobSpec

DEFAULT_PREFIX = "ct:sim:"
QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED = "queued", "running", "succeeded", "failed", "cancelled"
STATES = (QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED)
FINAL_STATES = frozenset({SUCCEEDED, FAILED, CANCELLED})
# A driver that has not renewed its claim for this long is presumed gone; another may take the job over.
DRIVER_LEASE_SECONDS = 15
# A process's count of the jobs it drives holds this long unless it says it again (see JobStore.jobs_elsewhere).
PROCESS_JOBS_SECONDS = 5
# A driver's stop mark (JobStore.stop_tasks) outlives its tasks: each plays a slice of at most a few seconds
# (workers.runner.SLICE_SECONDS) and waits for Redis for at most REDIS_PATIENCE_S; the rest is for a task still queued.
STOP_MARK_SECONDS = 120

# A driver renews and releases its lease only while no other driver holds it (compare-and-set): one that stalled past
# its lease, while another took the job over, must not extend or delete the new driver's. KEYS: the lease. ARGV: the
# driver, the lease's seconds.
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""
# _RENEW, and whether the job was asked to stop. KEYS: the lease, the job's record. ARGV: _RENEW's. Returns {renewed,
# cancel asked}, each 0 or 1.
_HEARTBEAT = """
local holder = redis.call('GET', KEYS[1])
local renewed = 0
if not holder or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  renewed = 1
end
return {renewed, redis.call('HEXISTS', KEYS[2], 'cancel')}
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


# A job not over is asked to stop, and one still queued is over at once, in one step (a driver may be starting it).
# KEYS: the job's record. ARGV: the time (Unix seconds). Returns 1 when the job was not over.
_CANCEL = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state or state == 'succeeded' or state == 'failed' or state == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'cancel', 1)
if state == 'queued' then redis.call('HSET', KEYS[1], 'state', 'cancelled', 'finished', ARGV[1]) end
return 1
"""


class JobNotFound(KeyError):
    """No job has this id."""

    def __str__(self) -> str:
        return f"no simulation job {self.args[0]!r}"


@dataclass
class JobRecord:
    """A job as stored: its checked spec, state, times (Unix seconds), progress and, once known, results."""

    job_id: str
    spec: JobSpec
    state: str
    sequence: int
    created: float
    started: float | None = None
    finished: float | None = None
    error: str = ""
    cancel_requested: bool = False
    units_done: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    retries: int = 0
    results: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def replay_collection(self) -> str:
        """The replay store collection holding this job's logged deals."""
        return replay_collection(self.job_id)


def replay_collection(job_id: str) -> str:
    """Job ids ("sim-1a2b3c4d5e6f") name their replay collections: deal n is replay "<job id>/<n>"."""
    return job_id


class JobStore:
    """Jobs, their progress and results in one Redis or Redis Cluster (a client of :mod:`replay.clients`, bytes or
    str replies alike; a job's keys share a slot, see the module). The jobs' replays go to the replay store under
    ``replay_prefix``. Both prefixes default to the key namespace's."""

    def __init__(self, client: Client, prefix: str | None = None, replay_prefix: str | None = None) -> None:
        self.redis = client
        self.prefix = namespaced(DEFAULT_PREFIX) if prefix is None else prefix
        self.replay_prefix = namespaced(REPLAY_PREFIX) if replay_prefix is None else replay_prefix
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._cancel = client.register_script(_CANCEL)
        self._heartbeat = client.register_script(_HEARTBEAT)
        self._tags: dict[str, str] = {}  # job id -> the part of its keys after "job:" (see _tag)

    # ---- keys ---------------------------------------------------------------------------------------------------

    def _tag(self, job_id: str) -> str:
        """The part of the job's keys after ``job:``: ``{<id>}`` (a hash tag), or the id alone for a job stored before
        the tags (see the module): looked up once per job and store, when its record is first touched."""
        tag = self._tags.get(job_id)
        if tag is None:
            tagged, untagged = f"{{{job_id}}}", job_id
            pipe = self.redis.pipeline(transaction=False)  # two slots
            pipe.exists(f"{self.prefix}job:{tagged}")
            pipe.exists(f"{self.prefix}job:{untagged}")
            has_tagged, has_untagged = pipe.execute()
            tag = untagged if has_untagged and not has_tagged else tagged
            if has_tagged or has_untagged:  # a job not stored (yet) is looked up again next time
                self._tags[job_id] = tag
        return tag

    def _job(self, job_id: str) -> str:
        return f"{self.prefix}job:{self._tag(job_id)}"

    def _chunks(self, job_id: str) -> str:
        return f"{self.prefix}job:{self._tag(job_id)}:chunks"

    def _progress(self, job_id: str) -> str:
        return f"{self.prefix}job:{self._tag(job_id)}:progress"

    def _workers(self, job_id: str) -> str:
        return f"{self.prefix}job:{self._tag(job_id)}:workers"

    def _driver(self, job_id: str) -> str:
        return f"{self.prefix}job:{{{job_id}}}:driver"

    def _stopped(self, job_id: str) -> str:
        return f"{self.prefix}job:{self._tag(job_id)}:stopped"

    def _transaction(self, job_id: str) -> Any:
        """A MULTI/EXEC pipeline for commands on the job's keys (one slot on a cluster); on a cluster, a job stored
        before the tags has its keys in several slots: its pipeline is no transaction then (each write may be
        repeated alone)."""
        return self.redis.pipeline(transaction=self._tag(job_id).startswith("{") or not is_cluster(self.redis))

    # ---- jobs ---------------------------------------------------------------------------------------------------

    def create(self, spec: JobSpec) -> JobRecord:
        """Store a new job (state ``queued``) from a validated spec."""
        job_id = f"sim-{secrets.token_hex(6)}"
        sequence = int(self.redis.incr(f"{self.prefix}seq"))
        created = time.time()
        self._tags[job_id] = f"{{{job_id}}}"
        # The record, then the list (another slot): the list never names a job that has no record.
        self.redis.hset(self._job(job_id), mapping={
            "spec": json.dumps(spec.to_dict()), "state": QUEUED, "sequence": sequence, "created": created,
            "chunks_total": len(job_chunks(spec)),
        })
        self.redis.zadd(f"{self.prefix}jobs", {job_id: sequence})
        return self.get(job_id)

    def get(self, job_id: str) -> JobRecord:
        """The job with its current progress; JobNotFound if there is none."""
        pipe = self._transaction(job_id)  # the record, its progress and chunks as of one moment
        pipe.hgetall(self._job(job_id))
        pipe.hvals(self._progress(job_id))
        pipe.hlen(self._chunks(job_id))
        fields, progress, chunks_done = pipe.execute()
        if not fields:
            raise JobNotFound(job_id)
        return _record(job_id, _text(fields), sum(int(v) for v in progress), int(chunks_done))

    def list(self, page_size: int, after: int | None = None) -> tuple[list[JobRecord], int | None]:
        """Newest first: up to ``page_size`` jobs older than sequence ``after``; and the cursor of the next page."""
        top = f"({after}" if after is not None else "+inf"
        ids = self.redis.zrevrangebyscore(f"{self.prefix}jobs", top, "-inf", start=0, num=page_size + 1)
        ids = [_str(i) for i in ids]
        records = [self.get(job_id) for job_id in ids[:page_size]]
        next_cursor = records[-1].sequence if len(ids) > page_size else None
        return records, next_cursor

    def set_state(self, job_id: str, state: str, **fields: Any) -> None:
        if state not in STATES:
            raise ValueError(f"job state must be one of {STATES}, got {state!r}")
        mapping = {"state": state, **{k: json.dumps(v) if isinstance(v, dict) else v for k, v in fields.items()}}
        self.redis.hset(self._job(job_id), mapping=mapping)

    def request_cancel(self, job_id: str) -> JobRecord:
        """Ask the job's driver and tasks to stop; a job that is already over is left as it is."""
        self.get(job_id)  # JobNotFound
        self._cancel(keys=[self._job(job_id)], args=[time.time()])
        return self.get(job_id)

    def cancel_requested(self, job_id: str) -> bool:
        return self.redis.hget(self._job(job_id), "cancel") is not None

    # ---- chunks -------------------------------------------------------------------------------------------------

    def save_chunk(self, job_id: str, result: ChunkResult) -> bool:
        """Store a finished chunk's result once; False (and nothing changes) if that chunk is already stored."""
        return self.save_chunks(job_id, [result])[0]

    def save_chunks(self, job_id: str, results: list[ChunkResult]) -> list[bool]:
        """Store finished chunks' results (one round trip), each once: False for one already stored (unchanged)."""
        pipe = self._transaction(job_id)
        for result in results:
            pipe.hsetnx(self._chunks(job_id), str(result.index), json.dumps(result.to_dict()))
        pipe.hset(self._progress(job_id), mapping={str(result.index): result.units for result in results})
        confirm_replicated(pipe, [self._chunks(job_id), self._progress(job_id)])  # a failover loses no deal count
        return [bool(stored) for stored in pipe.execute()[:len(results)]]

    def chunk_results(self, job_id: str) -> dict[int, ChunkResult]:
        raw = self.redis.hgetall(self._chunks(job_id))
        return {int(k): ChunkResult.from_dict(json.loads(v)) for k, v in raw.items()}

    def report_progress(self, job_id: str, chunk_index: int, units_done: int, mark: str = "") -> bool:
        """Note how far a running chunk is (one round trip); returns True when its task should stop: the job was
        asked to stop or is over, or the driver whose tasks carry ``mark`` ended or left it (:meth:`stop_tasks`)."""
        pipe = self._transaction(job_id)
        pipe.hset(self._progress(job_id), str(chunk_index), units_done)
        return self._told_to_stop(pipe, job_id, mark)

    def note_workers(self, job_id: str, chunk_indexes: list[int], worker: str, mark: str = "") -> bool:
        """Note which worker plays the chunks (one round trip); returns True when its task should stop (as
        :meth:`report_progress` says)."""
        pipe = self._transaction(job_id)
        pipe.hset(self._workers(job_id), mapping=dict.fromkeys(map(str, chunk_indexes), worker))
        return self._told_to_stop(pipe, job_id, mark)

    def _told_to_stop(self, pipe: Any, job_id: str, mark: str) -> bool:
        """Run ``pipe`` (one write first) with the reads that say whether a task of the job should stop."""
        pipe.hmget(self._job(job_id), ["cancel", "state"])
        if mark:
            pipe.sismember(self._stopped(job_id), mark)
        replies = pipe.execute()
        cancel, state = replies[1]
        return cancel is not None or (state is not None and _str(state) in FINAL_STATES) or bool(mark and replies[2])

    def stop_tasks(self, job_id: str, mark: str) -> None:
        """Tell the job's tasks that carry ``mark`` (those of one driver) to stop: each does at its next look (see
        :mod:`workers.chunk`), or at once if it has not begun. The mark lasts ``STOP_MARK_SECONDS``."""
        pipe = self._transaction(job_id)
        pipe.sadd(self._stopped(job_id), mark)
        pipe.expire(self._stopped(job_id), STOP_MARK_SECONDS)
        pipe.execute()

    def workers(self, job_id: str) -> dict[int, str]:
        """Chunk index -> the worker that last started it ("node:pid")."""
        return {int(k): _str(v) for k, v in self.redis.hgetall(self._workers(job_id)).items()}

    def claim(self, job_id: str, driver: str) -> bool:
        """Become the job's only driver (True), unless a live driver holds it."""
        return bool(self.redis.set(self._driver(job_id), driver, nx=True, ex=DRIVER_LEASE_SECONDS))

    def has_driver(self, job_id: str) -> bool:
        """A live driver holds the job (its claim has not expired)."""
        return bool(self.redis.exists(self._driver(job_id)))

    def driver(self, job_id: str) -> str | None:
        """The live driver holding the job, if any."""
        value = self.redis.get(self._driver(job_id))
        return None if value is None else _str(value)

    def renew(self, job_id: str, driver: str) -> bool:
        """Extend ``driver``'s lease (or take it again if it lapsed and nobody took the job over); False (and nothing
        changes) when another driver holds the job."""
        return bool(self._renew(keys=[self._driver(job_id)], args=[driver, DRIVER_LEASE_SECONDS]))

    def release(self, job_id: str, driver: str) -> bool:
        """End ``driver``'s lease; False (and nothing changes) when it no longer holds the job."""
        return bool(self._release(keys=[self._driver(job_id)], args=[driver]))

    def heartbeat(self, job_id: str, driver: str) -> tuple[bool, bool]:
        """:meth:`renew` and :meth:`cancel_requested` in one script (one round trip): (``driver`` still holds the
        job, the job was asked to stop)."""
        if not self._tag(job_id).startswith("{") and is_cluster(self.redis):  # stored before the tags: two slots
            return self.renew(job_id, driver), self.cancel_requested(job_id)
        ours, cancel = self._heartbeat(keys=[self._driver(job_id), self._job(job_id)],
                                       args=[driver, DRIVER_LEASE_SECONDS])
        return bool(ours), bool(cancel)

    def jobs_elsewhere(self, process: str, mine: int) -> int:
        """Note that ``process`` drives ``mine`` jobs (for a few seconds), and return how many the other processes
        on this Redis drive (those that said so lately): their fair shares of the cluster follow from it."""
        now = round(time.time() * 1000)
        key = f"{self.prefix}drivers"
        pipe = self.redis.pipeline(transaction=True)  # one key
        if mine:
            pipe.hset(key, process, f"{mine} {now + round(PROCESS_JOBS_SECONDS * 1000)}")
        else:
            pipe.hdel(key, process)
        pipe.pexpire(key, round(PROCESS_JOBS_SECONDS * 1000))
        pipe.hgetall(key)
        noted = pipe.execute()[-1]
        elsewhere, gone = 0, []
        for name, value in noted.items():
            jobs, until = (int(part) for part in _str(value).split())
            if until < now:
                gone.append(name)
            elif _str(name) != process:
                elsewhere += jobs
        if gone:
            self.redis.hdel(key, *gone)
        return elsewhere

    def unfinished(self) -> list[str]:
        """The ids of the jobs that are queued or running (oldest first)."""
        ids = [_str(i) for i in self.redis.zrange(f"{self.prefix}jobs", 0, -1)]
        pipe = self.redis.pipeline(transaction=False)  # the jobs' slots
        for job_id in ids:
            pipe.hget(self._job(job_id), "state")
        return [job_id for job_id, state in zip(ids, pipe.execute(), strict=True)
                if state is not None and _str(state) not in FINAL_STATES]

    def note_retry(self, job_id: str, chunk_index: int) -> None:
        """Count a chunk played again, and forget its progress so far."""
        pipe = self._transaction(job_id)
        pipe.hincrby(self._job(job_id), "retries", 1)
        pipe.hdel(self._progress(job_id), str(chunk_index))
        pipe.execute()

    def reset_progress(self, job_id: str, keep: Container[int]) -> None:
        """Forget the progress of the chunks not in ``keep``, which will be played again (a resumed job)."""
        indexes = [index for index in self.redis.hkeys(self._progress(job_id)) if int(index) not in keep]
        if indexes:
            self.redis.hdel(self._progress(job_id), *indexes)

    def memory(self, job_id: str) -> int:
        """The bytes the server holds for the job's record (spec, state, chunk results, progress, workers; not its
        replays): ``MEMORY USAGE`` of each of its keys, counted exactly."""
        pipe = self._transaction(job_id)
        for key in (self._job(job_id), self._chunks(job_id), self._progress(job_id), self._workers(job_id)):
            pipe.memory_usage(key, samples=0)
        return sum(size or 0 for size in pipe.execute())

    def delete(self, job_id: str) -> None:
        # Off the list first (another slot): the list never names a job that has no record.
        self.redis.zrem(f"{self.prefix}jobs", job_id)
        self.redis.delete(self._job(job_id), self._chunks(job_id), self._progress(job_id), self._workers(job_id),
                          self._stopped(job_id))
        self.redis.delete(self._driver(job_id))  # the lease's key has the tag even for a job stored before the tags
        self._tags.pop(job_id, None)


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _text(fields: dict) -> dict[str, str]:
    return {_str(k): _str(v) for k, v in fields.items()}


def _float(text: str | None) -> float | None:
    return float(text) if text else None


def _record(job_id: str, f: dict[str, str], units_done: int, chunks_done: int) -> JobRecord:
    return JobRecord(
        job_id=job_id, spec=JobSpec.from_dict(json.loads(f["spec"])), state=f["state"], sequence=int(f["sequence"]),
        created=float(f["created"]), started=_float(f.get("started")), finished=_float(f.get("finished")),
        error=f.get("error", ""), cancel_requested="cancel" in f, units_done=units_done, chunks_done=chunks_done,
        chunks_total=int(f["chunks_total"]), retries=int(f.get("retries", 0)),
        results=json.loads(f["results"]) if f.get("results") else None,
    )


# ---- riding out a Redis outage ---------------------------------------------------------------------------------------

# How long a driver (or a chunk task) waits for Redis to come back before it gives up: long enough for a restart or a
# failover, short enough that a job whose Redis is gone is handed on (to the next server) within a minute.
REDIS_PATIENCE_S = 45.0
_FIRST_PAUSE_S, _LONGEST_PAUSE_S = 0.1, 2.0


class RedisAway(Exception):
    """Redis stayed out of reach for as long as a :class:`PatientStore` waits (or its process is stopping)."""


class PatientStore:
    """A :class:`JobStore` whose calls wait for Redis through an outage: a call that cannot reach it is tried again
    with a growing pause (0.1 s doubling up to 2 s) for up to ``patience`` seconds from its first failure, then
    :class:`RedisAway` is raised; so is it at once when ``leave`` is set (the process is stopping). Every store call
    a driver makes is safe to repeat (states, results and leases are set, not added to; a retry count may count one
    retry twice). Attributes other than methods (``prefix``, ``redis``) are the store's.

    >>> store = PatientStore(JobStore(redis.Redis()), patience=30)  # doctest: +SKIP
    """

    def __init__(self, store: JobStore, patience: float | None = None, leave: Any = None,
                 on_wait: Any = None) -> None:
        self.store = store
        self.patience = REDIS_PATIENCE_S if patience is None else patience
        self.leave = leave  # a threading.Event, or None
        self.on_wait = on_wait  # called with the error when a call first has to wait (a log line), or None

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.store, name)
        if not callable(attribute):
            return attribute

        def patiently(*args: Any, **kwargs: Any) -> Any:
            return self.call(attribute, *args, **kwargs)

        return patiently

    def call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)``, tried again while Redis is out of reach (see the class)."""
        deadline, pause = None, _FIRST_PAUSE_S
        while True:
            try:
                return function(*args, **kwargs)
            except Exception as exc:
                if not is_failover(exc):  # a connection error, or a Redis Cluster's while it fails over
                    raise
                now = time.monotonic()
                if deadline is None:
                    deadline = now + self.patience
                    if self.on_wait is not None:
                        self.on_wait(exc)
                if now + pause > deadline or self._leaving(pause):
                    raise RedisAway(f"Redis out of reach for {self.patience - max(0.0, deadline - now):.0f} s: "
                                    f"{exc}") from exc
                pause = min(2 * pause, _LONGEST_PAUSE_S)

    def _leaving(self, pause: float) -> bool:
        """Wait ``pause`` seconds; True when the process is stopping (at once, then)."""
        if self.leave is None:
            time.sleep(pause)
            return False
        return bool(self.leave.wait(pause))

    def ping(self) -> bool:
        """Redis answers (waiting for it as every call does)."""
        return bool(self.call(self.store.redis.ping))
