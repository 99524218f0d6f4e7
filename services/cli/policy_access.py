"""What code the servers (``cardtable serve`` and ``cardtable web``) may import for a client's policy.

A client names a built-in policy or an installed entry point, or an import path ``module:Class`` from a module the
operator allowed (``--allow-policies mybots,teambots``, or ``$CARDTABLE_ALLOW_POLICIES``). Allowed modules are
imported from the installed packages, ``$PYTHONPATH`` and the folders given with ``--policy-path DIR`` (or
``$CARDTABLE_POLICY_PATH``), never from the server's working folder: a file planted there (a module, or a package's
``*.dist-info`` registering an entry point) is not code the operator chose. Local commands (``simulate``, ``play``,
``tournament``...) still find policies in the current folder.

    cardtable serve --allow-policies mybots --policy-path /srv/bots
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from engine.bots.plugins import refresh_entry_points
from services.app.allowed_policies import ALLOW_FLAG, PolicyAllowList

ALLOW_POLICIES_ENV = "CARDTABLE_ALLOW_POLICIES"
POLICY_PATH_ENV = "CARDTABLE_POLICY_PATH"
F = TypeVar("F", bound=Callable[..., Any])


def _allow_list(ctx: click.Context, param: click.Parameter, texts: tuple[str, ...]) -> PolicyAllowList:
    try:
        return PolicyAllowList.parse(texts)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def policy_access_options(command: F) -> F:
    """``--allow-policies`` and ``--policy-path``, as ``serve`` and ``web`` take them."""
    command = click.option(
        "--policy-path", "policy_path", metavar="DIR", multiple=True, envvar=POLICY_PATH_ENV,
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="A folder the allowed modules are imported from (repeatable; default: "
             f"${POLICY_PATH_ENV}, folders separated by '{os.pathsep}'). The working folder is never searched "
             "otherwise.")(command)
    return click.option(
        ALLOW_FLAG, "allow_policies", metavar="MODULES", multiple=True, envvar=ALLOW_POLICIES_ENV,
        callback=_allow_list,
        help="Let clients name policies by import path (module:Class) from these modules and the modules inside "
             f"them: comma-separated, repeatable (default: ${ALLOW_POLICIES_ENV}, else none: only the built-in "
             "policies and the installed entry points).")(command)


def forget_working_folder() -> list[str]:
    """Take the working folder off ``sys.path`` (``python -m`` and an empty ``$PYTHONPATH`` entry put it there, as
    ``''`` or as its path); the entries taken off."""
    try:
        here: Path | None = Path.cwd().resolve()
    except OSError:  # the folder is gone: only '' can name it
        here = None
    removed = [entry for entry in sys.path if entry == "" or (here is not None and _resolved(entry) == here)]
    sys.path[:] = [entry for entry in sys.path if entry not in removed]
    return removed


def _resolved(entry: str) -> Path | None:
    try:
        return Path(entry).resolve()
    except (OSError, RuntimeError):
        return None


def server_import_path(folders: tuple[Path, ...]) -> None:
    """A server's ``sys.path``: without the working folder, with the operator's ``folders`` after the installed
    packages (so that nothing installed is shadowed)."""
    forget_working_folder()
    for folder in folders:
        entry = str(folder.resolve())
        if entry not in sys.path:
            sys.path.append(entry)
    refresh_entry_points()  # the installed packages' entry points as found on this path (a planted *.dist-info too)


def policy_access_args(allowed: PolicyAllowList, folders: tuple[Path, ...]) -> list[str]:
    """The same choices as command-line arguments, for the worker processes of ``serve --workers``."""
    args = [ALLOW_FLAG, ",".join(allowed.modules)] if allowed.modules else []
    for folder in folders:
        args += ["--policy-path", str(folder.resolve())]
    return args
