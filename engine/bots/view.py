"""What a policy may know: the seat's observation, what the seat has seen (:class:`engine.bots.seen.Seen`, which
greedy ranks from) and, for a searching policy, samples of the cards it has not seen.

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

from collections.abc import Sequence
from typing import Any, Literal, cast

from ..determinize import determinize
from ..rng import Rng
from ..state import State
from ..trickgame import TrickGame
from .policy import Observation, Observe, Policy
from .seen import Seen, SeenInObservation

_KEEPS_SEEN: dict[type, bool] = {}  # keeps_seen's answer per state class


def keeps_seen(state: State) -> bool:
    """Whether the observers of ``state`` keep one Seen read from the state (:meth:`SeatObserver.seen`): a trick game
    that plays no card face down and whose shown cards do not change at every move. Decided once per class (its
    ``INFO``, a class's): the check of an abstract base class is dear, and every play-out's observers ask."""
    cls = type(state)
    keeps = _KEEPS_SEEN.get(cls)
    if keeps is None:
        info = cls.INFO
        keeps = _KEEPS_SEEN[cls] = isinstance(state, TrickGame) and not info.face_down and not info.shown_every_move
    return keeps


class SeatObserver:
    """The ``observe`` of one seat: called, the seat's observation (with the history if ``history``); :meth:`seen`,
    the facts of card play a bot ranks from (:class:`engine.bots.seen.Seen`), read from the state where its
    observation shows them as the state holds them, without building the observation."""

    __slots__ = ("history", "kept", "seat", "state")

    def __init__(self, state: State, seat: int, history: bool = False) -> None:
        self.state = state
        self.seat = seat
        self.history = history
        # the Seen kept from the seat's first turn on, where the state shows it (a caller at each turn may bring it
        # there itself: ``kept.at(legal_ids)``, one call less); False: read from the observation; None: not asked yet
        self.kept: Seen | Literal[False] | None = None

    def __call__(self) -> Observation:
        return self.state.observation(self.seat, history=self.history)

    def seen(self, legal_ids: Sequence[int]) -> Seen:
        """What the seat has seen, the seat being to act with ``legal_ids``: good until its next turn. A trick game
        that plays no card face down and whose shown cards do not change at every move (Thunee hides its trump until
        it is turned up) shows the seat its hand, trump, trick and tricks as the state holds them: one Seen is kept
        for it (made at the first turn: a policy that never asks makes none) and brought to each turn; else each is
        read from the observation. (The Seen holds the state, never the observer: no reference cycle, so a rollout's
        state is freed as soon as it is dropped, without the garbage collector.)"""
        kept = self.kept
        if kept is None:
            state = self.state
            if not keeps_seen(state):
                kept = self.kept = False
            else:  # (a TrickGame: keeps_seen said so, without a check of the abstract class at each call)
                kept = self.kept = Seen.of_state(cast(TrickGame, state), self.seat, self.history)
        if kept is False:
            return SeenInObservation(self.state.observation(self.seat, history=self.history))
        return kept.at(legal_ids)

    def rebind(self, state: State) -> None:
        """This observer now of ``state``, a state of the same class as its own (a search's next play-out): the Seen
        it keeps is brought to ``state`` in place, so that a chooser that holds it (``GreedyChooser``) holds it still,
        and the seat's facts are those a new observer of ``state`` would give."""
        self.state = state
        kept = self.kept
        if kept is not None and kept is not False:
            kept.rebind(cast(TrickGame, state))


class SeatView(SeatObserver):
    """One seat's knowledge of a state: its observation and samples of the rest."""

    __slots__ = ("_memo", "_memo_at")

    def __init__(self, state: State, seat: int) -> None:
        super().__init__(state, seat)
        self._memo: dict[str, Any] = {}
        self._memo_at: tuple[int, int] | None = None

    def rebind(self, state: State) -> None:
        super().rebind(state)
        self._memo, self._memo_at = {}, None  # (samples of another state)

    def fixed(self) -> bool:
        """Whether every sample is the same deal: the seat can work out all it has not seen (a trick game's
        ``unseen_fixed``); a search then needs one. (Worked out once per position: a search asks at each sample.)"""
        memo = self._position_memo()
        fixed = memo.get("fixed")
        if fixed is None:
            state = self.state
            fixed = memo["fixed"] = isinstance(state, TrickGame) and state.current_player is not None and \
                state.unseen_fixed(self.seat)
        return bool(fixed)

    def sample(self, rng: Rng) -> State:
        """A state this seat cannot tell from the real one, the unseen cards dealt from ``rng``."""
        return determinize(self.state, self.seat, rng, self._position_memo())

    def _position_memo(self) -> dict[str, Any]:
        """What the samples of the state's current position share (a new dict once the state has moved on)."""
        state = self.state
        at = (state.deal_index, len(state.moves))  # the position: the state only moves on
        if at != self._memo_at:
            self._memo, self._memo_at = {}, at
        return self._memo


def seat_observer(state: State, seat: int, policy: Policy) -> Observe:
    """The ``observe`` of ``policy`` playing ``seat`` of ``state``: a SeatView for a searching policy, else the seat's
    observation (with the history only for policies that read it)."""
    if policy.searches:
        return SeatView(state, seat)
    return SeatObserver(state, seat, policy.uses_history)
