"""What a searching policy may know: the seat's observation and samples of the cards it has not seen.

A policy that searches (``pimc``, ``ismcts``: ``Policy.searches``) is handed a :class:`SeatView` as its ``observe``:
called, it gives the seat's observation, as for every policy; :meth:`SeatView.sample` gives a full state the seat
cannot tell from the real one, with every card it has not seen dealt at random (``engine.determinize``, whose samples
depend only on what the seat knows). :func:`seat_observer` builds the right ``observe`` for any policy.

>>> import engine
>>> from engine.rng import Rng
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
>>> view = SeatView(state, 1)
>>> view()["hand"] == state.observation(1)["hand"], view.sample(Rng(2)).observation(1) == state.observation(1)
(True, True)
"""

from __future__ import annotations

from functools import partial

from ..determinize import determinize
from ..rng import Rng
from ..state import State
from .policy import Observation, Observe, Policy


class SeatView:
    """One seat's knowledge of a state: its observation and samples of the rest."""

    __slots__ = ("_state", "seat")

    def __init__(self, state: State, seat: int) -> None:
        self._state = state
        self.seat = seat

    def __call__(self) -> Observation:
        return self._state.observation(self.seat, history=False)

    def sample(self, rng: Rng) -> State:
        """A state this seat cannot tell from the real one, the unseen cards dealt from ``rng``."""
        return determinize(self._state, self.seat, rng)


def seat_observer(state: State, seat: int, policy: Policy) -> Observe:
    """The ``observe`` of ``policy`` playing ``seat`` of ``state``: a SeatView for a searching policy, else the seat's
    observation (with the history only for policies that read it)."""
    if policy.searches:
        return SeatView(state, seat)
    return partial(state.observation, seat, history=policy.uses_history)
