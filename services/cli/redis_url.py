"""The ``--redis-url`` option every command shares: a URL redis-py can open, checked as it is read.

>>> REDIS_URL.convert("redis://127.0.0.1:6379/7", None, None)
'redis://127.0.0.1:6379/7'
>>> REDIS_URL.convert("127.0.0.1:6379", None, None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
click.exceptions.BadParameter: '127.0.0.1:6379' is not a Redis URL: ... (for example redis://127.0.0.1:6379/0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
import redis
from redis.connection import parse_url

# How long Redis gets to answer before a command gives up on it.
REDIS_TIMEOUT_S = 5.0


class RedisUrl(click.ParamType):
    """A Redis URL (``redis://``, ``rediss://`` or ``unix://``), refused with redis-py's reason otherwise."""

    name = "url"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            parse_url(value)
        except (ValueError, TypeError) as exc:
            self.fail(f"{value!r} is not a Redis URL: {exc} (for example redis://127.0.0.1:6379/0)", param, ctx)
        return str(value)


REDIS_URL = RedisUrl()


def redis_url_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--redis-url``, also read from ``$REDIS_URL``; None when neither is given (the embedded Valkey)."""
    return click.option("--redis-url", envvar="REDIS_URL", default=None, type=REDIS_URL, help=help)


def check_reachable(url: str, what: str = "") -> None:
    """A one-line ClickException (``what`` before it, e.g. ``--save: ``) unless the Redis at ``url`` answers."""
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT_S,
                                  socket_timeout=REDIS_TIMEOUT_S) as client:
            client.ping()
    except (redis.RedisError, OSError) as exc:
        raise click.ClickException(f"{what}cannot reach Redis at {url}: {exc}") from None
