"""``cardtable tournament GAME``: every pair of policies over the same deals from every seat arrangement (duplicate
deals) on Ray, then the mean score differences with 95% confidence intervals, win rates and a rating per policy
with its 95% interval (a least-squares fit of the pairings' margins, ranked never against a head-to-head result:
``workers.ratings``).

    cardtable tournament german_whist --policies random,greedy,pimc:samples=16,ismcts:iters=400 --deals 2000
    cardtable tournament belote_contree --policies greedy,pimc --deals 500 --json
    cardtable tournament tablanette --policies random,greedy --deals 1000 --plot ratings.png --address ray://HOST:10001
    cardtable tournament german_whist --policies pimc,ismcts,greedy --deals 200 --bot-time-limit 0.2
    cardtable tournament belote_contree --resume tournament-7      # one whose command was killed: on from where it was

Each pairing and arrangement is one simulation job (stored in Redis, its chunks retried, Ctrl-C cancels it and the
tournament, exit 130); the tournament's record (its jobs and standings) is stored in Redis too. Ray and Redis are
found as by ``cardtable simulate`` (``--address``, ``--redis-url``). ``--resume ID`` plays on a stored tournament whose
command stopped without cancelling it (killed, or its machine gone): its finished jobs and chunks are kept.

``--bot-time-limit S`` compares bots at equal time a decision: each decision of a searching bot (``pimc``,
``ismcts``) stops after S seconds and plays the best it found; the other policies play as they do. Where a search
stops then depends on the machine and its load, not only on the seed: the same tournament played again, or on
another machine, may give other results.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from engine.rng import fresh_seed
from workers.jobstore import JobRecord, JobStore, RedisAway
from workers.spec import JobSpecError
from workers.tournament import TournamentSpec, cancel_tournament, check_tournament, load_tournament, new_tournament

from ..app.jobs import drive_tournament
from .mapping import tournament_json
from .matchargs import game_argument, option_option, option_pairs_param, players_option
from .refusals import as_usage_error
from .simulate import (
    _join_ray,
    _reachable_jobs,
    _record_interrupted,
    address_option,
    bot_time_limit_option,
    redis_url_for,
    redis_url_option,
    time_limit_note,
)


@click.command()
@game_argument
@click.option("--policies", metavar="P1,P2,...",
              help="Two or more policies, e.g. random,greedy,pimc:samples=16,ismcts:iters=400.")
@click.option("--deals", type=click.IntRange(min=1), help="Duplicate deals per pairing.")
@players_option
@option_option
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Tournament seed (default: a fresh one).")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Tasks at a time (default: every CPU).")
@click.option("--chunk-size", type=click.IntRange(min=0), default=0, help="Deals per Ray task (0: chosen).")
@bot_time_limit_option
@address_option
@redis_url_option
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Draw the ratings with their 95% intervals into this PNG.")
@click.option("--verbose", is_flag=True, help="Also show Ray's own log lines.")
@click.option("--resume", "resume_id", metavar="TOURNAMENT_ID", default=None,
              help="Play on a stored tournament of GAME (its own policies, deals and seed) whose command stopped.")
@click.pass_context
def tournament(ctx: click.Context, game: str, policies: str | None, deals: int | None, players: int | None,
               option_pairs: tuple[str, ...], seed: int | None, workers: int | None, chunk_size: int,
               bot_time_limit: float, address: str | None, redis_url: str | None, as_json: bool, plot: Path | None,
               verbose: bool, resume_id: str | None) -> None:
    """Play every pair of policies over the same deals from every seat arrangement; rate the policies."""
    spec = None
    if resume_id is None:
        if policies is None or deals is None:
            raise click.UsageError("--policies and --deals are needed (or --resume)")
        options = option_pairs_param(ctx, game, option_pairs)
        try:
            spec = check_tournament(TournamentSpec(
                game, tuple(p.strip() for p in policies.split(",") if p.strip()), deals,
                seed if seed is not None else fresh_seed(), players, options, chunk_size, bot_time_limit))
        except JobSpecError as exc:
            raise as_usage_error(click.UsageError, exc) from None
    console = Console(stderr=as_json, highlight=False)
    current: dict[str, JobRecord] = {}
    with redis_url_for(redis_url) as url:
        store = _reachable_jobs(url)
        record = None if resume_id is None else _resumable(store, resume_id, game)
        if record is not None:
            spec = TournamentSpec.from_dict(record["spec"])
            deals = spec.deals
        assert spec is not None and deals is not None
        cluster = _join_ray(address, workers, verbose, spec.policies)
        if record is None:
            record = new_tournament(store, spec)
        tournament_id = record["tournament_id"]
        if not as_json:
            console.print(f"{tournament_id}: {game}, {len(spec.policies)} policies, {deals:,} duplicate deals per "
                          f"pairing, seed {spec.seed}{time_limit_note(spec.bot_time_limit)}")
            console.print(cluster)

        def progress(number: int, jobs: int, job: JobRecord) -> None:
            current["job"] = job
            if not as_json and job.is_final:
                console.print(f"job {number + 1}/{jobs} {job.job_id} ({','.join(job.spec.policies)}): {job.state}")

        try:
            result = drive_tournament(store, spec, url, workers or 0, on_update=progress, record=record)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            click.echo(_record_interrupted(store, current.get("job")), err=True)
            cancel_tournament(store, tournament_id, "interrupted")
            click.echo(f"{tournament_id} cancelled (interrupted)", err=True)
            ctx.exit(130)
        except RedisAway as exc:
            raise click.ClickException(f"{tournament_id} stopped, left unfinished in Redis (--resume {tournament_id} "
                                       f"plays on): {exc}") from None
    if result["state"] != "succeeded":
        raise click.ClickException(f"{result['tournament_id']} {result['state']}: {result.get('error', '')}")
    if plot is not None:
        plot_ratings(result, plot)
    if as_json:
        click.echo(json.dumps(tournament_json(result)))
        return
    console.print(standings_tables(result))
    if plot is not None:
        console.print(f"plot written to {plot}")


def _resumable(store: JobStore, tournament_id: str, game: str) -> dict[str, Any]:
    """The stored tournament ``tournament_id`` of ``game``, still running; a ClickException when it is not."""
    record = load_tournament(store, tournament_id)
    if record is None:
        raise click.ClickException(f"no tournament {tournament_id!r} in this Redis")
    if record["spec"]["game"] != game:
        raise click.UsageError(f"{tournament_id} is a tournament of {record['spec']['game']}, not {game}")
    if record["state"] != "running":
        raise click.ClickException(f"{tournament_id} is {record['state']}: only a running one can be resumed")
    return record


def standings_tables(result: dict[str, Any]) -> Table:
    """The pairings (mean difference with its 95% CI, win rate) and the ratings, as one table each in a grid."""
    grid = Table.grid(padding=(1, 0))
    pairs = Table(title=f"{result['tournament_id']}: {result['spec']['game']}, duplicate deals", title_justify="left")
    for header in ("pairing", "deals", "mean difference [95% CI]", "win rate"):
        pairs.add_column(header, justify="left" if header == "pairing" else "right")
    for row in result["pairings"]:
        low, high = row["ci95"]
        pairs.add_row(f"{row['a']} vs {row['b']}", f"{row['deals']:,}",
                      f"{row['mean_difference']:+.2f} [{low:+.2f}, {high:+.2f}]", f"{row['win_rate']:.1%}")
    ratings = Table(title="ratings, fit to the pairings (points a deal against the field)", title_justify="left")
    for header in ("", "policy", "rating [95% CI]", "note"):
        ratings.add_column(header, justify="right" if header.startswith("rating") else "left")
    for place, row in enumerate(result["ratings"], 1):
        low, high = row["ci95"]
        ratings.add_row(str(place), row["policy"], f"{row['rating']:+.2f} [{low:+.2f}, {high:+.2f}]", row["note"])
    grid.add_row(pairs)
    grid.add_row(ratings)
    return grid


def plot_ratings(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["ratings"]
    fig, ax = plt.subplots(figsize=(7, 1 + 0.5 * len(rows)))
    names = [row["policy"] for row in rows][::-1]
    ratings = [row["rating"] for row in rows][::-1]
    errors = [[row["rating"] - row["ci95"][0] for row in rows][::-1],
              [row["ci95"][1] - row["rating"] for row in rows][::-1]]
    ax.errorbar(ratings, range(len(rows)), xerr=errors, fmt="o")
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel("rating: points a deal against the field (bars: 95% CI; top to bottom as ranked)")
    ax.set_title(f"{result['spec']['game']}: {result['spec']['deals']} duplicate deals per pairing")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
