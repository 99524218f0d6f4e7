"""The memory a Parquet export takes, measured in a fresh process (Arrow's pool keeps its peak for the process's life):
prints ``{"rows", "rss_growth", "arrow_peak", "arrow_total", "seconds"}`` as JSON in bytes: how much the process's
peak resident size grew past what it held once its modules were imported, the peak of Arrow's buffers (its memory
pool), and the size in Arrow of the whole table written (read back once the peaks are taken).

    python tests/replays/memory_probe.py rows 200000 OUT.parquet      # synthetic rows of 30 moves, pages of 1000
    python tests/replays/memory_probe.py export COLLECTION OUT.parquet REDIS_URL PREFIX WORKERS PAGE ROW_GROUP_ROWS
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import redis

import replay.columnar as columnar
import services.app.replay_columns as replay_columns
from replay.columnar import REPLAY_SCHEMA, DealRows, ParquetOut
from replay.store import ReplayStore

MOVES = [(seat % 2, action) for seat, action in enumerate(["7H", "QS:3C,TD", "AC", "KS:", "+4C", "done"] * 5)]


def synthetic(rows: int, path: Path) -> int:
    """``rows`` rows of a realistic size, written a page of 1000 at a time as an export writes them."""
    with ParquetOut(path, REPLAY_SCHEMA) as out:
        page = DealRows(REPLAY_SCHEMA)
        for index in range(rows):
            page.add({"cards[0]": 30, "cards[1]": 22, "tablanettes[0]": index % 3, "tablanettes[1]": 0},
                     MOVES, replay_id=f"c/{index}", collection="c", index=index, game="tablanette", players=2,
                     scope="deal", seed=index * 7919, policies=["greedy", "random"], options="{}",
                     scores=[index % 40, 20], winners=[0], deals=1, move_count=len(MOVES), deal_index=0,
                     first_dealer=None, bytes=24)
            if len(page) == 1000:
                out.write(page.batch())
        out.write(page.batch())
        out.commit()
    return out.rows


def export(collection: str, path: Path, url: str, prefix: str, workers: int, page: int, row_group: int) -> int:
    replay_columns.PAGE = page  # small pages and row groups: a small collection holds many of them
    columnar.ROW_GROUP_ROWS = row_group
    return replay_columns.export_collection(ReplayStore(redis.Redis.from_url(url), prefix), collection, path, workers)


def main(argv: list[str]) -> None:
    before = _peak_rss()
    started = time.perf_counter()
    if argv[0] == "rows":
        rows = synthetic(int(argv[1]), Path(argv[2]))
    else:
        rows = export(argv[1], Path(argv[2]), argv[3], argv[4], *map(int, argv[5:8]))
    seconds = time.perf_counter() - started
    rss_growth, arrow_peak = _peak_rss() - before, pa.default_memory_pool().max_memory()
    print(json.dumps({"rows": rows, "rss_growth": rss_growth, "arrow_peak": arrow_peak,
                      "arrow_total": pq.read_table(argv[2]).nbytes, "seconds": seconds}))


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux counts it in KiB


if __name__ == "__main__":
    main(sys.argv[1:])
