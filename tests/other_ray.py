"""Another Ray on this machine, beside cardtable's own: a real ``ray start --head`` on loopback that asks for an
authentication token, with a Ray Client server (tests/workers/test_other_rays.py, `cardtable simulate` and `cardtable
serve` beside it).

Its temp folder is ``RAY_TMPDIR/ray`` for a ``RAY_TMPDIR`` of its own (:attr:`OtherRay.tmpdir`): ``ray start`` writes
its address there into ``ray_current_cluster``, where a Ray started with that ``RAY_TMPDIR`` looks for a cluster to
join, as one started plainly looks into /tmp/ray (the file other Rays of this machine use is never touched). It is
stopped by its own process (``ray start --block`` stops what it started) and then, if any of its processes is left,
by their recorded PIDs: never by ``ray stop``, which would stop every Ray of the machine."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from listening import descendants, process_table

# `ray` with every process of the head on 127.0.0.1 (see loopback_ray.py).
RAY = [sys.executable, str(Path(__file__).parent / "workers" / "loopback_ray.py")]
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class OtherRay:
    gcs: str  # 127.0.0.1:PORT
    client: str  # ray://127.0.0.1:PORT
    token: str
    tmpdir: Path  # the RAY_TMPDIR under which its temp folder and ray_current_cluster lie

    def client_env(self, token: str | None = "") -> dict[str, str]:
        """This environment for a Ray Client of it: its own token by default, ``token`` if given, none if None."""
        env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")}
        if token is None:
            env.pop("RAY_AUTH_MODE", None)
            return env
        return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token or self.token}


def short_temp_dir(prefix: str) -> Path:
    """A new folder under /tmp with a short path: Ray's socket paths within it must stay under 108 bytes."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


@contextlib.contextmanager
def other_ray_head() -> Iterator[OtherRay]:
    tmpdir = short_temp_dir("ctor-")
    gcs_port, client_port, token = free_port(), free_port(), secrets.token_hex(16)
    # One node on 127.0.0.1: its Ray Client servers (started per client) must join it there too, not at this
    # machine's outward address, which loopback_ray.py's patch does not reach (they are processes of their own).
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token, "RAY_USAGE_STATS_ENABLED": "0",
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    env.pop("RAY_ADDRESS", None)
    with open(tmpdir / "head.log", "w") as log:
        head = subprocess.Popen(
            [*RAY, "start", "--head", "--block", f"--port={gcs_port}", f"--ray-client-server-port={client_port}",
             "--node-ip-address=127.0.0.1", "--num-cpus=1", "--include-dashboard=false", "--disable-usage-stats",
             f"--temp-dir={tmpdir / 'ray'}"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_ready(head, tmpdir, client_port)
        yield OtherRay(f"127.0.0.1:{gcs_port}", f"ray://127.0.0.1:{client_port}", token, tmpdir)
    finally:
        stop_node(head)
        shutil.rmtree(tmpdir, ignore_errors=True)


def stop_node(node: subprocess.Popen) -> None:
    """Stop a ``ray start --block`` process: terminated, it stops the processes it started; any of them still
    running then is killed by its recorded PID."""
    family = descendants(node.pid)
    node.terminate()
    try:
        node.wait(timeout=30)
    except subprocess.TimeoutExpired:
        node.kill()
        node.wait()
    _kill_left(family)


def _wait_ready(head: subprocess.Popen, tmpdir: Path, client_port: int) -> None:
    """Until ``ray start`` wrote its address (it does once the head runs) and the Ray Client server listens."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if head.poll() is not None:
            raise RuntimeError(f"ray start exited with {head.returncode}: {(tmpdir / 'head.log').read_text()[-2000:]}")
        if (tmpdir / "ray" / "ray_current_cluster").exists():
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", client_port), timeout=1):
                return
        time.sleep(0.5)
    raise TimeoutError(f"the other Ray did not start in {START_TIMEOUT_S} s")


def _kill_left(family: dict[int, tuple[str, int, str, str]]) -> None:
    """SIGKILL those of the recorded processes still running (the same start time: not a new process given the pid)."""
    table = process_table()
    for pid, row in family.items():
        if pid in table and table[pid][3] == row[3]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
