"""The per-client limit options of ``cardtable serve`` and ``cardtable web``, and their API key files.

    @click.command()
    @client_limit_options(jobs=True)
    def serve(..., limits: ClientLimits): ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from services.app.auth import ApiKeys
from services.app.limits import DEFAULT_LIMITS, ClientLimits

_WHO = "a client (an API key's name, else an address)"
_OPTIONS = {
    "jobs": click.option(
        "--max-jobs-per-client", "max_jobs", type=click.IntRange(min=0), default=DEFAULT_LIMITS.jobs,
        show_default=True, envvar="CARDTABLE_MAX_JOBS_PER_CLIENT",
        help=f"Unfinished jobs and tournaments {_WHO} may have; more are refused with RESOURCE_EXHAUSTED. "
             "0: no limit. $CARDTABLE_MAX_JOBS_PER_CLIENT sets it too."),
    "live_matches": click.option(
        "--max-live-matches", "max_live_matches", type=click.IntRange(min=0), default=DEFAULT_LIMITS.live_matches,
        show_default=True, envvar="CARDTABLE_MAX_LIVE_MATCHES",
        help=f"Matches in play {_WHO} may have created; more are refused (HTTP 429 on the web). 0: no limit. "
             "$CARDTABLE_MAX_LIVE_MATCHES sets it too."),
    "matches_per_minute": click.option(
        "--max-matches-per-minute", "max_matches_per_minute", type=click.IntRange(min=0),
        default=DEFAULT_LIMITS.matches_per_minute, show_default=True, envvar="CARDTABLE_MAX_MATCHES_PER_MINUTE",
        help=f"Matches {_WHO} may create a minute (as many at once, then one every 60/N s); more are refused. "
             "0: no limit. $CARDTABLE_MAX_MATCHES_PER_MINUTE sets it too."),
}


def client_limit_options(jobs: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The limit options (the job limit too if ``jobs``), handed to the command as one ``limits`` argument."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, max_jobs: int = 0, max_live_matches: int = 0, max_matches_per_minute: int = 0,
                **kwargs: Any) -> Any:
            limits = ClientLimits(max_jobs, max_live_matches, max_matches_per_minute)
            return command(*args, limits=limits, **kwargs)

        names = ["jobs", "live_matches", "matches_per_minute"] if jobs else ["live_matches", "matches_per_minute"]
        for name in reversed(names):
            run = _OPTIONS[name](run)
        return run

    return decorate


def limit_args(limits: ClientLimits) -> list[str]:
    """The options that give a worker process the same limits."""
    return ["--max-jobs-per-client", str(limits.jobs), "--max-live-matches", str(limits.live_matches),
            "--max-matches-per-minute", str(limits.matches_per_minute)]


def read_api_keys(path: Path, option: str = "--api-key-file") -> ApiKeys:
    """The keys of a key file (one a line: ``name:key``, ``name key`` or the key alone); a usage error names the
    line that is wrong."""
    try:
        return ApiKeys.read(path)
    except (ValueError, OSError) as exc:
        raise click.UsageError(f"{option} {exc}") from None
