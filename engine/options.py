"""Game options declared as data and validated in one place.

>>> spec = [Option("target", int, 101, "game target", minimum=1)]
>>> resolve_options(spec, {"target": 151}, players=2)
{'target': 151}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

TYPE_NAMES = {int: "int", bool: "bool", str: "str"}


@dataclass(frozen=True)
class Option:
    """One option of a game.

    ``default`` is a value or a function of the player count; ``choices`` lists the allowed values (for some player
    counts, ``choices_for`` narrows them); ``nullable`` allows ``None``.
    """

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    choices_for: Callable[[int], tuple] | None = None

    def default_for(self, players: int) -> Any:
        return self.default(players) if callable(self.default) else self.default

    def allowed(self, players: int) -> tuple | None:
        return self.choices_for(players) if self.choices_for else self.choices

    def describe_allowed(self, players: int | None = None) -> str:
        choices = self.allowed(players) if players is not None else self.choices
        parts = []
        if choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in choices))
        if self.minimum is not None or self.maximum is not None:
            low = self.minimum if self.minimum is not None else "-inf"
            high = self.maximum if self.maximum is not None else "inf"
            parts.append(f"{low}..{high}")
        if self.nullable:
            parts.append("null")
        return " or ".join(parts) or f"any {TYPE_NAMES[self.type]}"

    def check(self, value: Any, players: int) -> Any:
        if value is None:
            if self.nullable:
                return None
            raise ValueError(f"option {self.name!r} may not be null; allowed: {self.describe_allowed(players)}")
        # bool is a subclass of int: accept it only where a bool is wanted.
        if isinstance(value, bool) != (self.type is bool) or not isinstance(value, self.type):
            raise ValueError(
                f"option {self.name!r} must be a {TYPE_NAMES[self.type]}, got {value!r}"
                f" (allowed: {self.describe_allowed(players)})"
            )
        choices = self.allowed(players)
        if choices is not None and value not in choices:
            raise ValueError(
                f"option {self.name!r} = {value!r} is not allowed with {players} players;"
                f" allowed: {self.describe_allowed(players)}"
            )
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            allowed = self.describe_allowed(players)
            raise ValueError(f"option {self.name!r} = {value!r} is out of range; allowed: {allowed}")
        return value

    def to_dict(self, players: int | None = None) -> dict:
        return {
            "name": self.name,
            "type": TYPE_NAMES[self.type],
            "default": self.default_for(players) if players is not None else self.default_doc(),
            "allowed": self.describe_allowed(players),
            "choices": list(self.allowed(players) if players is not None else self.choices or ()) or None,
            "nullable": self.nullable,
            "doc": self.doc,
        }

    def default_doc(self) -> Any:
        if callable(self.default):
            return {n: self.default(n) for n in range(2, 7)}
        return self.default


def resolve_options(spec: list[Option], given: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
    """Every option of ``spec`` with its value: the given one (checked) or the default for this player count."""
    if given is not None and not isinstance(given, Mapping):
        raise ValueError(f"options must be a mapping of option names to values, got {type(given).__name__}")
    given = dict(given or {})
    known = {o.name for o in spec}
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; this game's options are {sorted(known)}")
    return {o.name: (o.check(given[o.name], players) if o.name in given else o.default_for(players)) for o in spec}
