"""The test cluster's nodes (tests/redis_cluster.py) end with the test run that started them, even a killed one."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None or shutil.which("redis-cli") is None
                                or sys.platform != "linux", reason="needs redis-server and redis-cli, on Linux")

TESTS = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (ended, not yet reaped by init) counts as ended
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" not in status.read_text()


def test_the_nodes_stop_when_the_run_that_started_them_is_killed(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        sys.path.insert(0, {str(TESTS)!r})
        from redis_cluster import LoopbackCluster
        cluster = LoopbackCluster(Path({str(tmp_path)!r}))
        cluster.start()
        print(" ".join(str(p.pid) for p in cluster.processes.values()), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == -signal.SIGKILL, run.stderr
    pids = [int(pid) for pid in run.stdout.split()]
    assert len(pids) == 6
    wait_until(lambda: not any(_alive(pid) for pid in pids), 10, "the killed run's cluster nodes to stop")
