"""The test run's keys in Redis. Every store of the run (in this process, in the servers and commands it starts, in
Ray's workers) writes under the run's own key namespace, ``CARDTABLE_KEY_PREFIX`` (see :mod:`replay.namespace`), set
by tests/conftest.py before any test and wiped when the run ends: a run leaves nothing behind in a shared Redis."""

from __future__ import annotations

import secrets

import redis

NAMESPACE = f"cttest:{secrets.token_hex(4)}:"


def wipe(client: redis.Redis, prefix: str) -> None:
    """Delete every key that starts with ``prefix``."""
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start:start + 500])
