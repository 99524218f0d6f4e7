"""A job on a real two-node Ray cluster (a head and a second node on this machine's loopback, each a temp folder of
its own and one CPU, a Ray token of the test's own) loses its second node half-way: the chunk that node was playing
is played again on the head, and the job's results, deal counts and replays are those of a run in one process, bit
for bit. The driver (``cardtable simulate --json``) says so in two lines on stderr, its logger's: the lost chunk, and
Ray's notice of the dead node; stdout holds the JSON report alone.

Nothing of the cluster outlives the test: the nodes are stopped, and any process left that names either temp folder
(a raylet, a worker) is killed by its PID and checked gone, whether the test passed or not."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from listening import descendants
from other_ray import RAY, free_port, short_temp_dir, stop_node

from replay.store import ReplayStore
from workers.chunk import play_chunk
from workers.cluster import route_ray_notices
from workers.jobstore import DEFAULT_PREFIX, JobStore
from workers.plan import job_chunks
from workers.replays import replay_sink
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable, side_seats, summarize, total

BIN = Path(sys.executable).parent
NODE = ["--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]
START_TIMEOUT_S = 120
# About 7 s of play on two nodes: the second node's first worker may take seconds to start on a loaded machine, and
# its tasks carry ~0.5 s of chunks each, so a shorter job (8000 deals, ~3 s) could end before it finished one task.
DEALS, CHUNK, SEED = 16000, 100, 20261206
# The head's GCS takes a node for dead after 3 missed health checks 0.5 s apart (Ray's defaults: 5 of 3 s apart).
FAST_DEATH = {"RAY_health_check_period_ms": "500", "RAY_health_check_failure_threshold": "3",
              "RAY_health_check_timeout_ms": "1000", "RAY_health_check_initial_delay_ms": "0"}


@dataclass
class TwoNodes:
    address: str
    env: dict[str, str]  # for a driver of the cluster: its token
    second: subprocess.Popen  # the second node's `ray start --block`


def processes_naming(folders: list[Path]) -> dict[int, str]:
    """pid -> command line of every process whose command line names one of ``folders``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(str(folder) in command for folder in folders):
            found[int(entry.name)] = command
    return found


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def wait_started(node: subprocess.Popen, log: Path) -> None:
    """Until ``ray start`` says its node runs (a second node: once it has joined the head)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while "Ray runtime started." not in log.read_text():
        if node.poll() is not None:
            raise RuntimeError(f"ray start exited with {node.returncode}: {log.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"a Ray node did not start in {START_TIMEOUT_S} s: {log.read_text()[-2000:]}")
        time.sleep(0.2)


@pytest.fixture
def two_nodes() -> Iterator[TwoNodes]:
    root = short_temp_dir("ctnl-")  # Ray's socket paths must stay short
    folders = [root / "head", root / "second"]
    port = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    nodes: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> subprocess.Popen:
        with open(root / f"{name}.log", "w") as log:
            nodes.append(subprocess.Popen([*RAY, "start", *args, *NODE], env={**env, **FAST_DEATH}, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        wait_started(nodes[-1], root / f"{name}.log")
        return nodes[-1]

    try:
        start("head", "--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={folders[0]}")
        second = start("second", f"--address=127.0.0.1:{port}", f"--temp-dir={folders[1]}")
        yield TwoNodes(f"127.0.0.1:{port}", env, second)
    finally:
        for node in reversed(nodes):
            stop_node(node)
        kill_all(list(processes_naming(folders)))  # the second node's, orphaned by its kill
        deadline = time.monotonic() + 30
        while (left := processes_naming(folders)) and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"Ray processes left behind: {left}"


def kill_second_node_mid_job(cluster: TwoNodes, store: JobStore, driver: subprocess.Popen) -> str:
    """Once the second node has finished a chunk of the job and plays another one, SIGKILL every process of that node
    (its raylet, its workers); returns the job's id."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and driver.poll() is None:
        jobs, _ = store.list(1)
        if jobs:
            job_id, node = jobs[0].job_id, descendants(cluster.second.pid)
            finished = store.chunk_results(job_id)
            playing = [index for index, worker in store.workers(job_id).items()
                       if worker_pid(worker) in node and index not in finished]
            if playing and any(worker_pid(result.worker) in node for result in finished.values()):
                kill_all([cluster.second.pid, *node])
                return job_id
        time.sleep(0.05)
    raise AssertionError(f"the second node did not play two chunks of the job in time: {driver.communicate()}")


def chunks_named(line: str) -> int:
    """How many chunks a line on a lost task names: "chunk 7", "chunks 30-41" or "chunks 5, 30, 31"."""
    which = re.search(r": chunks? ([\d, -]+) \(", line)
    assert which, line
    ranges = [part.split("-") for part in which.group(1).split(", ")]
    return sum(int(part[-1]) - int(part[0]) + 1 for part in ranges)


def worker_pid(worker: str) -> int:
    """``"node:pid"`` -> pid."""
    return int(worker.rpartition(":")[2])


def one_process_run(spec: JobSpec, client: redis.Redis, replays: ReplayStore) -> dict:
    sink = replay_sink(client, "single", replays.prefix)
    results = [play_chunk(spec, chunk, sink) for chunk in job_chunks(spec)]
    return summarize(spec, total(results, len(side_seats(spec))), 1.0)


def test_a_job_survives_the_loss_of_a_node_with_the_results_of_one_process(two_nodes, redis_url, test_prefix):
    client = redis.Redis.from_url(redis_url)
    env = {**two_nodes.env, "CARDTABLE_KEY_PREFIX": test_prefix}  # the driver's keys: this test's, wiped after it
    driver = subprocess.Popen(
        [BIN / "cardtable", "simulate", "german_whist", "--deals", str(DEALS), "--policies", "random", "--seed",
         str(SEED), "--chunk-size", str(CHUNK), "--log", "all", "--address", two_nodes.address, "--redis-url",
         redis_url, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    store = JobStore(client, test_prefix + DEFAULT_PREFIX)
    try:
        job_id = kill_second_node_mid_job(two_nodes, store, driver)
        out, err = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, err
    report = json.loads(out)  # Ray's notice of the dead node went to the log, not here
    assert report["state"] == "succeeded" and report["units"] == report["deals"] == report["replays"] == DEALS
    assert report["job_id"] == job_id
    played_by = {result.worker.split(":")[0] for result in store.chunk_results(job_id).values()}
    assert len(played_by) == 2, played_by  # both nodes finished chunks of the job
    lines = err.splitlines()
    lost = [line for line in lines if " was lost (NodeDiedError: " in line]  # a line per task lost, of its chunks
    assert sum(chunks_named(line) for line in lost) == report["retries"] >= 1, err
    assert all(re.search(r"; playing (it|them) again, attempt 2 of 3$", line) for line in lost), err
    # Ray's notice of the dead node, relayed when its log monitor passes it on in time (a loaded machine's run of
    # fresh1, s42, ended without it): at most once, never anything else of Ray's
    dead = [line for line in lines if line.startswith("Ray: The node with node id: ")]
    assert len(dead) <= 1 and all(line.endswith("has been marked dead because the detector has missed too many "
                                                 "heartbeats from it.") for line in dead), err
    # Ray may also relay the killed node's raylet's own notice (its first sentence), depending on when it goes; each of
    # the node's two agents publishes it (fresh CI of s44 printed it twice), the driver says it once
    terminated = [line for line in lines if line == "Ray: Raylet is terminated."]
    assert len(terminated) <= 1 and len(lines) == len(lost) + len(dead) + len(terminated), err

    spec = validate(JobSpec(game="german_whist", policies=("random",), count=DEALS, seed=SEED, chunk_size=CHUNK,
                            log=LogSpec("all")))
    assert report["spec"] == spec.to_dict()
    replays = ReplayStore(client, test_prefix + "replay")
    single = one_process_run(spec, client, replays)
    assert comparable({key: report[key] for key in single}) == comparable(single)
    on_ray = ReplayStore(client, test_prefix + "cardtable:replay")
    ray_replays = on_ray.page(report["replay_collection"], count=DEALS + 1).items
    assert on_ray.count(report["replay_collection"]) == DEALS
    assert ray_replays == replays.page("single", count=DEALS + 1).items


NOTICE = ("The node with node id: a71863cb3fae and address: 127.0.0.1 and node name: 127.0.0.1 has been marked dead "
          "because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes "
          "unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload.")


TERMINATED = ("Raylet is terminated. Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or "
              "system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other "
              "termination signals. Last 20 lines of the Raylet logs:\n    [raylet] ...")


def test_rays_notices_go_to_the_log_in_one_line_and_other_lines_as_before(monkeypatch, caplog):
    from ray._private import worker

    printed = []
    monkeypatch.setattr(worker, "print_to_stdstream", lambda data, ignore_prefix: printed.append(data))
    route_ray_notices()
    route_ray_notices()  # once is enough: not wrapped twice
    line = {"lines": ["a worker's line"], "pid": 4321, "is_err": False}
    with caplog.at_level(logging.DEBUG, logger="cardtable.ray"):
        worker.print_to_stdstream({"lines": [NOTICE], "pid": "raylet", "is_err": False}, ignore_prefix=False)
        worker.print_to_stdstream(line, ignore_prefix=False)
        # a node's two agents each publish "Raylet is terminated": the second copy goes to DEBUG only
        for _ in range(2):
            worker.print_to_stdstream({"lines": [TERMINATED], "pid": "raylet", "is_err": False}, ignore_prefix=False)
    assert printed == [line]
    records = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert records[:5] == [
        ("WARNING", "Ray: The node with node id: a71863cb3fae and address: 127.0.0.1 and node name: 127.0.0.1 has "
                    "been marked dead because the detector has missed too many heartbeats from it."),
        ("DEBUG", f"Ray's notice in full: {NOTICE}"),
        ("WARNING", "Ray: Raylet is terminated."),
        ("DEBUG", f"Ray's notice in full: {TERMINATED}"),
        ("DEBUG", records[4][1]),
    ]
    assert len(records) == 5 and re.fullmatch(r"Ray's notice again \(said \d+\.\d s ago\): Raylet is terminated\. .*",
                                               records[4][1], re.S)


def test_a_notice_repeated_after_the_window_is_said_again(monkeypatch, caplog):
    from ray._private import worker

    from workers import cluster

    monkeypatch.setattr(worker, "print_to_stdstream", lambda data, ignore_prefix: None)
    clock = [1000.0]
    monkeypatch.setattr(cluster.time, "monotonic", lambda: clock[0])
    route_ray_notices()
    with caplog.at_level(logging.WARNING, logger="cardtable.ray"):
        for step in (0.0, 30.0, cluster.REPEAT_WINDOW_S + 1):
            clock[0] += step
            worker.print_to_stdstream({"lines": [TERMINATED], "pid": "raylet", "is_err": False}, ignore_prefix=False)
    assert [record.getMessage() for record in caplog.records] == ["Ray: Raylet is terminated."] * 2
