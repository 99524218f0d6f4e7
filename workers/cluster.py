"""Joining Ray: a local Ray on this machine's CPUs, or an existing cluster (``--address`` or ``RAY_ADDRESS``).

An address is either a Ray node's GCS (``HOST:6379``: this machine must be a node of that cluster) or a Ray Client
address (``ray://HOST:10001``: from anywhere, as the service's pods and containers do). An address that nothing
answers on is refused at once (:class:`RayUnreachable`) rather than waited for.

Policies of one's own travel with the job: ``py_modules`` (the folders or files of their code, from
:func:`policy_code`) go into the Ray job's runtime environment, so every worker, on this machine or a cluster's,
imports the same code as the driver. Ray takes them when the driver joins, once per process; a process that joined
Ray before it knew its jobs' policies (the server) gives each job's tasks their code instead
(:func:`code_runtime_env`).

A local Ray listens on 127.0.0.1 alone, every process of it (:func:`loopback_node`), and sends no usage statistics
anywhere. Ray's own log lines (warnings included) are shown only with ``verbose``: a person sees cardtable's messages.

>>> connect_ray(cpus=2)  # doctest: +SKIP
'Ray: 1 node, 2 CPUs'
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import tempfile
from collections.abc import Iterator
from typing import Any

import ray

from engine.bots import label_parts, policy_class, policy_sources

# How long a cluster address gets to accept a connection before it counts as unreachable.
REACH_TIMEOUT_S = 5.0
# The address of a local Ray's node, its only address: Ray has no authentication of its own.
LOOPBACK = "127.0.0.1"


class RayUnreachable(ConnectionError):
    """Nothing answers at a Ray cluster's address."""


def policy_code(labels: list[str] | tuple[str, ...]) -> list[str]:
    """The code the workers need for these policy labels beyond cardtable and the installed packages (see
    :func:`engine.bots.policy_sources`): ``[]`` for the built-in policies."""
    return policy_sources([policy_class(label_parts(label)[0]) for label in labels])


def code_runtime_env(py_modules: list[str]) -> dict[str, Any]:
    """A task's runtime environment that carries ``py_modules`` (local folders or ``.py`` files) to its workers.
    Ray takes local paths only for a whole job (``ray.init``), so they are uploaded here as ``ray.init`` uploads a
    job's: each folder or file zipped into the cluster's own store (GCS) under a name from its content, once."""
    from ray._private.runtime_env.py_modules import upload_py_modules_if_needed

    with tempfile.TemporaryDirectory() as scratch:
        return upload_py_modules_if_needed({"py_modules": list(py_modules)}, include_gitignore=True,
                                           scratch_dir=scratch, logger=logging.getLogger(__name__))


def connect_ray(address: str | None = None, cpus: int | None = None, verbose: bool = False,
                node_ip: str | None = None, py_modules: list[str] | None = None) -> str:
    """Start or join Ray once per process; returns a line that says which. ``node_ip``: this machine's address in
    the cluster, when Ray would guess wrong (a local head on 127.0.0.1); ``py_modules``: code for the workers."""
    if ray.is_initialized():
        return describe_cluster()
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        check_reachable(address)
    quiet: dict[str, Any] = {"log_to_driver": verbose, "logging_level": logging.INFO if verbose else logging.ERROR}
    runtime_env = {"runtime_env": {"py_modules": py_modules}} if py_modules else {}
    if node_ip:
        quiet["_node_ip_address"] = node_ip
    if address and "://" in address:  # Ray Client (ray://HOST:10001): a driver outside the cluster's nodes
        ray.init(address=address, logging_level=quiet["logging_level"], **runtime_env)
    elif address:  # a cluster's GCS; one on this machine's loopback (workers.ray_head's) is joined there
        with loopback_node() if node_ip == LOOPBACK or _on_loopback(address) else contextlib.nullcontext():
            ray.init(address=address, **quiet, **runtime_env)
    else:
        with loopback_node():
            ray.init(num_cpus=cpus or os.cpu_count() or 1, include_dashboard=False, _node_ip_address=LOOPBACK,
                     **quiet, **runtime_env)
    return describe_cluster()


@contextlib.contextmanager
def loopback_node() -> Iterator[None]:
    """Around ``ray.init`` for a local Ray (``_node_ip_address="127.0.0.1"``), or for a driver that joins one at
    127.0.0.1: its node's address is then 127.0.0.1 indeed, and every process of it listens there alone.

    Ray's gRPC servers (the GCS, the raylet's node and object managers, each worker's) listen on every interface
    unless their node's address is 127.0.0.1, and its runtime env agent on the node's address. But ``ray.init``
    does not keep a 127.0.0.1 it is given, for the node or for the address to join: it takes this machine's outward
    address instead (``ray._private.services.resolve_ip_for_localhost``), except on a machine it holds for a single
    node (``get_node_ip_address``: ``ray_constants.ENABLE_RAY_CLUSTER`` false, as on Windows and macOS, or with
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` when Ray was imported). So it is told so while ``ray.init`` runs: the
    processes it starts are given the node's address it settled on (the workers too, by the raylet), and once
    started, Ray takes it from its node, not from that look-up (the constant is put back). A driver that joins a
    cluster's address on loopback (``--address 127.0.0.1:6379``) joins it there, and takes its node's address from
    the raylet it finds on this machine, whichever that is; one that joins another address is left alone."""
    from ray._private import ray_constants

    clusters = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = clusters


def _on_loopback(address: str) -> bool:
    """``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT``."""
    return address.rpartition(":")[0].strip("[]") in (LOOPBACK, "localhost", "::1")


def check_reachable(address: str, timeout: float = REACH_TIMEOUT_S) -> None:
    """Raise RayUnreachable unless a gRPC server (a GCS, a Ray Client server) answers at ``address`` (``HOST:PORT``,
    ``ray://HOST:PORT``; ``auto``, this machine's running cluster, is Ray's to find). Ray itself would retry for
    minutes, printing its warnings, before it gave up on an address where nothing answers, or something else does."""
    if address == "auto":
        return
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout) as connection:
            answer = None if _uses_tls() else _http2_greeting(connection)
    except ValueError:
        raise RayUnreachable(f"{address!r} is not a Ray address (HOST:PORT or ray://HOST:PORT)") from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise RayUnreachable(f"cannot reach Ray at {address}: {reason}") from None
    if answer is not None and answer[3:4] != _SETTINGS:
        raise RayUnreachable(f"cannot reach Ray at {address}: something else answers there (not a Ray cluster)")


# A gRPC server answers an HTTP/2 client's greeting (the preface and a SETTINGS frame) with a SETTINGS frame.
_SETTINGS = b"\x04"
_HTTP2_GREETING = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00" + _SETTINGS + b"\x00\x00\x00\x00\x00"


def _http2_greeting(connection: socket.socket) -> bytes:
    """The first frame header (9 bytes, fewer if the server closes first) that answers an HTTP/2 greeting."""
    connection.sendall(_HTTP2_GREETING)
    answer = b""
    while len(answer) < 9:
        chunk = connection.recv(9 - len(answer))
        if not chunk:
            break
        answer += chunk
    return answer


def _uses_tls() -> bool:
    """Ray's gRPC is TLS (``RAY_USE_TLS``): the plain greeting would not be understood; the connection suffices."""
    return os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true")


def cluster_cpus() -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def describe_cluster() -> str:
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    return f"Ray: {len(nodes)} node{'s' if len(nodes) != 1 else ''}, {cluster_cpus()} CPUs"
