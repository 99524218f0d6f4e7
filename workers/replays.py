"""The replays of a running chunk, buffered and written to the replay store in pipelined batches.

>>> sink = ReplayBatch(lambda items: print(len(items), "written"), batch=2)
>>> sink.add(0, b"CT..."); sink.add(1, b"CT...")
2 written
"""

from __future__ import annotations

from collections.abc import Callable

import redis

WriteMany = Callable[[list[tuple[int, bytes]]], None]
BATCH = 500


class ReplayBatch:
    """Collects ``(deal number, replay bytes)`` and hands them to ``write_many`` a batch at a time."""

    def __init__(self, write_many: WriteMany, batch: int = BATCH) -> None:
        self.write_many = write_many
        self.batch = batch
        self.items: list[tuple[int, bytes]] = []
        self.written = 0

    def add(self, number: int, data: bytes) -> None:
        self.items.append((number, data))
        if len(self.items) >= self.batch:
            self.flush()

    def flush(self) -> None:
        if self.items:
            self.write_many(self.items)
            self.written += len(self.items)
            self.items = []


def replay_sink(client: redis.Redis, collection: str, prefix: str | None = None, batch: int = BATCH) -> ReplayBatch:
    """A batch writer into ``collection`` of the replay store (under ``prefix``), whose replay ids are the job's deal
    numbers."""
    from replay.store import ReplayStore

    store = ReplayStore(client, prefix)
    return ReplayBatch(lambda items: store.put_many(collection, items), batch)
