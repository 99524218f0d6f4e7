"""cardtable's rules engine: deterministic, seeded, standard library only.

>>> import engine
>>> state = engine.new_match("tablanette", seed=42)
>>> state.apply(state.legal_actions()[0])
"""

from . import _native  # noqa: F401  (first: the compiled engine where `make install` built it, see there)
from . import games as _games  # noqa: F401  (registers every game)
from ._native import engine_kind, engine_report
from .determinize import determinize
from .errors import (
    ActionLimitExceeded,
    IllegalAction,
    PositionError,
    UnknownGame,
    UnknownOption,
    UnknownPolicy,
    UnsupportedPlayers,
)
from .registry import (
    check_options,
    check_players,
    from_position,
    game_class,
    game_info,
    game_length,
    list_games,
    new_match,
)
from .state import GameInfo, GameLength, State

__all__ = [
    "ActionLimitExceeded",
    "GameInfo",
    "GameLength",
    "IllegalAction",
    "PositionError",
    "State",
    "UnknownGame",
    "UnknownOption",
    "UnknownPolicy",
    "UnsupportedPlayers",
    "check_options",
    "check_players",
    "determinize",
    "engine_kind",
    "engine_report",
    "from_position",
    "game_class",
    "game_info",
    "game_length",
    "list_games",
    "new_match",
]
