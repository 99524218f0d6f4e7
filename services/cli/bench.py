"""``cardtable bench``: the benches of :mod:`services.bench`, chosen by option, with their reports; by default the
engine's speed (rollouts of single-deal matches through the public engine API: :mod:`services.bench.engine`).

    cardtable bench --game tablanette --players 2 --policy random --seconds 3 --json
    cardtable bench --clone --json      # microseconds per mid-deal clone of every game, against the floor
    cardtable bench --env pettingzoo --game german_whist   # PettingZoo env steps/s against the engine's moves/s
    cardtable bench --env vector --game german_whist       # vector env steps/s (64 matches a step), the same
    cardtable bench --bots --json       # decisions/s of every policy and game; the double-dummy solver's speed
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import engine

from ..bench.engine import FLOOR_SCRIPT, find_floor, run_bench, run_clone_bench
from .matchargs import check_game, option_option, option_pairs_param, players_option
from .policies import POLICY_LABEL
from .refusals import as_usage_error


@click.command()
@click.option("--game", callback=lambda ctx, param, value: value if value is None else check_game(ctx, param, value),
              help="Game id (see `cardtable games`); required unless --grpc.")
@players_option
@click.option("--policy", type=POLICY_LABEL, default="random", show_default=True,
              help="Policy for every seat, with parameters as NAME:PARAM=VALUE (greedy:epsilon=0.3).")
@click.option("--seconds", type=click.FloatRange(min=0), default=3.0, show_default=True, help="How long to run.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the deal seeds.")
@option_option
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option("--grpc", "grpc_load", is_flag=True,
              help="Load-test the gRPC server instead: a server, a Redis and --clients clients playing whole matches "
                   "via Act; server CPU per Act, Act/s, latencies.")
@click.option("--clients", type=click.IntRange(min=1), default=16, show_default=True,
              help="Concurrent clients of --grpc.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes of --grpc sharing its port (cardtable serve --workers).")
@click.option("--client-processes", type=click.IntRange(1, 64), default=None,
              help="Processes the --grpc clients run in (default: one per core).")
@click.option("--simulate", "simulate_job", is_flag=True,
              help="Time one job (German Whist unless --game; --policy), every replay logged, in one process and on "
                   "Ray with 2 workers; what a deal costs in CPU (workers, driver, Ray, Redis) and Redis bytes.")
@click.option("--deals", type=click.IntRange(min=1), default=50_000, show_default=True,
              help="Deals of the --simulate job.")
@click.option("--replays", "replay_sizes", is_flag=True,
              help="Replay sizes against the information bound, Redis memory per replay, write and page-read speed.")
@click.option("--count", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Replays stored by --replays.")
@click.option("--clone", "clone_cost", is_flag=True,
              help="Microseconds per clone of a mid-deal state of every game, and the floor's moves/s in the same run.")
@click.option("--env", "env_kind", type=click.Choice(["pettingzoo", "vector"]), default=None,
              help="Steps/s through the game's PettingZoo environment (or its vector environment, --num-envs matches "
                   "a step) against the engine's own moves/s, in one run (needs the [pettingzoo] extra).")
@click.option("--num-envs", type=click.IntRange(min=1), default=64, show_default=True,
              help="Matches stepped together by --env vector.")
@click.option("--bots", "bot_speed", is_flag=True,
              help="Decisions/s of every policy in every game (--seconds each), and the double-dummy solver's nodes/s "
                   "and time for the last 8 tricks of German Whist and Belote contrée.")
@click.option("--positions", type=click.IntRange(min=1), default=5, show_default=True,
              help="Positions the double-dummy solver is timed on by --bots, per game.")
@click.option("--floor", "floor_script", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The floor script of --clone (default: shared/bench/whist_floor.py here or in a parent folder).")
@click.pass_context
def bench(ctx: click.Context, game: str | None, players: int | None, policy: str, seconds: float, seed: int,
          option_pairs: tuple[str, ...], as_json: bool, grpc_load: bool, clients: int, workers: int,
          client_processes: int | None, simulate_job: bool, deals: int,
          replay_sizes: bool, count: int, clone_cost: bool, env_kind: str | None, num_envs: int, bot_speed: bool,
          positions: int,
          floor_script: Path | None) -> None:
    """Measure deals/s, moves/s and microseconds per move of bot rollouts of single deals (or, with --grpc, Act
    calls/s and latency of the gRPC server)."""
    if grpc_load:
        _grpc_bench(seconds, clients, workers, client_processes, as_json)
        return
    if simulate_job:
        _simulate_bench(deals, game or "german_whist", policy, as_json)
        return
    if replay_sizes:
        _replay_bench(count, as_json)
        return
    if clone_cost:
        _clone_bench(floor_script, as_json)
        return
    if bot_speed:
        _bots_bench(seconds, positions, [game] if game else None, as_json)
        return
    if game is None:
        raise click.UsageError("--game is required (or --grpc, --simulate, --replays, --clone or --bots)")
    if env_kind is not None:
        _env_bench(env_kind, game, players, seconds, seed, num_envs, as_json)
        return
    options = option_pairs_param(ctx, game, option_pairs)
    if options.get("max_deals", 1) != 1:
        raise click.BadParameter("the bench plays single-deal matches; max_deals is always 1", param_hint="'--option'")
    _run_and_report(lambda: run_bench(game, players, policy, seconds, seed, options), as_json, lambda result: (
        f"{game}, {result['players']} players, {policy} policy, single-deal matches (max_deals=1): "
        f"{result['deals']:,} deals, {result['moves']:,} moves in {result['seconds']:.2f} s\n"
        f"  {result['deals_per_s']:,.1f} deals/s   {result['moves_per_s']:,.0f} moves/s   "
        f"{result['us_per_move']:.2f} µs/move"))


def _run_and_report(run: Callable[[], dict[str, Any]], as_json: bool,
                    describe: Callable[[dict[str, Any]], str]) -> None:
    """Run a bench (a ValueError, such as a policy without a heuristic for the game, is a usage error) and print
    its result as JSON or as ``describe`` puts it."""
    try:
        result = {**run(), **engine.engine_report()}
    except ValueError as exc:
        raise as_usage_error(click.UsageError, exc) from None
    if as_json:
        click.echo(json.dumps(result))
        return
    Console(highlight=False).print(describe(result) + f"\n  engine: {_engine_line(result)}")


def _engine_line(result: dict[str, Any]) -> str:
    """Which engine ran (``engine.engine_report``), for the text reports."""
    modules = result.get("engine_from_source")
    return result["engine"] + (f" ({', '.join(modules)} from source)" if modules else "")


def _env_bench(kind: str, game: str, players: int | None, seconds: float, seed: int, num_envs: int,
               as_json: bool) -> None:
    try:
        from ..bench.envs import run_env_bench, run_vector_bench
    except ImportError as exc:
        raise click.ClickException(f"the learning environments need the [pettingzoo] extra "
                                   f"(pip install 'cardtable[pettingzoo]'): {exc}") from None
    if kind == "vector":
        _run_and_report(lambda: run_vector_bench(game, players, seconds, seed, num_envs), as_json, lambda result: (
            f"{game}, {result['players']} players, random legal moves, single deals, {result['seconds']:.1f} s in "
            f"rounds of each (load average {result['load_average_1m']}):\n"
            f"  vector env, {result['num_envs']} matches a step: {result['env_steps_per_s']:,.0f} steps/s\n"
            f"  engine, move by move: {result['engine_moves_per_s']:,.0f} moves/s   (its rollout loop: "
            f"{result['engine_rollout_moves_per_s']:,.0f} moves/s)\n"
            f"  the vector env steps at {result['env_to_engine']:.2f}x the engine's moves/s"))
        return
    _run_and_report(lambda: run_env_bench(game, players, seconds, seed), as_json, lambda result: (
        f"{game}, {result['players']} players, random legal moves, single deals, {result['seconds']:.1f} s in rounds "
        f"of each (load average {result['load_average_1m']}):\n"
        f"  PettingZoo env: {result['env_steps_per_s']:,.0f} steps/s\n"
        f"  engine, move by move: {result['engine_moves_per_s']:,.0f} moves/s   (its rollout loop: "
        f"{result['engine_rollout_moves_per_s']:,.0f} moves/s)\n"
        f"  the wrapper costs {result['wrapper_cost']:.2f}x the engine's time per move\n"
        f"  (PettingZoo's AEC protocol alone, with no encoding, costs {result['protocol_cost']:.2f}x: "
        f"{result['protocol_steps_per_s']:,.0f} steps/s)"))


def _grpc_bench(seconds: float, clients: int, workers: int, client_processes: int | None, as_json: bool) -> None:

    from services.bench.grpc import run_grpc_bench

    result = run_grpc_bench(seconds=seconds, clients=clients, redis_url=os.environ.get("REDIS_URL"), workers=workers,
                            client_processes=client_processes)
    if as_json:
        click.echo(json.dumps(result))
        return
    cpu = result["cpu_us_per_act"]
    Console(highlight=False).print(
        f"gRPC Act load: {result['clients']} clients ({result['client_processes']} processes), {result['game']} "
        f"against a bot, {result['seconds']:.1f} s "
        f"({result['redis']}, {result['server_workers']} server process(es)): {result['act_calls']:,} Act calls, "
        f"{result['errors']} errors\n"
        f"  {result['act_per_s']:,.0f} Act/s   p50 {result['act_p50_ms']:.2f} ms   p99 {result['act_p99_ms']:.2f} ms\n"
        f"  CPU per Act: server {cpu['server']} µs, clients {cpu['clients']} µs, redis {cpu['redis']} µs "
        f"({result['cpus']} CPUs, load average {result['load_average_1m']})\n"
        f"  gRPC's own cost of a call (an empty health check): server {result['grpc_floor_server_cpu_us_per_call']} µs"
    )


@contextlib.contextmanager
def _steps(total: int) -> Iterator[Callable[[str, int], None]]:
    """A progress bar on stderr (stdout keeps the result alone, JSON or text), told what runs and the steps done;
    each step is drawn when it starts, however short (a few steps, each of seconds, so no cost worth a skip)."""
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    console = Console(stderr=True)
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("", total=total)
        yield lambda what, done: progress.update(task, description=what, completed=done, refresh=True)
        progress.update(task, completed=total)


def _simulate_bench(deals: int, game: str, policy: str, as_json: bool) -> None:
    from services.bench.simulate import run_simulate_bench, simulate_bench_steps

    with _steps(simulate_bench_steps()) as on_step:
        result = run_simulate_bench(deals, on_step=on_step, game=game, policy=policy)
    if as_json:
        click.echo(json.dumps(result))
        return
    Console(highlight=False).print(
        f"simulation: {result['deals']:,} deals of {result['game']} ({','.join(result['policies'])}), a replay of "
        f"every deal logged to {result['redis']}, identical results both ways\n"
        f"  one process, no Ray: {result['single_process_deals_per_s']:,.0f} deals/s\n"
        f"  Ray, {result['ray_workers']} workers: {result['ray_deals_per_s']:,.0f} deals/s (best of {result['rounds']} "
        "runs each way)\n"
        f"  speed-up {result['speedup']:.2f}x ({result['cpus']} CPUs, load average {result['load_average_1m']}; two "
        f"plain processes get {result['machine_parallel_capacity']:.2f}x one process's work done on this machine now)\n"
        + _cost_lines(result)
    )


def _cost_lines(result: dict[str, Any]) -> str:
    cpu = result["cpu_us_per_deal"]
    ray_processes = "?" if cpu["ray_processes"] is None else f"{cpu['ray_processes']:,.1f}"
    projected, net = result["projected_speedup"], result["redis_net_bytes_per_deal"]
    return (
        f"  CPU per deal: one process {cpu['single_process']:,.1f} µs; on Ray, workers {cpu['workers']:,.1f} µs, "
        f"driver {cpu['driver']:,.1f} µs ({100 * result['driver_to_workers']:.1f}% of the workers'), Ray's own "
        f"processes {ray_processes} µs, Redis {cpu['redis']:,.1f} µs"
        + (f": {projected:.2f}x on 2 idle cores" if projected is not None else "") + "\n"
        f"  Redis per deal: {result['redis_replay_bytes_per_logged_deal']:,.1f} bytes of replay, "
        f"{result['redis_job_record_bytes_per_deal']:,.2f} bytes of job record, "
        f"{net['in']:,.0f} bytes in and {net['out']:,.0f} out over the network")


def _replay_bench(count: int, as_json: bool) -> None:

    from ..bench.replays import replay_benchmark

    result = replay_benchmark(redis_url=os.environ.get("REDIS_URL"), count=count)
    if as_json:
        click.echo(json.dumps(result))
        return
    console = Console(highlight=False)
    for game, size in result["sizes"].items():
        console.print(
            f"{game}: {size['deals']:,} random deals, {size['mean_bytes']:.2f} bytes per replay against an "
            f"information bound of {size['mean_bound_bytes']:.2f}; worst excess {size['max_excess_bytes']} bytes "
            f"(target {size['target_max_excess_bytes']})"
        )
    store = result["store"]
    console.print(f"store ({store['server']}): " + ", ".join(
        f"{key.replace('_', ' ')} {value:,}" if isinstance(value, int | float) else f"{key.replace('_', ' ')} {value}"
        for key, value in store.items() if key != "server"))


def _clone_bench(floor_script: Path | None, as_json: bool) -> None:
    floor = floor_script or find_floor()
    if floor is None:
        raise click.UsageError(f"no {FLOOR_SCRIPT} in this folder or a parent: give it with --floor")
    result = {**run_clone_bench(floor), **engine.engine_report()}
    if as_json:
        click.echo(json.dumps(result))
        return
    console = Console(highlight=False)
    console.print(f"floor: {result['floor_moves_per_s']:,} moves/s ({floor}); load average "
                  f"{result['load_average_1m']}; engine: {_engine_line(result)}")
    for game, row in result["games"].items():
        console.print(f"{game}, {row['players']} players: {row['us_per_clone']:.2f} µs per mid-deal clone = "
                      f"{row['floor_moves_per_clone']:.2f} floor moves")


def _bots_bench(seconds: float, positions: int, games: list[str] | None, as_json: bool) -> None:
    from services.bench.bots import bots_bench_steps, run_bots_bench

    with _steps(bots_bench_steps(len(games or engine.list_games()), positions)) as on_step:
        result = {**run_bots_bench(seconds=seconds, positions=positions, games=games, on_step=on_step),
                  **engine.engine_report()}
    if as_json:
        click.echo(json.dumps(result))
        return
    console = Console(highlight=False)
    console.print(f"policies playing seat 0 against random seats, {seconds:g} s each (load average "
                  f"{result['load_average_1m']}, {result['cpus']} CPUs; engine: {_engine_line(result)}): decisions/s")
    for game, rows in result["policies"].items():
        console.print(f"  {game}: " + ", ".join(f"{label} {row['decisions_per_s']:,}" for label, row in rows.items()))
    for game, row in result["double_dummy"].items():
        console.print(f"double dummy, {game}, last {row['cards']} cards: {row['nodes_per_s']:,} nodes/s, "
                      f"{row['mean_seconds']:.3f} s a solve on average, {row['max_seconds']:.3f} s at most "
                      f"({row['positions']} positions)")
    bridge = result["bridge"]
    for name in ("no_trump", "spades"):
        row = bridge[name]
        dds = f"DDS {row['dds_mean_seconds']:.5f} s, {row['times_dds']:,}x" if row["times_dds"] else bridge["dds"]
        console.print(f"double dummy, bridge ({name}), {bridge['cards']} cards: {row['mean_seconds']:.3f} s a solve "
                      f"on average; {dds} ({bridge['positions']} endings)")
    colver = result["colver_double_dummy"]
    for label, row in colver.items():
        if isinstance(row, dict):
            console.print(f"double dummy against colver's, {label}, last {row['cards']} cards: ours "
                          f"{row['mean_seconds']:.4f} s, colver's oracle {row['colver_oracle_mean_seconds']:.4f} s "
                          f"({row['times_colver_oracle']}x), its solve_scores "
                          f"{row['colver_solve_scores_mean_seconds']:.4f} s; values agree on {row['values_agree']} of "
                          f"{row['positions']}")
    if colver["solver"] is None:
        console.print(f"double dummy against colver's: {colver['missing']}")
