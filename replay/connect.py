"""Where the replay store lives: ``REDIS_URL`` when set, else the embedded Valkey of :mod:`replay.embedded`. The
clients themselves come from :mod:`replay.clients` (a plain Redis, or a Redis Cluster for ``redis+cluster://``),
and try a command again when its connection dropped, so the first call after a restart (or a failover) works.

>>> with open_store() as store:  # doctest: +SKIP
...     print(store.collections())
>>> client = sync_client("redis://127.0.0.1:6379")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from .clients import Client, async_client, sync_client
from .embedded import EmbeddedValkey
from .store import ReplayStore

__all__ = ["async_client", "open_redis", "open_store", "sync_client"]


@contextmanager
def open_redis(url: str | None = None, data_dir: Path | None = None) -> Iterator[Client]:
    """A client for ``url``, else ``$REDIS_URL``, else the embedded Valkey (stopped again on exit if we started it)."""
    url = url or os.environ.get("REDIS_URL")
    embedded = None
    if not url:
        embedded = EmbeddedValkey(data_dir)
        url = embedded.start()
    try:
        client = sync_client(url)
        client.ping()
    except (OSError, redis.RedisError) as exc:
        if embedded is not None:
            embedded.stop()
        raise ConnectionError(f"cannot reach Redis at {url}: {exc}") from None
    try:
        yield client
    finally:
        client.close()
        if embedded is not None:
            embedded.stop()


@contextmanager
def open_store(url: str | None = None, data_dir: Path | None = None,
               prefix: str | None = None) -> Iterator[ReplayStore]:
    """The replay store of :func:`open_redis`."""
    with open_redis(url, data_dir) as client:
        yield ReplayStore(client, prefix)
