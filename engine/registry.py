"""The registry of games: every game package (``engine/games/<game>/``) registers its State class by id."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from .errors import UnknownGame, UnknownOption
from .options import check_game_options
from .state import GameInfo, GameLength, State

_GAMES: dict[str, type[State]] = {}


def register(cls: type[State]) -> type[State]:
    """Class decorator: make a game available under ``cls.INFO.id`` (and note its longest match per player count and,
    unless given, its deck size)."""
    check_game_options(cls.INFO.id, cls.INFO.all_options())
    lengths = {n: cls.game_length(n) for n in cls.INFO.player_counts}
    cls.INFO = replace(cls.INFO, max_length=lengths, deck_size=cls.INFO.deck_size or len(cls.DECK), phases=cls.PHASES)
    _GAMES[cls.INFO.id] = cls
    return cls


def unregister(game_id: str) -> None:
    """Take a game out of the registry (UnknownGame if it is not in it)."""
    game_class(game_id)
    del _GAMES[game_id]


@contextmanager
def registered(cls: type[State]) -> Iterator[str]:
    """Register a game for the ``with`` block only, giving its id: a game that is not one of the product's (a test's
    own, docs/adding_a_game.md's Whist) is played through the registry like the others, and the registry is as it was
    afterwards.

    >>> from engine.games.tres import Tres
    >>> class TresAgain(Tres):
    ...     INFO = replace(Tres.INFO, id="tres_again")
    >>> with registered(TresAgain) as game_id:
    ...     new_match(game_id, seed=1).game_id
    'tres_again'
    >>> "tres_again" in list_games()
    False
    """
    if cls.INFO.id in _GAMES:
        raise ValueError(f"a game {cls.INFO.id!r} is registered already")
    register(cls)
    try:
        yield cls.INFO.id
    finally:
        unregister(cls.INFO.id)


def game_class(game_id: str) -> type[State]:
    try:
        return _GAMES[game_id]
    except (KeyError, TypeError):
        raise UnknownGame(game_id, list_games()) from None


def list_games() -> list[str]:
    return sorted(_GAMES)


def game_package(game_id: str) -> str:
    """The package that holds a game: its rules and its own parts (``greedy``), e.g. ``engine.games.belote``.

    >>> game_package("belote")
    'engine.games.belote'
    """
    module = sys.modules[game_class(game_id).__module__]
    return module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]


def game_info(game_id: str) -> GameInfo:
    return game_class(game_id).INFO


def check_options(game_id: str, names: Iterable[str]) -> None:
    """UnknownGame, or UnknownOption naming those of ``names`` that are no option of ``game_id`` (their values are
    checked where a match starts): for a caller that reads option values by their declared types first.

    >>> try:
    ...     check_options("tablanette", ["target", "nope"])
    ... except UnknownOption as exc:
    ...     exc.names
    ['nope']
    """
    known = [option.name for option in game_info(game_id).all_options()]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UnknownOption(unknown, known, game_id)


def check_players(game_id: str, players: int | None) -> int:
    """``players``, or the game's usual count for None; UnknownGame, or UnsupportedPlayers for a count the game is not
    played by.

    >>> check_players("tablanette", None), check_players("tablanette", 4)
    (2, 4)
    """
    return game_class(game_id)._resolve_players(players, None)


def game_length(game_id: str, players: int | None = None, options: Mapping[str, Any] | None = None) -> GameLength:
    """The longest match of a game with these players and options: ``game_length("belote", 4).moves``."""
    return game_class(game_id).game_length(players, options)


def new_match(
    game_id: str,
    seed: int | None = None,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    first_dealer: int | None = None,
    deck: list[str] | None = None,
) -> State:
    """Start a match: ``new_match("tablanette", seed=42)``; ``deck`` (codes, top first) fixes the first deal."""
    return game_class(game_id).create(seed=seed, players=players, options=options, first_dealer=first_dealer, deck=deck)


def from_position(game_id: str, position: Mapping[str, Any]) -> State:
    """Rebuild a state from ``state.to_position()`` output (or a hand-written position)."""
    return game_class(game_id).from_position(position)
