"""``cardtable policies``: the bot policies, the games they play and their parameters.

    cardtable policies          # readable tables
    cardtable policies --json   # engine.bots.policy_infos(), as a JSON list

A seat is given a policy with parameters as ``NAME:PARAM=VALUE`` (``cardtable simulate tablanette --deals 1000
--policies greedy:epsilon=0.2,random``).
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

import engine
from engine.bots import policy_infos


def _games(names: list[str]) -> str:
    return "every game" if names == engine.list_games() else ", ".join(names)


def policies_table(infos: list[dict]) -> Table:
    table = Table(title="Policies", title_justify="left")
    table.add_column("policy", no_wrap=True, style="cyan")
    table.add_column("plays", max_width=30)
    table.add_column("what it does", ratio=1)
    for info in infos:
        table.add_row(info["name"], _games(info["games"]), info["doc"])
    return table


def params_table(infos: list[dict]) -> Table:
    table = Table(title="Parameters (--policies NAME:PARAM=VALUE)", title_justify="left")
    table.add_column("policy", no_wrap=True, style="cyan")
    table.add_column("parameter", no_wrap=True, style="cyan")
    table.add_column("default", max_width=16)
    table.add_column("allowed", max_width=22)
    table.add_column("doc", ratio=1)
    for info in infos:
        if not info["params"]:
            table.add_row(info["name"], "-", "", "", "takes no parameters")
        for param in info["params"]:
            table.add_row(info["name"], param["name"], repr(param["default"]), f"{param['type']}: {param['allowed']}",
                          param["doc"])
    return table


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def policies(as_json: bool) -> None:
    """List the bot policies, the games they play and their parameters."""
    infos = policy_infos()
    if as_json:
        click.echo(json.dumps(infos, indent=2))
        return
    console = Console(highlight=False)
    console.print(policies_table(infos))
    console.print()
    console.print(params_table(infos))
