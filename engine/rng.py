"""The engine's portable seeded random number generator: SplitMix64.

Everything random in a match (shuffles, cuts, the first-dealer draw, a bot's choices) comes from here, never from
Python's ``random``, so that a client in any language can reproduce a deal from its seed. The algorithm, exactly:

- state: an unsigned 64-bit integer, initially ``seed mod 2**64``.
- ``next_u64``: ``state += 0x9E3779B97F4A7C15``; ``z = state``; ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``;
  ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``; return ``z ^ (z >> 31)`` (all arithmetic modulo 2**64).
- ``below(n)`` (unbiased integer in ``[0, n)``): ``threshold = (2**64 - n) mod n``; draw ``r = next_u64()`` until
  ``r >= threshold``; return ``r mod n``.
- ``shuffle(items)`` (Fisher-Yates): for ``i`` from ``len-1`` down to 1: ``j = below(i + 1)``;
  swap items ``i`` and ``j``.
- ``derive_seed(seed, *path)``: ``s = seed``; for each ``p`` in path: ``s = mix(s ^ mix(p + 0x9E3779B97F4A7C15))``
  where ``mix`` is the output function of ``next_u64`` applied to its argument (without the increment).

``tests/vectors/rng.json`` holds test vectors (outputs, bounded draws and a shuffled 52-card deck).

>>> r = Rng(42); r.next_u64()
13679457532755275413
"""

from __future__ import annotations

import secrets
import struct
from collections.abc import Callable, Sequence
from functools import cache
from operator import mod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
# A seed nobody gave is drawn below 2**53: it is exact as a JSON number in every language (a double holds it), so a
# seed printed by the CLI or read from a job's JSON by a JavaScript client replays the same match.
FRESH_SEED_BITS = 53


def fresh_seed() -> int:
    """A new random seed for a match or a job whose caller gave none (from the OS, never from a seeded stream).

    >>> 0 <= fresh_seed() < 2**FRESH_SEED_BITS
    True
    """
    return secrets.randbits(FRESH_SEED_BITS)


def mix(z: int) -> int:
    """SplitMix64's output function (a bijection of 64-bit integers)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


@cython.locals(c=cython.ulonglong, q=cython.ulonglong)
def derive_seed(seed: int, *path: int) -> int:
    """A seed for an independent stream, e.g. ``derive_seed(job_seed, chunk_index)`` or ``derive_seed(seed, seat)``."""
    s = seed & MASK64
    if cython.compiled:  # the same in C integers: a server derives a bot's seed for every move
        c = s
        for p in path:
            q = p & MASK64
            c = _mix64(c ^ _mix64(q + _GOLDEN))  # C's unsigned sum wraps modulo 2**64, as mix's mask does
        return c
    for p in path:
        s = mix(s ^ mix(p + GOLDEN))
    return s


# below(n)'s rejection threshold for the small bounds of shuffles and choices, computed once.
# A draw of at least SURE is never rejected by below(n) for any n up to SURE (its threshold is under n); all but one
# batch in a thousand holds none under it.
SURE = 1 << 48
SMALL_BOUNDS = 257
THRESHOLDS: tuple[int, ...] = (0, *(((1 << 64) - n) % n for n in range(1, SMALL_BOUNDS)))


# The generator's constants as C integers, for the compiled build (its draws are SplitMix64's step itself in C).
_GOLDEN = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
_MUL1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
_MUL2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)
_ZERO = cython.declare(cython.ulonglong, 0)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(z=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _mix64(z: int) -> int:
    """:func:`mix` on a C unsigned 64-bit integer, whose arithmetic wraps modulo 2**64 (compiled only)."""
    z = (z ^ (z >> 30)) * _MUL1
    z = (z ^ (z >> 27)) * _MUL2
    return z ^ (z >> 31)


def _rebuilt(state: int, shared: bool) -> Rng:
    """An Rng in ``state`` (how one is pickled: by its state, whichever engine pickled it and whichever loads it)."""
    rng = Rng(state)
    rng.shared = shared
    return rng


@cython.cclass
class Rng:
    """SplitMix64 with unbiased bounded integers and Fisher-Yates shuffling.

    Compiled, its state is a C unsigned 64-bit integer and each draw is SplitMix64's step, computed in C as it is
    taken. From source, draws come from batches of :func:`outputs` computed ahead (4 draws, then twice as many each
    time, up to ``MOST_AHEAD``): a bot draws at every move, and a batch costs far less per draw than one draw at a
    time in Python. Either way the stream is the specified one: ``state`` is the seed advanced by the draws taken,
    whatever was computed ahead.
    """

    # (its fields are declared in engine/rng.pxd: _origin, _taken, _sure, _ahead and ``shared``, whether it is held
    # by more than one owner (a match and its clones, engine.clone.SHARED_UNTIL_WRITTEN): each copies it before it
    # draws (State.rng))

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.state = seed & MASK64
        self.shared = False

    def __reduce__(self) -> tuple[Callable[[int, bool], Rng], tuple[int, bool]]:
        return _rebuilt, (self.state, self.shared)

    @property
    def state(self) -> int:
        """The generator's state: the last draw taken mixed ``state`` (the seed before any)."""
        taken = self._taken  # (always 0 compiled: nothing is computed ahead)
        return self._origin if not taken else (self._origin + taken * GOLDEN) & MASK64

    @state.setter
    def state(self, value: int) -> None:
        self._origin = value
        self._ahead: tuple[int, ...] = ()  # outputs of the draws after _origin, the first _taken taken (from source)
        self._taken = 0
        self._sure = 0  # the draws of _ahead before this index are all at least SURE (see pick)

    def copy(self) -> Rng:
        """An independent generator in the same state."""
        twin = cython.declare(Rng, Rng.__new__(Rng))
        twin._origin, twin._ahead, twin._taken, twin._sure = self._origin, self._ahead, self._taken, self._sure
        twin.shared = False
        return twin

    def next_u64(self) -> int:
        if cython.compiled:
            return self._draw()
        taken = self._taken
        if taken < len(self._ahead):
            self._taken = taken + 1
            return self._ahead[taken]
        return self._compute_ahead()

    @cython.cfunc
    @cython.exceptval(check=False)
    @cython.returns(cython.ulonglong)
    def _draw(self) -> int:
        """The next draw, compiled: the state advanced and mixed in C (its source twin is ``next_u64``'s own)."""
        self._origin += _GOLDEN
        return _mix64(self._origin)

    @cython.cfunc
    @cython.exceptval(check=False)
    @cython.cdivision(True)
    @cython.locals(n=cython.ulonglong, threshold=cython.ulonglong, r=cython.ulonglong)
    @cython.returns(cython.ulonglong)
    def _below(self, n: int) -> int:
        """``below(n)`` compiled, for ``n`` of at least 1: its threshold ``(2**64 - n) mod n`` in C's wrapping
        arithmetic, then draws until one is not under it."""
        threshold = (_ZERO - n) % n
        while True:
            r = self._draw()
            if r >= threshold:
                return r % n

    def _compute_ahead(self) -> int:
        """Take the next draw from a new batch computed ahead (from source): a generator's first batch is its one
        draw (a new match's first-dealer draw is often the only one before the shuffle), each later batch twice the
        last."""
        state = self.state
        self._origin, self._taken = state, 1
        if not self._ahead:
            first = mix(state + GOLDEN)
            self._ahead = (first,)
            self._sure = 1 if first >= SURE else 0
            return first
        self._ahead = ahead = outputs(state, min(max(4, 2 * len(self._ahead)), MOST_AHEAD))
        self._sure = len(ahead) if min(ahead) >= SURE else next(k for k, r in enumerate(ahead) if r < SURE)
        return ahead[0]

    def below(self, n: int) -> int:
        """An unbiased integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        if cython.compiled and n <= MASK64:
            return self._below(n)
        threshold = THRESHOLDS[n] if n < SMALL_BOUNDS else ((1 << 64) - n) % n
        while True:
            taken = self._taken  # next_u64, inlined: a bot's every choice draws here
            if taken < len(self._ahead):
                self._taken = taken + 1
                r = self._ahead[taken]
            else:
                r = self._compute_ahead()
            if r >= threshold:
                return r % n

    def choice(self, items: Any) -> Any:
        return items[self.below(len(items))]

    def pick(self, items: Sequence[Any], _observe: object = None) -> Any:
        """A uniformly random one of ``items``, drawing nothing when there is only one (a random policy's choice of
        a legal action; its hot loop calls it as the chooser ``(legal_ids, observe)``, so ``observe`` is ignored).
        The draw is ``pick_index``'s: ``below(len(items))``, inlined (fewer than SURE items never reject a draw of at
        least SURE).

        >>> r = Rng(42); items = list(range(10)); s = r.copy()
        >>> r.pick(items), r.state == (s.choice(items), s.state)[1], Rng(1).pick([7], None)
        (3, True, 7)
        """
        return items[self.pick_index(len(items))]

    @cython.locals(count=cython.Py_ssize_t, taken=cython.Py_ssize_t)
    def pick_index(self, count: int) -> int:
        """The index of ``pick``'s choice among ``count`` items (at least 1): 0 with no draw for a single item, else
        ``below(count)`` (compiled, a C method: the trick loop draws a random policy's card with it, without the
        list of its legal moves).

        >>> r = Rng(42); s = r.copy()
        >>> [r.pick_index(10), r.pick_index(1)] == [s.pick(range(10)), 0], r.state == s.state
        (True, True)
        """
        if count == 1:
            return 0
        if cython.compiled and count > 1:
            return self._below(count)
        taken = self._taken
        if taken < self._sure and count < SURE:
            self._taken = taken + 1
            return self._ahead[taken] % count
        return self.below(count)

    @cython.locals(size=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, cards=list)
    def shuffle(self, items: list[Any]) -> None:
        """Shuffle a list in place (Fisher-Yates, from the end)."""
        size = len(items)
        if size < 2:
            return
        if cython.compiled:
            cards = items  # (a typed list, so a TypeError for anything else: its items swapped without a call)
            for i in range(size - 1, 0, -1):
                j = self._below(i + 1)
                cards[i], cards[j] = cards[j], cards[i]
            return
        if size < SMALL_BOUNDS:
            state = self.state
            lanes = _output_lanes(state, size - 1)
            # below(n)'s threshold is under n, so a draw of at least ``size`` is never rejected: when none is smaller
            # (all but about one shuffle in 10**16), step k takes draw k and the shuffle uses size - 1 draws. The
            # lanes are first checked all at once for a draw under 2**bits >= size (rarer still), then one by one.
            draws = _unpack_lanes(lanes, size - 1)
            if _no_lane_below(lanes, size - 1, size.bit_length()) or min(draws) >= size:
                for i, j in zip(range(size - 1, 0, -1), map(mod, draws, range(size, 1, -1)), strict=True):
                    items[i], items[j] = items[j], items[i]
                self.state = (state + (size - 1) * GOLDEN) & MASK64
                return
        for i in range(size - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


MOST_AHEAD = 64


@cache
def _lanes(count: int) -> tuple[int, int, int, Callable[[bytes], tuple[int, ...]], int]:
    """The constants of :func:`outputs` for ``count`` lanes of 128 bits: ones in every lane, k * GOLDEN in lane k - 1,
    64 low bits set in every lane, an unpacker of the lanes' low halves, and their size in bytes."""
    ones = sum(1 << (128 * k) for k in range(count))
    steps = sum((k + 1) * GOLDEN << (128 * k) for k in range(count))
    return ones, steps, MASK64 * ones, struct.Struct("<" + "Q8x" * count).unpack, 16 * count


def outputs(state: int, count: int) -> tuple[int, ...]:
    """The next ``count`` outputs of ``next_u64`` from ``state`` (which is left as it is), computed side by side.

    Output k mixes ``state + k * GOLDEN``; each is computed in its own 128-bit lane of one big integer (a 64-bit
    value times a 64-bit constant fits a lane), so the whole batch costs a dozen big-integer operations instead of
    a dozen small ones per output: a deal's shuffle is on the hot path of every rollout.

    >>> r = Rng(42); outputs(r.state, 3) == (r.next_u64(), r.next_u64(), r.next_u64())
    True
    """
    return _unpack_lanes(_output_lanes(state, count), count)


def _output_lanes(state: int, count: int) -> int:
    """:func:`outputs` as one integer, output k in the low half of its 128-bit lane k (the high halves zero)."""
    ones, steps, low, _unpack, _size = _lanes(count)
    z = (state * ones + steps) & low
    z = ((z ^ (z >> 30)) & low) * 0xBF58476D1CE4E5B9 & low
    z = ((z ^ (z >> 27)) & low) * 0x94D049BB133111EB & low
    return z ^ (z >> 31)


def _unpack_lanes(lanes: int, count: int) -> tuple[int, ...]:
    _ones, _steps, _low, unpack, size = _lanes(count)
    return unpack(lanes.to_bytes(size, "little"))  # the high half of each lane is left out


@cache
def _at_least(count: int, bits: int) -> tuple[int, int, int]:
    """The constants of :func:`_no_lane_below`: each lane's bits from ``bits`` to 63 set, 2**(64 - bits) - 1 in
    every lane, and bit 64 - bits of every lane."""
    ones = _lanes(count)[0]
    return (MASK64 >> bits << bits) * ones, ((1 << (64 - bits)) - 1) * ones, (1 << (64 - bits)) * ones


def _no_lane_below(lanes: int, count: int, bits: int) -> bool:
    """Whether every one of the ``count`` lanes of ``lanes`` holds at least ``2**bits``: a lane's value shifted down
    by ``bits`` is nonzero exactly when adding 2**(64 - bits) - 1 to it carries into bit 64 - bits (it cannot carry
    further: the shifted value is below 2**(64 - bits)).

    >>> _no_lane_below(_output_lanes(42, 51), 51, 6) == (min(outputs(42, 51)) >= 64)
    True
    """
    high, fill, carry = _at_least(count, bits)
    return ((lanes & high) >> bits) + fill & carry == carry
