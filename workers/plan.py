"""Splitting a job into chunks, and the seeds of its deals.

The unit of seeding is the deal (or match), not the chunk: deal number ``n`` of a job is played from
``derive_seed(job_seed, n, 0)`` with bots seeded by ``derive_seed(job_seed, n, 1)``. A chunk is only a range of deal
numbers, so the results are bit-identical whatever the chunk size and the number of workers or machines, and a
retried chunk replays exactly the deals it had. Which deals are logged, and where a deal falls on the running-mean
trace, are functions of the deal number too.

>>> [(c.index, c.first, c.count) for c in plan_chunks(10, 4)]
[(0, 0, 4), (1, 4, 4), (2, 8, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.rng import derive_seed

from .spec import JobSpec, LogSpec

# The running mean is kept at this many points over the job at most (sums per stretch of deals).
TRACE_POINTS = 400


@dataclass(frozen=True)
class Chunk:
    """Deals ``first`` .. ``first + count - 1`` of a job; ``index`` keys its result."""

    index: int
    first: int
    count: int

    @property
    def stop(self) -> int:
        return self.first + self.count


@dataclass(frozen=True)
class ChunkPlan(Sequence[Chunk]):
    """Consecutive chunks of ``chunk_size`` deals (the last one shorter) covering ``total`` deals, made when asked
    for: a plan of a billion chunks costs no more than one of ten.

    >>> plan = plan_chunks(10**9, 1)
    >>> len(plan), plan[-1]
    (1000000000, Chunk(index=999999999, first=999999999, count=1))
    """

    total: int
    chunk_size: int

    def __post_init__(self) -> None:
        if self.total < 1 or self.chunk_size < 1:
            raise ValueError(f"a plan needs at least one deal and one deal per chunk, got {self.total} and "
                             f"{self.chunk_size}")

    def __len__(self) -> int:
        return -(-self.total // self.chunk_size)

    def __getitem__(self, index: int) -> Chunk:  # type: ignore[override]  (no slices)
        if not isinstance(index, int):
            raise TypeError(f"chunk indexes are whole numbers, not {index!r}")
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError(f"chunk {index} of a plan of {len(self)}")
        first = position * self.chunk_size
        return Chunk(position, first, min(self.chunk_size, self.total - first))

    def __iter__(self) -> Iterator[Chunk]:
        return (self[index] for index in range(len(self)))


def plan_chunks(total: int, chunk_size: int) -> ChunkPlan:
    """Consecutive chunks of ``chunk_size`` deals (the last one shorter) covering ``total`` deals."""
    return ChunkPlan(total, chunk_size)


def job_chunks(spec: JobSpec) -> ChunkPlan:
    """The chunks of a validated job."""
    return plan_chunks(spec.count, spec.chunk_size)


def match_seed(job_seed: int, number: int) -> int:
    """The seed of deal (or match) ``number`` of a job."""
    return derive_seed(job_seed, number, 0)


def bot_seed(job_seed: int, number: int) -> int:
    """The seed the bots of deal (or match) ``number`` draw from (each seat its own stream of it)."""
    return derive_seed(job_seed, number, 1)


def logged_numbers(log: LogSpec, total: int, chunk: Chunk) -> range | list[int]:
    """The deal numbers of ``chunk`` whose replays are stored: all, none, or those of an even sample.

    A sample of ``k`` out of ``total`` logs deal ``floor(i * total / k)`` for ``i`` in ``0 .. k-1``.

    >>> logged_numbers(LogSpec("sample", 3), 9, Chunk(0, 0, 5))
    [0, 3]
    """
    if log.mode == "all":
        return range(chunk.first, chunk.stop)
    if log.mode != "sample":
        return []
    k = log.size
    i = -(-chunk.first * k // total)  # the first i with floor(i * total / k) >= chunk.first
    numbers = []
    while i < k and (number := i * total // k) < chunk.stop:
        numbers.append(number)
        i += 1
    return numbers


def trace_stride(total: int) -> int:
    """How many consecutive deals share one point of the running-mean trace."""
    return max(1, math.ceil(total / TRACE_POINTS))
