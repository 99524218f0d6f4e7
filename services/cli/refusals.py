"""The exit code of each refusal (services/app/errors.py: the app's errors and the typed errors of the engine, the
workers and the replays), the CLI's one table, and :func:`as_usage_error`: a refusal of a command's arguments (an
unknown game, option or policy, a player count the game is not played by) as click's usage error, the typed error's
message as it is and the exit code of its status.

>>> import engine
>>> error = as_usage_error(click.UsageError, engine.UnknownGame("snap", ["belote"]))
>>> error.message, error.exit_code
("unknown game 'snap'; games are belote", 2)
"""

from __future__ import annotations

from typing import Any, TypeVar

import click

# The exit code of each refusal's status: a request that can never be served as given exits 2, as click's own usage
# errors do; any other refusal 1.
EXIT_CODE = {"INVALID_ARGUMENT": 2, "NOT_FOUND": 2, "PERMISSION_DENIED": 2, "FAILED_PRECONDITION": 1, "ABORTED": 1,
             "RESOURCE_EXHAUSTED": 1, "DATA_LOSS": 1, "UNAVAILABLE": 1, "INTERNAL": 1}

Usage = TypeVar("Usage", bound=click.UsageError)


def as_usage_error(kind: type[Usage], exc: Exception, *args: Any, **kwargs: Any) -> Usage:
    """``kind`` (click.UsageError or click.BadParameter, with ``args`` and ``kwargs``: the parameter it names) saying
    ``exc``'s message unchanged; a refusal's exit code is its status's (a ValueError of no status keeps click's 2)."""
    from ..app.errors import refusal  # the engine: not for `cardtable --help`, which reads EXIT_CODE's module

    error = kind(str(exc), *args, **kwargs)
    refused = refusal(exc)
    if refused is not None:
        error.exit_code = EXIT_CODE.get(refused.status, 1)
    return error
