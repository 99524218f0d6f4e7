"""Options declared as data and validated in one place: a game's options, and a bot policy's parameters.

The value types are decided here, once. A game option holds a bool, an int or a str (or null, where it is nullable):
exactly what a replay records and what the API's ``OptionValue`` carries, so a game declaring a float option is
refused when it registers. A policy's parameters may also be floats (``epsilon``): they travel as text, in the
policy's label (``greedy:epsilon=0.2``), everywhere.

>>> spec = [Option("target", int, 101, "game target", minimum=1)]
>>> resolve_options(spec, {"target": 151}, players=2)
{'target': 151}
>>> epsilon = Option("epsilon", float, 0.0, "exploration", minimum=0.0, maximum=1.0, noun="parameter")
>>> epsilon.check(epsilon.from_text("0.25"))
0.25
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import UnknownOption

TYPE_NAMES = {int: "int", float: "float", bool: "bool", str: "str"}  # every type an Option may have
GAME_OPTION_TYPES: tuple[type, ...] = (bool, int, str)  # a game option's: what replays and the API carry
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NULL = {"null", "none"}


@dataclass(frozen=True)
class Option:
    """One option of a game (or parameter of a policy: ``noun="parameter"`` names it so in messages).

    ``default`` is a value or a function of the player count; ``choices`` lists the allowed values (for some player
    counts, ``choices_for`` narrows them); ``nullable`` allows ``None``. A ``float`` option also takes an int (as the
    same float) but never a bool, NaN or an infinity.
    """

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    nullable: bool = False
    choices_for: Callable[[int], tuple[Any, ...]] | None = None
    noun: str = "option"

    def __post_init__(self) -> None:
        if self.type not in TYPE_NAMES:
            names = ", ".join(TYPE_NAMES.values())
            raise TypeError(f"{self.title} has type {self.type!r}; an option is one of {names}")

    @property
    def title(self) -> str:
        """How messages name it: ``option 'target'``, ``parameter 'epsilon'``."""
        return f"{self.noun} {self.name!r}"

    def default_for(self, players: int | None) -> Any:
        """The default with ``players`` players; None where no player count applies (a plain default only)."""
        if not callable(self.default):
            return self.default
        if players is None:
            raise ValueError(f"{self.title} has a default that depends on the player count, and none is given")
        return self.default(players)

    def allowed(self, players: int | None) -> tuple[Any, ...] | None:
        return self.choices_for(players) if self.choices_for and players is not None else self.choices

    def describe_allowed(self, players: int | None = None) -> str:
        choices = self.allowed(players) if players is not None else self.choices
        parts = []
        if choices is not None and _is_run(choices):
            parts.append(f"{choices[0]}..{choices[-1]}")  # a long run of ints said as a range
        elif choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in choices))
        if self.minimum is not None or self.maximum is not None:
            low = self.minimum if self.minimum is not None else "-inf"
            high = self.maximum if self.maximum is not None else "inf"
            parts.append(f"{low}..{high}")
        if self.nullable:
            parts.append("null")
        return " or ".join(parts) or f"any {TYPE_NAMES[self.type]}"

    def check(self, value: Any, players: int | None = None) -> Any:
        """``value`` if it is allowed (with ``players`` players, when that matters); a ValueError naming what is."""
        if value is None:
            if self.nullable:
                return None
            raise ValueError(f"{self.title} may not be null; allowed: {self.describe_allowed(players)}")
        if not self._has_type(value):
            allowed = self.describe_allowed(players)
            raise ValueError(f"{self.title} must be a {TYPE_NAMES[self.type]}, got {value!r} (allowed: {allowed})")
        if self.type is float:
            value = float(value)
        choices = self.allowed(players)
        if choices is not None and value not in choices:
            with_players = f" with {players} players" if players is not None and self.choices_for else ""
            raise ValueError(
                f"{self.title} = {value!r} is not allowed{with_players}; allowed: {self.describe_allowed(players)}"
            )
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            raise ValueError(f"{self.title} = {value!r} is out of range; allowed: {self.describe_allowed(players)}")
        return value

    def _has_type(self, value: Any) -> bool:
        # bool is a subclass of int: accept it only where a bool is wanted.
        if isinstance(value, bool) != (self.type is bool):
            return False
        if self.type is float:
            return isinstance(value, int | float) and math.isfinite(value)
        return isinstance(value, self.type)

    def from_text(self, text: str) -> Any:
        """The value a person wrote (``"151"``, ``"true"``, ``"0.2"``, ``"null"``), typed but not yet checked."""
        lowered = text.strip().lower()
        if self.nullable and lowered in _NULL:
            return None
        if self.type is bool:
            if lowered in _TRUE | _FALSE:
                return lowered in _TRUE
            raise ValueError(f"{self.title} is true or false, not {text!r}")
        if self.type is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"{self.title} is an integer ({self.describe_allowed()}), not {text!r}") from None
        if self.type is float:
            try:
                number = float(text)
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise ValueError(f"{self.title} is a number ({self.describe_allowed()}), not {text!r}")
            return number
        return text

    def to_text(self, value: Any) -> str:
        """The text :meth:`from_text` reads back as ``value``: ``"null"``, ``"true"``, ``"151"``, ``"0.25"``.

        >>> epsilon = Option("epsilon", float, 0.0, "exploration", noun="parameter")
        >>> epsilon.to_text(0.1), epsilon.from_text(epsilon.to_text(0.1)) == 0.1
        ('0.1', True)
        """
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return repr(value)  # the shortest text that reads back as the same float
        return str(value)

    def to_dict(self, players: int | None = None, counts: Iterable[int] = range(2, 7)) -> dict[str, Any]:
        """JSON-ready; without ``players``, a default that depends on the player count is listed for ``counts``."""
        return {
            "name": self.name,
            "type": TYPE_NAMES[self.type],
            "default": self.default_for(players) if players is not None else self.default_doc(counts),
            "allowed": self.describe_allowed(players),
            "choices": list((self.allowed(players) if players is not None else self.choices) or ()) or None,
            "nullable": self.nullable,
            "doc": self.doc,
        }

    def default_doc(self, counts: Iterable[int] = range(2, 7)) -> Any:
        if callable(self.default):
            return {n: self.default(n) for n in counts}
        return self.default


@dataclass(frozen=True)
class OptionRule:
    """A rule across a game's options (``GameInfo.option_rules``): ``holds`` says whether resolved options keep it;
    ``message``, formatted with the options, says why they do not.

    >>> rule = OptionRule(lambda o: o["low"] <= o["high"], "low {low} is above high {high}")
    >>> rule.check({"low": 3, "high": 1})
    Traceback (most recent call last):
    ValueError: low 3 is above high 1
    """

    holds: Callable[[Mapping[str, Any]], bool]
    message: str

    def check(self, options: Mapping[str, Any]) -> None:
        if not self.holds(options):
            raise ValueError(self.message.format_map(options))


def check_game_options(game_id: str, options: Iterable[Option]) -> None:
    """TypeError unless every option of a game holds a type that replays and the API carry, with integer bounds.

    >>> check_game_options("demo", [Option("bonus", float, 0.5, "a float bonus")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: demo: option 'bonus' is a float, but a game option is a bool, an int or a str (replays and the API ...
    """
    for option in options:
        if option.type not in GAME_OPTION_TYPES:
            raise TypeError(f"{game_id}: {option.title} is a {TYPE_NAMES[option.type]}, but a game option is a bool, "
                            "an int or a str (replays and the API carry no other)")
        for bound in (option.minimum, option.maximum):
            if bound is not None and type(bound) is not int:
                raise TypeError(f"{game_id}: {option.title} has a bound {bound!r} that is not an int")


def resolve_options(spec: list[Option], given: Mapping[str, Any] | None, players: int | None,
                    owner: str | None = None) -> dict[str, Any]:
    """Every option of ``spec`` with its value: the given one (checked) or the default for this player count;
    UnknownOption names the options of ``owner`` (a game id) that ``given`` does not declare.

    ``players`` is None where no player count applies (a policy's parameters): defaults must then be plain values.
    """
    if given is not None and not isinstance(given, Mapping):
        raise ValueError(f"options must be a mapping of option names to values, got {type(given).__name__}")
    given = dict(given or {})
    known = {o.name for o in spec}
    unknown = sorted(set(given) - known)
    if unknown:
        raise UnknownOption(unknown, sorted(known), owner)
    return {o.name: (o.check(given[o.name], players) if o.name in given else o.default_for(players)) for o in spec}


def _is_run(choices: tuple[Any, ...]) -> bool:
    """Whether ``choices`` are more than three consecutive ints in order (``2, 3, 4, 5`` reads better as ``2..5``).

    >>> _is_run((1, 2, 3, 4)), _is_run((4, 6, 8)), _is_run((True, False))
    (True, False, False)
    """
    if len(choices) <= 3 or not all(type(c) is int for c in choices):
        return False
    return list(choices) == list(range(choices[0], choices[0] + len(choices)))
