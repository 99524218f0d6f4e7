"""Where the replay store lives: ``REDIS_URL`` when set, else the embedded Valkey of :mod:`replay.embedded`.

>>> with open_store() as store:  # doctest: +SKIP
...     print(store.collections())
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from .embedded import EmbeddedValkey
from .store import ReplayStore


@contextmanager
def open_redis(url: str | None = None, data_dir: Path | None = None) -> Iterator[redis.Redis]:
    """A client for ``url``, else ``$REDIS_URL``, else the embedded Valkey (stopped again on exit if we started it)."""
    url = url or os.environ.get("REDIS_URL")
    embedded = None
    if not url:
        embedded = EmbeddedValkey(data_dir)
        url = embedded.start()
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except (OSError, redis.RedisError) as exc:
        client.close()
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
