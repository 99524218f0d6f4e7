"""The ``(seat, card)`` and ``(seat, action)`` pairs a deal records at every move (a trick's plays, the match's
moves), made once and shared.

A tuple is immutable, so a shared one is indistinguishable from a new one; with them a match in play allocates no
object the garbage collector tracks for each card. That matters where many matches are in flight at once (the vector
environment steps 64): every pair used to survive until its deal ended, so the collector ran every few steps and
walked every match's state each time.

>>> pair(1, 40) is pair(1, 40), pair(1, 40)
(True, (1, 40))
>>> pair(0, 37000)
(0, 37000)
"""

from __future__ import annotations

SEATS = 6  # the most seats of any game (Thunee's six)
IDS = 256  # pairs of ids below this are shared: every card and every action of the trick games but Boonaken's discards
PAIRS: tuple[tuple[int, int], ...] = tuple((seat, x) for seat in range(SEATS) for x in range(IDS))


def pair(seat: int, x: int) -> tuple[int, int]:
    """``(seat, x)``, the shared tuple where there is one."""
    if 0 <= seat < SEATS and 0 <= x < IDS:
        return PAIRS[seat * IDS + x]
    return (int(seat), int(x))
