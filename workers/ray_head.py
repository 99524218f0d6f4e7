"""Ray for a long-running process (the server): a local Ray head in a process of its own, or a cluster's address.

A server joins Ray on its first job, from that job's driver thread. Starting a local Ray there would not do: Ray
gives its processes a parent-death signal tied to the *thread* that starts them, so they would die with the first
job's driver thread; and it forks them with a Python ``preexec_fn`` while the server's gRPC threads run, so gRPC
skips its fork handlers and a child may never start. So the local head runs in a child process,
``python -m workers.ray_head CPUS``, started without a ``preexec_fn`` and in a session of its own (a terminal's
Ctrl-C reaches the server, which stops it in order). It prints its GCS address, the server joins it as a driver, and
it runs until its standard input closes: when the server closes it, or when the server dies, however it dies. Its Ray
is a new cluster of its own (:func:`workers.cluster.start_local_ray`): another Ray on the machine is never joined;
when it cannot start, it prints Ray's reason instead, and :meth:`RayHost.connect` raises it in one line.

    host = RayHost()            # or RayHost("ray://10.0.0.5:10001"): join that cluster instead
    host.connect()              # 'Ray: 1 node, 2 CPUs': the first call starts or joins Ray, later ones return at once
    host.close()                # leave Ray and stop the local head
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0
_ADDRESS_LINE = "gcs-address "
_FAILURE_LINE = "not-started "


class RayHost:
    """Ray for this process, started or joined once (thread-safe), left by :meth:`close`."""

    def __init__(self, address: str | None = None, cpus: int | None = None, verbose: bool = False) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.cpus = cpus or os.cpu_count() or 1
        self.verbose = verbose
        self.description: str | None = None
        self._lock = threading.Lock()
        self._joined = False  # this object joined Ray (a test's Ray, already there, is left alone)
        self._head: subprocess.Popen | None = None
        self._closed = False

    def connect(self) -> str:
        """Join Ray (starting the local head first if there is no address); returns a line that says which."""
        with self._lock:
            if self._closed:
                raise RuntimeError("Ray was left: this process is stopping")
            if self.description is None:
                self.description = self._join()
            return self.description

    def _join(self) -> str:
        if self.address is None and "RAY_AUTH_MODE" not in os.environ and "ray" not in sys.modules:
            # The local head authenticates with Ray's token. Ray reads the mode once, when first imported: this
            # process (and the head after it) must say so before then.
            os.environ["RAY_AUTH_MODE"] = "token"
        import ray

        from .cluster import LOOPBACK, connect_ray, describe_cluster

        if ray.is_initialized():
            return describe_cluster()
        if self.address is not None:
            address, node_ip = self.address, None
        else:  # the head's node is 127.0.0.1, where it alone listens: so is this process's, a driver of it
            address, node_ip = f"{LOOPBACK}:{self._start_head().rpartition(':')[2]}", LOOPBACK
        try:
            description = connect_ray(address, verbose=self.verbose, node_ip=node_ip)
        except BaseException:
            self._stop_head()
            raise
        self._joined = True
        return description

    def _start_head(self) -> str:
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (the head's stderr, read back if it fails to start)
        # A process that imported Ray before saying a mode has it disabled: so must its head, to let it in.
        env = {"RAY_AUTH_MODE": "disabled", **os.environ}
        self._head = subprocess.Popen(
            [sys.executable, "-m", "workers.ray_head", str(self.cpus)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None if self.verbose else self._log, start_new_session=True, text=True, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._head.stdout], [], [], 1.0)
            line = self._head.stdout.readline() if ready else ""
            if line.startswith(_ADDRESS_LINE):
                return line[len(_ADDRESS_LINE):].strip()
            if line.startswith(_FAILURE_LINE):
                failure = line[len(_FAILURE_LINE):].strip()
                break
            if ready and not line or self._head.poll() is not None:
                failure = self._failure()
                break
        else:
            failure = f"no address after {START_TIMEOUT_S:.0f} s"
        self._stop_head()
        from .cluster import RayNotStarted  # Ray is imported by now (see _join)

        raise RayNotStarted(failure)

    def _failure(self) -> str:
        """Why a head that closed its output without an address stopped: the last line of its error output."""
        try:
            self._head.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "its process closed its output and went on running"
        self._log.seek(0)
        lines = [line for line in self._log.read().decode(errors="replace").splitlines() if line.strip()]
        return f"it exited with {self._head.returncode}" + (f": {lines[-1]}" if lines else "")

    def close(self) -> None:
        """Leave Ray and stop the local head this object started (its processes with it)."""
        with self._lock:
            self._closed = True
            if self._joined:
                import ray

                ray.shutdown()
                self._joined = False
            self._stop_head()
            self.description = None

    def _stop_head(self) -> None:
        if self._head is None:
            return
        head, self._head = self._head, None
        head.stdin.close()  # the head's signal to stop
        try:
            head.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        head.stdout.close()
        self._log.close()


def run_head(cpus: int) -> None:
    """The head process: start a local Ray, print its address, keep it until standard input closes."""
    import ray

    from workers.cluster import RayNotStarted, start_local_ray

    try:
        address = start_local_ray(cpus, log_to_driver=False, logging_level=logging.ERROR)
    except RayNotStarted as exc:
        print(_FAILURE_LINE + exc.reason, flush=True)
        sys.exit(1)
    print(_ADDRESS_LINE + address, flush=True)
    sys.stdin.buffer.read()
    ray.shutdown()


if __name__ == "__main__":
    run_head(int(sys.argv[1]))
