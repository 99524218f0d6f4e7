"""Fixtures of the simulation tests: one Redis for the whole session (Ray: ``local_ray`` in tests/conftest.py), and
a job store under a prefix of its own that is wiped afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis
from keyspace import wipe

from replay.clients import sync_client
from replay.namespace import namespaced
from workers.jobstore import JobStore


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> redis.Redis:
    return sync_client(redis_url)


@pytest.fixture
def test_prefix(redis_client: redis.Redis) -> Iterator[str]:
    """A key prefix for this test alone (in the run's namespace, wiped once more at the end: a cancelled task may
    write a last progress report after its test has cleaned up), wiped afterwards."""
    prefix = namespaced(f"ct:test:{secrets.token_hex(4)}:")
    yield prefix
    wipe(redis_client, prefix)


@pytest.fixture
def job_store(redis_client: redis.Redis, test_prefix: str) -> JobStore:
    return JobStore(redis_client, test_prefix)
