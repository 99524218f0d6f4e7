"""The web's JSON of a job, a replay, a game, a live match's view and its moves: the JSON mapping of the API message
the app builds for it (the one projection of the resource, which the gRPC services answer with), under the web's
names and units.

Each table lists the web's fields in the order the web sends them and where each comes from: a :class:`Field` is a
path of the message's fields by their proto names (those of its JSON mapping with proto field names) with the
conversion to the web's unit; a :class:`Kept` is one of the few values the message cannot carry as the web has always
sent it, read from what the message was built from (the stored job, the match's state), with the reason. Whatever the
message holds the web takes from it, so a field is read from the store and named once, in the app. The tables are
mapped by :func:`services.app.projection.mapped`, as the CLI's are (services/cli/mapping.py).

>>> from services.generated.cardtable.v1.replay_service_pb2 import ReplaySummary
>>> replay_json(ReplaySummary(replay_id="live/3", size_bytes=9, error="truncated"))
{'replay_id': 'live/3', 'size_bytes': 9, 'error': 'truncated'}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine.state import State

from ..app.convert import OPTION_TYPES, game_info_response, game_summary, python_value
from ..app.jobs import JobRecord, job_message
from ..app.matches import HUMAN_POLICY, LiveMatch, Played
from ..app.projection import GAME_SUMMARY, JOB_TIMES, Field, Fields, Kept, from_json, game_name, mapped, word
from ..app.views import match_summary, played_message, public_view, seat_view
from ..generated.cardtable.v1.common_pb2 import PERSPECTIVE_PUBLIC, OptionValue, View
from ..generated.cardtable.v1.game_service_pb2 import OptionSpec, OptionType, SeatKind, SeatSpec
from ..generated.cardtable.v1.replay_service_pb2 import ReplaySummary
from ..generated.cardtable.v1.simulation_service_pb2 import GameCounter


def _grouped(counters: list[GameCounter] | None) -> dict[str, dict[str, int]] | None:
    """The message's counters (name, label, value), grouped by name as the web sends them."""
    if counters is None:
        return None
    groups: dict[str, dict[str, int]] = {}
    for counter in counters:
        groups.setdefault(counter.name, {})[counter.label] = counter.value
    return groups


JOB: Fields = (
    Field("job_id", "job_id"),
    Kept("spec", lambda record: record.spec.to_dict(),
         "the spec as the store keeps it and `cardtable jobs show --json` prints it: the message's maps do not keep "
         "the order of the options and of a policy's parameters, and it has no unit_scores or unit_rows"),
    Field("game_name", "spec.game_id", game_name),
    Field("state", "state", word("JOB_STATE_")),
    Field("units_done", "progress.units_done"),
    Field("units_total", "progress.units_total"),
    Field("chunks_done", "progress.chunks_done"),
    Field("chunks_total", "progress.chunks_total"),
    Field("error", "error"),
    *JOB_TIMES,
    Field("replay_collection", "replay_collection"),
    Field("logged", "spec.logging", lambda logging: logging != "REPLAY_LOGGING_NONE"),
    Field("cancel_requested", "cancel_requested"),
)
# A job read alone (not listed) adds its results (None until it has some): as the CLI prints them, and grouped counters.
JOB_RESULTS = (
    Field("results", "results.json", from_json),
    Field("counters", "results.counters", _grouped),
)

REPLAY = (
    Field("replay_id", "replay_id"),
    Field("game", "game_id"),
    Field("game_name", "game_id", game_name),
    Field("players", "players"),
    Field("seed", "seed"),
    Field("scope", "scope"),
    Field("policies", "policies"),
    Field("move_count", "move_count"),
    Field("size_bytes", "size_bytes"),
    Field("header", "header_json", json.loads),
)
# A replay whose bytes do not decode: its id, its size and why.
UNREADABLE_REPLAY = (
    Field("replay_id", "replay_id"),
    Field("size_bytes", "size_bytes"),
    Field("error", "error"),
)



def _seats(seats: list[SeatSpec]) -> list[dict[str, str]]:
    """The message's seats (a person's has no policy) as the web sends them: kind and policy."""
    kind = word("SEAT_KIND_")
    return [{"kind": kind(SeatKind.Name(seat.kind)), "policy": seat.policy or HUMAN_POLICY} for seat in seats]


def _observation(view: View) -> dict[str, Any]:
    """The view's observation without the legal actions (the web sends them beside it)."""
    observation = json.loads(view.json)
    observation.pop("legal_actions", None)
    return observation


@dataclass(frozen=True)
class Shown:
    """What a view of a live match shows that its message does not: the state (the cards in each hand) and the match's
    replay once it is over."""

    state: State
    replay_id: str


# A live match as a seat (or, with seat None, anyone) sees it: the match's summary message around a view.
MATCH_VIEW = (
    Field("match_id", "match_id"),
    Field("seat", "view", lambda view: None if view.perspective == PERSPECTIVE_PUBLIC else view.seat),
    Field("move_number", "view.move_number"),
    Field("game", "game_id"),
    Field("game_name", "game_id", game_name),
    Field("players", "seats", len),
    Field("seats", "seats", _seats),
    Field("current_player", "view.current_player"),
    Field("legal_actions", "view.legal_actions"),
    Field("legal_turns", "view.legal_turns"),
    Field("game_over", "view.game_over"),
    # a finished match has its winners (none, in Boonaken, is []); one in play has none yet (null)
    Field("winners", "view", lambda view: list(view.winners) if view.game_over else None),
    Field("scores", "view.scores"),
    Kept("replay_id", lambda shown: shown.replay_id, "a view message has no replay (GetObservation's and WatchGame's "
                                                     "answers carry it beside the view)"),
    Kept("hand_counts", lambda shown: [len(cards) for cards in shown.state.to_position().get("hands") or []],
         "no message carries the number of cards in each hand"),
    Field("observation", "view", _observation),
)

MOVE = (
    Field("number", "number"),
    Field("seat", "seat"),
    Field("action", "action"),
    Field("deal_index", "deal_index"),
)

GAME = GAME_SUMMARY

_TYPE_NAMES = {OptionType.Name(number): kind.__name__ for kind, number in OPTION_TYPES.items()}  # "int", "bool", "str"


def _choices(choices: list[OptionValue]) -> list[Any] | None:
    """An option's values to choose from; None for an option without a list (no option's list is empty)."""
    return [python_value(choice) for choice in choices] or None


OPTION = (
    Field("name", "name"),
    Field("type", "type", _TYPE_NAMES.__getitem__),
    Field("default", "default_value", python_value),
    Field("choices", "choices", _choices),
    Field("nullable", "nullable"),
    Field("minimum", "minimum"),
    Field("maximum", "maximum"),
    Field("doc", "doc"),
    Field("allowed", "allowed"),
)


def _options(options: list[OptionSpec]) -> list[dict[str, Any]]:
    return [mapped(option, OPTION) for option in options]


# A game's options for a player count (GetGameInfo's answer).
GAME_INFO = (
    Field("id", "game.game_id"),
    Field("name", "game.name"),
    Field("summary", "game.summary"),
    Field("players", "players"),
    Field("player_counts", "game.player_counts"),
    Field("options", "options", _options),
)


def job_json(record: JobRecord, with_results: bool = True) -> dict[str, Any]:
    """A job as the web sends it: listed (``with_results`` False), or read alone with its results."""
    return mapped(job_message(record, with_results), (*JOB, *JOB_RESULTS) if with_results else JOB, record)


def replay_json(replay: ReplaySummary) -> dict[str, Any]:
    """A replay's summary as the web sends it: its header, or (marked with ``error``) why it cannot be read."""
    return mapped(replay, UNREADABLE_REPLAY if replay.error else REPLAY)


def view_json(state: State, match: LiveMatch, seat: int | None, move_number: int, replay_id: str,
              history: bool = False) -> dict[str, Any]:
    """``state`` of ``match`` after ``move_number`` moves as the web sends it, as ``seat`` (None: anyone) sees it."""
    shown = public_view(state, move_number, history) if seat is None else seat_view(state, seat, move_number, history)
    return mapped(match_summary(match, shown), MATCH_VIEW, Shown(state, replay_id))


def moves_json(played: Sequence[Played], viewer: int | None) -> list[dict[str, Any]]:
    """Moves just played as ``viewer`` (a seat, or None: anyone) sees them."""
    return [mapped(played_message(move, viewer), MOVE) for move in played]


def games_json() -> list[dict[str, Any]]:
    """Every game (ListGames' summaries, on one page)."""
    return [mapped(game_summary(game_id), GAME) for game_id in engine.list_games()]


def game_info_json(game_id: str, players: int | None) -> dict[str, Any]:
    """A game's player counts and its options for ``players`` (None: the game's usual count)."""
    return mapped(game_info_response(game_id, players), GAME_INFO)
