"""A real Redis Cluster on loopback ports for the tests: six ``redis-server --cluster-enabled yes`` processes (three
primaries, each with a replica) joined by ``redis-cli --cluster create``, each with its folder under ``root``.

>>> with LoopbackCluster(tmp_path) as cluster:    # doctest: +SKIP
...     client = sync_client(cluster.url)          # redis+cluster://127.0.0.1:<port>

With ``tls=(cert, key)`` every node speaks TLS alone (clients, the cluster bus, replication), with a certificate that
is its own CA, and :attr:`LoopbackCluster.url` is a ``rediss+cluster://`` one that trusts it.
"""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import redis

NODES = 6
START_DEADLINE_S = 30.0
# Small, so that a killed primary's replica takes over within a few seconds (the default is 15 s).
NODE_TIMEOUT_MS = 1500
PR_SET_PDEATHSIG = 1


def _end_with_parent() -> None:
    """Run in a node's process before redis-server starts: the node gets SIGTERM when the test run that started it
    ends, even killed (no fixture's teardown runs then; the nodes were left running when a run was killed)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports whose cluster bus ports (port + 10000) are free too."""
    ports: list[int] = []
    held: list[socket.socket] = []
    try:
        while len(ports) < count:
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            held.append(sock)
            port = sock.getsockname()[1]
            if port + 10000 > 65535:
                continue
            bus = socket.socket()
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
            finally:
                bus.close()
            ports.append(port)
    finally:
        for sock in held:
            sock.close()
    return ports


class LoopbackCluster:
    """Start with ``with`` (or :meth:`start`); :meth:`kill` ends one node with SIGKILL (a crash)."""

    def __init__(self, root: Path, node_timeout_ms: int = NODE_TIMEOUT_MS,
                 tls: tuple[Path, Path] | None = None) -> None:
        self.root = root
        self.node_timeout_ms = node_timeout_ms
        self.tls = tls  # (certificate, key): the certificate is also the CA everyone trusts
        self.ports = free_ports(NODES)
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        if self.tls is None:
            return f"redis+cluster://127.0.0.1:{self.ports[0]}"
        return f"rediss+cluster://127.0.0.1:{self.ports[0]}?ssl_ca_certs={self.tls[0]}"

    def _listen(self, port: int) -> list[str]:
        """redis-server's options to listen on ``port`` (TLS alone, and on the bus and for replication, with tls)."""
        if self.tls is None:
            return ["--port", str(port)]
        cert, key = (str(path) for path in self.tls)
        return ["--port", "0", "--tls-port", str(port), "--tls-cluster", "yes", "--tls-replication", "yes",
                "--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", cert,
                "--tls-auth-clients", "no"]

    def node(self, port: int, **options: object) -> redis.Redis:
        """A plain client of the node on ``port``."""
        if self.tls is not None:
            options.update(ssl=True, ssl_ca_certs=str(self.tls[0]))
        return redis.Redis(host="127.0.0.1", port=port, **options)  # type: ignore[arg-type]

    def __enter__(self) -> LoopbackCluster:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        try:
            for port in self.ports:
                folder = self.root / str(port)
                folder.mkdir(parents=True, exist_ok=True)
                self.processes[port] = subprocess.Popen(
                    ["redis-server", "--cluster-enabled", "yes", *self._listen(port), "--bind", "127.0.0.1",
                     "--cluster-config-file", str(folder / "nodes.conf"), "--dir", str(folder), "--save", "",
                     "--appendonly", "no", "--cluster-node-timeout", str(self.node_timeout_ms),
                     "--logfile", str(folder / "redis.log")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    preexec_fn=_end_with_parent if sys.platform == "linux" else None)
            self._wait(lambda: all(self._answers(port) for port in self.ports), "the nodes to answer")
            tls = [] if self.tls is None else ["--tls", "--cacert", str(self.tls[0])]
            subprocess.run(["redis-cli", *tls, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                            "--cluster-replicas", "1", "--cluster-yes"], check=True, capture_output=True,
                           timeout=START_DEADLINE_S)
            self._wait(lambda: self.healthy() and self._replicating(),
                       "every node to say 'cluster_state:ok', and each replica to follow its primary")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def kill(self, port: int) -> None:
        """Crash the node on ``port`` (SIGKILL: no shutdown, no last save)."""
        process = self.processes[port]
        process.send_signal(signal.SIGKILL)
        process.wait()

    def primaries(self) -> list[int]:
        """The ports of the live primaries, as the first live node that answers sees them."""
        for port in self.live_ports():
            try:
                with self.node(port, socket_timeout=2, decode_responses=True) as client:
                    text = client.execute_command("CLUSTER", "NODES")
            except redis.RedisError:
                continue
            rows = [line.split() for line in str(text).splitlines()]
            return sorted(int(row[1].split("@")[0].rpartition(":")[2]) for row in rows
                          if "master" in row[2] and "fail" not in row[2])
        return []

    def live_ports(self) -> list[int]:
        return [port for port, process in self.processes.items() if process.poll() is None]

    def healthy(self) -> bool:
        """Every live node says the cluster is ok, and each slot range has a live primary."""
        return all(self._info(port).get("cluster_state") == "ok" for port in self.live_ports())

    def _replicating(self) -> bool:
        """Each replica follows its primary, and every node's CLUSTER SLOTS (what clients learn) shows it."""
        roles = [self._replication(port) for port in self.ports]
        replicas = [role for role in roles if role.get("role") == "slave"]
        if len(replicas) != NODES // 2 or any(role.get("master_link_status") != "up" for role in replicas):
            return False
        for port in self.ports:
            try:
                with self.node(port, socket_timeout=2) as client:
                    ranges = client.execute_command("CLUSTER SLOTS")
            except redis.RedisError:
                return False
            if len(ranges) != NODES // 2 or any(len(section) < 4 for section in ranges):
                return False
        return True

    def _replication(self, port: int) -> dict[str, str]:
        try:
            with self.node(port, socket_timeout=2, decode_responses=True) as client:
                return {str(k): str(v) for k, v in client.info("replication").items()}
        except redis.RedisError:
            return {}

    def wait_healthy(self, what: str = "the cluster to be ok again") -> None:
        self._wait(self.healthy, what)

    def _info(self, port: int) -> dict[str, str]:
        try:
            with self.node(port, socket_timeout=2, decode_responses=True) as client:
                text = client.execute_command("CLUSTER", "INFO")
        except redis.RedisError:
            return {}
        if isinstance(text, dict):
            return {str(k): str(v) for k, v in text.items()}
        return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line)

    def _answers(self, port: int) -> bool:
        try:
            with self.node(port, socket_timeout=1, socket_connect_timeout=1) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    @staticmethod
    def _wait(check: object, what: str, deadline_s: float = START_DEADLINE_S) -> None:
        deadline = time.monotonic() + deadline_s
        pause = 0.05
        while not check():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise TimeoutError(f"the Redis Cluster test fixture waited {deadline_s:.0f} s for {what}")
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
