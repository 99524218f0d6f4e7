"""Dealing helpers shared by every game: drawing for the first dealer, dealing singly or in packets and the next
leader.

>>> hands, used = deal_rounds(list(range(32)), seats_from(1, 4), [3, 2, 3])
>>> hands[1][:5], hands[0][:3], used
([0, 1, 2, 12, 13], [9, 10, 11], 32)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from .cards import make_deck, mask_of
from .rng import Rng

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

MOST_SEATS = 8  # the seats a compiled dealing keeps its hands for in C (more: Python's integers, as from source)
_ONE = cython.declare(cython.ulonglong, 1)


def draw_for_dealer(rng: Rng, n: int, strength: Callable[[int], int], lowest_deals: bool,
                    pack: Sequence[int] | None = None, fresh_pack_for_ties: bool = False) -> int:
    """Each seat in order 0..n-1 draws a card from a shuffled pack (52 cards unless ``pack`` is given); the lowest (or
    highest) ``strength`` deals.

    Seats tied for the deciding place draw again, in seat order: from the rest of the same pack, or with
    ``fresh_pack_for_ties`` from a fresh shuffle of the whole pack.

    >>> from engine.rng import Rng
    >>> draw_for_dealer(Rng(1), 4, lambda card: card % 13, lowest_deals=True) in range(4)
    True
    """
    drawn_from = make_deck() if pack is None else list(pack)
    cards = tuple(drawn_from) if fresh_pack_for_ties else ()
    rng.shuffle(drawn_from)
    contenders = list(range(n))
    top = 0
    while len(contenders) > 1:
        drawn = [strength(drawn_from[top + i]) for i in range(len(contenders))]
        top += len(contenders)
        best = min(drawn) if lowest_deals else max(drawn)
        contenders = [contenders[i] for i, s in enumerate(drawn) if s == best]  # (drawn: one per contender)
        if fresh_pack_for_ties and len(contenders) > 1:
            drawn_from, top = list(cards), 0
            rng.shuffle(drawn_from)
    return contenders[0]


def deal_rounds(deck: Sequence[int], order: Sequence[int], rounds: Iterable[int | Sequence[int]], start: int = 0,
                hands: list[list[int]] | None = None) -> tuple[list[list[int]], int]:
    """Deal ``deck[start:]`` in rounds of packets to the seats of ``order``; return (hands in dealt order, next index).

    A round is a packet size for every seat, or one size per seat of ``order`` (``0`` skips a seat): ``[3, 2, 3]``
    deals 3-2-3, ``[1] * 6`` six cards singly.
    """
    if hands is None:
        hands = [[] for _ in range(max(order) + 1)]
    i = start
    for size in rounds:
        sizes = [size] * len(order) if isinstance(size, int) else size
        if len(sizes) != len(order):
            raise ValueError(f"a round of {len(sizes)} packets for {len(order)} seats")
        for j, seat in enumerate(order):
            k = sizes[j]
            hands[seat].extend(deck[i:i + k])
            i += k
    return hands, i


def deal_masks(deck: Sequence[int], order: Sequence[int], rounds: tuple[int | tuple[int, ...], ...],
               start: int = 0) -> tuple[list[int], int]:
    """:func:`deal_rounds` into hand bit masks (one per seat 0..max(order)), with the next index.

    >>> masks, used = deal_masks(list(range(32)), seats_from(1, 4), (3, 2, 3))
    >>> masks[1] == mask_of([0, 1, 2, 12, 13, 20, 21, 22]), used
    (True, 32)
    """
    masks = [0] * (max(order) + 1)
    if len(order) <= MOST_SEATS:
        return masks, _dealt(deck, start, masks, order, rounds)
    hands, used = deal_rounds(deck, order, rounds, start)
    return [mask_of(hand) for hand in hands], used


def deal_round(deck: list[int], top: int, hands: list[int], order: Sequence[int], packets: Sequence[int]) -> int:
    """Like :func:`deal_rounds`, into hand bit masks: each packet size in turn to every seat of ``order``.

    ``packets=(1,) * 6`` deals six cards singly; ``(3, 3)`` deals two packets of three. Returns the new top.
    """
    if len(order) <= MOST_SEATS:
        return _dealt(deck, top, hands, order, packets)
    dealt, top = deal_rounds(deck, order, packets, top)
    for seat in order:
        hands[seat] |= mask_of(dealt[seat])
    return top


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, length=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t,
               k=cython.Py_ssize_t, c=cython.Py_ssize_t, dealt=cython.ulonglong[8])
def _dealt(deck: Sequence[int], top: int, hands: list[int], order: Sequence[int],
           rounds: Iterable[int | Sequence[int]]) -> int:
    """:func:`deal_round` and :func:`deal_masks` for at most MOST_SEATS seats: ``deck[top:]`` dealt in ``rounds`` (a
    packet size for every seat of ``order``, or one size per seat) into the hand masks ``hands``, each seat's cards
    gathered in a C integer when compiled; returns the new top."""
    if not cython.compiled:  # (compiled, a C array)
        dealt = [0] * MOST_SEATS
    n, length = len(order), len(deck)
    for j in range(n):
        dealt[j] = 0
    i = top
    for size in rounds:
        for j in range(n):
            k = size if isinstance(size, int) else size[j]
            while k > 0:
                if i < length:  # (a short deck deals what it holds, as the slices from source do)
                    c = deck[i]
                    if c < 0 or c > 63:
                        raise ValueError(f"not a card: {c}")
                    dealt[j] |= _ONE << c
                i += 1
                k -= 1
    for j in range(n):
        hands[order[j]] |= dealt[j]
    return i


def seats_from(first: int, n: int) -> list[int]:
    """Seats in order of play starting at ``first``: ``seats_from(2, 4) == [2, 3, 0, 1]``."""
    return list(_seat_orders(n)[first % n])


@cache
def _seat_orders(n: int) -> tuple[tuple[int, ...], ...]:
    """Per first seat, the seats in order of play from it."""
    return tuple(tuple((first + i) % n for i in range(n)) for first in range(n))
