"""Fixtures shared across the suite (keep this file small: a fixture lives here only when several files use it)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import redis
from click.testing import CliRunner


@pytest.fixture
def cli_runner() -> CliRunner:
    """Runs ``cardtable`` commands in-process: ``cli_runner.invoke(cli, ["games", "--json"])``."""
    return CliRunner()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The suite's real Redis: REDIS_URL if set, else 127.0.0.1:6379 if it answers, else an embedded Valkey."""
    url = os.environ.get("REDIS_URL")
    if not url:
        try:
            redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.5).ping()
            url = "redis://127.0.0.1:6379"
        except (redis.RedisError, OSError):
            url = None
    if url is not None:
        yield url
        return
    from replay.embedded import EmbeddedValkey

    with EmbeddedValkey(tmp_path_factory.mktemp("valkey")) as valkey:
        yield valkey.url


@pytest.fixture(scope="session")
def grpc_redis_url(redis_url: str) -> str:
    """The Redis of the gRPC tests (the suite's one)."""
    return redis_url
