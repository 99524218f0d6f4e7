"""``cardtable policies``: the bot policies, the games they play and their parameters.

    cardtable policies          # readable tables
    cardtable policies --json   # engine.bots.policy_infos(), as a JSON list

Besides the built-in policies it lists those that installed packages register under the entry-point group
``cardtable.policies`` (any other policy of one's own is named by its import path, ``mybots.cautious:Cautious``;
docs/bots.md). A seat is given a policy with parameters as ``NAME:PARAM=VALUE`` (``cardtable simulate tablanette
--deals 1000 --policies greedy:epsilon=0.2,random``). Every command that names a policy (``play --opponents``,
``watch --policy``, ``bench --policy``) reads it with :data:`POLICY_LABEL`, the same parser as ``simulate``'s
(:func:`canonical_label`):

>>> POLICY_LABEL.convert("greedy:epsilon=0.30", None, None), POLICY_LABEL.convert("greedy:epsilon=0", None, None)
('greedy:epsilon=0.3', 'greedy')
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

import engine
from engine.bots import canonical_label, policy_infos

from .refusals import as_usage_error


class PolicyLabelType(click.ParamType):
    """A policy label on the command line (``greedy``, ``greedy:epsilon=0.3``), checked and made canonical; a bad
    one is a usage error that says what is allowed."""

    name = "policy"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "NAME[:PARAM=VALUE...]"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return canonical_label(value)
        except ValueError as exc:
            raise as_usage_error(click.BadParameter, exc, ctx, param) from None


POLICY_LABEL = PolicyLabelType()


def _games(names: list[str]) -> str:
    return "every game" if names == engine.list_games() else ", ".join(names)


def policies_table(infos: list[dict]) -> Table:
    table = Table(title="Policies", title_justify="left")
    table.add_column("policy", no_wrap=True, style="cyan")
    table.add_column("plays", max_width=30)
    table.add_column("what it does", ratio=1)
    table.add_column("from", max_width=30)
    for info in infos:
        table.add_row(info["name"], _games(info["games"]), info["doc"], info["source"])
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
