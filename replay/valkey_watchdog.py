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

GOODBYE = b"bye"
PID_FILE = "valkey.pid"  # where the server writes its pid (its working directory is the data folder)
STOP_TIMEOUT_S = 20.0


def watch(valkey_dir: Path, user: int) -> None:
    """Wait for this process's user (its parent, pid ``user``) to leave or die; on its death, stop the server nobody
    uses any more."""
    if sys.stdin.buffer.read().startswith(GOODBYE):
        return
    # A dying process closes its files one by one: the end of this input may come before its lock on ``users``
    # goes. Once this process is handed to another parent, the user's exit is over (the user's pid comes from it,
    # not from getppid() here: it may have died before this line ran).
    while os.getppid() == user:
        time.sleep(0.01)
    with open(valkey_dir / "users", "a+") as users:
        try:
            fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process uses the server (or is stopping it): it is theirs
            return
        pid = valkey_pid(valkey_dir / PID_FILE)
        if pid is not None:
            stop_pid(pid, STOP_TIMEOUT_S)
        (valkey_dir / "url").unlink(missing_ok=True)


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
