"""A real two-node Ray cluster on this machine (a head and a worker node on loopback), and a job sent to it with
``cardtable simulate --address``: it runs on both nodes and gives the results of a run without Ray."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from listening import descendants, is_loopback, listeners
from other_ray import RAY, free_port, stop_node

from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import comparable, summarize, total

BIN = Path(sys.executable).parent
# A private loopback cluster for this test: no token to share between its nodes, no usage statistics sent.
ENV = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
NODE = ["--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]


def alive_nodes(address: str) -> int:
    status = subprocess.run([*RAY, "status", f"--address={address}"], env=ENV, capture_output=True, text=True,
                            timeout=60)
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
        return subprocess.Popen([*RAY, "start", *args, *NODE], env=ENV, stdout=out, stderr=subprocess.STDOUT)


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
        for node in reversed(nodes):
            stop_node(node)
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
    found = listeners(descendants(os.getpid()))  # both nodes' processes (the Ray Client server's too)
    assert {"gcs_server", "raylet", "ray::RuntimeEnv"} <= {name for _, name, _ in found}
    assert [entry for entry in found if not is_loopback(entry[2])] == []
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=3000, seed=5))
    without_ray = summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], 2), seconds=1.0)
    assert comparable({k: v for k, v in report.items() if k in without_ray}) == comparable(without_ray)


@pytest.mark.parametrize(("address", "node_ip", "held"), [
    (None, None, True),  # cardtable simulate's local Ray (and the tests' session Ray)
    ("127.0.0.1:41234", "127.0.0.1", True),  # the server joining its head (workers.ray_head)
    ("127.0.0.1:6379", None, True),  # a cluster on this machine's loopback: joined there
    ("head.example:6379", None, False),  # another machine's cluster: as Ray would
    ("ray://head.example:10001", None, False),
])
def test_only_a_ray_on_this_machine_is_held_to_loopback(monkeypatch, address, node_ip, held):
    """``ray.init`` keeps 127.0.0.1 for the node and the address to join only while ``loopback_node`` holds it to
    (see tests/workers/test_ray_jobs.py and tests/services/test_lifecycle.py for what then listens where); a cluster
    elsewhere is joined as Ray would."""
    import ray
    from ray._private import ray_constants, services

    from workers import cluster

    calls = []

    def init(**kwargs):  # what ray.init would take 127.0.0.1 for (asked only where it is held: no outward look-up)
        single_node = not ray_constants.ENABLE_RAY_CLUSTER
        calls.append((kwargs, single_node and services.resolve_ip_for_localhost("127.0.0.1")))
        return SimpleNamespace(address_info={"gcs_address": "127.0.0.1:41234"})

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(cluster, "check_reachable", lambda address: None)
    monkeypatch.setattr(cluster, "check_admitted", lambda address: None)
    monkeypatch.setattr(cluster, "describe_cluster", lambda: "Ray")
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", True)
    monkeypatch.setattr(ray._private.worker, "_global_node", None)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    cluster.connect_ray(address, cpus=1, node_ip=node_ip)
    [(kwargs, loopback)] = calls
    assert loopback == ("127.0.0.1" if held else False)
    assert ray_constants.ENABLE_RAY_CLUSTER  # as it was
    assert kwargs.get("_node_ip_address") == (node_ip if address else "127.0.0.1")
    if address is None:  # a new cluster of its own, whatever RAY_ADDRESS or Ray's ray_current_cluster file say
        assert kwargs["address"] == "local" and Path(kwargs["_temp_dir"]).name.startswith("ct-ray-")
