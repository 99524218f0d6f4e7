"""The ``cardtable`` command: one entry point for every part of the platform.

    cardtable games | policies | play GAME | watch GAME | bench --game GAME | simulate GAME | tournament GAME | jobs |
    replay | web

Each command lives in its own module and is added below; later parts add theirs the same way
(``replay`` from ``services.cli.replay``, then ``serve`` and ``simulate``).
"""

from __future__ import annotations

import os
import sys

import click

from ..app.errors import refusal
from .bench import bench
from .games import games
from .jobs import jobs
from .play import play
from .policies import policies
from .policy_access import SERVER_COMMANDS
from .refusals import EXIT_CODE
from .replay import replay
from .serve import serve
from .simulate import simulate
from .tournament import tournament
from .watch import watch
from .web import web


class _Cardtable(click.Group):
    """The command group: a reader that goes away (``cardtable replay stream X | head``) ends a command quietly,
    Ctrl-C in a command that has nothing of its own to record says so in one line and exits 130 (as a shell would),
    and a refusal of the use cases (an unknown game, Redis out of reach) is its message and :data:`EXIT_CODE`."""

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


cli.add_command(games)
cli.add_command(policies)
cli.add_command(play)
cli.add_command(watch)
cli.add_command(bench)
cli.add_command(serve)
cli.add_command(simulate)
cli.add_command(tournament)
cli.add_command(replay)
cli.add_command(jobs)
cli.add_command(web)
