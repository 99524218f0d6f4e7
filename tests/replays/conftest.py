"""Fixtures of the replay tests: a real Redis (REDIS_URL, else 127.0.0.1:6379 if it answers, else an embedded Valkey)
and a replay store under a key prefix of its own, wiped afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis
from keyspace import wipe

from replay.clients import sync_client
from replay.namespace import namespaced
from replay.store import ReplayStore


@pytest.fixture(scope="session")
def replay_redis_url(redis_url: str) -> str:
    """The Redis of the replay tests (the suite's one, see tests/conftest.py)."""
    return redis_url


@pytest.fixture(scope="session")
def replay_redis(replay_redis_url: str) -> Iterator[redis.Redis]:
    client = sync_client(replay_redis_url)
    yield client
    client.close()


@pytest.fixture
def store(replay_redis: redis.Redis) -> Iterator[ReplayStore]:
    """A replay store under a prefix of its own in the run's namespace; every key under it is deleted after the
    test."""
    prefix = namespaced(f"replays:{secrets.token_hex(6)}")
    yield ReplayStore(replay_redis, prefix=prefix)
    wipe(replay_redis, f"{prefix}:")
