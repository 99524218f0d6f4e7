"""How long a job's tasks run on after the job ends: a job on a local Ray of 2 CPUs, ended while its tasks play, by a
cancel (fast deals: random German Whist; slow deals: pimc with 200 samples, about 2-4 s a deal) or by a chunk that
fails (the job fails at once: MAX_ATTEMPTS set to 1 here). Each task notes in Redis when it began and when it ended
(its finally clause); ``ray.cancel`` is counted by a spy in this process (the driver's).

    PYTHONPATH=. python tools/job_stop_latency.py --redis-url redis://127.0.0.1:6379/3 --repeat 3

For each run: ``driver`` the seconds from the end's cause (the cancel request; the failing chunk's raise) until
``run_job`` returned, ``tasks`` until the last task ended, and the ``ray.cancel`` calls. Wall-clock figures: say the
machine's load beside them.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's workers/, not the installed one's

import ray  # noqa: E402

from replay.clients import sync_client  # noqa: E402
from workers import runner  # noqa: E402
from workers.cluster import connect_ray  # noqa: E402
from workers.jobstore import JobStore  # noqa: E402
from workers.spec import JobSpec, validate  # noqa: E402

CASES = {
    "cancel-fast": (("random",), 1_000_000, 20_000),
    "cancel-slow": (("pimc:samples=200", "random"), 200, 10),
    "failed-slow": (("pimc:samples=200", "random"), 200, 10),
}


@ray.remote(num_cpus=1, max_retries=0)
def noted_task(spec_dict: dict[str, Any], chunks: list, job_id: str, url: str, prefix: str, *rest: Any) -> Any:
    """The job's task, noting in Redis when it began and ended; chunk 0 of a job whose spec says so fails once
    another task has begun."""
    client = sync_client(url)
    client.rpush(f"{prefix}noted:begun:{job_id}", time.time())
    try:
        if spec_dict.get("seed") == 666 and chunks[0].index == 0:
            while client.llen(f"{prefix}noted:begun:{job_id}") < 2:
                time.sleep(0.05)
            time.sleep(1.0)
            client.set(f"{prefix}noted:failed:{job_id}", time.time())
            raise RuntimeError("chunk 0 breaks (tools/job_stop_latency.py)")
        return runner.play_chunk_task._function(spec_dict, chunks, job_id, url, prefix, *rest)
    finally:
        client.rpush(f"{prefix}noted:ended:{job_id}", time.time())


def one_run(store: JobStore, url: str, case: str) -> dict[str, float]:
    policies, count, chunk = CASES[case]
    failing = case.startswith("failed")
    spec = validate(JobSpec(game="german_whist", policies=policies, count=count, seed=666 if failing else 5,
                            chunk_size=chunk))
    job_id = store.create(spec).job_id
    client, prefix = store.redis, store.prefix
    outcome: dict[str, Any] = {}
    driver = threading.Thread(target=lambda: outcome.update(
        record=runner.run_job(store, job_id, url), returned=time.time()))
    driver.start()
    if failing:
        while not client.exists(f"{prefix}noted:failed:{job_id}"):
            time.sleep(0.01)
        cause = float(client.get(f"{prefix}noted:failed:{job_id}"))
    else:
        while client.llen(f"{prefix}noted:begun:{job_id}") < 2:
            time.sleep(0.01)
        time.sleep(1.0)  # well into their play
        cause = time.time()
        store.request_cancel(job_id)
    driver.join()
    deadline = time.monotonic() + 120
    while (client.llen(f"{prefix}noted:ended:{job_id}") < client.llen(f"{prefix}noted:begun:{job_id}")
           and time.monotonic() < deadline):
        time.sleep(0.01)
    ended = [float(t) for t in client.lrange(f"{prefix}noted:ended:{job_id}", 0, -1)]
    return {"state": outcome["record"].state, "driver": outcome["returned"] - cause, "tasks": max(ended) - cause,
            "still running": client.llen(f"{prefix}noted:begun:{job_id}") - len(ended)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    connect_ray(cpus=2)
    cancels: list[Any] = []
    real_cancel = ray.cancel
    ray.cancel = lambda ref, **kw: (cancels.append(ref), real_cancel(ref, **kw))[1]  # type: ignore[assignment]
    runner.play_chunk_task = noted_task
    runner.MAX_ATTEMPTS = 1
    client = sync_client(args.redis_url)
    store = JobStore(client, f"ct:stoplatency:{secrets.token_hex(4)}:")
    try:
        for case in args.cases.split(","):
            runs = []
            for _ in range(args.repeat):
                before = len(cancels)
                run = one_run(store, args.redis_url, case)
                run["ray.cancel"] = len(cancels) - before
                runs.append(run)
                print(f"{case}: {run['state']}, driver {run['driver']:.2f} s, tasks {run['tasks']:.2f} s, "
                      f"{run['still running']} still running, ray.cancel x{run['ray.cancel']}", flush=True)
            print(f"{case}: median driver {statistics.median(r['driver'] for r in runs):.2f} s, tasks "
                  f"{statistics.median(r['tasks'] for r in runs):.2f} s (max {max(r['tasks'] for r in runs):.2f} s)",
                  flush=True)
    finally:
        keys = list(client.scan_iter(f"{store.prefix}*"))
        if keys:
            client.delete(*keys)
        ray.shutdown()


if __name__ == "__main__":
    main()
