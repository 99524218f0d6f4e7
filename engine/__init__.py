"""cardtable's rules engine: deterministic, seeded, standard library only.

>>> import engine
>>> state = engine.new_match("tablanette", seed=42)
>>> state.apply(state.legal_actions()[0])
"""

from . import games as _games  # noqa: F401  (registers every game)
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
    "from_position",
    "game_class",
    "game_info",
    "game_length",
    "list_games",
    "new_match",
]
