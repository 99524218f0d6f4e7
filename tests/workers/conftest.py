"""Fixtures of the simulation tests: one Redis and one local Ray (2 CPUs) for the whole session, and a job store
under a prefix of its own that is wiped afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import ray
import redis

from workers.cluster import connect_ray
from workers.jobstore import JobStore


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """One local Ray with 2 CPUs shared by every test of the session that needs Ray."""
    connect_ray(cpus=2)
    yield
    ray.shutdown()


def wipe(client: redis.Redis, prefix: str) -> None:
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start:start + 500])


@pytest.fixture(scope="session")
def session_prefix(redis_client: redis.Redis) -> Iterator[str]:
    """The root of this session's keys, wiped once more at the end (a cancelled task may write a last progress
    report after its test has cleaned up)."""
    root = f"ct:test:{secrets.token_hex(4)}:"
    yield root
    wipe(redis_client, root)


@pytest.fixture
def test_prefix(redis_client: redis.Redis, session_prefix: str) -> Iterator[str]:
    """A key prefix for this test alone, wiped afterwards."""
    prefix = f"{session_prefix}{secrets.token_hex(4)}:"
    yield prefix
    wipe(redis_client, prefix)


@pytest.fixture
def job_store(redis_client: redis.Redis, test_prefix: str) -> JobStore:
    return JobStore(redis_client, test_prefix)
