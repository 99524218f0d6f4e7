"""``cardtable bench --simulate``: the same job (German Whist, random policies, unless ``--game``/``--policy`` say
otherwise) in one process without Ray, then on Ray with 2 workers.

Both runs log a replay of every deal to Redis in pipelined batches and must give identical results; the figures are
deals per second of each, and their ratio (the target on a 2-core machine: Ray with 2 workers at least 1.8 times
the single process). Ray's start and the start of its 2 worker processes (a tiny warm-up job) are not timed: they
are paid once per cluster, not per job. Each way runs ``rounds`` times, alternately, and the best of each counts (a
shared machine's other load only ever slows a run down). The replays and job records are deleted afterwards.

On a shared machine the ratio also depends on how much of the second core other programs leave: the bench first
measures it (``machine_parallel_capacity``: the same work in two plain processes at once, over one process; 2.0 on
an idle 2-core machine), so that a low ratio can be told apart from an overhead of Ray.

What a deal costs, in CPU time, which other programs' load does not change much: the single process's CPU per deal;
on Ray, the workers' (measured inside each task, returned with its chunk's result), the driver's (this process's
CPU time while the job runs: its Ray threads included) and, on Linux, that of the local Ray's own processes (raylet,
GCS, agents); the Redis server's CPU (``INFO cpu``), the bytes it received and sent per deal (``INFO stats``) and the
memory its replays take per logged deal (``MEMORY USAGE`` of the collection's keys). Redis's CPU and traffic are the
server's from all its clients: give the bench a Redis of its own (the embedded Valkey, by default) for exact figures.
``projected_speedup`` is the speed-up those CPU costs allow on 2 otherwise idle cores: twice the single process's CPU
per deal over the CPU that a deal on Ray takes from the machine (workers, driver, Ray's processes, Redis).

    cardtable bench --simulate --deals 50000 --json
    cardtable bench --simulate --game belote --deals 20000 --json
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
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

from .replays import collection_memory

BENCH_WORKERS = 2
BENCH_PREFIX = "ct:bench:sim:"


@contextlib.contextmanager
def _redis_url(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with EmbeddedValkey() as valkey:
        yield valkey.url


def bench_spec(deals: int, seed: int = 1, game: str = "german_whist", policy: str = "random") -> JobSpec:
    return validate(JobSpec(game=game, policies=(policy,), count=deals, seed=seed, log=LogSpec("all")))


def run_single_process(store: JobStore, spec: JobSpec) -> tuple[str, dict[str, Any]]:
    """The job's chunks one after another in this process, replays to the store as a Ray task writes them; the
    results' ``cpu_seconds`` are this process's."""
    record = store.create(spec)
    sink = replay_sink(store.redis, replay_collection(record.job_id), store.replay_prefix)
    started = time.perf_counter()
    results = [play_chunk(spec, chunk, sink) for chunk in job_chunks(spec)]
    elapsed = time.perf_counter() - started
    return record.job_id, summarize(spec, total(results, len(side_seats(spec))), elapsed)


def run_on_ray(store: JobStore, spec: JobSpec, url: str) -> tuple[str, dict[str, Any], float]:
    """The job on Ray: its id, results, and this process's CPU time while it ran (the driver's)."""
    record = store.create(spec)
    cpu_started = time.process_time()
    finished = run_job(store, record.job_id, url, max_workers=BENCH_WORKERS)
    driver_cpu = time.process_time() - cpu_started
    if finished.state != SUCCEEDED or finished.results is None:
        raise RuntimeError(f"the Ray run {finished.state}: {finished.error}")
    return record.job_id, finished.results, driver_cpu


@dataclass
class Costs:
    """What the runs of one way cost, summed over its runs: CPU seconds by whom, the Redis server's work, deals."""

    deals: int = 0
    players: float = 0.0  # the process(es) playing the deals: the single process, or Ray's workers inside their tasks
    driver: float = 0.0
    ray_processes: float | None = 0.0  # the local Ray's other processes and its workers outside tasks (None: unknown)
    redis_cpu: float = 0.0
    redis_bytes_in: int = 0
    redis_bytes_out: int = 0

    def us(self, seconds: float | None) -> float | None:
        """Microseconds per deal."""
        return None if seconds is None else round(1e6 * seconds / self.deals, 2)

    @property
    def total(self) -> float:
        """The CPU seconds the deals took from the machine."""
        return self.players + self.driver + (self.ray_processes or 0.0) + self.redis_cpu


class CostMeter:
    """Measures runs: the Redis server's CPU and traffic (``INFO``) and, on Linux, the CPU of this process's local
    Ray (its processes are this one's descendants), around each run."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def run(self, costs: Costs, run: Callable[[], tuple[str, dict[str, Any], float]]) -> tuple[str, dict[str, Any]]:
        """``run()`` (returning a job id, its results and the driver's CPU seconds), its costs added to ``costs``."""
        redis_before, ray_before = _redis_counters(self.client), local_ray_cpu()
        job_id, results, driver_cpu = run()
        redis_after, ray_after = _redis_counters(self.client), local_ray_cpu()
        costs.deals += results["deals"]
        costs.players += results["cpu_seconds"]
        costs.driver += driver_cpu
        costs.redis_cpu += redis_after[0] - redis_before[0]
        costs.redis_bytes_in += redis_after[1] - redis_before[1]
        costs.redis_bytes_out += redis_after[2] - redis_before[2]
        if ray_after and costs.ray_processes is not None:
            spent = sum(cpu - ray_before.get(pid, 0.0) for pid, cpu in ray_after.items())
            costs.ray_processes += max(0.0, spent - (results["cpu_seconds"] if driver_cpu else 0.0))
        elif driver_cpu:  # a Ray run that /proc cannot see (a cluster elsewhere, or no /proc)
            costs.ray_processes = None
        return job_id, results


def _redis_counters(client: Any) -> tuple[float, int, int]:
    """The server's CPU seconds (user and system), and the bytes it has received and sent, so far."""
    cpu, stats = client.info("cpu"), client.info("stats")
    return (float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), int(stats["total_net_input_bytes"]),
            int(stats["total_net_output_bytes"]))


def local_ray_cpu() -> dict[int, float]:
    """CPU seconds so far of each process of this process's local Ray: its descendants that are Ray's (the raylet,
    the GCS, the agents, the workers: a program of Ray's package, or a process titled ``ray::...``), not the embedded
    Valkey nor anything else it started; empty where there is no /proc to tell."""
    import ray

    package = os.path.dirname(ray.__file__)
    table: dict[int, tuple[int, float, str]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            table[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick, command)
    found: dict[int, float] = {}
    frontier = [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, cpu, command) in table.items():
            if ppid == parent:
                frontier.append(pid)
                if command.startswith("ray::") or package in command:
                    found[pid] = cpu
    return found


def _play_probe(count: int) -> float:
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=count, seed=3))
    started = time.perf_counter()
    play_chunk(spec, Chunk(0, 0, count))
    return time.perf_counter() - started


def _probe_after(barrier: Any, results: Any, count: int) -> None:
    _play_probe(1)  # imports and first-call costs are paid before the start
    barrier.wait()
    results.put(_play_probe(count))


def _probe_processes(processes: int, count: int) -> float:
    """Seconds the slowest of ``processes`` fresh interpreters took to play ``count`` deals each, started together."""
    # Fresh interpreters (spawn), not forks, for the one alone as for the two together: the calling process may run
    # Ray's threads, a server or a test session, and may even run another engine build than a new process does.
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(processes), context.Queue()
    started = [context.Process(target=_probe_after, args=(barrier, results, count)) for _ in range(processes)]
    for process in started:
        process.start()
    slowest = max(results.get(timeout=300) for _ in started)
    for process in started:
        process.join()
    return slowest


def machine_parallel_capacity(count: int = 3000, rounds: int = 3) -> float:
    """How many times one process's work two plain processes get done at once (2.0 on an idle 2-core machine): each
    way ``rounds`` times, alternately, the best of each counting, as other load only ever slows a probe down."""
    alone, together = math.inf, math.inf
    for _ in range(rounds):
        alone = min(alone, _probe_processes(1, count))
        together = min(together, _probe_processes(2, count))
    return 2 * alone / together


def simulate_bench_steps(rounds: int = 2) -> int:
    """How many steps :func:`run_simulate_bench` reports: the machine's probe, Ray's start, then each run."""
    return 2 + 2 * rounds


def run_simulate_bench(deals: int = 50_000, redis_url: str | None = None, rounds: int = 2,
                       on_step: Callable[[str, int], None] | None = None, game: str = "german_whist",
                       policy: str = "random") -> dict[str, Any]:
    """Run both ways and return their figures; raises if any two runs disagree on any result. ``on_step(what,
    done)`` is told of each step as it starts (what it does, steps done before it)."""
    report = on_step or (lambda _what, _done: None)
    spec = bench_spec(deals, game=game, policy=policy)
    with _redis_url(redis_url or os.environ.get("REDIS_URL")) as url:
        client = redis_client(url)
        store = JobStore(client, namespaced(BENCH_PREFIX))
        replays = ReplayStore(client, store.replay_prefix)
        job_ids: list[str] = []
        singles: list[dict[str, Any]] = []
        on_ray: list[dict[str, Any]] = []
        costs = {"single": Costs(), "ray": Costs()}
        logged: set[int] = set()
        report("two plain processes against one (the machine's spare capacity)", 0)
        capacity = machine_parallel_capacity()
        meter = CostMeter(client)
        try:
            report(f"starting Ray and its {BENCH_WORKERS} workers", 1)
            cluster = connect_ray(cpus=BENCH_WORKERS)
            job_ids.append(run_on_ray(store, bench_spec(BENCH_WORKERS * 50, 2, game, policy), url)[0])  # warm-up
            ways = (("single", lambda: (*run_single_process(store, spec), 0.0), singles),
                    ("ray", lambda: run_on_ray(store, spec, url), on_ray))
            for round_ in range(rounds):
                for way, (name, run, results) in enumerate(ways):
                    report(f"{deals:,} deals {('in one process', f'on Ray, {BENCH_WORKERS} workers')[way]}, run "
                           f"{round_ + 1} of {rounds}", 2 + 2 * round_ + way)
                    job_id, result = meter.run(costs[name], run)
                    job_ids.append(job_id)
                    results.append(result)
                    logged.add(replays.count(replay_collection(job_id)))
            memory = collection_memory(replays, replay_collection(job_ids[-1]), deals)
            record_memory = store.memory(job_ids[-1])
        finally:
            _clean_up(store, job_ids)
    if any(comparable(r) != comparable(singles[0]) for r in singles + on_ray):
        raise RuntimeError("the single-process and Ray runs of the same job disagree")
    single = max(r["deals_per_s"] for r in singles)
    ray_rate = max(r["deals_per_s"] for r in on_ray)
    one, many = costs["single"], costs["ray"]
    return {
        "game": spec.game, "policies": list(spec.policies), "deals": deals, "chunk_size": spec.chunk_size,
        "rounds": rounds, "replays_logged_per_run": sorted(logged), "identical_results": True, "ray": cluster,
        "redis": url, "single_process_deals_per_s": round(single, 1),
        "single_process_runs_deals_per_s": [round(r["deals_per_s"], 1) for r in singles],
        "ray_workers": BENCH_WORKERS, "ray_deals_per_s": round(ray_rate, 1),
        "ray_runs_deals_per_s": [round(r["deals_per_s"], 1) for r in on_ray],
        "speedup": round(ray_rate / single, 3), "machine_parallel_capacity": round(capacity, 2),
        "cpu_us_per_deal": {
            "single_process": one.us(one.players), "single_process_redis": one.us(one.redis_cpu),
            "workers": many.us(many.players), "driver": many.us(many.driver),
            "ray_processes": many.us(many.ray_processes), "redis": many.us(many.redis_cpu),
        },
        "driver_to_workers": round(many.driver / many.players, 4),
        "projected_speedup": round(BENCH_WORKERS * (one.players / one.deals) / (many.total / many.deals), 3)
        if many.ray_processes is not None else None,
        "redis_net_bytes_per_deal": {"in": round(many.redis_bytes_in / many.deals, 1),
                                     "out": round(many.redis_bytes_out / many.deals, 1)},
        "redis_replay_bytes_per_logged_deal": round(memory / deals, 1),
        "redis_job_record_bytes_per_deal": round(record_memory / deals, 2),
        "cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2),
    }


def _clean_up(store: JobStore, job_ids: list[str]) -> None:
    replays = ReplayStore(store.redis, store.replay_prefix)
    for job_id in job_ids:
        replays.delete_collection(replay_collection(job_id))
        store.delete(job_id)
