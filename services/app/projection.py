"""How an edge writes a resource's API message as its own JSON: a table of the edge's fields in the order it sends
them, each read from the message (the one projection of the resource, which the app builds and the gRPC services
answer with) or, for the few values the message cannot carry as the edge has always written them, from what the
message was built from, with the reason. The web's tables are in services/web/mapping.py, the CLI's in
services/cli/mapping.py; both edges map through :func:`mapped`, and the fields they write alike (a job's times, a
game's summary) are declared here once.

A :class:`Field` is a path of the message's fields by their proto names (those of its JSON mapping with proto field
names; ``""``: the message itself) with the conversion to the edge's unit; a :class:`Kept` is read from what the
message was built from; a :class:`Spread` puts the fields of a dict the message holds (a job's results, as JSON) in
its place. The fields are read from the message itself (an enum by its name, an unset optional field as None, a
repeated field as a list): ``json_format.MessageToDict`` gave the same values at four times the cost of the
hand-written dicts the tables replaced.

>>> from services.generated.cardtable.v1.replay_service_pb2 import ReplaySummary
>>> mapped(ReplaySummary(replay_id="live/3", size_bytes=9), (Field("id", "replay_id"), Field("bytes", "size_bytes")))
{'id': 'live/3', 'bytes': 9}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor
from google.protobuf.message import Message

import engine


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Field:
    """The edge's field ``name``: the value at ``path`` (dotted proto field names; ``""``: the message itself) in the
    message, through ``convert`` (which gets None where the message leaves an optional field unset)."""

    name: str
    path: str
    convert: Callable[[Any], Any] = _same


@dataclass(frozen=True)
class Kept:
    """The edge's field ``name``, read from what the message was built from (the message lacks it: ``why``)."""

    name: str
    read: Callable[[Any], Any]
    why: str


@dataclass(frozen=True)
class Spread:
    """The fields of the dict at ``path`` in the message, through ``convert``, each under its own name, in their
    order (a job's results, which the message carries as JSON)."""

    path: str
    convert: Callable[[Any], dict[str, Any]]


Fields = Sequence[Field | Kept | Spread]


def game_name(game_id: str) -> str:
    """What the page calls a game (``Belote contrée`` for ``belote_contree``); an id this server does not know (a
    stored job of a game since removed) as it is."""
    try:
        return engine.game_info(game_id).name
    except ValueError:
        return game_id


def word(prefix: str) -> Callable[[str], str]:
    """An enum's name as the edges write it: ``JOB_STATE_QUEUED`` -> ``queued``."""
    return lambda name: name.removeprefix(prefix).lower()


def from_json(text: str | None) -> Any:
    """A JSON text the message carries (a job's results), read; None where the message has none."""
    return None if text is None else json.loads(text)


def _stored_time(name: str) -> Kept:
    return Kept(name, lambda record: getattr(record, name), "Unix seconds as stored (the message holds whole "
                                                              "milliseconds)")


# A job's times (a JobRecord's) as the web and the CLI have always written them.
JOB_TIMES = tuple(_stored_time(name) for name in ("created", "started", "finished"))

# A game (ListGames' GameSummary) as the web and the CLI have always written it.
GAME_SUMMARY = (
    Field("id", "game_id"),
    Field("name", "name"),
    Field("summary", "summary"),
    Field("player_counts", "player_counts"),
    Field("default_players", "default_players"),
)


_AS_IS, _LIST, _DICT, _ENUM = range(4)


@cache
def _steps(descriptor: Descriptor, path: str) -> tuple[tuple[str, bool, int, EnumDescriptor | None], ...]:
    """How to read ``path`` in a message of type ``descriptor``: each field's name, whether it may be unset, and how
    its value becomes the edge's (a repeated field a list, a map a dict, an enum its name)."""
    steps = []
    for name in path.split(".") if path else ():
        field = descriptor.fields_by_name[name]
        if field.is_repeated:
            kind = _DICT if field.message_type and field.message_type.GetOptions().map_entry else _LIST
        else:
            kind = _ENUM if field.enum_type is not None else _AS_IS
        steps.append((name, field.has_presence, kind, field.enum_type))
        descriptor = field.message_type
    return tuple(steps)


def _at(message: Message, path: str) -> Any:
    value: Any = message
    for name, optional, kind, enum in _steps(message.DESCRIPTOR, path):
        if optional and not value.HasField(name):
            return None
        value = getattr(value, name)
        if kind == _LIST:
            return list(value)
        if kind == _DICT:
            return dict(value)
        if kind == _ENUM:
            return enum.values_by_number[value].name  # type: ignore[union-attr]
    return value


def mapped(message: Message, fields: Fields, built_from: Any = None) -> dict[str, Any]:
    """The edge's JSON of ``message`` (and, for its :class:`Kept` fields, of what it was ``built_from``) under
    ``fields``."""
    out: dict[str, Any] = {}
    for f in fields:
        if type(f) is Field:
            out[f.name] = f.convert(_at(message, f.path))
        elif type(f) is Kept:
            out[f.name] = f.read(built_from)
        else:
            out.update(f.convert(_at(message, f.path)))  # type: ignore[union-attr]
    return out
