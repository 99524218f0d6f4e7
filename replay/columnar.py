"""Deals as columnar data: one Parquet row per deal (or match), written a record batch at a time, read as they are by
DuckDB, polars and pandas (docs/analysis.md).

Two tables share the columns of :data:`DEAL_FIELDS`, with the same names, types and meaning: a replay collection's
export (:data:`REPLAY_FIELDS` around them, ``cardtable replay export COLLECTION --format parquet``) and a job's results
(``cardtable simulate --results parquet:PATH``, :mod:`workers.results`). A file is written under a temporary name
beside its target and renamed into place when complete, so a failed or interrupted write leaves no file behind.

>>> rows = DealRows(pa.schema(DEAL_FIELDS))
>>> rows.add(game="tablanette", players=2, scope="deal", seed=7, policies=["greedy", "random"], options="{}",
...          scores=[12, 13], winners=[1], deals=1, counters={"tablanettes[0]": 1}, move_count=64)
>>> batch = rows.batch()
>>> batch.num_rows, batch.column("counters")[0].as_py(), len(rows)
(1, [('tablanettes[0]', 1)], 0)
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

COUNTERS = pa.map_(pa.string(), pa.int64())
MOVES = pa.list_(pa.struct([pa.field("seat", pa.int8(), nullable=False),
                            pa.field("action", pa.string(), nullable=False)]))

# The columns of a deal (or a match) in both tables.
DEAL_FIELDS = [
    pa.field("game", pa.string(), nullable=False),
    pa.field("players", pa.int8(), nullable=False),
    pa.field("scope", pa.string(), nullable=False),  # "deal" or "match": what the row covers
    pa.field("seed", pa.uint64(), nullable=False),  # the match seed (engine.new_match)
    pa.field("policies", pa.list_(pa.string()), nullable=False),  # one label per seat
    pa.field("options", pa.string(), nullable=False),  # a JSON object: the options that differ from the defaults
    pa.field("scores", pa.list_(pa.int64()), nullable=False),  # per seat (partners share their side's)
    pa.field("winners", pa.list_(pa.int8())),  # the seats that won the match; null while it is not over
    pa.field("deals", pa.int32(), nullable=False),  # deals played (more than 1 in a match)
    pa.field("counters", COUNTERS, nullable=False),  # the deal results' facts, as the job results count them
    pa.field("move_count", pa.int32(), nullable=False),
]

# A replay collection's export: its ids, the deal's columns, where the replay starts and its moves.
REPLAY_FIELDS = [
    pa.field("replay_id", pa.string(), nullable=False),
    pa.field("collection", pa.string(), nullable=False),
    pa.field("index", pa.int64(), nullable=False),
    *DEAL_FIELDS,
    pa.field("deal_index", pa.int32(), nullable=False),  # from 0: a later deal of a match has its own replay
    pa.field("first_dealer", pa.int8()),  # null when the engine drew it
    pa.field("moves", MOVES, nullable=False),
    pa.field("bytes", pa.int32(), nullable=False),  # the replay's size
]
REPLAY_SCHEMA = pa.schema(REPLAY_FIELDS)

# A row group is written once this many rows, or bytes of Arrow data, are buffered: large enough for Parquet's
# encodings to pay, small enough to bound the memory of a million-deal file.
ROW_GROUP_ROWS = 65_536
ROW_GROUP_BYTES = 32 << 20
COMPRESSION = "zstd"


def options_json(options: Mapping[str, Any]) -> str:
    """The ``options`` column: a JSON object, keys sorted.

    >>> options_json({"target": 101, "max_deals": 1})
    '{"max_deals":1,"target":101}'
    """
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"))


class DealRows:
    """Rows gathered column by column into plain lists, then made into one record batch of ``schema`` (a map or a
    list of moves is kept as flat keys, values and offsets, never a Python object per entry).

    Values are given by column name; ``counters`` is a mapping and ``moves`` a sequence of (seat, action) pairs.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self._plain = [name for name in schema.names if name not in ("counters", "moves")]
        self._reset()

    def _reset(self) -> None:
        self._columns: dict[str, list[Any]] = {name: [] for name in self._plain}
        self._counter_offsets: list[int] = [0]
        self._counter_keys: list[str] = []
        self._counter_values: list[int] = []
        self._move_offsets: list[int] = [0]
        self._move_seats: list[int] = []
        self._move_actions: list[str] = []
        self._rows = 0

    def __len__(self) -> int:
        return self._rows

    def add(self, counters: Mapping[str, int], moves: Sequence[tuple[int, str]] = (), **values: Any) -> None:
        for name in self._plain:
            self._columns[name].append(values[name])
        self._counter_keys += counters.keys()
        self._counter_values += counters.values()
        self._counter_offsets.append(len(self._counter_keys))
        for seat, action in moves:
            self._move_seats.append(seat)
            self._move_actions.append(action)
        self._move_offsets.append(len(self._move_seats))
        self._rows += 1

    def batch(self) -> pa.RecordBatch:
        """The rows added since the last batch, as one record batch (the rows are then forgotten)."""
        arrays = []
        for field in self.schema:
            if field.name == "counters":
                arrays.append(pa.MapArray.from_arrays(pa.array(self._counter_offsets, pa.int32()),
                                                      pa.array(self._counter_keys, pa.string()),
                                                      pa.array(self._counter_values, pa.int64())))
            elif field.name == "moves":
                entries = pa.StructArray.from_arrays(
                    [pa.array(self._move_seats, pa.int8()), pa.array(self._move_actions, pa.string())],
                    fields=list(MOVES.value_type))
                arrays.append(pa.ListArray.from_arrays(pa.array(self._move_offsets, pa.int32()), entries))
            else:
                arrays.append(pa.array(self._columns[field.name], field.type))
        self._reset()
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


class ParquetOut:
    """A Parquet file written a record batch at a time under a temporary name beside ``path``; :meth:`commit` renames
    it into place. Used as a context manager, the temporary file is removed unless committed. Opening it checks that
    ``path`` can be written (an OSError says why not).

    ``metadata`` goes into the file's key-value metadata (``cardtable.*`` keys: what the file holds).
    """

    def __init__(self, path: Path, schema: pa.Schema, metadata: Mapping[str, str] | None = None) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(self.path))
        self.partial = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.partial")
        self.schema = schema.with_metadata(dict(metadata or {}))
        self.rows = 0
        self._buffer: list[pa.RecordBatch] = []
        self._buffered_rows = self._buffered_bytes = 0
        self.partial.open("xb").close()  # Python's OSError names the reason (Arrow's names the temporary file)
        try:
            self._writer: pq.ParquetWriter | None = pq.ParquetWriter(self.partial, self.schema,
                                                                     compression=COMPRESSION)
        except BaseException:
            self.partial.unlink(missing_ok=True)
            raise

    def add_metadata(self, metadata: Mapping[str, str]) -> None:
        """More key-value metadata for the file (known once it is open: a job's id)."""
        if self._writer is None:
            raise ValueError(f"{self.path} is already closed")
        self._writer.add_key_value_metadata(dict(metadata))

    def write(self, batch: pa.RecordBatch) -> None:
        """Add rows (a batch of this file's schema); a row group is written once enough are buffered."""
        if self._writer is None:
            raise ValueError(f"{self.path} is already closed")
        self._buffer.append(batch)
        self.rows += batch.num_rows
        self._buffered_rows += batch.num_rows
        self._buffered_bytes += batch.nbytes
        if self._buffered_rows >= ROW_GROUP_ROWS or self._buffered_bytes >= ROW_GROUP_BYTES:
            self._flush()

    def _flush(self) -> None:
        assert self._writer is not None
        if self._buffer:
            self._writer.write_table(pa.Table.from_batches(self._buffer, self.schema))
        self._buffer, self._buffered_rows, self._buffered_bytes = [], 0, 0

    def commit(self) -> None:
        """Finish the file and put it in place (replacing any file of that name)."""
        if self._writer is None:
            raise ValueError(f"{self.path} is already closed")
        self._flush()
        self._writer.close()
        self._writer = None
        os.replace(self.partial, self.path)

    def discard(self) -> None:
        """Drop what was written (nothing is left under either name)."""
        self._buffer = []
        if self._writer is not None:
            with contextlib.suppress(Exception):  # closing a file whose disk is full may fail again: it goes anyway
                self._writer.close()
            self._writer = None
        self.partial.unlink(missing_ok=True)

    def __enter__(self) -> ParquetOut:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

