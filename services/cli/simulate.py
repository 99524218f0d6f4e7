"""``cardtable simulate GAME``: bots play each other over many deals on Ray, then a table of results.

    cardtable simulate tablanette --deals 100000 --policies greedy,random --seed 7 --log sample:100
    cardtable simulate belote --matches 500 --policies random --address ray://10.0.0.5:10001 --json
    cardtable simulate tablic --deals 20000 --policies greedy,random --plot tablic.png
    cardtable simulate tablanette --deals 50000 --policies greedy:epsilon=0.2,greedy
    cardtable simulate belote --deals 1000000 --policies greedy,random --results parquet:belote.parquet
    cardtable simulate belote_contree --deals 200 --policies pimc,ismcts --bot-time-limit 0.2

A policy is written with its parameters as NAME:PARAM=VALUE (more as NAME:P1=V1:P2=V2); ``cardtable policies`` lists
the policies and their parameters. A policy of one's own is named by its import path from the current folder (or
PYTHONPATH), ``--policies mybots.cautious:Cautious,greedy``, or by the name its installed package registers; its
code goes to every Ray worker with the job (docs/bots.md).

With no ``--address`` (nor ``RAY_ADDRESS``) a local Ray starts on this machine's CPUs (or ``--workers`` of them).
The job, its progress and results, and the logged replays go to Redis: ``--redis-url`` or ``REDIS_URL``, else an
embedded Valkey keeping its data on disk. Ray tasks write to that Redis themselves, so on a cluster of several
machines give a URL that every node can reach (the embedded Valkey listens on this machine's loopback only).

Redis and Ray are reached before the job is stored: an address that does not answer is one line of error (exit 1)
and leaves no job behind. Ctrl-C cancels the job: it is recorded as cancelled with the deals played so far, one
line says so, and the command exits with 130. Ray's own log lines are shown with ``--verbose`` only.

``--results parquet:PATH`` also writes a row per deal (or match) into a Parquet file, for DuckDB, polars or pandas
(:mod:`workers.results`, docs/analysis.md). The file appears when the job has succeeded, never in part.

``--bot-time-limit S`` plays the searching bots (``pimc``, ``ismcts``) at S seconds a decision, as ``cardtable
tournament`` does: each of their decisions stops after S seconds and plays the best it found; the other policies play
as they do. Where a search stops then depends on the machine and its load, not only on the seed: the same job played
again, or on another machine, may give other results. The limit is stored with the job (its spec's
``bot_time_limit``); its replays hold the moves played, so they replay as any other.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from engine.rng import fresh_seed
from replay.embedded import EmbeddedValkey
from workers.jobstore import SUCCEEDED, JobRecord, JobStore, RedisAway
from workers.spec import MAX_BOT_TIME_LIMIT, JobSpec, JobSpecError, LogSpec, validate

from ..app.jobs import drive, jobs_at, join_ray, stop_here
from ..app.results import count_of, plot_results, plural
from .mapping import Simulated, simulated_json
from .matchargs import game_argument, option_option, option_pairs_param, players_option
from .redis_url import check_reachable
from .redis_url import redis_url_option as shared_redis_url_option
from .refusals import as_usage_error
from .simulate_report import results_table


@contextlib.contextmanager
def redis_url_for(url: str | None) -> Iterator[str]:
    """``url``, or the URL of an embedded Valkey that runs (its data on disk) until the block ends."""
    if url:
        yield url
        return
    with EmbeddedValkey() as valkey:
        yield valkey.url


# Where a job runs and where it is stored: the options of every command that runs jobs on Ray.
address_option = click.option(
    "--address", default=lambda: os.environ.get("RAY_ADDRESS"),
    help="Ray cluster to join, e.g. ray://HOST:10001 (default: $RAY_ADDRESS, else a local Ray).")
redis_url_option = shared_redis_url_option(
    "Redis for the jobs, their results and replays (default: $REDIS_URL, else an embedded Valkey).")
# The searching bots' time a decision (JobSpec.bot_time_limit, checked by workers.spec.validate): simulate, tournament.
bot_time_limit_option = click.option(
    "--bot-time-limit", type=float, default=0.0, metavar="SECONDS",
    help="Seconds each decision of a searching bot (pimc, ismcts) may take, to compare bots at equal time "
         f"(0: no limit; at most {MAX_BOT_TIME_LIMIT:g}). Results then depend on the machine and its "
         "load, not only on the seed.")


def time_limit_note(seconds: float) -> str:
    """What the first line of a job or tournament says of its bots' time limit: nothing when it has none.

    >>> time_limit_note(0.25)
    ', 0.25 s a decision (results depend on the machine and its load)'
    """
    if not seconds:
        return ""
    return f", {seconds:g} s a decision (results depend on the machine and its load)"


def parse_results(ctx: click.Context, param: click.Parameter, text: str | None) -> tuple[str, Path] | None:
    if text is None:
        return None
    from workers.results import ResultsError, parse_results

    try:
        return parse_results(text)
    except ResultsError as exc:
        raise click.BadParameter(str(exc)) from None


@contextlib.contextmanager
def results_file(target: tuple[str, Path] | None) -> Iterator[Any]:
    """The job's results file (a :class:`workers.results.ResultsFile`) open for writing, or None; a
    ClickException when it cannot be written. What is not committed is removed at the end."""
    if target is None:
        yield None
        return
    from workers.results import ResultsFile  # pyarrow: half a second to import, for the jobs that write rows only

    _fmt, path = target
    try:
        results = ResultsFile(path)
    except OSError as exc:
        raise click.ClickException(f"cannot write the results to {path}: {exc.strerror or exc}") from None
    with results:
        yield results


def parse_log(ctx: click.Context, param: click.Parameter, text: str) -> LogSpec:
    try:
        return LogSpec.parse(text)
    except JobSpecError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command()
@game_argument
@click.option("--deals", type=int, default=None, help="How many single deals to play.")
@click.option("--matches", type=int, default=None, help="How many whole matches to play (instead of --deals).")
@click.option("--policies", required=True, metavar="P1,P2,...",
              help="Policies by seat (one per seat, one per side, or one for all), e.g. greedy,random. Give a "
                   "policy parameters as NAME:PARAM=VALUE[:PARAM=VALUE...], e.g. greedy:epsilon=0.2,random; "
                   "`cardtable policies` lists them.")
@players_option
@option_option
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Job seed (default: a fresh one, printed).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Tasks at a time (default: every CPU of the cluster; a local Ray gets this many CPUs).")
@click.option("--chunk-size", type=click.IntRange(min=0), default=0, help="Deals per Ray task (0: chosen).")
@click.option("--log", "log", default="none", callback=parse_log, show_default=True, metavar="all|none|sample:K",
              help="Which replays to store in Redis.")
@bot_time_limit_option
@address_option
@redis_url_option
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (no progress bar).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the results as JSON into this file (the job id included).")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Draw the score distribution and the running mean per side into this PNG.")
@click.option("--results", "results_to", default=None, callback=parse_results, metavar="parquet:PATH",
              help="Also write a row per deal (or match) into this Parquet file, for DuckDB, polars or pandas "
                   "(docs/analysis.md).")
@click.option("--verbose", is_flag=True, help="Also show Ray's own log lines.")
@click.pass_context
def simulate(ctx: click.Context, game: str, deals: int | None, matches: int | None, policies: str,
             players: int | None, option_pairs: tuple[str, ...], seed: int | None, workers: int | None,
             chunk_size: int, log: LogSpec, bot_time_limit: float, address: str | None, redis_url: str | None,
             as_json: bool, output: Path | None, plot: Path | None, results_to: tuple[str, Path] | None,
             verbose: bool) -> None:
    """Simulate bot policies over many deals (or matches) on Ray and report the statistics."""
    if (deals is None) == (matches is None):
        raise click.UsageError("say how many to play: --deals N or --matches N (one of them)")
    spec = _checked_spec(ctx, game, deals, matches, policies, players, option_pairs, seed, chunk_size, log,
                         bot_time_limit)
    spec = replace(spec, unit_rows=results_to is not None)
    console = Console(stderr=as_json, highlight=False)
    with results_file(results_to) as results, redis_url_for(redis_url) as url:
        store = _reachable_jobs(url)
        record = None
        try:
            cluster = _join_ray(address, workers, verbose, spec.policies)
            record = store.create(spec)
            if not as_json:
                console.print(f"[bold]{record.job_id}[/]: {count_of(spec.count, spec.unit)} of {game}, policies "
                              f"{','.join(spec.policies)}, seed {spec.seed}, log {spec.log.describe()}"
                              f"{time_limit_note(spec.bot_time_limit)}")
                console.print(cluster)
            if results is not None:
                results.start(record)
            record = _run_with_progress(store, record, url, workers or 0, console, show=not as_json,
                                        on_chunk=results.write if results is not None else None)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the recording short
            click.echo(_record_interrupted(store, record), err=True)
            ctx.exit(130)
        except RedisAway as exc:
            raise click.ClickException(f"{record.job_id} stopped, left unfinished in Redis: {exc}") from None
        except OSError:
            if results is None or results.failure is None:
                raise
            raise click.ClickException(f"{record.job_id} stopped: {results.failure}") from None
        played_on = sorted(set(store.workers(record.job_id).values()))
        if results is not None and record.state == SUCCEEDED:
            try:
                results.commit(spec.count)
            except (ValueError, OSError) as exc:
                raise click.ClickException(f"{record.job_id}: {exc}") from None
    if results is not None and record.state != SUCCEEDED:
        click.echo(f"{results.path} not written: the job {record.state}", err=True)
    if record.results is None:
        raise click.ClickException(f"job {record.job_id} {record.state} before any chunk finished: {record.error}")
    if plot is not None:
        plot_results(record.results, plot)
    text = json.dumps(simulated_json(Simulated(record, played_on, results.path if results is not None else None)))
    if output is not None:
        output.write_text(text + "\n")
    if as_json:
        click.echo(text)
    else:
        console.print(results_table(record.results, record.job_id))
        if plot is not None:
            console.print(f"plot written to {plot}")
        if results is not None and record.state == SUCCEEDED:
            console.print(f"a row per {spec.unit} written to {results.path}")
    if record.state != SUCCEEDED:
        raise click.ClickException(f"job {record.job_id} {record.state}: {record.error or 'see above'}")


def _checked_spec(ctx: click.Context, game: str, deals: int | None, matches: int | None, policies: str,
                  players: int | None, option_pairs: tuple[str, ...], seed: int | None, chunk_size: int,
                  log: LogSpec, bot_time_limit: float) -> JobSpec:
    options = option_pairs_param(ctx, game, option_pairs)
    spec = JobSpec(game=game, policies=tuple(p for p in policies.split(",") if p.strip()),
                   count=deals if deals is not None else matches, seed=seed if seed is not None else fresh_seed(),
                   unit="deal" if deals is not None else "match", players=players, options=options, log=log,
                   chunk_size=chunk_size, bot_time_limit=bot_time_limit)
    try:
        return validate(spec)
    except JobSpecError as exc:
        raise as_usage_error(click.UsageError, exc) from None


def _reachable_jobs(url: str) -> JobStore:
    """The jobs on ``url`` once its server answers; a ClickException saying why not otherwise."""
    check_reachable(url)
    return jobs_at(url)


def _join_ray(address: str | None, workers: int | None, verbose: bool, policies: tuple[str, ...]) -> str:
    try:
        return join_ray(address, workers, verbose, policies)
    except ConnectionError as exc:  # RayUnreachable, or Ray's own "Failed to connect"
        raise click.ClickException(str(exc).splitlines()[0]) from None


def _record_interrupted(store: JobStore, record: JobRecord | None) -> str:
    """Record an interrupted job as cancelled (if its driver has not yet); returns the line that says so."""
    if record is None:
        return "interrupted: no job was started"
    job = stop_here(store, record.job_id, "interrupted")
    return (f"{job.job_id} {job.state} (interrupted): {count_of(job.units_done, job.spec.unit)} of "
            f"{job.spec.count:,} played")


def _run_with_progress(store: JobStore, record: JobRecord, url: str, workers: int, console: Console,
                       show: bool, on_chunk: Callable[[Any], None] | None = None) -> JobRecord:
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[rate]}"), TimeRemainingColumn()]
    with Progress(*columns, console=console, disable=not show, transient=False) as progress:
        task = progress.add_task(plural(record.spec.unit), total=record.spec.count, rate="")
        started = time.perf_counter()

        def update(current: JobRecord) -> None:
            elapsed = time.perf_counter() - started
            rate = f"{current.units_done / elapsed:,.0f}/s" if elapsed > 0.5 else ""
            progress.update(task, completed=current.units_done, rate=rate)

        return drive(store, record.job_id, url, workers, on_update=update, on_chunk=on_chunk)
