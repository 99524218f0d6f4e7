"""The embedded Valkey's watchdog: each process using the server (:mod:`replay.embedded`) starts one, which stops the
server when that process dies without leaving it (SIGKILL, ``os._exit``) and nobody else uses it.

It runs as a script, ``python .../valkey_watchdog.py DATA_DIR USER_PID`` (standard library only, no package imported: it
starts in milliseconds and stays small), and reads its standard input until its process says goodbye (``bye``: it
left the server properly, which is then its business) or dies (the end of the input without it). Then it does what
the last user leaving does: if it can take the folder's ``users`` lock alone (no process uses the server, and none
is stopping it), it stops the server left running, by its pid file: SIGTERM, on which Valkey flushes its
append-only file; SIGKILL after ``STOP_TIMEOUT_S``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import time
from pathlib import Path
from typing import IO

GOODBYE = b"bye"
PID_FILE = "valkey.pid"  # where the server writes its pid (its working directory is the data folder)
STOP_TIMEOUT_S = 20.0
EXIT_WAIT_S = 10.0  # the longest wait for the dead user's threads to be gone (a pid taken again never ends)
# How long the lock is asked for again before leaving the server to the process holding it: what still holds it a
# moment after the user's death (a child forked between fork and exec, say) lets go within it; a live user does not.
LOCK_PATIENCE_S = 3.0


def watch(valkey_dir: Path, user: int) -> None:
    """Wait for this process's user (its parent, pid ``user``) to leave or die; on its death, stop the server nobody
    uses any more."""
    if sys.stdin.buffer.read().startswith(GOODBYE):
        return
    # A dying process closes its files one by one: the end of this input may come before its lock on ``users``
    # goes. Being handed to another parent is not enough either: the thread that started this process may finish
    # dying while another of the user's threads still holds the files, so wait for the whole process (the user's
    # pid comes from it, not from getppid() here: it may have died before this line ran).
    deadline = time.monotonic() + EXIT_WAIT_S
    while (os.getppid() == user or not exited(user)) and time.monotonic() < deadline:
        time.sleep(0.01)
    with open(valkey_dir / "users", "a+") as users:
        if not lock_alone(users, LOCK_PATIENCE_S):  # another process uses the server (or is stopping it): theirs
            return
        pid = valkey_pid(valkey_dir / PID_FILE)
        if pid is not None:
            stop_pid(pid, STOP_TIMEOUT_S)
        (valkey_dir / "url").unlink(missing_ok=True)


def exited(pid: int) -> bool:
    """Every thread of process ``pid`` has exited: it is gone, or a zombie alone in its thread group (a zombie
    leader waits there for its other threads, which may still hold the process's files)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return not running(pid)  # gone, or no /proc (macOS): the process's own state tells
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return fields.get("State", "").strip().startswith("Z") and fields.get("Threads", "1").strip() == "1"


def lock_alone(users: IO[str], patience: float) -> bool:
    """Take ``users`` exclusively (no process uses the server), asking again for ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def stop_pid(pid: int, timeout: float) -> None:
    """SIGTERM to ``pid``, SIGKILL if it still runs ``timeout`` seconds later."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def valkey_pid(pid_file: Path) -> int | None:
    """The pid in a Valkey pid file if that process runs and is a Valkey server (not a later process given the
    same pid)."""
    try:
        text = pid_file.read_text().strip()
    except OSError:
        return None
    if not text.isdigit() or not running(int(text)):
        return None
    try:
        command = Path(f"/proc/{text}/cmdline").read_bytes()
    except OSError:  # no /proc (macOS): trust the pid file
        return int(text)
    return int(text) if b"valkey-server" in command else None


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a dead server whose new parent has not collected it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


if __name__ == "__main__":
    watch(Path(sys.argv[1]), int(sys.argv[2]))
