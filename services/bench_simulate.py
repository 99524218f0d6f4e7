"""``cardtable bench --simulate``: the same German Whist job in one process without Ray, then on Ray with 2 workers.

Both runs log a replay of every deal to Redis in pipelined batches and must give identical results; the figure is
deals per second of each, and their ratio (the target on a 2-core machine: Ray with 2 workers at least 1.7 times
the single process). Ray's start and the start of its 2 worker processes (a tiny warm-up job) are not timed: they
are paid once per cluster, not per job. Each way runs ``rounds`` times, alternately, and the best of each counts (a
shared machine's other load only ever slows a run down). The replays and job records are deleted afterwards.

On a shared machine the ratio also depends on how much of the second core other programs leave: the bench first
measures it (``machine_parallel_capacity``: the same work in two plain processes at once, over one process; 2.0 on
an idle 2-core machine), so that a low ratio can be told apart from an overhead of Ray.

    cardtable bench --simulate --deals 50000 --json
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from replay.embedded import EmbeddedValkey
from replay.namespace import namespaced
from replay.store import ReplayStore
from workers.chunk import play_chunk
from workers.cluster import connect_ray
from workers.jobstore import SUCCEEDED, JobStore, replay_collection
from workers.plan import Chunk, job_chunks
from workers.replays import replay_sink
from workers.runner import redis_client, run_job
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable, side_seats, summarize, total

BENCH_WORKERS = 2
BENCH_PREFIX = "ct:bench:sim:"


@contextlib.contextmanager
def _redis_url(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with EmbeddedValkey() as valkey:
        yield valkey.url


def bench_spec(deals: int, seed: int = 1) -> JobSpec:
    return validate(JobSpec(game="german_whist", policies=("random",), count=deals, seed=seed, log=LogSpec("all")))


def run_single_process(store: JobStore, spec: JobSpec) -> tuple[str, dict[str, Any]]:
    """The job's chunks one after another in this process, replays to the store as a Ray task writes them."""
    record = store.create(spec)
    sink = replay_sink(store.redis, replay_collection(record.job_id), store.replay_prefix)
    started = time.perf_counter()
    results = [play_chunk(spec, chunk, sink) for chunk in job_chunks(spec)]
    elapsed = time.perf_counter() - started
    return record.job_id, summarize(spec, total(results, len(side_seats(spec))), elapsed)


def run_on_ray(store: JobStore, spec: JobSpec, url: str) -> tuple[str, dict[str, Any]]:
    record = store.create(spec)
    finished = run_job(store, record.job_id, url, max_workers=BENCH_WORKERS)
    if finished.state != SUCCEEDED:
        raise RuntimeError(f"the Ray run {finished.state}: {finished.error}")
    return record.job_id, finished.results


def _play_probe(count: int) -> float:
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=count, seed=3))
    started = time.perf_counter()
    play_chunk(spec, Chunk(0, 0, count))
    return time.perf_counter() - started


def _probe_after(barrier: Any, results: Any, count: int) -> None:
    _play_probe(1)  # imports and first-call costs are paid before the start
    barrier.wait()
    results.put(_play_probe(count))


def machine_parallel_capacity(count: int = 3000) -> float:
    """How many times one process's work two plain processes get done at once (2.0 on an idle 2-core machine)."""
    _play_probe(1)
    alone = _play_probe(count)
    # Fresh interpreters (spawn), not forks: this process may already run Ray's threads.
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_probe_after, args=(barrier, results, count)) for _ in range(2)]
    for process in processes:
        process.start()
    together = max(results.get(timeout=300) for _ in processes)
    for process in processes:
        process.join()
    return 2 * alone / together


def simulate_bench_steps(rounds: int = 2) -> int:
    """How many steps :func:`run_simulate_bench` reports: the machine's probe, Ray's start, then each run."""
    return 2 + 2 * rounds


def run_simulate_bench(deals: int = 50_000, redis_url: str | None = None, rounds: int = 2,
                       on_step: Callable[[str, int], None] | None = None) -> dict[str, Any]:
    """Run both ways and return their figures; raises if any two runs disagree on any result. ``on_step(what,
    done)`` is told of each step as it starts (what it does, steps done before it)."""
    report = on_step or (lambda _what, _done: None)
    with _redis_url(redis_url or os.environ.get("REDIS_URL")) as url:
        client = redis_client(url)
        store = JobStore(client, namespaced(BENCH_PREFIX))
        replays = ReplayStore(client, store.replay_prefix)
        spec = bench_spec(deals)
        job_ids: list[str] = []
        singles, on_ray, logged = [], [], set()
        report("two plain processes against one (the machine's spare capacity)", 0)
        capacity = machine_parallel_capacity()
        try:
            report(f"starting Ray and its {BENCH_WORKERS} workers", 1)
            cluster = connect_ray(cpus=BENCH_WORKERS)
            job_ids.append(run_on_ray(store, bench_spec(BENCH_WORKERS * 50, seed=2), url)[0])  # warm-up
            for round_ in range(rounds):
                for way, (run, results) in enumerate(((lambda: run_single_process(store, spec), singles),
                                                      (lambda: run_on_ray(store, spec, url), on_ray))):
                    report(f"{deals:,} deals {('in one process', f'on Ray, {BENCH_WORKERS} workers')[way]}, run "
                           f"{round_ + 1} of {rounds}", 2 + 2 * round_ + way)
                    job_id, result = run()
                    job_ids.append(job_id)
                    results.append(result)
                    logged.add(replays.count(replay_collection(job_id)))
        finally:
            _clean_up(store, job_ids)
    if any(comparable(r) != comparable(singles[0]) for r in singles + on_ray):
        raise RuntimeError("the single-process and Ray runs of the same job disagree")
    single = max(r["deals_per_s"] for r in singles)
    ray_rate = max(r["deals_per_s"] for r in on_ray)
    return {
        "game": spec.game, "policies": list(spec.policies), "deals": deals, "chunk_size": spec.chunk_size,
        "rounds": rounds, "replays_logged_per_run": sorted(logged), "identical_results": True, "ray": cluster,
        "redis": url, "single_process_deals_per_s": round(single, 1),
        "single_process_runs_deals_per_s": [round(r["deals_per_s"], 1) for r in singles],
        "ray_workers": BENCH_WORKERS, "ray_deals_per_s": round(ray_rate, 1),
        "ray_runs_deals_per_s": [round(r["deals_per_s"], 1) for r in on_ray],
        "speedup": round(ray_rate / single, 3), "machine_parallel_capacity": round(capacity, 2),
        "cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2),
    }


def _clean_up(store: JobStore, job_ids: list[str]) -> None:
    replays = ReplayStore(store.redis, store.replay_prefix)
    for job_id in job_ids:
        replays.delete_collection(replay_collection(job_id))
        store.delete(job_id)
