"""The ``--redis-url`` option every command shares: a URL redis-py can open, checked as it is read; a
``redis+cluster://`` (``rediss+cluster://``) URL names any one node of a Redis Cluster.

>>> REDIS_URL.convert("redis://127.0.0.1:6379/7", None, None)
'redis://127.0.0.1:6379/7'
>>> REDIS_URL.convert("redis+cluster://10.0.0.5:7000", None, None)
'redis+cluster://10.0.0.5:7000'
>>> REDIS_URL.convert("127.0.0.1:6379", None, None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
click.exceptions.BadParameter: '127.0.0.1:6379' is not a Redis URL: ... (for example redis://127.0.0.1:6379/0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

# How long Redis gets to answer before a command gives up on it.
REDIS_TIMEOUT_S = 5.0


class RedisUrl(click.ParamType):
    """A Redis URL (``redis://``, ``rediss://``, ``unix://``, or a cluster's ``redis+cluster://`` or
    ``rediss+cluster://``), refused with redis-py's reason otherwise."""

    name = "url"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        # Redis's client where a URL is given: `cardtable play` without --save, and help, go without it.
        from redis.connection import parse_url

        from replay.clients import cluster_node_url

        try:
            node = cluster_node_url(value)
            options = parse_url(value if node is None else node)
            if node is not None and (options.get("path") or options.get("db")):
                raise ValueError("a Redis Cluster is reached over TCP and has database 0 alone")
        except (ValueError, TypeError, AttributeError) as exc:
            self.fail(f"{value!r} is not a Redis URL: {exc} (for example redis://127.0.0.1:6379/0)", param, ctx)
        return str(value)


REDIS_URL = RedisUrl()


def redis_url_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--redis-url``, also read from ``$REDIS_URL``; None when neither is given (the embedded Valkey)."""
    return click.option("--redis-url", envvar="REDIS_URL", default=None, type=REDIS_URL, help=help)


def check_reachable(url: str, what: str = "") -> None:
    """A one-line ClickException (``what`` before it, e.g. ``--save: ``) unless the Redis at ``url`` answers."""
    import redis

    from replay.clients import sync_client

    try:
        with sync_client(url, patience=0, socket_connect_timeout=REDIS_TIMEOUT_S,
                         socket_timeout=REDIS_TIMEOUT_S) as client:
            client.ping()
    except (redis.RedisError, OSError) as exc:
        raise click.ClickException(f"{what}cannot reach Redis at {url}: {exc}") from None
