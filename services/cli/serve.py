"""``cardtable serve``: run the gRPC server (GameService, ReplayService, health, reflection) until SIGTERM.

    cardtable serve --port 50051 --redis-url redis://127.0.0.1:6379
    cardtable serve --api-key-file key.txt --tls-cert server.crt --tls-key server.key
    CARDTABLE_API_KEY=s3cret cardtable serve

The API key is best given in a file or in $CARDTABLE_API_KEY: on the command line (``--api-key``) ``ps`` shows it.
A key file may hold one key per client, a line each: ``name:key``, ``name key`` or the key alone.

Each client (a key's name, else an address) may have ``--max-jobs-per-client`` unfinished jobs and tournaments
(default 4) and ``--max-live-matches`` matches in play (default 100), and create ``--max-matches-per-minute``
matches a minute (default 60); beyond, a call gets RESOURCE_EXHAUSTED naming the limit. The counts are kept in Redis,
so they hold across ``--workers`` and every server sharing the Redis; 0 turns a limit off.

Matches live in Redis: a finished match for ``--retention`` (default 7 days; its replay stays in the replay store for
good), a match in play until nobody has moved for ``--abandon-after`` (default 6 hours). Durations are seconds or
a number with s, m, h or d (``12h``); 0 keeps matches forever.

A client's bots and jobs name built-in policies, installed entry points (``cardtable.policies``), or import paths
from the modules ``--allow-policies`` lists (``$CARDTABLE_ALLOW_POLICIES``; by default none), found among the installed
packages, on ``$PYTHONPATH`` or in a ``--policy-path`` folder: never in the server's working folder.

It binds 127.0.0.1 unless told otherwise; beyond loopback (``--host 0.0.0.0``, a LAN address) it needs an API key,
or ``--allow-unauthenticated`` to serve everyone who reaches the port. With no ``--redis-url`` it starts an embedded
Valkey. Logs are JSON lines on stderr, cardtable's own only (``--verbose`` adds debug lines and Ray's); the
"serving" line names the bound port (useful with ``--port 0``). Simulation jobs run on the Ray at ``$RAY_ADDRESS``,
else on a local Ray started with the first job that lives as long as the server: SIGTERM or Ctrl-C stops the server,
its Ray and its embedded Valkey.

A bot's decision spends at most ``--bot-budget`` work units (100,000 by default; the same moves for the same seed on
any machine) and ``--bot-time-limit`` (2 s); a bot whose parameters ask more than 10 times the budget is refused
(see :mod:`services.app.budgets`). A decision whose client's deadline passes is abandoned; SIGTERM stops the server
within ``--grace`` and 4 s whatever runs, and no process it started outlives it, SIGKILL included.

``--workers N`` runs N server processes on one port (SO_REUSEPORT: the kernel spreads the connections), one per
core, since one Python process serves on one core; they share nothing but Redis, as any server processes can.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click

from services.app.allowed_policies import PolicyAllowList
from services.app.auth import ApiKeys
from services.app.budgets import DEFAULT_BOT_SECONDS, DEFAULT_BOT_WORK, REFUSE_FACTOR
from services.app.limits import ClientLimits
from services.protogen import ensure_generated

from .client_limits import client_limit_options, limit_args, read_api_keys
from .exposure import ALLOW_UNAUTHENTICATED, check_exposure, check_tls, exposure_options
from .policy_access import policy_access_args, policy_access_options, server_import_path
from .redis_url import redis_url_option

DEFAULT_PORT = 50051
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_PARENT_VARIABLE = "CARDTABLE_SERVE_PARENT"  # set for each server process of --workers: the pid they stop with


class Duration(click.ParamType):
    """Seconds, or a number with a unit: ``90``, ``30m``, ``12h``, ``7d``."""

    name = "duration"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        text = str(value).strip().lower()
        number, unit = (text[:-1], _UNITS[text[-1]]) if text[-1:] in _UNITS else (text, 1)
        try:
            seconds = float(number) * unit
        except ValueError:
            self.fail(f"{value!r} is not a duration (such as 90, 30m, 12h or 7d)", param, ctx)
        if not seconds >= 0 or seconds == float("inf"):
            self.fail(f"{value!r} is not a duration of 0 or more seconds", param, ctx)
        return seconds


def bot_budget_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--bot-budget`` and ``--bot-time-limit``: what a bot's decision may spend (see :mod:`services.app.budgets`)."""
    command = click.option(
        "--bot-time-limit", type=Duration(), default=f"{DEFAULT_BOT_SECONDS:g}s", show_default=True,
        help="Wall-clock limit of a live bot's decision, a last resort where --bot-budget takes longer (a slow or "
             "busy machine): where it cuts, a bot's play depends on the machine. 0: none.")(command)
    return click.option(
        "--bot-budget", type=click.IntRange(min=0), default=DEFAULT_BOT_WORK, show_default=True,
        help="Work units a live bot's decision may spend (a move in a searched world, 32 double-dummy nodes, 100 "
             "a sampled world): the search stops there and plays its best, the same move for the same seed on any "
             f"machine. Bots asking more than {REFUSE_FACTOR} times it (live or in jobs) are refused. "
             "0: no bound.")(command)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to bind (0: a free one, named in the 'serving' log line).")
@redis_url_option("Redis holding matches and replays (default: $REDIS_URL, else an embedded Valkey).")
@click.option("--api-key", default=lambda: os.environ.get("CARDTABLE_API_KEY"),
              help="Require this key in every call's 'x-api-key' metadata (default: $CARDTABLE_API_KEY; none). "
                   "Visible to `ps`: prefer --api-key-file or the environment variable.")
@click.option("--api-key-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the API keys from this file: one a line, 'name:key', 'name key' or the key alone (the "
                   "name, or the start of the key's SHA-256, names the client in the limits and the logs).")
@exposure_options
@click.option("--grace", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Seconds running calls get to finish on SIGTERM.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
@click.option("--verbose", is_flag=True, help="Log at debug level, Ray's own log lines included.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the port (one per core serves the most).")
@click.option("--retention", type=Duration(), default="7d", show_default=True, envvar="CARDTABLE_RETENTION",
              help="How long Redis keeps a finished match (its replay is kept apart); 0: forever. "
                   "$CARDTABLE_RETENTION sets it too.")
@click.option("--abandon-after", type=Duration(), default="6h", show_default=True,
              envvar="CARDTABLE_ABANDON_AFTER",
              help="Forget a match in play when nobody has moved for this long; 0: never. "
                   "$CARDTABLE_ABANDON_AFTER sets it too.")
@click.option("--max-watchers", type=click.IntRange(min=1), default=1000, show_default=True,
              help="WatchGame streams served at once; more are refused with RESOURCE_EXHAUSTED.")
@click.option("--reuse-port", is_flag=True, hidden=True, help="Bind with SO_REUSEPORT (set for each worker).")
@policy_access_options
@client_limit_options(jobs=True)
@bot_budget_options
def serve(host: str, port: int, redis_url: str | None, api_key: str | None, api_key_file: Path | None,
          tls_cert: Path | None, tls_key: Path | None, grace: float, log_level: str, verbose: bool, workers: int,
          retention: float, abandon_after: float, max_watchers: int, reuse_port: bool,
          allow_policies: PolicyAllowList, policy_path: tuple[Path, ...], allow_unauthenticated: bool,
          limits: ClientLimits, bot_budget: int, bot_time_limit: float) -> None:
    """Serve the cardtable gRPC API (health checking and reflection on)."""
    server_import_path(policy_path)
    if verbose:
        log_level = "debug"
    check_tls(tls_cert, tls_key)
    keys = read_api_keys(api_key_file) if api_key_file is not None else ApiKeys.of(api_key)
    check_exposure(host, keys, allow_unauthenticated)
    ensure_generated()
    from services.logs import configure_logging

    configure_logging(log_level)
    if workers > 1:
        config_args = ["--grace", str(grace), "--log-level", log_level, "--retention", str(retention),
                       "--abandon-after", str(abandon_after), "--max-watchers", str(max_watchers),
                       *policy_access_args(allow_policies, policy_path), *limit_args(limits),
                       "--bot-budget", str(bot_budget), "--bot-time-limit", str(bot_time_limit)]
        if tls_cert is not None:
            config_args += ["--tls-cert", str(tls_cert), "--tls-key", str(tls_key)]
        if allow_unauthenticated:
            config_args.append(ALLOW_UNAUTHENTICATED)
        if api_key_file is not None:  # the workers read the keys from the file (its path shows, not the keys)
            config_args += ["--api-key-file", str(api_key_file)]
            api_key = None
        _run_workers(workers, config_args, host, port, redis_url, api_key, grace)
        return
    from engine.budget import Budget
    from services.match_store import Retention
    from services.server import ServerConfig, run

    if (parent := os.environ.pop(_PARENT_VARIABLE, "")).isdigit():  # one of --workers: it stops with the parent
        from services.lifecycle import follow_parent

        follow_parent(int(parent), then=lambda: os.kill(os.getpid(), signal.SIGTERM))
    config = ServerConfig(host=host, port=port, redis_url=redis_url, api_key=keys, tls_cert=tls_cert,
                          tls_key=tls_key, grace_s=grace, reuse_port=reuse_port,
                          retention=Retention(retention, abandon_after), max_watchers=max_watchers,
                          allow_policies=allow_policies, limits=limits, bot_budget=Budget(bot_budget, bot_time_limit))
    try:
        run(config)
    except (ConnectionError, OSError) as exc:
        raise click.ClickException(str(exc)) from None


def _run_workers(workers: int, config_args: list[str], host: str, port: int, redis_url: str | None,
                 api_key: str | None, grace: float) -> None:
    """Start ``workers`` server processes on one port and stop them all on SIGTERM or SIGINT."""
    from replay.embedded import EmbeddedValkey

    embedded = None
    if redis_url is None:  # one embedded Valkey for all the workers, owned by this process
        embedded = EmbeddedValkey()
        redis_url = embedded.start()
    if port == 0:
        with socket.socket() as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
    cardtable = shutil.which("cardtable", path=str(Path(sys.executable).parent)) or "cardtable"
    command = [cardtable, "serve", "--host", host, "--port", str(port), "--redis-url", redis_url, "--reuse-port",
               *config_args]
    env = {**os.environ, "CARDTABLE_API_KEY": api_key or "",  # not on the command line, where `ps` shows it
           _PARENT_VARIABLE: str(os.getpid())}
    children = [subprocess.Popen(command, env=env) for _ in range(workers)]

    def stop(*_: object) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        codes = [child.wait() for child in children]
    finally:
        stop()
        for child in children:
            child.wait(timeout=grace + 10)
        if embedded is not None:
            embedded.stop()
    if any(codes):
        raise click.ClickException(f"a worker failed (exit codes {codes})")
