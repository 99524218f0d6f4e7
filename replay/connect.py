"""Where the replay store lives: ``REDIS_URL`` when set, else the embedded Valkey of :mod:`replay.embedded`; and the
Redis clients of long-lived processes (a server, a Ray worker), which try a command once more when its connection
dropped (Redis restarted, or a connection idle too long was closed), so the first call after a restart works.

>>> with open_store() as store:  # doctest: +SKIP
...     print(store.collections())
>>> client = sync_client("redis://127.0.0.1:6379")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
import redis.asyncio
import redis.asyncio.retry
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from .embedded import EmbeddedValkey
from .store import ReplayStore

# A dropped connection is tried again once, after a short pause (a fresh connection: the pool drops the dead one).
RETRIES = 1
RETRY_BACKOFF_S = (0.05, 0.5)  # first pause, longest pause
_RETRY_ON = [redis.ConnectionError, redis.TimeoutError]


def _backoff() -> ExponentialBackoff:
    return ExponentialBackoff(base=RETRY_BACKOFF_S[0], cap=RETRY_BACKOFF_S[1])


def sync_client(url: str, **options: Any) -> redis.Redis:
    """A client for ``url`` that tries a command again once when its connection dropped (``options``: from_url's)."""
    return redis.Redis.from_url(url, retry=Retry(_backoff(), RETRIES), retry_on_error=list(_RETRY_ON), **options)


def async_client(url: str, **options: Any) -> redis.asyncio.Redis:
    """:func:`sync_client` for asyncio."""
    return redis.asyncio.Redis.from_url(url, retry=redis.asyncio.retry.Retry(_backoff(), RETRIES),
                                        retry_on_error=list(_RETRY_ON), **options)


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
