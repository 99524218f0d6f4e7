"""Joining Ray: a local Ray on this machine's CPUs, or an existing cluster (``--address`` or ``RAY_ADDRESS``).

An address is either a Ray node's GCS (``HOST:6379``: this machine must be a node of that cluster) or a Ray Client
address (``ray://HOST:10001``: from anywhere, as the service's pods and containers do).

A local Ray binds to 127.0.0.1 and sends no usage statistics anywhere.

>>> connect_ray(cpus=2)  # doctest: +SKIP
'local Ray, 2 CPUs'
"""

from __future__ import annotations

import logging
import os

import ray


def connect_ray(address: str | None = None, cpus: int | None = None) -> str:
    """Start or join Ray once per process; returns a line that says which."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():
        return describe_cluster()
    address = address or os.environ.get("RAY_ADDRESS") or None
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address and "://" in address:  # Ray Client (ray://HOST:10001): a driver outside the cluster's nodes
        ray.init(address=address)
    elif address:
        ray.init(address=address, **quiet)
    else:
        ray.init(num_cpus=cpus or os.cpu_count() or 1, include_dashboard=False, _node_ip_address="127.0.0.1", **quiet)
    return describe_cluster()


def cluster_cpus() -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def describe_cluster() -> str:
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    return f"Ray: {len(nodes)} node{'s' if len(nodes) != 1 else ''}, {cluster_cpus()} CPUs"
