"""The rows a chunk keeps for a results file (JobSpec.unit_rows, workers/results.py), played in one process."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from replay import decode
from workers.chunk import play_chunk
from workers.plan import Chunk, bot_seed, match_seed
from workers.results import WORKER_SCHEMA
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import total


class Sink:
    def __init__(self) -> None:
        self.replays: dict[int, bytes] = {}

    def add(self, number: int, data: bytes) -> None:
        self.replays[number] = data

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(("game", "unit"), [("tablanette", "deal"), ("belote", "deal"), ("german_whist", "match")])
def test_a_row_per_unit_agrees_with_the_chunk_and_its_replays(game: str, unit: str) -> None:
    spec = validate(JobSpec(game=game, policies=("greedy", "random"), count=40, seed=9, unit=unit,
                            log=LogSpec("sample", 10), unit_rows=True))
    sink = Sink()
    result = play_chunk(spec, Chunk(0, 10, 30), sink)
    (batch,) = result.rows
    assert batch.schema.equals(WORKER_SCHEMA)
    rows = batch.to_pylist()
    assert [row["number"] for row in rows] == list(range(10, 40))
    assert [(row["seed"], row["bot_seed"]) for row in rows] == [
        (match_seed(9, n), bot_seed(9, n)) for n in range(10, 40)]
    assert sum(row["move_count"] for row in rows) == result.moves
    assert sum(row["deals"] for row in rows) == result.deals
    counted: Counter[str] = Counter()
    for row in rows:
        counted.update(dict(row["counters"]))
    assert counted == result.counters
    assert {row["number"] for row in rows if row["logged"]} == set(sink.replays) and sink.replays
    for row in rows:
        if row["logged"]:
            replay = decode(sink.replays[row["number"]])
            assert (row["scores"], row["winners"], row["move_count"]) == (
                replay.scores, list(replay.final.winners), len(replay.moves))
    assert "rows" not in result.to_dict(), "rows are never stored with the chunk's result"


def test_the_slices_of_a_chunk_add_up_to_its_rows() -> None:
    spec = validate(JobSpec(game="tablic", policies=("random",), count=12, seed=4, unit_rows=True))
    whole = play_chunk(spec, Chunk(0, 0, 12))
    slices, first = [], 0
    while first < 12:  # no time at all: a slice plays one deal
        part = play_chunk(spec, Chunk(0, first, 12 - first), max_seconds=0)
        slices.append(part)
        first += part.units
    assert len(slices) == 12
    joined = total(slices, 2)
    assert pa.Table.from_batches(joined.rows).equals(pa.Table.from_batches(whole.rows))


def test_no_rows_unless_the_spec_keeps_them() -> None:
    spec = validate(JobSpec(game="tablic", policies=("random",), count=5, seed=4))
    assert play_chunk(spec, Chunk(0, 0, 5)).rows == []
