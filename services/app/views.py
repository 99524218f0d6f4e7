"""Views of a match for the API: a seat's observation, the public view every seat shares, or the full position.

The public view is the part of the observation that every seat sees identically, so it never holds a card that
only some seats know (see ``public_observation``).

>>> import engine
>>> state = engine.new_match("tablanette", seed=1)
>>> "hand" in public_observation(state), "table" in public_observation(state)
(False, True)
"""

from __future__ import annotations

from typing import Any

from engine.state import State

from ..generated.cardtable.v1 import common_pb2, game_service_pb2
from ..match_store import compact_json
from .matches import BOT, LiveMatch, Played

# Keys that name the viewer rather than the match.
_VIEWER_KEYS = frozenset({"seat", "legal_actions"})


def public_observation(state: State, history: bool = True) -> dict[str, Any]:
    """The observation keys whose values are the same for every seat (``history=False``: without the history)."""
    seen = [state.observation(seat, history=history) for seat in range(state.players)]
    first = seen[0]
    return {key: value for key, value in first.items()
            if key not in _VIEWER_KEYS and all(other.get(key) == value for other in seen[1:])}


def full_observation(state: State) -> dict[str, Any]:
    """Everything: the engine's position (hidden cards included) and the history."""
    return {**state.to_position(), "history": [[seat, action] for seat, action in state.history]}


def seat_view(state: State, seat: int, move_number: int, history: bool = True,
              into: common_pb2.View | None = None) -> common_pb2.View:
    """``seat``'s observation; ``history=False`` leaves out its "history" key (for a state loaded without it).
    ``into``: an empty View to fill (an answer's own field, which spares copying a View into the answer)."""
    observation = state.observation(seat, history=history)
    legal = observation["legal_actions"]
    out = _view(state, common_pb2.PERSPECTIVE_SEAT, observation, move_number, seat=seat, legal_actions=legal,
                into=into)
    if legal:
        out.legal_turns.extend(state.turn_choices())  # whole turns, for people (a fishing capture with its cards)
    return out


def public_view(state: State, move_number: int, history: bool = True) -> common_pb2.View:
    """What every seat sees (``history=False``: without the "history" key, for a state loaded without it)."""
    return _view(state, common_pb2.PERSPECTIVE_PUBLIC, public_observation(state, history=history), move_number)


def full_view(state: State, move_number: int) -> common_pb2.View:
    return _view(state, common_pb2.PERSPECTIVE_FULL, full_observation(state), move_number)


def view(state: State, perspective: int, seat: int, move_number: int) -> common_pb2.View:
    """The view of ``state`` from a perspective (``seat`` is used only by PERSPECTIVE_SEAT)."""
    if perspective == common_pb2.PERSPECTIVE_SEAT:
        return seat_view(state, seat, move_number)
    if perspective == common_pb2.PERSPECTIVE_FULL:
        return full_view(state, move_number)
    return public_view(state, move_number)


def _view(state: State, perspective: int, body: dict, move_number: int, seat: int = 0,
          legal_actions: list[str] | None = None, into: common_pb2.View | None = None) -> common_pb2.View:
    out = common_pb2.View() if into is None else into
    out.perspective = perspective
    out.seat = seat
    out.move_number = move_number
    out.deal_index = state.deal_index
    out.phase = state.phase
    out.scores.extend(state.scores)
    if legal_actions:
        out.legal_actions.extend(legal_actions)
    out.game_over = state.is_terminal
    if state.winners:
        out.winners.extend(state.winners)
    out.json = compact_json(body)  # every view is encoded on every call
    if state.current_player is not None:
        out.current_player = state.current_player
    return out


def move_message(number: int, seat: int, action: str, deal_index: int) -> common_pb2.Move:
    return common_pb2.Move(number=number, seat=seat, action=action, deal_index=deal_index)


def played_message(played: Played, viewer: int | None = None) -> common_pb2.Move:
    """A move just played in a live match as ``viewer`` (the seat that asked, or None: anyone) may see it."""
    return move_message(played.number, played.seat, played.seen_by(viewer), played.deal_index)


def match_summary(match: LiveMatch, shown: common_pb2.View) -> game_service_pb2.MatchSummary:
    """A match with its seats by kind and policy, and ``shown`` (a view of it): the projection of a live match, which
    ``ListMatches`` answers with (the public view, no history) and the web maps to its JSON (any view)."""
    seats = [game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_BOT, policy=seat.policy) if seat.kind == BOT
             else game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_PERSON) for seat in match.seats]
    return game_service_pb2.MatchSummary(match_id=match.match_id, game_id=match.meta["game"], seats=seats, view=shown)
