"""Byte-level building blocks of the replay format: varints, mixed-radix integers and permutation ranks.

Everything here is plain integer arithmetic that a client in any language can reproduce:

- a *varint* is unsigned LEB128: seven bits per byte, least significant group first, the high bit set on every byte
  but the last (at most 10 bytes, so any 64-bit value fits); a signed value is zigzag-mapped first
  (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...);
- a sequence of *digits* ``d_i`` with radices ``r_i`` (``0 <= d_i < r_i``) is the integer
  ``d_0 + r_0 * (d_1 + r_1 * (d_2 + ...))``, written as its minimal little-endian bytes (no trailing zero byte;
  the integer 0 is no bytes at all). A digit of radix 1 costs nothing;
- a deck order is a permutation of the deck's cards; its digits are the Lehmer code: the position of each card, top
  first, among the cards not yet placed, in canonical order (radices n, n-1, ..., 1).

>>> writer = ByteWriter(); writer.varint(300); bytes(writer.data)
b'\\xac\\x02'
>>> digits_to_int([(3, 4), (1, 2)]), list(IntDigits(7).take(r) for r in (4, 2))
(7, [3, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import ReplayError

MAX_VARINT_BYTES = 10


class ByteWriter:
    """Append-only bytes with varint helpers."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data = bytearray()

    def byte(self, value: int) -> None:
        self.data.append(value)

    def raw(self, chunk: bytes) -> None:
        self.data += chunk

    def varint(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"a varint is non-negative, got {value}")
        while value >= 0x80:
            self.data.append((value & 0x7F) | 0x80)
            value >>= 7
        self.data.append(value)

    def signed(self, value: int) -> None:
        self.varint(value * 2 if value >= 0 else -value * 2 - 1)

    def text(self, value: str) -> None:
        encoded = value.encode("utf-8")
        self.varint(len(encoded))
        self.raw(encoded)


class ByteReader:
    """Reads what :class:`ByteWriter` wrote; every malformed input raises :class:`ReplayError` naming the field."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def byte(self, field: str) -> int:
        if self.pos >= self.end:
            raise ReplayError(f"truncated replay: the data ends inside the header, reading {field}")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def raw(self, count: int, field: str) -> bytes:
        if self.pos + count > self.end:
            raise ReplayError(f"truncated replay: {field} needs {count} bytes, {self.end - self.pos} are left")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return bytes(chunk)

    def varint(self, field: str) -> int:
        value = shift = 0
        for _ in range(MAX_VARINT_BYTES):
            b = self.byte(field)
            value |= (b & 0x7F) << shift
            if b < 0x80:
                return value
            shift += 7
        raise ReplayError(f"corrupt replay: {field} is a varint longer than {MAX_VARINT_BYTES} bytes")

    def signed(self, field: str) -> int:
        z = self.varint(field)
        return z >> 1 if z % 2 == 0 else -(z >> 1) - 1

    def text(self, field: str) -> str:
        length = self.varint(f"the length of {field}")
        chunk = self.raw(length, field)
        try:
            return chunk.decode("utf-8")
        except UnicodeDecodeError:
            raise ReplayError(f"corrupt replay: {field} is not UTF-8 text") from None

    def rest(self) -> bytes:
        chunk = bytes(self.data[self.pos:self.end])
        self.pos = self.end
        return chunk


def digits_to_int(digits: Iterable[tuple[int, int]]) -> int:
    """The mixed-radix integer of ``(digit, radix)`` pairs, first pair least significant."""
    pairs = list(digits)
    value = 0
    for digit, radix in reversed(pairs):
        if not 0 <= digit < radix:
            raise ValueError(f"digit {digit} is out of range for radix {radix}")
        value = value * radix + digit
    return value


def int_to_bytes(value: int) -> bytes:
    """Minimal little-endian bytes (0 is ``b""``)."""
    return value.to_bytes((value.bit_length() + 7) // 8, "little")


class IntDigits:
    """Takes mixed-radix digits off an integer, least significant first (the decoding side of digits_to_int)."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    @classmethod
    def from_bytes(cls, chunk: bytes) -> IntDigits:
        if chunk and chunk[-1] == 0:
            raise ReplayError("corrupt replay: the packed moves end with a zero byte (not the canonical encoding)")
        return cls(int.from_bytes(chunk, "little"))

    def take(self, radix: int) -> int:
        if radix == 1:
            return 0
        self.value, digit = divmod(self.value, radix)
        return digit

    @property
    def exhausted(self) -> bool:
        return self.value == 0


def permutation_digits(order: Sequence[int]) -> list[tuple[int, int]]:
    """The Lehmer code of ``order`` (a permutation of some distinct ints) as ``(digit, radix)`` pairs."""
    remaining = sorted(order)
    digits = []
    for item in order:
        index = remaining.index(item)
        digits.append((index, len(remaining)))
        del remaining[index]
    return digits


def take_permutation(source: IntDigits, items: Sequence[int]) -> list[int]:
    """The permutation of ``items`` whose Lehmer code comes next in ``source``."""
    remaining = sorted(items)
    return [remaining.pop(source.take(len(remaining))) for _ in range(len(items))]
