"""Running a stored job on Ray: tasks of one or more chunks, results stored once per chunk, retries, progress, cancel.

The driver keeps a window of chunk tasks in flight. A task that fails or whose worker dies is submitted again (up to
``MAX_ATTEMPTS`` times); since a chunk replays the same deal numbers from the same seeds and its result is stored
once by chunk index, a retry neither loses nor double-counts a deal, and its replays overwrite themselves. A driver
that stops half-way leaves the finished chunks in Redis: running the job again plays only the missing ones.

Jobs driven at once by one process share the cluster fairly (:mod:`workers.slots`), and a task plays at most
``SLICE_SECONDS`` of its chunks: what is left of a chunk goes back to the driver's queue as another task, so a
second job's task never waits long for a CPU, whatever a deal of the first job costs. A chunk's slices add up to the
chunk's result (every deal's seeds come from its number), and only the whole chunk's result is stored.

What the driver spends goes by the task (Ray's submission and the result's transfer, storing it) and by the second
(its look at the cancel flag and renewal of its lease, in one round trip, five times a second), not by the deal. So
once the first tasks have told what a deal costs, a task plays several of the plan's chunks one after the other, as
many as make about ``TASK_SECONDS`` of play (fewer towards the end of the job, so that every worker stays busy to
the end), and their results are stored in one round trip. The plan, the chunk results and so the job's results are
the same whatever the grouping.

A chunk whose deal cannot be played (:class:`workers.chunk.DealFailed`: a policy raised or chose an illegal action)
would fail the same way again, so it is not retried: the other chunks play on and are kept, and the job ends as
failed with the results of the chunks that finished and an error naming the policy, the deal, its seeds and the move.
A policy that cannot be loaded on the workers (:class:`workers.chunk.PolicyUnavailable`), or a runtime environment
(the policies' code) that Ray cannot set up there, fails the whole job at once, in one line that says why.

A driver never cancels a task through Ray: when it ends the job (cancelled, failed, interrupted) or leaves it (it
stepped aside, its process stops), it sets its stop mark in Redis (:meth:`workers.jobstore.JobStore.stop_tasks`) and
its tasks stop themselves at their next look, which comes with their progress reports, every ``LOOK_SECONDS`` of play
at most (a searching bot's decision under way is abandoned: :mod:`workers.chunk`); a task not begun yet stops as it
begins. The driver waits ``STOP_GRACE_SECONDS`` at most for them to end, to read their errors. (Ray 2.60's
``ray.cancel`` of a task whose reply is on its way makes the driver fail a check, "Tried to complete task that was
not pending", and exit: the whole process.) A driver that gave up waiting for Redis (``RedisAway``) cannot set its
mark: a task of it that cannot reach Redis either waits for it at its next look as long as the driver did (the
driver's patience, ``REDIS_PATIENCE_S`` by default, goes with each task), then fails; one that can (Redis came back,
or only the driver lost it) plays on to the end of its slice (``SLICE_SECONDS``). Either way what it played is
dropped: the next driver plays those chunks again.

>>> connect_ray()                                  # doctest: +SKIP
>>> record = run_job(store, job_id, redis_url)     # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from typing import Any

import ray
from ray.exceptions import RayError, RuntimeEnvSetupError

from replay.clients import Client, is_failover
from replay.connect import sync_client

from .chunk import ChunkResult, DealFailed, PolicyUnavailable, play_chunk
from .cluster import cluster_cpus, code_runtime_env, first_sentence, policy_code, ray_reason
from .jobstore import (
    CANCELLED,
    FAILED,
    RUNNING,
    SUCCEEDED,
    JobRecord,
    JobStore,
    PatientStore,
    RedisAway,
    replay_collection,
)
from .plan import Chunk, job_chunks
from .replays import replay_sink
from .slots import FairSlots, Share
from .spec import JobSpec
from .stats import side_seats, summarize, total

MAX_ATTEMPTS = 3
# A task that failed because Redis was out of reach is played again once Redis answers the driver, not counted as an
# attempt: up to this many times per chunk (a worker that never reaches a Redis the driver reaches fails the job).
MAX_REDIS_ATTEMPTS = 10
POLL_SECONDS = 0.2
# How long a job's end waits for its tasks to stop, to read their errors: each looks whether to stop at least every
# LOOK_SECONDS of play (workers.chunk); one that plays on past this (a long deal of a policy that does not search)
# ends on its own, its result dropped.
STOP_GRACE_SECONDS = 2.0
# A task plays about this much CPU time of chunks once the job's cost per deal is known (one chunk each until then).
TASK_SECONDS = 0.5
# A task plays its chunk for about this long at most (a deal begun is finished), then hands the rest back to its
# driver: a CPU frees this often for the job that waits for one.
SLICE_SECONDS = 5.0

# The task slots of every job this process drives, shared fairly between the jobs.
SLOTS = FairSlots(cluster_cpus)

OnUpdate = Callable[[JobRecord], None]
OnChunk = Callable[[ChunkResult], None]

log = logging.getLogger("cardtable.jobs")

_clients: dict[str, Client] = {}


def redis_client(url: str) -> Client:
    """One connection pool per URL and process (a worker process plays many chunks)."""
    if url not in _clients:
        _clients[url] = sync_client(url)
    return _clients[url]


@ray.remote(num_cpus=1, max_retries=0)
def play_chunk_task(spec_dict: dict[str, Any], chunks: list[Chunk], job_id: str, redis_url: str, prefix: str,
                    replay_prefix: str, max_seconds: float | None = None, mark: str = "",
                    patience: float | None = None) -> list[ChunkResult]:
    """A Ray task: play ``chunks`` one after the other (one may be the rest of a chunk: it starts past its plan's
    first deal) for at most about ``max_seconds`` in all, streaming progress (and replays) to Redis; stops early if
    the job is cancelled or over, or the driver whose tasks carry ``mark`` ended or left it. The results of the
    chunks it began, in order: the last may hold fewer deals than its chunk (out of time, or stopped); a chunk not
    begun has none. A deal that cannot be played ends the task: with the results before it, unless it is in the first
    chunk: then it raises, and the driver learns which chunk fails. It waits for Redis through an outage for
    ``patience`` seconds at most (its driver's: by default ``REDIS_PATIENCE_S``), then fails."""
    spec = JobSpec.from_dict(spec_dict)
    plan = job_chunks(spec)
    client = redis_client(redis_url)
    store = PatientStore(JobStore(client, prefix, replay_prefix), patience)  # reports ride out a Redis restart
    worker = f"{ray.get_runtime_context().get_node_id()[:12]}:{os.getpid()}"
    if store.note_workers(job_id, [chunk.index for chunk in chunks], worker, mark):  # stopped before it began
        return [ChunkResult(chunks[0].index, chunks[0].first, stopped=True)]
    sink = replay_sink(client, replay_collection(job_id), replay_prefix) if spec.log.mode != "none" else None
    until = None if max_seconds is None else time.perf_counter() + max_seconds
    results: list[ChunkResult] = []
    for chunk in chunks:
        left = None if until is None else until - time.perf_counter()
        if results and left is not None and left <= 0:
            break
        before = chunk.first - plan[chunk.index].first  # deals of the chunk played by earlier slices
        try:
            result = play_chunk(spec, chunk, sink, _reporter(store, job_id, chunk.index, before, mark), left)
        except DealFailed:
            if not results:
                raise
            break  # the chunk goes back to the queue, first: played first in a task, it raises there
        result.worker = worker
        results.append(result)
        if result.stopped or result.units < chunk.count:
            break
    return results


def _reporter(store: PatientStore, job_id: str, index: int, before: int, mark: str) -> Callable[[int], bool]:
    return lambda done: bool(store.report_progress(job_id, index, before + done, mark))


def run_job(store: JobStore | PatientStore, job_id: str, redis_url: str, max_workers: int = 0,
            on_update: OnUpdate | None = None, leave: threading.Event | None = None,
            slots: FairSlots | None = None, on_chunk: OnChunk | None = None) -> JobRecord:
    """Run (or resume) a stored job on the connected Ray cluster until it succeeds, fails or is cancelled, or until
    ``leave`` is set (its process stops): then the job is left as it is, for another driver to resume at once. Its
    tasks take their turns in ``slots`` (by default the process's :data:`SLOTS`) with the other jobs' that run.

    The driver rides out a Redis outage (its calls wait, see :class:`workers.jobstore.PatientStore`); when Redis stays
    away longer, :class:`workers.jobstore.RedisAway` is raised: the job is left as it is (its lease lapses), for the
    next driver to resume, and its tasks stop on their own (see the module).

    ``on_chunk`` gets each chunk's result once, as it is stored (with its units' rows when the spec keeps them:
    :mod:`workers.results`); the rows go no further."""
    return _Driver(store, job_id, redis_url, max_workers, on_update, leave, slots or SLOTS, on_chunk).run()


class _Pending:
    """The chunks left to submit: retries first, then the plan's chunks that have no result yet, in order, drawn
    from the plan one at a time (a job of many chunks is never listed up front)."""

    def __init__(self, plan: Sequence[Chunk], done: Collection[int]) -> None:
        self.retries: deque[Chunk] = deque()
        self.fresh = (chunk for chunk in plan if chunk.index not in done)
        self.head: Chunk | None = None
        self.left = len(plan) - len(done)  # chunks (or their rests) still to hand out

    def __bool__(self) -> bool:
        if self.retries or self.head is not None:
            return True
        self.head = next(self.fresh, None)
        return self.head is not None

    def popleft(self) -> Chunk:
        if not self:
            raise IndexError("no chunk left to play")
        self.left -= 1
        if self.retries:
            return self.retries.popleft()
        chunk, self.head = self.head, None
        assert chunk is not None
        return chunk

    def take(self, count: int) -> list[Chunk]:
        """Up to ``count`` chunks (at least one), in order."""
        chunks = [self.popleft()]
        while len(chunks) < count and self:
            chunks.append(self.popleft())
        return chunks

    def appendleft(self, chunk: Chunk) -> None:
        """Play ``chunk`` again, next."""
        self.retries.appendleft(chunk)
        self.left += 1


class _Driver:
    def __init__(self, store: JobStore | PatientStore, job_id: str, redis_url: str, max_workers: int,
                 on_update: OnUpdate | None, leave: threading.Event | None = None,
                 slots: FairSlots | None = None, on_chunk: OnChunk | None = None) -> None:
        self.leave = leave or threading.Event()
        self.store = store if isinstance(store, PatientStore) else PatientStore(store, leave=self.leave)
        self.job_id = job_id
        self.redis_url = redis_url
        self.record = self.store.get(job_id)
        self.spec = self.record.spec
        self.spec_dict = self.spec.to_dict()
        self.slots = slots or SLOTS
        # An explicit worker count caps the tasks in flight; otherwise the job may use every slot nobody else wants.
        self.window = max_workers if max_workers > 0 else 2 * cluster_cpus()
        self.on_update = on_update
        self.on_chunk = on_chunk
        self.attempts: dict[int, int] = {}
        self.redis_attempts: dict[int, int] = {}  # chunk index -> tasks of it that failed to reach Redis
        self.failed: dict[int, str] = {}  # chunk index -> why a deal of it cannot be played (DealFailed)
        self.in_flight: dict[ray.ObjectRef, list[Chunk]] = {}
        self.sliced: dict[int, ChunkResult] = {}  # chunk index -> the sum of its slices played so far
        self.played_units, self.played_cpu = 0, 0.0  # what the tasks so far played, and their CPU time
        self.next_beat = 0.0  # when the driver next renews its lease and looks at the cancel flag
        self.share: Share  # the job's slots while it runs
        self.driver = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"
        self.mark = secrets.token_hex(8)  # this driver's tasks carry it: its stop mark stops them (_stop_in_flight)
        self.task = play_chunk_task

    def run(self) -> JobRecord:
        """Run the job unless it is over or another live driver runs it; returns the job as stored."""
        # A claim whose answer was lost (the connection dropped) and that was tried again finds its own lease.
        if self.record.is_final or not (self.store.claim(self.job_id, self.driver)
                                        or self.store.driver(self.job_id) == self.driver):
            return self.record
        self.share = self.slots.join()
        try:
            record = self._run()
        except RedisAway:  # no word from Redis: leave the job (and our lease, to lapse) as it is; our tasks stop alone
            self._stop_in_flight(mark=False)
            raise
        except BaseException:
            with contextlib.suppress(RedisAway):
                self.store.release(self.job_id, self.driver)
            raise
        finally:
            self.share.leave()
        self.store.release(self.job_id, self.driver)
        return record

    def _run(self) -> JobRecord:
        if self.record.cancel_requested:  # cancelled while it had no driver: it ends with the chunks it finished
            return self._finish(CANCELLED, self.store.chunk_results(self.job_id), time.perf_counter())
        started = time.perf_counter()
        self.store.set_state(self.job_id, RUNNING, started=time.time())
        # Policies of one's own: their code goes with each task, for a Ray joined before this job was known (the
        # server's; `cardtable simulate` also gave it to its Ray job as a whole).
        code = policy_code(self.spec.policies)
        if code:
            self.task = play_chunk_task.options(runtime_env=code_runtime_env(code))
        done = self.store.chunk_results(self.job_id)
        pending = _Pending(job_chunks(self.spec), done)
        self.store.reset_progress(self.job_id, keep=done)
        try:
            while pending or self.in_flight:
                self._submit(pending)
                ready = self._wait()
                for ref in ready:
                    failure = self._collect(ref, done, pending)
                    if failure:
                        return self._finish(FAILED, done, started, error=failure)
                if self.leave.is_set():
                    return self._step_aside()
                if time.monotonic() >= self.next_beat:  # one round trip, POLL_SECONDS apart (sooner: see _collect)
                    self.next_beat = time.monotonic() + POLL_SECONDS
                    ours, cancelled = self.store.heartbeat(self.job_id, self.driver)
                    if cancelled:
                        return self._finish(CANCELLED, done, started)
                    if not ours:
                        return self._step_aside()
                    self._notify()
        except RedisAway:  # nothing can be recorded: the job stays as it is
            raise
        except KeyboardInterrupt:
            self._finish(CANCELLED, done, started, error="interrupted")
            raise
        except BaseException as exc:
            self._finish(FAILED, done, started, error=f"the driver stopped: {exc!r}")
            raise
        if self.failed:
            return self._finish(FAILED, done, started, error=self._failures())
        return self._finish(SUCCEEDED, done, started)

    def _failures(self) -> str:
        first = min(self.failed)
        others = len(self.failed) - 1
        more = f" ({others} more chunk{'s' if others != 1 else ''} failed too)" if others else ""
        return f"chunk {first} failed: {self.failed[first]}{more}"

    def _submit(self, pending: _Pending) -> None:
        """Fill the slots this job may have now (its fair share: see :mod:`workers.slots`)."""
        granted = self.share.take(self.window - len(self.in_flight) if pending else 0)
        while granted and pending:
            chunks = pending.take(self._group_size(pending))
            ref = self.task.remote(self.spec_dict, chunks, self.job_id, self.redis_url, self.store.prefix,
                                   self.store.replay_prefix, SLICE_SECONDS, self.mark, self.store.patience)
            self.in_flight[ref] = chunks
            granted -= 1
        self.share.give_back(granted)

    def _group_size(self, pending: _Pending) -> int:
        """How many chunks the next task plays: about TASK_SECONDS of play once a deal's cost is known, and no more
        than its share of what is left to hand out among the task slots (guided self-scheduling: the tasks shrink
        towards the end of the job, so that the slots finish together)."""
        if not self.played_units:
            return 1
        per_chunk = max(self.played_cpu, 1e-9) / self.played_units * self.spec.chunk_size
        return max(1, min(math.ceil(TASK_SECONDS / per_chunk), pending.left // self.window))

    def _wait(self) -> list[ray.ObjectRef]:
        """The tasks that finished within a poll (none in flight: wait for a slot to free instead)."""
        if not self.in_flight:
            self.share.wait(POLL_SECONDS)
            return []
        ready, _ = ray.wait(list(self.in_flight), num_returns=1, timeout=POLL_SECONDS)
        return ready

    def _collect(self, ref: ray.ObjectRef, done: dict[int, ChunkResult], pending: _Pending) -> str:
        """Take one finished task; returns an error message when the job cannot go on."""
        chunks = self.in_flight.pop(ref)
        self.share.give_back(1)
        try:
            results: list[ChunkResult] = ray.get(ref)
        except RuntimeEnvSetupError as exc:  # the same on every try: the job cannot run there
            return f"the workers could not set up the job's runtime environment: {ray_reason(exc)}"
        except RayError as exc:
            return self._failed_task(chunks, exc, pending)
        for chunk in reversed(chunks[len(results):]):  # not begun (the task ran out of time): next, in order
            pending.appendleft(chunk)
        finished = []
        for chunk, result in zip(chunks, results, strict=False):
            self.played_units += result.units
            self.played_cpu += result.cpu_seconds
            if result.stopped:  # cancelled half-way (or before it began): the job is about to end as cancelled
                self.next_beat = 0.0
                break
            if not 0 < result.units <= chunk.count:
                return f"chunk {chunk.index} played {result.units} deals instead of {chunk.count}"
            if chunk.index in self.sliced:  # the chunk's earlier slices
                result, played = self._joined(self.sliced.pop(chunk.index), result), result.units
            else:
                played = result.units
            if played < chunk.count:  # its time slice is over: the rest of the chunk is another task, next
                self.sliced[chunk.index] = result
                pending.appendleft(Chunk(chunk.index, chunk.first + played, chunk.count - played))
                break
            finished.append(result)
        for result in finished:
            if self.on_chunk is not None:
                self.on_chunk(result)
            result.rows = []  # the job's total keeps no row of its deals
        if finished:
            self.store.save_chunks(self.job_id, finished)
        for result in finished:
            done.setdefault(result.index, result)
        return ""

    def _failed_task(self, chunks: list[Chunk], exc: RayError, pending: _Pending) -> str:
        """A task that raised: its chunks are played again (an attempt of each), unless the job cannot go on (an
        error message then)."""
        cause = getattr(exc, "cause", None)
        if isinstance(cause, PolicyUnavailable):  # every chunk would fail the same way
            return str(cause)
        if isinstance(cause, DealFailed):  # the first chunk's deal fails the same way: no retry, the others play on
            self.failed[chunks[0].index] = str(cause)
            self._play_again(chunks[1:], pending, retry=False)  # not begun
            return ""
        redis_away = cause is not None and is_failover(cause)  # not the chunks' fault
        if redis_away and self._count(self.redis_attempts, chunks)[1] < MAX_REDIS_ATTEMPTS:
            self._play_again(chunks, pending)
            return ""
        worst, attempts = self._count(self.attempts, chunks)
        if attempts >= MAX_ATTEMPTS:
            return (f"chunk {worst.index} ({worst.first + 1} to {worst.stop} of the job's "
                    f"{self.spec.unit}s) failed {attempts} times: {exc}")
        log.warning(self._retry_line(chunks, attempts, exc))
        self._play_again(chunks, pending)
        return ""

    @staticmethod
    def _count(tries: dict[int, int], chunks: list[Chunk]) -> tuple[Chunk, int]:
        """Count one more try of each chunk in ``tries``; the chunk tried most, and how often."""
        for chunk in chunks:
            tries[chunk.index] = tries.get(chunk.index, 0) + 1
        worst = max(chunks, key=lambda chunk: tries[chunk.index])
        return worst, tries[worst.index]

    def _play_again(self, chunks: list[Chunk], pending: _Pending, retry: bool = True) -> None:
        """Put ``chunks`` first in the queue, in order; ``retry``: note each as a retry (forgetting its progress)."""
        for chunk in reversed(chunks):
            if retry:
                self.store.note_retry(self.job_id, chunk.index)  # waits for Redis to answer again
            pending.appendleft(chunk)

    def _retry_line(self, chunks: list[Chunk], attempts: int, exc: RayError) -> str:
        """One line on a task whose chunks were lost (its worker or node died) and are played again: the deals of a
        chunk come from their own seeds, so the new tasks give the same results and overwrite the same replays."""
        first, last = chunks[0], chunks[-1]
        if all(b.index == a.index + 1 and b.first == a.stop for a, b in zip(chunks, chunks[1:], strict=False)):
            which = f"chunk {first.index}" if len(chunks) == 1 else f"chunks {first.index}-{last.index}"
            deals = f"{self.spec.unit}s {first.first + 1} to {last.stop}"
        else:  # retried chunks (or rests of chunks) before the plan's next ones
            which = f"chunks {', '.join(str(chunk.index) for chunk in chunks)}"
            deals = f"{sum(chunk.count for chunk in chunks)} {self.spec.unit}s"
        return (f"{self.job_id}: {which} ({deals}) was lost ({type(exc).__name__}: "
                f"{first_sentence(ray_reason(exc))}); playing {'it' if len(chunks) == 1 else 'them'} again, attempt "
                f"{attempts + 1} of {MAX_ATTEMPTS}")

    def _joined(self, before: ChunkResult, after: ChunkResult) -> ChunkResult:
        """Two consecutive slices of a chunk as one result (that of the deals of both)."""
        joined = total((before, after), len(before.score_sum))
        joined.index, joined.first, joined.worker = before.index, before.first, after.worker
        return joined

    def _step_aside(self) -> JobRecord:
        """Leave the job as it is, to another driver: one that took it over (our lease lapsed while we stalled), or
        the next one when this process stops. Our tasks stop; the state stays, and so does a lease no longer ours."""
        self._stop_in_flight()
        return self.store.get(self.job_id)

    def _stop_in_flight(self, mark: bool = True) -> None:
        """Stop this driver's tasks (``mark``: by its stop mark in Redis; without, where Redis is away, they stop on
        their own: see the module) and wait a moment for them to end. Never through Ray (``ray.cancel``): see the
        module."""
        refs = list(self.in_flight)
        self.share.give_back(len(refs))
        self.in_flight.clear()
        if not refs:
            return
        if mark:
            self.store.stop_tasks(self.job_id, self.mark)
        # Read the tasks that end within a moment, or Ray prints the failures of those that failed as "unhandled
        # errors" (every task of a policy the workers cannot load fails so).
        ended, _ = ray.wait(refs, num_returns=len(refs), timeout=STOP_GRACE_SECONDS)
        for ref in ended:
            with contextlib.suppress(RayError):
                ray.get(ref)

    def _finish(self, state: str, done: dict[int, ChunkResult], started: float, error: str = "") -> JobRecord:
        self._stop_in_flight()
        fields: dict[str, Any] = {"finished": time.time()}
        if error:
            fields["error"] = error
        if done:
            job_total = total((done[i] for i in sorted(done)), len(side_seats(self.spec)))
            if state == SUCCEEDED and job_total.units != self.spec.count:
                state, fields["error"] = FAILED, f"played {job_total.units} of {self.spec.count} {self.spec.unit}s"
            fields["results"] = summarize(self.spec, job_total, time.perf_counter() - started)
        self.store.set_state(self.job_id, state, **fields)
        self._notify()
        return self.store.get(self.job_id)

    def _notify(self) -> None:
        if self.on_update is not None:
            self.on_update(self.store.get(self.job_id))
