"""``cardtable games``: every game, its player counts and every option with its default, allowed values and doc.

    cardtable games          # readable tables
    cardtable games --json   # engine.game_info(gid).to_dict() for each game, and the engine that plays it
                             # ("engine": "compiled" or "python", see engine/_native.py), as a JSON list
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

import engine

from .mapping import game_json


def _shown_value(value: object) -> str:
    """A value as it is typed after ``--option NAME=``: JSON (``true``, ``null``, ``120``), a string bare.

    >>> [_shown_value(v) for v in (True, None, 0.5, "per_trick")]
    ['true', 'null', '0.5', 'per_trick']
    """
    return value if isinstance(value, str) else json.dumps(value)


def _shown_default(value: object, player_counts: list[int]) -> str:
    """A default; one that depends on the player count is shown for the game's own counts (``2p: 6, 3p: 4``)."""
    if isinstance(value, dict):
        return ", ".join(f"{players}p: {_shown_value(value[players])}" for players in player_counts if players in value)
    return _shown_value(value)


def player_counts(info: dict) -> str:
    """``2, 3, 4 (default 2)`` or ``2-7 (default 2)``: the default said in words, which a pipe or a file keeps (bold
    type they lose).

    >>> player_counts({"player_counts": [2, 3, 4, 5, 6, 7], "default_players": 2})
    '2-7 (default 2)'
    """
    counts = info["player_counts"]
    if len(counts) > 3 and counts == list(range(counts[0], counts[-1] + 1)):
        shown = f"{counts[0]}-{counts[-1]}"
    else:
        shown = ", ".join(str(n) for n in counts)
    return shown if len(counts) == 1 else f"{shown} (default {info['default_players']})"


def games_table(infos: list[dict]) -> Table:
    table = Table(title="Games", title_justify="left")
    table.add_column("game", no_wrap=True, style="cyan")
    table.add_column("name", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("summary", ratio=1)
    for info in infos:
        table.add_row(info["id"], info["name"], player_counts(info), info["summary"])
    return table


def _allowed(option: dict) -> str:
    """``int: 1..inf or null``, ``str: one of per_trick, difference``; just the type when any value is allowed."""
    if option["allowed"].startswith("any "):
        return option["type"]
    choices = option["choices"]
    if choices and all(isinstance(c, str) for c in choices):
        words = "one of " + ", ".join(choices) + (" or null" if option["nullable"] else "")
        return f"{option['type']}: {words}"
    return f"{option['type']}: {option['allowed']}"


def options_table(info: dict) -> Table:
    table = Table(title=f"{info['id']} options (cardtable play {info['id']} --option NAME=VALUE)", title_justify="left")
    table.add_column("option", no_wrap=True, style="cyan")
    table.add_column("default", max_width=16)
    table.add_column("allowed", max_width=22)
    table.add_column("doc", ratio=1)
    for option in info["options"]:
        default = _shown_default(option["default"], info["player_counts"])
        table.add_row(option["name"], default, _allowed(option), option["doc"])
    return table


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def games(as_json: bool) -> None:
    """List the games, their player counts and options."""
    if as_json:
        click.echo(json.dumps([game_json(game_id) for game_id in engine.list_games()], indent=2))
        return
    infos = [engine.game_info(game_id).to_dict() for game_id in engine.list_games()]
    console = Console(highlight=False)
    if not infos:
        console.print("No games are registered.")
        return
    console.print(games_table(infos))
    console.print(f"engine: {engine.engine_kind()}")
    for info in infos:
        console.print()
        console.print(options_table(info))
