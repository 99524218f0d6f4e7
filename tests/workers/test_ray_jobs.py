"""Jobs on a real local Ray: identical results whatever the workers and chunks, a killed worker, cancel, resume."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from listening import descendants, is_loopback, listeners
from waiting import wait_until

import replay
from replay.store import ReplayStore
from workers import runner
from workers.jobstore import CANCELLED, FAILED, SUCCEEDED, JobStore
from workers.plan import match_seed, plan_chunks
from workers.runner import MAX_ATTEMPTS, run_job
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable

pytestmark = pytest.mark.usefixtures("local_ray")
NO_LOG = LogSpec()
# Big enough that chunks are seen half-played (progress is reported every 250 deals), small enough to stay fast.
KILL_JOB_DEALS = 20_000
KILL_CHUNK = 2000


def whist(count: int, chunk_size: int = 0, seed: int = 21, log: LogSpec = NO_LOG) -> JobSpec:
    return validate(JobSpec(game="german_whist", policies=("random",), count=count, seed=seed, chunk_size=chunk_size,
                            log=log))


@pytest.fixture
def replays(redis_client) -> Iterator[ReplayStore]:
    """The replay store the tasks write to; the collections of this test's jobs are deleted afterwards."""
    store = ReplayStore(redis_client)
    before = {name for name, _ in store.collections()}
    yield store
    for name, _ in store.collections():
        if name not in before:
            store.delete_collection(name)


def run(store: JobStore, redis_url: str, spec: JobSpec, workers: int = 0):
    record = store.create(spec)
    return run_job(store, record.job_id, redis_url, max_workers=workers)


def test_the_sessions_ray_started_while_no_other_thread_ran(local_ray):
    """Ray forks its processes with a Python preexec_fn, which hung (the raylet never started, "The current node timed
    out during startup") while a gRPC server thread of the gRPC tests ran: the session's Ray starts before any test,
    and the gRPC tests' servers stop with their modules."""
    assert local_ray == [threading.main_thread().name]
    assert "cardtable-grpc-server" not in [thread.name for thread in threading.enumerate()]  # tests/services' servers


def test_the_sessions_ray_listens_on_loopback_alone(job_store, redis_url):
    """The session's Ray is cardtable's local Ray (``connect_ray``, as ``cardtable simulate`` starts it): this
    driver, the GCS, the raylet, its agents and its workers listen on 127.0.0.1 alone, not on every interface nor on
    this machine's outward address (Ray has no authentication: whoever reaches it runs code)."""
    assert run(job_store, redis_url, whist(400, chunk_size=100), workers=2).state == SUCCEEDED  # workers started
    found = listeners([os.getpid(), *descendants(os.getpid())])
    workers = [pid for pid, name, _ in found if name.startswith("ray::") and name != "ray::RuntimeEnv"]
    assert {"gcs_server", "raylet", "ray::RuntimeEnv"} <= {name for _, name, _ in found}
    assert workers and os.getpid() in {pid for pid, _, _ in found}  # the workers' and this driver's gRPC servers
    assert [entry for entry in found if not is_loopback(entry[2])] == []


def test_one_or_two_workers_and_any_chunk_size_give_identical_results(job_store, redis_url):
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=600, seed=4, chunk_size=600))
    runs = [run(job_store, redis_url, spec, workers=1)]
    for chunk_size, workers in ((50, 2), (77, 1), (13, 0)):
        runs.append(run(job_store, redis_url, replace(spec, chunk_size=chunk_size), workers))
    assert {r.state for r in runs} == {SUCCEEDED}
    assert [r.results["units"] for r in runs] == [600] * 4
    first = comparable(runs[0].results)
    assert all(comparable(r.results) == first for r in runs[1:])
    assert runs[0].results["sides"][0]["win_rate"] > 0.6  # greedy beats random: the numbers are real


@pytest.mark.cluster_too
def test_chunks_played_in_time_slices_give_the_same_results_and_replays(job_store, redis_url, replays,
                                                                          monkeypatch):
    """A task that runs out of its slice hands the rest of its chunk back (here every deal is a slice of its own):
    the job's results and replays are those of whole chunks."""
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=120, seed=8, chunk_size=40,
                            log=LogSpec("all")))
    whole = run(job_store, redis_url, spec)
    monkeypatch.setattr(runner, "SLICE_SECONDS", 0.0)
    sliced = run(job_store, redis_url, spec)
    assert (whole.state, sliced.state) == (SUCCEEDED, SUCCEEDED)
    assert (sliced.chunks_done, sliced.units_done) == (3, 120)
    assert comparable(sliced.results) == comparable(whole.results)
    assert [replays.get(f"{sliced.replay_collection}/{n}") for n in range(120)] == \
        [replays.get(f"{whole.replay_collection}/{n}") for n in range(120)]


def test_a_killed_worker_loses_and_double_counts_nothing(job_store, redis_url, replays):
    spec = whist(KILL_JOB_DEALS, chunk_size=KILL_CHUNK, log=LogSpec("all"))
    record = job_store.create(spec)
    outcome = {}
    driver = threading.Thread(target=lambda: outcome.update(record=run_job(job_store, record.job_id, redis_url)))
    driver.start()
    # Kill a worker once it has reported progress inside a chunk, so the chunk dies half-played.
    victim = wait_until(lambda: _running_worker(job_store, record.job_id), 60, "no chunk got half-played", 0.02)
    os.kill(victim, signal.SIGKILL)
    driver.join(timeout=180)
    killed = outcome["record"]
    assert killed.state == SUCCEEDED, killed.error
    assert killed.retries >= 1
    assert killed.results["units"] == killed.results["deals"] == killed.results["replays"] == KILL_JOB_DEALS
    assert replays.count(killed.replay_collection) == KILL_JOB_DEALS
    last = KILL_JOB_DEALS - 1
    assert replay.decode(replays.get(f"{killed.replay_collection}/{last}")).header.seed == match_seed(21, last)
    undisturbed = run(job_store, redis_url, whist(KILL_JOB_DEALS, chunk_size=3000, log=LogSpec("all")))
    assert comparable(killed.results) == comparable(undisturbed.results)


def _running_worker(store: JobStore, job_id: str) -> int | None:
    progress = store.redis.hgetall(store._progress(job_id))
    started = {int(k): int(v) for k, v in progress.items() if 0 < int(v) < KILL_CHUNK}
    workers = store.workers(job_id)
    for chunk_index in started:
        if chunk_index in workers:
            return int(workers[chunk_index].rsplit(":", 1)[1])
    return None


def test_a_task_plays_several_chunks_once_a_deals_cost_is_known(job_store, redis_url, replays, monkeypatch):
    """The driver groups the plan's chunks into tasks of about TASK_SECONDS of play (shrinking towards the end):
    far fewer tasks than chunks, and the same chunk results, job results and replays as one chunk a task."""
    import ray

    @ray.remote(num_cpus=1, max_retries=0)
    def counted(spec_dict, chunks, job_id, url, prefix, *rest):  # the task, noting how many chunks it was given
        from replay.clients import sync_client
        sync_client(url).rpush(f"{prefix}test-tasks:{job_id}", len(chunks))
        return runner.play_chunk_task._function(spec_dict, chunks, job_id, url, prefix, *rest)

    monkeypatch.setattr(runner, "play_chunk_task", counted)
    spec = whist(6400, chunk_size=50, log=LogSpec("all"))  # 128 chunks of about 10 ms
    monkeypatch.setattr(runner, "TASK_SECONDS", 0.0)
    alone = run(job_store, redis_url, spec, workers=2)
    monkeypatch.setattr(runner, "TASK_SECONDS", 0.5)
    grouped = run(job_store, redis_url, spec, workers=2)

    def tasks(record):
        return [int(n) for n in job_store.redis.lrange(f"{job_store.prefix}test-tasks:{record.job_id}", 0, -1)]

    assert (alone.state, grouped.state) == (SUCCEEDED, SUCCEEDED)
    assert tasks(alone) == [1] * 128
    assert sum(tasks(grouped)) == 128 and len(tasks(grouped)) < 40 and max(tasks(grouped)) > 4
    assert comparable(grouped.results) == comparable(alone.results)
    assert job_store.chunk_results(grouped.job_id).keys() == job_store.chunk_results(alone.job_id).keys()
    assert [r.to_dict() | {"seconds": 0, "cpu_seconds": 0, "worker": ""}
            for _, r in sorted(job_store.chunk_results(grouped.job_id).items())] == \
        [r.to_dict() | {"seconds": 0, "cpu_seconds": 0, "worker": ""}
         for _, r in sorted(job_store.chunk_results(alone.job_id).items())]
    assert list(replays.iter_collection(grouped.replay_collection, page_size=2000)) == \
        list(replays.iter_collection(alone.replay_collection, page_size=2000))


@pytest.mark.cluster_too
def test_a_sample_of_replays(job_store, redis_url, replays):
    record = run(job_store, redis_url, whist(1000, chunk_size=64, log=LogSpec("sample", 10)))
    assert record.results["replays"] == 10
    assert [index for index, _ in replays.iter_collection(record.replay_collection)] == list(range(0, 1000, 100))


def test_cancel_stops_the_job_and_keeps_what_was_played(job_store, redis_url):
    record = job_store.create(whist(200_000, chunk_size=2000))
    outcome = {}
    driver = threading.Thread(target=lambda: outcome.update(record=run_job(job_store, record.job_id, redis_url)))
    driver.start()
    wait_until(lambda: job_store.get(record.job_id).chunks_done >= 1, 60, "no chunk finished", 0.02)
    job_store.request_cancel(record.job_id)
    driver.join(timeout=60)
    cancelled = outcome["record"]
    assert cancelled.state == CANCELLED
    assert 2000 <= cancelled.results["units"] < 200_000
    assert cancelled.results["units"] % 2000 == 0  # only whole chunks count


class _Submitted:
    """The driver's task (a remote function), keeping every task submitted: its reference and its first chunk."""

    def __init__(self, task) -> None:
        self.task = task
        self.refs = []
        self.first_chunks = []

    def remote(self, spec_dict, chunks, *rest):
        ref = self.task.remote(spec_dict, chunks, *rest)
        self.refs.append(ref)
        self.first_chunks.append(chunks[0].index)
        return ref


JOB_ENDS = ["cancelled", "a chunk failed", "stepped aside", "interrupted"]


@pytest.mark.parametrize("end", JOB_ENDS)
def test_a_jobs_end_stops_its_running_tasks_without_ray_cancel(job_store, redis_url, monkeypatch, end):
    """Ray 2.60's driver fails a check and exits, the whole process ("Tried to complete task that was not pending"),
    when ``ray.cancel`` of a running task races its reply: a job's end (a cancel, a chunk that fails the job, a driver
    that steps aside, Ctrl-C) stops its tasks through Redis instead, never calling ray.cancel. Deals of seconds
    (pimc) in chunks of a minute or more, slices of ten minutes: the tasks end within the deadline because they
    were told to stop (their results say so), from within a decision, or as they begin (the third task, queued)."""
    import ray

    cancels = []
    monkeypatch.setattr(ray, "cancel", lambda ref, **options: cancels.append(ref))
    monkeypatch.setattr(runner, "SLICE_SECONDS", 600.0)
    monkeypatch.setattr(runner, "MAX_ATTEMPTS", 1)
    fail = end == "a chunk failed"

    @ray.remote(num_cpus=1, max_retries=0)
    def noted(spec_dict, chunks, job_id, url, prefix, *rest):  # the task; chunk 0 fails once another task has begun
        from replay.clients import sync_client
        client = sync_client(url)
        client.rpush(f"{prefix}test-begun:{job_id}", chunks[0].index)
        if fail and chunks[0].index == 0:
            assert client.blpop([f"{prefix}test-begun-signal:{job_id}"], timeout=120), "no other task began"
            raise RuntimeError("chunk 0 breaks")
        client.rpush(f"{prefix}test-begun-signal:{job_id}", chunks[0].index)
        return runner.play_chunk_task._function(spec_dict, chunks, job_id, url, prefix, *rest)

    submitted = _Submitted(noted)
    monkeypatch.setattr(runner, "play_chunk_task", submitted)
    spec = validate(JobSpec(game="german_whist", policies=("pimc:samples=200", "random"), count=60, seed=3,
                            chunk_size=20))
    job_id = job_store.create(spec).job_id
    leave, ended = threading.Event(), []

    def end_it(record) -> None:  # at a beat of the driver, once both running tasks report from within a deal
        if ended or fail or job_store.redis.hlen(job_store._progress(job_id)) < 2:
            return
        ended.append(job_store.redis.lrange(f"{job_store.prefix}test-begun:{job_id}", 0, -1))
        if end == "cancelled":
            job_store.request_cancel(job_id)
        elif end == "stepped aside":
            leave.set()
        else:
            raise KeyboardInterrupt

    if end == "interrupted":
        with pytest.raises(KeyboardInterrupt):
            run_job(job_store, job_id, redis_url, on_update=end_it, leave=leave)
        record = job_store.get(job_id)
    else:
        record = run_job(job_store, job_id, redis_url, on_update=end_it, leave=leave)
    expected = {"cancelled": CANCELLED, "a chunk failed": FAILED, "stepped aside": "running",
                "interrupted": CANCELLED}[end]
    assert record.state == expected, record.error
    assert fail or len(ended[0]) >= 2  # both tasks were running when the job ended
    assert len(submitted.refs) >= 3  # the third waited for a CPU
    _, running = ray.wait(submitted.refs, num_returns=len(submitted.refs), timeout=60)
    assert running == []
    if fail:
        assert "chunk 0 breaks" in record.error
    for ref, first in zip(submitted.refs, submitted.first_chunks, strict=True):
        if fail and first == 0:
            with pytest.raises(ray.exceptions.RayTaskError, match="chunk 0 breaks"):
                ray.get(ref)
        else:  # told to stop: no task ran its chunk to the end
            assert [result.stopped for result in ray.get(ref)] == [True]
    assert cancels == []


def test_a_resumed_job_plays_only_the_missing_chunks(job_store, redis_url):
    from workers.chunk import play_chunk

    spec = whist(1200, chunk_size=300)
    record = job_store.create(spec)
    done_before = play_chunk(spec, plan_chunks(1200, 300)[2])
    done_before.seconds = 1234.0  # a marker: the stored result must be the one used, not a replay of it
    job_store.save_chunk(record.job_id, done_before)
    resumed = run_job(job_store, record.job_id, redis_url)
    assert resumed.state == SUCCEEDED
    assert job_store.chunk_results(record.job_id)[2].seconds == 1234.0
    assert comparable(resumed.results) == comparable(run(job_store, redis_url, spec).results)


def test_a_chunk_that_keeps_failing_fails_the_job_with_its_reason(job_store, redis_url):
    broken = JobSpec(game="tablanette", policies=("random",), count=10, seed=1, players=2, chunk_size=5)
    record = run(job_store, redis_url, broken)  # one policy for two seats: not validated, so each chunk fails
    assert record.state == FAILED
    assert f"failed {MAX_ATTEMPTS} times" in record.error
    assert "policies" in record.error
    # its deals counted from 1, as people count them: chunk 0 holds the job's deals 1 to 5, chunk 1 deals 6 to 10
    assert "(1 to 5 of the job's deals)" in record.error or "(6 to 10 of the job's deals)" in record.error


def test_a_job_driven_elsewhere_is_left_alone(job_store, redis_url):
    record = job_store.create(whist(100))
    assert job_store.claim(record.job_id, "another-driver") and job_store.has_driver(record.job_id)
    assert not job_store.claim(record.job_id, "a third driver")
    assert run_job(job_store, record.job_id, redis_url).state == "queued"
    job_store.release(record.job_id, "another-driver")
    assert not job_store.has_driver(record.job_id)
    assert run_job(job_store, record.job_id, redis_url).state == SUCCEEDED


def _take_over(store: JobStore, job_id: str, driver: str) -> None:
    """The job's lease lapses (its driver stalled for longer than the lease) and ``driver`` claims it at once."""
    store.redis.delete(store._driver(job_id))
    assert store.claim(job_id, driver)


def test_a_lease_is_renewed_and_released_only_by_its_driver(job_store):
    job_id = job_store.create(whist(100)).job_id
    assert job_store.claim(job_id, "a")
    job_store.redis.delete(job_store._driver(job_id))
    assert job_store.renew(job_id, "a") and job_store.driver(job_id) == "a"  # lapsed, nobody took over: a goes on
    _take_over(job_store, job_id, "b")
    assert not job_store.renew(job_id, "a") and job_store.driver(job_id) == "b"
    assert not job_store.release(job_id, "a") and job_store.driver(job_id) == "b"
    assert job_store.renew(job_id, "b") and job_store.release(job_id, "b") and job_store.driver(job_id) is None


def test_a_driver_whose_job_was_taken_over_steps_aside(job_store, redis_url):
    """A running driver stalls past its lease and driver b takes the job over: the first one stops without touching
    b's lease or the job's state; then b plays the rest, every deal counted once."""
    spec = whist(KILL_JOB_DEALS, chunk_size=KILL_CHUNK)
    job_id = job_store.create(spec).job_id
    outcome = {}
    first = threading.Thread(target=lambda: outcome.update(record=run_job(job_store, job_id, redis_url)))
    first.start()
    wait_until(lambda: job_store.get(job_id).state == "running", 60, "the first driver did not start the job")
    _take_over(job_store, job_id, "b")
    first.join(timeout=120)
    assert not first.is_alive() and not outcome["record"].is_final
    assert job_store.driver(job_id) == "b" and job_store.get(job_id).state == "running"
    job_store.release(job_id, "b")  # b, played here by a driver of its own
    resumed = run_job(job_store, job_id, redis_url)
    assert resumed.state == SUCCEEDED and resumed.results["units"] == spec.count
