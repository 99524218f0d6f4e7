"""Joining Ray: a local Ray on this machine's CPUs, or an existing cluster (``--address`` or ``RAY_ADDRESS``).

An address is either a Ray node's GCS (``HOST:6379``: this machine must be a node of that cluster) or a Ray Client
address (``ray://HOST:10001``: from anywhere, as the service's pods and containers do). An address that nothing
answers on is refused at once (:class:`RayUnreachable`) rather than waited for, and so is a cluster that refuses this
process's Ray authentication token, or wants one it does not send (:class:`RayRefused`; a cluster's token is given
with ``RAY_AUTH_MODE=token`` and ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``).

Policies of one's own travel with the job: ``py_modules`` (the folders or files of their code, from
:func:`policy_code`) go into the Ray job's runtime environment, so every worker, on this machine or a cluster's,
imports the same code as the driver. Ray takes them when the driver joins, once per process; a process that joined
Ray before it knew its jobs' policies (the server) gives each job's tasks their code instead
(:func:`code_runtime_env`).

A local Ray is this process's own (:func:`start_local_ray`): a new cluster in a temp folder of its own, its GCS on a
port it picks free, whatever else runs on the machine: another ``ray start --head``, or the ``ray_current_cluster``
file a killed one left in Ray's shared temp folder, is never joined (only ``--address`` / ``RAY_ADDRESS`` join a
cluster). It listens on 127.0.0.1 alone, every process of it (:func:`loopback_node`), and sends no usage statistics
anywhere. When it cannot start, :class:`RayNotStarted` gives Ray's reason in one line. Ray's own log lines (warnings
included) are shown only with ``verbose``: a person sees cardtable's messages. The cluster's notices to the driver (a
node marked dead, a worker killed for memory), which Ray prints to standard output a paragraph each, go to the
``cardtable.ray`` logger instead, one line each (:func:`route_ray_notices`): standard output stays the command's.

>>> connect_ray(cpus=2)  # doctest: +SKIP
'Ray: 1 node, 2 CPUs'
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ray

from engine.bots import label_parts, policy_class, policy_sources

# How long a cluster address gets to accept a connection before it counts as unreachable.
REACH_TIMEOUT_S = 5.0
# The address of a local Ray's node, its only address: Ray has no authentication of its own.
LOOPBACK = "127.0.0.1"


class RayUnreachable(ConnectionError):
    """Nothing answers at a Ray cluster's address."""


class RayRefused(ConnectionError):
    """A Ray cluster refused this process: its authentication token is missing or wrong."""


class RayNotStarted(ConnectionError):
    """The local Ray could not start: Ray's reason, in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the local Ray did not start: {reason}")
        self.reason = reason


def policy_code(labels: list[str] | tuple[str, ...]) -> list[str]:
    """The code the workers need for these policy labels beyond cardtable and the installed packages (see
    :func:`engine.bots.policy_sources`): ``[]`` for the built-in policies."""
    return policy_sources([policy_class(label_parts(label)[0]) for label in labels])


def code_runtime_env(py_modules: list[str]) -> dict[str, Any]:
    """A task's runtime environment that carries ``py_modules`` (local folders or ``.py`` files) to its workers.
    Ray takes local paths only for a whole job (``ray.init``), so they are uploaded here as ``ray.init`` uploads a
    job's: each folder or file zipped into the cluster's own store (GCS) under a name from its content, once.

    A driver on Ray Client (``ray://``) uploads them unpinned: Ray's upload first pins the package's name for a while
    (against its removal before a task refers to it), a call that a Ray Client server answers only before the job
    starts (afterwards "Method not implemented", which the client retries for ever). A package no task refers to yet
    is not collected, and the task that follows refers to it at once."""
    from ray._private.runtime_env.py_modules import upload_py_modules_if_needed

    upload = _upload_unpinned if ray.util.client.ray.is_connected() else None
    with tempfile.TemporaryDirectory() as scratch:
        return upload_py_modules_if_needed({"py_modules": list(py_modules)}, include_gitignore=True,
                                           scratch_dir=scratch, logger=logging.getLogger(__name__), upload_fn=upload)


def _upload_unpinned(module_path: str, excludes: list[str] | None = None, is_file: bool = False) -> None:
    """Ray's ``upload_package_if_needed`` for a folder or ``.py`` file, under the same content-named URI, but without
    its pin (see :func:`code_runtime_env`)."""
    from ray._private.runtime_env import packaging

    folder = os.path.isdir(module_path)
    uri = (packaging.get_uri_for_directory(module_path, include_gitignore=True, excludes=excludes) if folder
           else packaging.get_uri_for_file(module_path))
    if packaging.package_exists(uri):
        return
    with tempfile.TemporaryDirectory() as scratch:
        package = os.path.join(scratch, "package.zip")
        packaging.create_package(module_path, Path(package), include_gitignore=True, include_parent_dir=folder,
                                 excludes=excludes)
        with open(package, "rb") as data:
            packaging.upload_package_to_gcs(uri, data.read())


def connect_ray(address: str | None = None, cpus: int | None = None, verbose: bool = False,
                node_ip: str | None = None, py_modules: list[str] | None = None) -> str:
    """Start or join Ray once per process; returns a line that says which. ``node_ip``: this machine's address in
    the cluster, when Ray would guess wrong (a local head on 127.0.0.1); ``py_modules``: code for the workers."""
    if ray.is_initialized():
        return describe_cluster()
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        check_reachable(address)
        check_admitted(address)
    quiet: dict[str, Any] = {"log_to_driver": verbose, "logging_level": logging.INFO if verbose else logging.ERROR}
    runtime_env = {"runtime_env": {"py_modules": py_modules}} if py_modules else {}
    if node_ip:
        quiet["_node_ip_address"] = node_ip
    if address and "://" in address:  # Ray Client (ray://HOST:10001): a driver outside the cluster's nodes
        with _refusal_in_one_line(address):
            ray.init(address=address, logging_level=quiet["logging_level"], **runtime_env)
    elif address:  # a cluster's GCS; one on this machine's loopback (workers.ray_head's) is joined there
        with (loopback_node() if node_ip == LOOPBACK or _on_loopback(address) else contextlib.nullcontext(),
              _refusal_in_one_line(address)):
            ray.init(address=address, **quiet, **runtime_env)
    else:
        start_local_ray(cpus or os.cpu_count() or 1, **quiet, **runtime_env)
    route_ray_notices()
    return describe_cluster()


notices = logging.getLogger("cardtable.ray")


REPEAT_WINDOW_S = 60.0


def route_ray_notices() -> None:
    """Send the notices Ray's driver receives from the cluster (its ``ray_listen_error_messages`` thread: a node
    marked dead, a worker killed, each a paragraph of advice) to :data:`notices` as one warning line each, their first
    sentence (the whole text at DEBUG), instead of Ray's print to standard output. Ray's thread looks its printer up by
    name at each notice, so the replacement takes effect for a driver already joined; the worker log lines that
    ``verbose`` shows are printed by another handler, bound at ``ray.init``, and stay as they are.

    A notice whose whole text repeats one of the last :data:`REPEAT_WINDOW_S` seconds goes to DEBUG only: each of a
    node's agents (the dashboard's and the runtime environment's) watches its raylet and publishes the same "Raylet is
    terminated" paragraph when it dies, so one lost node would otherwise say it once or twice, by timing."""
    from ray._private import worker

    printer = worker.print_to_stdstream
    if getattr(printer, "routes_notices", False):
        return
    said: dict[str, float] = {}  # a notice's whole text -> when it was last logged as a warning

    def to_log(data: dict[str, Any], ignore_prefix: bool) -> None:
        if data.get("pid") != "raylet" or data.get("is_err"):
            printer(data, ignore_prefix)
            return
        for message in data.get("lines", []):
            now = time.monotonic()
            for text in [text for text, when in said.items() if now - when > REPEAT_WINDOW_S]:
                del said[text]
            if message in said:
                notices.debug("Ray's notice again (said %.1f s ago): %s", now - said[message], message)
                continue
            said[message] = now
            notices.warning("Ray: %s", first_sentence(message))
            notices.debug("Ray's notice in full: %s", message)

    to_log.routes_notices = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_log


def first_sentence(text: str) -> str:
    """A paragraph's first sentence on one line.

    >>> first_sentence("The node with node id: ab12 has been marked dead.  This can happen when a\\n\\t(1) raylet ...")
    'The node with node id: ab12 has been marked dead.'
    """
    flat = " ".join(text.split())
    return re.split(r"(?<=\.)\s+(?=[A-Z(])", flat, maxsplit=1)[0]


def start_local_ray(cpus: int, **init: Any) -> str:
    """Start a new Ray cluster of this process's own on 127.0.0.1 (``init``: more of ``ray.init``'s arguments); returns
    its GCS address. Raises :class:`RayNotStarted` with Ray's reason if it cannot.

    ``address="local"`` makes ``ray.init`` start a cluster rather than join the one that ``RAY_ADDRESS`` or the
    ``ray_current_cluster`` file of Ray's temp folder names (a running ``ray start --head``, or a dead one's stale
    address); the temp folder (sockets, session, logs) is a new one of this process, under ``RAY_TMPDIR`` or the
    system's temp folder (named short: Ray's socket paths in it must stay under 108 bytes), removed when Ray is left
    at exit. The GCS picks a free port (``RAY_GCS_SERVER_PORT``
    chooses one), never Ray's 6379, which a Redis on this machine may hold."""
    temp_dir = tempfile.mkdtemp(prefix="ct-ray-", dir=os.environ.get("RAY_TMPDIR") or None)
    quiet = not init.get("log_to_driver", True)
    try:
        with loopback_node(), _native_stderr_muted() if quiet else contextlib.nullcontext():
            context = ray.init(address="local", num_cpus=cpus, include_dashboard=False, _node_ip_address=LOOPBACK,
                               _temp_dir=temp_dir, **init)
    except Exception as exc:  # noqa: BLE001  (whatever Ray raised, its reason is the message)
        with contextlib.suppress(Exception):
            ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise RayNotStarted(ray_reason(exc)) from None
    atexit.register(_leave_and_remove, temp_dir)  # registered after Ray's own exit handler: runs first
    return str(context.address_info["gcs_address"])


@contextlib.contextmanager
def _native_stderr_muted() -> Iterator[None]:
    """This process's standard error (file descriptor 2) muted: Ray's C++ clients write their warnings there while
    ``ray.init`` starts a cluster ("Failed to connect to GCS ... within 5 seconds", before Ray's reason is known),
    whatever the log level. The processes of the cluster keep their own logs in its temp folder."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _leave_and_remove(temp_dir: str) -> None:
    ray.shutdown()
    shutil.rmtree(temp_dir, ignore_errors=True)


# A line of a Ray process's error file: "[2026-01-02 03:04:05,678 C 123 123] (gcs_server) grpc_server.cc:134: ...".
_LOG_PREFIX = re.compile(r"^\[[^\]]*\]\s*(\([^)]*\)\s*)?[\w.]+:\d+:\s*")


def ray_reason(exc: BaseException) -> str:
    """Ray's error in one line: its first line, and for a process that failed to start, what that process said (the
    last line of its error file, without the log prefix and Ray's "report this bug" boilerplate)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    reason = re.sub(r"\s*Last \d+ lines? of error files:$", "", lines[0]).rstrip(" .")
    said = next((line for line in reversed(lines[1:]) if _LOG_PREFIX.match(line)), None)
    if said is not None:
        said = _LOG_PREFIX.sub("", said)
        if "Check failed: " in said:  # "... Check failed: CONDITION Message. More."
            said = said.split("Check failed: ", 1)[1].partition(" ")[2]
        reason += ": " + " ".join(re.split(r"(?<=\.)\s+", said)[:2])
    return reason


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


def check_admitted(address: str, timeout: float = REACH_TIMEOUT_S) -> None:
    """Raise :class:`RayRefused` if the cluster at ``address`` (answering: see :func:`check_reachable`) refuses this
    process's Ray authentication token (``RAY_AUTH_MODE=token`` with ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or
    ``~/.ray/auth_token``), or wants one that this process does not send. Ray itself would retry for 30 s and then
    say only "ray client connection timeout" (or "Failed to connect to Ray cluster")."""
    import grpc
    from ray._private.authentication.authentication_utils import is_token_auth_enabled
    from ray._private.grpc_utils import init_grpc_channel
    from ray.exceptions import AuthenticationError

    if address == "auto":
        return
    from ray.core.generated import ray_client_pb2

    if "://" in address:  # a call that the server answers after it checked the token
        method = "/ray.rpc.RayletDriver/ClusterInfo"
        request = ray_client_pb2.ClusterInfoRequest(type=ray_client_pb2.ClusterInfoType.PING).SerializeToString()
    else:
        method, request = "/ray.rpc.NodeInfoGcsService/GetClusterId", b""  # GetClusterIdRequest has no fields
    try:
        with init_grpc_channel(address.split("://", 1)[-1]) as channel:
            channel.unary_unary(method)(request, timeout=timeout)
    except AuthenticationError as exc:  # token mode, and no token to send
        raise RayRefused(_no_token(address, exc)) from None
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.UNAUTHENTICATED:
            return  # anything else is ray.init's to find and say
        if is_token_auth_enabled():
            raise RayRefused(f"Ray at {address} refused this process's authentication token ({_token_source()}): "
                             f"{exc.details()}") from None
        raise RayRefused(f"Ray at {address} wants an authentication token: set RAY_AUTH_MODE=token and the cluster's "
                         "token in RAY_AUTH_TOKEN (or a file named by RAY_AUTH_TOKEN_PATH)") from None


def _token_source() -> str:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    return os.environ.get("RAY_AUTH_TOKEN_PATH") or "~/.ray/auth_token"


@contextlib.contextmanager
def _refusal_in_one_line(address: str) -> Iterator[None]:
    """Ray's AuthenticationError (token mode, no token found) as one line."""
    from ray.exceptions import AuthenticationError

    try:
        yield
    except AuthenticationError as exc:
        raise RayRefused(_no_token(address, exc)) from None


def _no_token(address: str, exc: BaseException) -> str:
    said = ray_reason(exc).split(". ", 1)[0].rstrip(".")  # Ray's first sentence; the rest is a page of advice
    return (f"cannot join Ray at {address}: {said}: set RAY_AUTH_TOKEN to the cluster's token (or RAY_AUTH_TOKEN_PATH "
            "to a file that holds it)")


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
