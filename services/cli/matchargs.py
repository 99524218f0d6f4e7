"""Arguments shared by the commands that start a match: the game, ``--players``, ``--seed`` and ``--option k=v``.

Bad values become click usage errors (one clear line, no traceback): an unknown game or option, a player count the
game is not played by say the engine's typed error as it is, with its status's exit code (2).

>>> parse_option_pairs("tablanette", ("target=151", "partnerships=false"))
{'target': 151, 'partnerships': False}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import click

import engine

from .refusals import as_usage_error


def check_game(ctx: click.Context | None, param: click.Parameter | None, game_id: str) -> str:
    """A click callback: the game id must be registered."""
    try:
        engine.game_info(game_id)
    except engine.UnknownGame as exc:
        raise as_usage_error(click.BadParameter, exc) from None
    return game_id


def parse_option_pairs(game_id: str, pairs: Iterable[str]) -> dict[str, Any]:
    """``("target=151",)`` -> ``{"target": 151}``, typed by the game's declared options; ValueError when bad."""
    declared = {o.name: o for o in engine.game_info(game_id).all_options()}
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"options are written name=value, got {pair!r}")
        engine.check_options(game_id, [name])
        options[name] = declared[name].from_text(text)
    return options


def option_pairs_param(ctx: click.Context, game_id: str, pairs: Iterable[str]) -> dict[str, Any]:
    """:func:`parse_option_pairs` with errors reported against ``--option``."""
    try:
        return parse_option_pairs(game_id, pairs)
    except ValueError as exc:
        raise as_usage_error(click.BadParameter, exc, ctx=ctx, param_hint="'--option'") from None


def start_match(game_id: str, seed: int, players: int | None, options: Mapping[str, Any]) -> engine.State:
    """``engine.new_match`` with the engine's ValueErrors (player count, option values) as usage errors."""
    try:
        return engine.new_match(game_id, seed=seed, players=players, options=options)
    except ValueError as exc:
        raise as_usage_error(click.UsageError, exc) from None


game_argument = click.argument("game", callback=check_game)
seed_option = click.option("--seed", type=click.IntRange(min=0), default=None,
                           help="Seed of the match (default: a fresh one, printed so the match can be replayed).")
players_option = click.option("--players", type=int, default=None, help="Number of seats (default: the game's).")
option_option = click.option(
    "--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
    help="A game option (repeatable); `cardtable games` lists them.",
)
