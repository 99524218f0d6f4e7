"""A job's results as a table, one row per deal (or match): ``cardtable simulate --results parquet:PATH``.

The workers build the rows (:class:`UnitRows`, one record batch per chunk, in the chunk's result when the spec keeps
them: ``JobSpec.unit_rows``); the driver hands each finished chunk's batches to a :class:`ResultsFile`, which adds
the job's own columns and writes them. So the driver does no per-deal work, and holds the rows of the chunks in
flight only: a million deals are written in bounded memory. Rows come in the order the chunks finish (``ORDER BY
number`` puts them in the job's order).

The columns: ``job_id``, ``number`` (the deal's number in the job, from 0: its replay's index), ``replay_id`` (null
unless its replay was logged), then :data:`replay.columnar.DEAL_FIELDS` (the columns a replay collection's export
has too), then ``bot_seed`` (the seed of the deal's bots).

>>> from workers.chunk import play_chunk
>>> from workers.plan import Chunk
>>> from workers.spec import JobSpec, validate
>>> spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=5, seed=1, unit_rows=True))
>>> batch = play_chunk(spec, Chunk(0, 0, 5)).rows[0]
>>> batch.num_rows, batch.column("number").to_pylist()
(5, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

import engine
from replay.columnar import DEAL_FIELDS, DealRows, ParquetOut, options_json
from replay.record import seeded_header

from .chunk import ChunkResult
from .counters import add_deal_counters
from .jobstore import JobRecord, replay_collection
from .plan import bot_seed, match_seed
from .spec import JobSpec

FORMATS = ("parquet",)
BOT_SEED = pa.field("bot_seed", pa.uint64(), nullable=False)
# What a worker sends: the job's columns (job_id, replay_id) are the driver's to add.
WORKER_SCHEMA = pa.schema([pa.field("number", pa.int64(), nullable=False),
                           pa.field("logged", pa.bool_(), nullable=False), *DEAL_FIELDS, BOT_SEED])
JOB_SCHEMA = pa.schema([pa.field("job_id", pa.string(), nullable=False), WORKER_SCHEMA.field("number"),
                        pa.field("replay_id", pa.string()), *DEAL_FIELDS, BOT_SEED])


class UnitRows:
    """The rows of a chunk's deals (or matches), added as each one ends."""

    def __init__(self, spec: JobSpec, first_state: engine.State) -> None:
        self.spec = spec
        self.rows = DealRows(WORKER_SCHEMA)
        # The same in every row of the job; ``options`` as the deal's replay header records them.
        self.constant = {"game": spec.game, "players": first_state.players, "scope": spec.unit,
                         "policies": list(spec.policies),
                         "options": options_json(seeded_header(first_state, spec.unit).options)}

    def add(self, number: int, state: engine.State, moves: int, logged: bool) -> None:
        counters: Counter[str] = Counter()
        for result in state.deal_results:
            add_deal_counters(counters, result)
        self.rows.add(counters, number=number, logged=logged, seed=match_seed(self.spec.seed, number),
                      bot_seed=bot_seed(self.spec.seed, number), scores=list(state.scores),
                      winners=list(state.winners), deals=len(state.deal_results), move_count=moves, **self.constant)

    def batch(self) -> pa.RecordBatch:
        return self.rows.batch()


class ResultsError(ValueError):
    """A results file that cannot be written: says which and why."""


def parse_results(text: str) -> tuple[str, Path]:
    """``"parquet:PATH"`` -> ``("parquet", Path(PATH))``; ResultsError for anything else.

    >>> parse_results("parquet:out/deals.parquet")
    ('parquet', PosixPath('out/deals.parquet'))
    """
    fmt, sep, path = text.partition(":")
    if not sep or not path:
        raise ResultsError(f"results are written as FORMAT:PATH, such as parquet:deals.parquet, not {text!r}")
    if fmt not in FORMATS:
        raise ResultsError(f"unknown results format {fmt!r}: the formats are {', '.join(FORMATS)} "
                           f"(such as parquet:deals.parquet)")
    return fmt, Path(path)


class ResultsFile:
    """A job's rows written into a Parquet file as its chunks finish: :meth:`write` is ``run_job``'s ``on_chunk``.

    Opened before the job starts (an OSError when ``path`` cannot be written); :meth:`commit` puts the file in place
    once every unit of the job has its row, and as a context manager anything not committed is removed.
    """

    def __init__(self, path: Path) -> None:
        self.out = ParquetOut(path, JOB_SCHEMA)
        self.job_id = ""
        self.failure: str | None = None  # why a write failed
        self._replay_prefix = pa.scalar("")

    @property
    def path(self) -> Path:
        return self.out.path

    def start(self, record: JobRecord) -> None:
        """Name the job whose rows follow (the file's metadata says which, and its spec)."""
        self.job_id = record.job_id
        self._replay_prefix = pa.scalar(replay_collection(record.job_id) + "/")
        self.out.add_metadata({"cardtable.table": "job_results", "cardtable.job_id": record.job_id,
                               "cardtable.spec": json.dumps(record.spec.to_dict())})

    def write(self, result: ChunkResult) -> None:
        try:
            for batch in result.rows:
                self.out.write(self._with_job_columns(batch))
        except OSError as exc:
            self.failure = f"cannot write the results to {self.path}: {exc.strerror or exc}"
            raise

    def _with_job_columns(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        number = batch.column("number")
        replay_id = pc.if_else(batch.column("logged"),
                               pc.binary_join_element_wise(self._replay_prefix, pc.cast(number, pa.string()), ""),
                               pa.scalar(None, pa.string()))
        columns = {"job_id": pa.array([self.job_id] * batch.num_rows, pa.string()), "replay_id": replay_id}
        return pa.RecordBatch.from_arrays([columns[name] if name in columns else batch.column(name)
                                           for name in JOB_SCHEMA.names], schema=JOB_SCHEMA)

    def commit(self, units: int) -> None:
        """Put the file in place; ResultsError (and no file) unless it holds a row for each of the job's ``units``
        (a job resumed by this driver has no rows of the chunks played before)."""
        if self.out.rows != units:
            raise ResultsError(f"{self.path} would hold {self.out.rows:,} rows for the job's {units:,} units: "
                               "not written")
        self.out.commit()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.out.discard()
