"""The ``cardtable`` command: one entry point for every part of the platform.

    cardtable games | policies | play GAME | watch GAME | bench --game GAME | simulate GAME | tournament GAME | jobs |
    replay | web

Each command lives in its own module, named in :data:`COMMANDS` and imported only when it runs (or its help is
asked for): ``cardtable --help`` and ``cardtable games`` do not pay for what ``simulate`` or ``serve`` import.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping
from gettext import gettext
from typing import Any

import click

from .refusals import EXIT_CODE

# Each command by name: where it lives and the first paragraph of its help, which `cardtable --help` shows (shortened
# as click shortens it) without importing the command's module and what that module pulls in (numpy, Redis, gRPC,
# Ray...). A command's module is imported when the command runs or its own help is asked for; tests/test_cli.py
# checks that these paragraphs are the commands' own.
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("services.cli.games:games", "List the games, their player counts and options."),
    "policies": ("services.cli.policies:policies", "List the bot policies, the games they play and their parameters."),
    "play": ("services.cli.play:play",
             "Play GAME in the terminal against bots (type a move's number or the move; q quits)."),
    "watch": ("services.cli.watch:watch", "Watch bots play a whole match of GAME, move by move."),
    "bench": ("services.cli.bench:bench",
              "Measure deals/s, moves/s and microseconds per move of bot rollouts of single deals (or, with --grpc, "
              "Act calls/s and latency of the gRPC server)."),
    "serve": ("services.cli.serve:serve", "Serve the cardtable gRPC API (health checking and reflection on)."),
    "simulate": ("services.cli.simulate:simulate",
                 "Simulate bot policies over many deals (or matches) on Ray and report the statistics."),
    "tournament": ("services.cli.tournament:tournament",
                   "Play every pair of policies over the same deals from every seat arrangement; rate the policies."),
    "replay": ("services.cli.replay:replay", "Look back at logged deals: list, show, stream, export, import, delete."),
    "jobs": ("services.cli.jobs:jobs", "The simulation jobs: list, show, results, cancel."),
    "web": ("services.cli.web:web",
            "Serve the web page: replay viewer, simulation jobs and a live table against the bots."),
}
SERVER_COMMANDS = ("serve", "web")  # they import nothing from the working folder (see services.cli.policy_access)


class _LazyCommands(MutableMapping[str, click.Command]):
    """The group's commands as click keeps them (``cli.commands``), each one imported on first use."""

    def __init__(self, where: dict[str, str]) -> None:
        self._where = dict(where)
        self._loaded: dict[str, click.Command] = {}

    def loaded(self, name: str) -> click.Command | None:
        """The command if its module is imported already, else None (nothing is imported)."""
        return self._loaded.get(name)

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            if name in SERVER_COMMANDS:  # their log is JSON lines, set up once the options are read
                from ..logs import hold_warnings

                hold_warnings()
            module, attr = self._where[name].split(":")
            command = getattr(importlib.import_module(module), attr)
            if not isinstance(command, click.Command):
                raise TypeError(f"{self._where[name]} is not a click command")
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._where.pop(name, None)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._where and name not in self._loaded:
            raise KeyError(name)
        self._where.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**self._where, **self._loaded})

    def __len__(self) -> int:
        return len(self._where.keys() | self._loaded.keys())


class _Cardtable(click.Group):
    """The command group, whose commands are imported as they are needed (:data:`COMMANDS`): a reader that goes away
    (``cardtable replay stream X | head``) ends a command quietly, Ctrl-C in a command that has nothing of its own to
    record says so in one line and exits 130 (as a shell would), and a refusal of the use cases (an unknown game,
    Redis out of reach) is its message and :data:`EXIT_CODE`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: _LazyCommands = _LazyCommands({name: where for name, (where, _) in COMMANDS.items()})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's listing (Group.format_commands), with a stand-in carrying its help paragraph for each command not
        # imported yet: shortened as click shortens the command's own.
        listed = [(name, self.commands.loaded(name) or click.Command(name, help=COMMANDS[name][1]))
                  for name in self.list_commands(ctx)]
        listed = [(name, command) for name, command in listed if not command.hidden]
        if listed:
            limit = formatter.width - 6 - max(len(name) for name, _ in listed)
            with formatter.section(gettext("Commands")):
                formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in listed])

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # Nothing more can be shown: stdout goes nowhere, so that the final flush at exit fails no more.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except Exception as exc:
            from ..app.errors import refusal  # the engine and its games: not for `cardtable --help`

            refused = refusal(exc)
            if refused is None:
                raise
            click.echo(f"Error: {refused.message}", err=True)
            ctx.exit(EXIT_CODE.get(refused.status, 1))


@click.group(cls=_Cardtable, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardtable")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """cardtable: simulate, serve and replay traditional card games."""
    # Policies of one's own are named by import path (mybots.cautious:Cautious) from the current folder, as
    # `python -m` finds modules; after the installed packages, so that nothing installed is shadowed. Not for the
    # servers: their clients are not the operator (see services.cli.policy_access).
    if ctx.invoked_subcommand not in SERVER_COMMANDS and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())



if __name__ == "__main__":  # `python -m services.cli.main`: the `cardtable` command run from a checkout
    cli()
