"""``cardtable jobs``: the simulation jobs kept in Redis (by ``cardtable simulate`` or the gRPC SimulationService).

    cardtable jobs list                      # newest first: id, state, progress, game, policies, when
    cardtable jobs show sim-1a2b3c4d5e6f     # its spec, progress, times and replay collection
    cardtable jobs results sim-1a2b3c4d5e6f  # the results table of a finished job (--json too)
    cardtable jobs cancel sim-1a2b3c4d5e6f   # its driver stops it, keeping the chunks played

The jobs live in Redis at ``--redis-url`` or ``REDIS_URL``, else in the embedded Valkey that ``simulate`` uses.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import click
import redis
from rich.console import Console

from replay.connect import open_redis
from workers.jobstore import JobNotFound, JobRecord, JobStore

from ..app.results import count_of
from .mapping import job_json, job_results_json, listed_job_json
from .redis_url import redis_url_option
from .render import aligned
from .simulate import time_limit_note
from .simulate_report import results_table


@contextlib.contextmanager
def _jobs(ctx: click.Context) -> Iterator[JobStore]:
    """The job store of the group's Redis; a missing job or an unreachable Redis is a message, not a traceback."""
    try:
        with open_redis(ctx.obj["redis_url"]) as client:
            yield JobStore(client)
    except JobNotFound as exc:
        raise click.ClickException(f"{exc}; `cardtable jobs list` lists the jobs") from None
    except (ConnectionError, redis.RedisError) as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
@redis_url_option("Redis holding the jobs (default: $REDIS_URL, else the embedded Valkey).")
@click.pass_context
def jobs(ctx: click.Context, redis_url: str | None) -> None:
    """The simulation jobs: list, show, results, cancel."""
    ctx.obj = {"redis_url": redis_url}


@jobs.command("list")
@click.option("--count", type=click.IntRange(min=1, max=1000), default=20, show_default=True, help="Jobs per page.")
@click.option("--before", type=click.IntRange(min=1), default=None,
              help="List the jobs submitted before this one (the `more:` line of a page gives it).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def list_jobs(ctx: click.Context, count: int, before: int | None, as_json: bool) -> None:
    """The jobs, newest first: id, state, progress, game, policies and when each was submitted."""
    with _jobs(ctx) as store:
        records, next_cursor = store.list(count, before)
    if as_json:
        click.echo(json.dumps(jobs_page(records, next_cursor), indent=2))
        return
    if not records:
        click.echo("no simulation jobs yet (cardtable simulate starts one)")
        return
    header = ["job", "state", "done", "game", "policies", "submitted"]
    click.echo(aligned([header] + [_row(record) for record in records]))
    if next_cursor is not None:
        click.echo(f"more: cardtable jobs list --before {next_cursor}")


def _row(record: JobRecord) -> list[str]:
    spec = record.spec
    return [record.job_id, record.state, _progress(record), spec.game, ",".join(spec.policies),
            _when(record.created)]


def _progress(record: JobRecord) -> str:
    return f"{record.units_done:,}/{count_of(record.spec.count, record.spec.unit)}"


def _when(timestamp: float | None) -> str:
    return "-" if timestamp is None else datetime.fromtimestamp(timestamp).astimezone().strftime("%Y-%m-%d %H:%M")


def jobs_page(records: list[JobRecord], next_cursor: int | None) -> dict[str, Any]:
    """A page of jobs as `jobs list --json` prints it: the jobs and where the next page starts (None: no more)."""
    return {"jobs": [listed_job_json(r) for r in records], "next_before": next_cursor}


@jobs.command()
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def show(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """A job's spec, state, progress, times and replay collection."""
    with _jobs(ctx) as store:
        record = store.get(job_id)
    if as_json:
        click.echo(json.dumps(job_json(record), indent=2))
        return
    spec = record.spec
    options = ", ".join(f"{name}={value}" for name, value in spec.options.items()) or "the game's defaults"
    lines = [
        ("job", record.job_id),
        ("state", record.state + (" (cancel requested)" if record.cancel_requested and not record.is_final else "")),
        ("game", f"{spec.game}, {spec.players} players, options: {options}"),
        ("plays", f"{count_of(spec.count, spec.unit)} with seed {spec.seed}{time_limit_note(spec.bot_time_limit)}"),
        ("policies", ", ".join(f"seat {seat} {label}" for seat, label in enumerate(spec.policies))),
        ("progress", f"{_progress(record)}, chunks {record.chunks_done}/{record.chunks_total}, "
                     f"{count_of(record.retries, 'retry')}"),
        ("submitted", _when(record.created)),
        ("started", _when(record.started)),
        ("finished", _when(record.finished)),
        ("replays", f"{spec.log.describe()}: cardtable replay list {record.replay_collection}"
                    if spec.log.mode != "none" else "none logged"),
    ]
    if record.error:
        lines.append(("error", record.error))
    if record.results is not None:
        lines.append(("results", f"cardtable jobs results {record.job_id}"))
    click.echo(aligned([[name, value] for name, value in lines]))


@jobs.command()
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (as `simulate --json` does).")
@click.pass_context
def results(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """A finished job's results: each side's mean score and win rate with 95% intervals, and the game's counters."""
    with _jobs(ctx) as store:
        record = store.get(job_id)
    if record.results is None:
        raise click.ClickException(f"job {job_id} is {record.state} ({_progress(record)} played) and has no "
                                   "results yet; they are written when it finishes")
    if as_json:
        click.echo(json.dumps(job_results_json(record)))
        return
    Console(highlight=False).print(results_table(record.results, record.job_id))


@jobs.command()
@click.argument("job_id")
@click.pass_context
def cancel(ctx: click.Context, job_id: str) -> None:
    """Stop a queued or running job; the chunks already played keep their results. A finished job stays as it is."""
    with _jobs(ctx) as store:
        before = store.get(job_id)
        if before.is_final:
            raise click.ClickException(f"job {job_id} is already {before.state}")
        record = store.request_cancel(job_id)
    if record.is_final:
        click.echo(f"job {job_id} {record.state}")
    else:
        click.echo(f"job {job_id}: cancel requested; its driver stops it after the chunks that are playing "
                   f"({_progress(record)} played so far)")

