"""The ``(seat, card)`` and ``(seat, action)`` pairs a deal records at every move (a trick's plays, the match's
moves), made once and shared.

A tuple is immutable, so a shared one is indistinguishable from a new one; with them a match in play allocates no
object the garbage collector tracks for each card. That matters where many matches are in flight at once (the vector
environment steps 64): every pair used to survive until its deal ended, so the collector ran every few steps and
walked every match's state each time.

>>> pair(1, 40) is pair(1, 40), pair(1, 40)
(True, (1, 40))
>>> pair(0, 37000), pair(1, 1 << 70)
((0, 37000), (1, 1180591620717411303424))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

SEATS = 6  # the most seats of any game (Thunee's six)
IDS = 256  # pairs of ids below this are shared: every card and every action of the trick games but Boonaken's discards
PAIRS: tuple[tuple[int, int], ...] = tuple((seat, x) for seat in range(SEATS) for x in range(IDS))


@cython.locals(i=cython.Py_ssize_t)
def pair(seat: int, x: int) -> tuple[int, int]:
    """``(seat, x)``, the shared tuple where there is one (an id of the fishing games, a mask of the cards a capture
    takes, can be far beyond a C integer: it is compared as the Python int it is)."""
    if 0 <= seat < SEATS and type(x) is int and 0 <= x < 256:  # (IDS, written out: compiled, a C comparison)
        i = x
        return PAIRS[seat * IDS + i]
    return (seat, x)
