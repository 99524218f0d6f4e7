"""Chunk plans cover every deal exactly once, and the logged sample does not depend on the chunking."""

from __future__ import annotations

import tracemalloc
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rng import derive_seed
from workers.plan import Chunk, bot_seed, logged_numbers, match_seed, plan_chunks, trace_stride
from workers.spec import LogSpec


@settings(max_examples=60, deadline=None)
@given(total=st.integers(1, 5000), size=st.integers(1, 700))
def test_chunks_cover_every_deal_once_in_order(total, size):
    chunks = plan_chunks(total, size)
    numbers = [n for chunk in chunks for n in range(chunk.first, chunk.stop)]
    assert numbers == list(range(total))
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(1 <= c.count <= size for c in chunks)


@settings(max_examples=60, deadline=None)
@given(total=st.integers(1, 3000), data=st.data())
def test_a_sample_logs_exactly_k_deals_spread_evenly_whatever_the_chunks(total, data):
    k = data.draw(st.integers(1, total))
    size = data.draw(st.integers(1, total))
    log = LogSpec("sample", k)
    logged = [n for chunk in plan_chunks(total, size) for n in logged_numbers(log, total, chunk)]
    assert logged == [i * total // k for i in range(k)]
    assert len(set(logged)) == k


def test_a_plan_is_made_chunk_by_chunk_not_up_front():
    """A million one-deal chunks, counted, indexed and walked into, take no memory to speak of (a list of them
    took 160 MB)."""
    tracemalloc.start()
    try:
        plan = plan_chunks(10**6, 1)
        assert len(plan) == 10**6
        assert plan[-1] == Chunk(999_999, 999_999, 1) and plan[500_000] == Chunk(500_000, 500_000, 1)
        assert list(islice(plan, 2)) == [Chunk(0, 0, 1), Chunk(1, 1, 1)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000


def test_a_plan_refuses_indexes_outside_it():
    plan = plan_chunks(10, 4)
    assert plan[-3] == plan[0] and plan[2] == Chunk(2, 8, 2)
    with pytest.raises(IndexError):
        plan[3]
    with pytest.raises(IndexError):
        plan[-4]
    with pytest.raises(ValueError, match="at least one deal"):
        plan_chunks(0, 4)


def test_all_and_none():
    chunk = plan_chunks(10, 4)[1]
    assert list(logged_numbers(LogSpec("all"), 10, chunk)) == [4, 5, 6, 7]
    assert list(logged_numbers(LogSpec("none"), 10, chunk)) == []


def test_seeds_belong_to_deal_numbers_and_are_distinct():
    assert match_seed(7, 3) == derive_seed(7, 3, 0)
    assert bot_seed(7, 3) == derive_seed(7, 3, 1)
    seeds = {match_seed(7, n) for n in range(1000)} | {bot_seed(7, n) for n in range(1000)}
    assert len(seeds) == 2000


def test_the_trace_keeps_at_most_400_points():
    assert trace_stride(100) == 1
    assert trace_stride(400) == 1
    assert trace_stride(401) == 2
    assert -(-1_000_000 // trace_stride(1_000_000)) <= 400
