"""A replay collection as a Parquet file, one row per replay (``cardtable replay export COLLECTION --format
parquet -o FILE``; the columns: :data:`replay.columnar.REPLAY_FIELDS`).

Every replay is decoded, its moves replayed through the engine (the scores, the deal results and each move's action
come from there), a page of the store at a time. With ``workers`` above 1 the pages are decoded in that many
processes, at most two pages per process ahead of the writer, and written in the collection's order: memory stays
bounded whatever the collection's size.

>>> export_collection(store, "sim-1a2b3c4d5e6f", Path("deals.parquet"), workers=2)  # doctest: +SKIP
1000000
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa

from replay import ReplayError, decode
from replay.columnar import REPLAY_SCHEMA, DealRows, ParquetOut, options_json
from replay.store import ReplayStore, format_id
from workers.counters import add_deal_counters

PAGE = 1000


class EmptyCollection(ValueError):
    """The collection holds no replay: there is nothing to export."""


def export_collection(store: ReplayStore, collection: str, path: Path, workers: int = 1,
                      on_progress: Callable[[int, int], None] | None = None) -> int:
    """Write every replay of ``collection`` into the Parquet file ``path``; returns how many. KeyError for a
    collection that does not exist, :class:`EmptyCollection` for one without replays, ValueError for a replay that
    does not decode, OSError when ``path`` cannot be written: in each case no file is left at ``path`` (an existing
    one stays as it was). ``on_progress`` gets the replays written so far and the collection's count, a page at a
    time."""
    if not store.exists(collection):
        raise KeyError(f"no collection {collection!r}")
    total = store.count(collection)
    if total == 0:
        raise EmptyCollection(f"collection {collection!r} holds no replays: there is nothing to export")
    metadata = {"cardtable.table": "replays", "cardtable.collection": collection}
    with ParquetOut(path, REPLAY_SCHEMA, metadata) as out:
        for batch in _batches(store, collection, workers if total > PAGE else 1):
            out.write(batch)
            if on_progress is not None:
                on_progress(out.rows, total)
        out.commit()
    return out.rows


def replay_batch(collection: str, items: list[tuple[int, bytes]]) -> pa.RecordBatch:
    """The rows of some replays of ``collection`` (index, bytes); ValueError naming the first that does not decode."""
    rows = DealRows(REPLAY_SCHEMA)
    for index, data in items:
        rows.add(**replay_row(collection, index, data))
    return rows.batch()


def replay_row(collection: str, index: int, data: bytes) -> dict[str, Any]:
    """One replay's row, as :meth:`replay.columnar.DealRows.add` takes it."""
    replay_id = format_id(collection, index)
    try:
        replay = decode(data)
    except ReplayError as exc:
        raise ValueError(f"replay {replay_id} does not decode: {exc}") from None
    header = replay.header
    counters: Counter[str] = Counter()
    for result in replay.deal_results:
        add_deal_counters(counters, result)
    winners = replay.final.winners
    return {
        "replay_id": replay_id, "collection": collection, "index": index,
        "game": header.game, "players": header.players, "scope": header.scope, "seed": header.seed,
        "policies": list(header.policies), "options": options_json(header.options), "scores": replay.scores,
        "winners": None if winners is None else list(winners), "deals": len(replay.deal_results),
        "counters": counters, "move_count": len(replay.moves),
        "deal_index": header.deal_index, "first_dealer": header.first_dealer, "moves": replay.moves,
        "bytes": replay.size,
    }


def _pages(store: ReplayStore, collection: str) -> Iterator[list[tuple[int, bytes]]]:
    start: int | None = 0
    while start is not None:
        page = store.page(collection, start, PAGE)
        if page.items:
            yield page.items
        start = page.next_start


def _batches(store: ReplayStore, collection: str, workers: int) -> Iterator[pa.RecordBatch]:
    """The collection's record batches, in order, a page each."""
    if workers <= 1:
        for items in _pages(store, collection):
            yield replay_batch(collection, items)
        return
    # spawn: a fresh interpreter, not a fork of a process that holds Redis connections and threads. Ctrl-C is this
    # process's to handle (the file is removed, the pool shut down), not its workers' (a traceback each).
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
    ahead: deque[Future[pa.RecordBatch]] = deque()
    try:
        for items in _pages(store, collection):
            ahead.append(pool.submit(replay_batch, collection, items))
            if len(ahead) >= 2 * workers:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
