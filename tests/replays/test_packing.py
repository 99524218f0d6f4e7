"""Varints, mixed-radix digits and deck permutations: exact bytes, and round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import ReplayError
from replay.packing import (
    ByteReader,
    ByteWriter,
    IntDigits,
    digits_to_int,
    int_to_bytes,
    permutation_digits,
    take_permutation,
)


@pytest.mark.parametrize("value, encoded", [(0, "00"), (1, "01"), (127, "7f"), (128, "8001"), (300, "ac02"),
                                            ((1 << 64) - 1, "ffffffffffffffffff01")])
def test_varint_bytes(value: int, encoded: str) -> None:
    w = ByteWriter()
    w.varint(value)
    assert w.data.hex() == encoded
    assert ByteReader(bytes(w.data)).varint("x") == value


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-(1 << 63), max_value=1 << 63)))
def test_signed_round_trip(values: list[int]) -> None:
    w = ByteWriter()
    for v in values:
        w.signed(v)
    r = ByteReader(bytes(w.data))
    assert [r.signed("v") for _ in values] == values
    assert r.pos == len(w.data)


def test_zigzag_order() -> None:
    w = ByteWriter()
    for v in (0, -1, 1, -2, 2):
        w.signed(v)
    assert list(w.data) == [0, 1, 2, 3, 4]


def test_overlong_and_truncated_varints_are_replay_errors() -> None:
    with pytest.raises(ReplayError, match="longer than 10 bytes"):
        ByteReader(b"\x80" * 11).varint("the seed")
    with pytest.raises(ReplayError, match="truncated.*the seed"):
        ByteReader(b"\x80\x80").varint("the seed")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=60).flatmap(
    lambda r: st.tuples(st.integers(min_value=0, max_value=r - 1), st.just(r)))))
def test_mixed_radix_round_trip(pairs: list[tuple[int, int]]) -> None:
    value = digits_to_int(pairs)
    chunk = int_to_bytes(value)
    assert not chunk or chunk[-1] != 0
    source = IntDigits.from_bytes(chunk)
    assert [source.take(r) for _, r in pairs] == [d for d, _ in pairs]
    assert source.exhausted
    bound = sum((r - 1).bit_length() if r > 1 else 0 for _, r in pairs)
    assert len(chunk) * 8 <= bound + 7


def test_forced_moves_cost_nothing() -> None:
    assert int_to_bytes(digits_to_int([(0, 1)] * 100)) == b""


def test_non_canonical_trailing_zero_is_rejected() -> None:
    with pytest.raises(ReplayError, match="zero byte"):
        IntDigits.from_bytes(b"\x05\x00")


@settings(max_examples=100, deadline=None)
@given(st.permutations(list(range(52))))
def test_permutation_round_trip(order: list[int]) -> None:
    digits = permutation_digits(order)
    assert [r for _, r in digits] == list(range(52, 0, -1))
    source = IntDigits(digits_to_int(digits))
    assert take_permutation(source, sorted(order)) == order
    assert len(int_to_bytes(digits_to_int(digits))) <= 29  # log2(52!) = 225.6 bits
