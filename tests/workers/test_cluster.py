"""A real two-node Ray cluster on this machine (a head and a worker node on loopback), and a job sent to it with
``cardtable simulate --address``: it runs on both nodes and gives the results of a run without Ray."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import comparable, summarize, total

BIN = Path(sys.executable).parent
# A private loopback cluster for this test: no token to share between its nodes, no usage statistics sent.
ENV = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
NODE = ["--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive_nodes(address: str) -> int:
    status = subprocess.run([BIN / "ray", "status", f"--address={address}"], env=ENV, capture_output=True,
                            text=True, timeout=60)
    if status.returncode != 0:
        return 0
    active = status.stdout.split("Active:", 1)[-1].split("Pending:", 1)[0]
    return sum(1 for line in active.splitlines() if "node_" in line)


def wait_for_nodes(address: str, count: int, processes: list[subprocess.Popen], logs: Path,
                   timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                found = {log.name: log.read_text()[-2000:] for log in logs.glob("*.log")}
                raise RuntimeError(f"a Ray node exited with {process.returncode}: {found}")
        if alive_nodes(address) >= count:
            return
        time.sleep(1)
    raise TimeoutError(f"the cluster at {address} did not reach {count} nodes in {timeout} s")


def start_node(log: Path, *args: str) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen([BIN / "ray", "start", *args, *NODE], env=ENV, stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture
def two_node_cluster(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    address = f"127.0.0.1:{port}"
    temp = Path(f"/tmp/ct-{port}")  # Ray's socket paths must stay short
    nodes = [start_node(tmp_path / "head.log", "--head", f"--port={port}", f"--ray-client-server-port={free_port()}",
                        "--include-dashboard=false", f"--temp-dir={temp}")]
    try:
        wait_for_nodes(address, 1, nodes, tmp_path)
        nodes.append(start_node(tmp_path / "worker.log", f"--address={address}"))
        wait_for_nodes(address, 2, nodes, tmp_path)
        yield address
    finally:
        for node in reversed(nodes):  # `ray start --block` stops the processes it started when it is terminated
            node.terminate()
            try:
                node.wait(timeout=30)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait()
        shutil.rmtree(temp, ignore_errors=True)


def test_a_job_sent_with_address_runs_on_both_nodes(two_node_cluster, redis_url, redis_client):
    run = subprocess.run(
        [BIN / "cardtable", "simulate", "german_whist", "--deals", "3000", "--policies", "random", "--seed", "5",
         "--chunk-size", "100", "--address", two_node_cluster, "--redis-url", redis_url, "--json"],
        env=ENV, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    JobStore(redis_client).delete(report["job_id"])
    assert report["state"] == "succeeded" and report["units"] == 3000
    nodes = {worker.split(":")[0] for worker in report["workers"]}
    assert len(nodes) == 2, report["workers"]
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=3000, seed=5))
    without_ray = summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], 2), seconds=1.0)
    assert comparable({k: v for k, v in report.items() if k in without_ray}) == comparable(without_ray)
