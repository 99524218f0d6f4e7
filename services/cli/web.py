"""``cardtable web``: serve the web page (replay viewer, jobs, live table) and its HTTP/JSON API.

    cardtable web                                  # http://127.0.0.1:8080/ over the embedded Valkey
    cardtable web --port 8000 --redis-url redis://127.0.0.1:6379
    CARDTABLE_API_KEY=s3cret cardtable web         # every /api/ call then needs the key, as `cardtable serve`'s do
    cardtable web --analysis-nodes 200000          # a deeper (slower) analysis of the trick games' replays
    cardtable web --allow-policies mybots --policy-path /srv/bots   # the live table may seat mybots' policies
    cardtable web --host 0.0.0.0 --api-key-file key.txt --tls-cert page.crt --tls-key page.key

Each client (an API key's name, else an address) may have ``--max-live-matches`` matches in play and create
``--max-matches-per-minute`` a minute (as ``cardtable serve``'s, counted in the same Redis); beyond, HTTP 429.

It binds 127.0.0.1 unless told otherwise (beyond loopback it needs an API key, or ``--allow-unauthenticated``; with
``--tls-cert`` and ``--tls-key`` it serves https), and reads the same Redis (matches, replays, jobs) as
``cardtable serve``: a match started on the page is a gRPC match too, and a job submitted over gRPC shows its progress
on the page. Every asset comes from cardtable itself: the page makes no request to any other host.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from services.app.allowed_policies import PolicyAllowList
from services.app.auth import ApiKeys
from services.app.limits import ClientLimits
from services.web.analysis import NODES as ANALYSIS_NODES

from .client_limits import client_limit_options, read_api_keys
from .exposure import check_exposure, check_tls, exposure_options
from .policy_access import policy_access_options, server_import_path
from .redis_url import check_reachable, redis_url_option
from .serve import bot_budget_options

DEFAULT_PORT = 8080
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def page_url(host: str, port: int, replay_id: str | None = None, tls: bool = False) -> str:
    """The page's address, or a replay's permalink in the viewer.

    >>> page_url("127.0.0.1", 8080, "sim-1a2b/0"), page_url("localhost", 8443, tls=True)
    ('http://127.0.0.1:8080/#/replay/sim-1a2b/0', 'https://localhost:8443/')
    """
    base = f"{'https' if tls else 'http'}://{host}:{port}/"
    return base if replay_id is None else f"{base}#/replay/{replay_id}"


def allowed_hosts(host: str) -> list[str] | None:
    """The host names a server bound to ``host`` answers: on loopback only its own names (no page elsewhere can
    rebind its name to 127.0.0.1 and read the API); elsewhere any, as the address may have many names.

    >>> allowed_hosts("127.0.0.1"), allowed_hosts("0.0.0.0")
    (['127.0.0.1', 'localhost', '[::1]'], None)
    """
    return [*LOOPBACK_NAMES] if host in LOOPBACK_NAMES or host == "::1" else None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, help="Port to bind.")
@redis_url_option("Redis holding matches, replays and jobs (default: $REDIS_URL, else an embedded Valkey).")
@click.option("--api-key", default=lambda: os.environ.get("CARDTABLE_API_KEY"),
              help="Require this key in every API call's 'x-api-key' header (default: $CARDTABLE_API_KEY; none).")
@click.option("--api-key-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the API keys from this file: one a line, 'name:key', 'name key' or the key alone.")
@click.option("--analysis-nodes", type=click.IntRange(min=1), default=ANALYSIS_NODES, show_default=True,
              help="The replay analysis' double-dummy budget per position (as `cardtable replay analyze "
                   "--max-nodes`): the viewer's analysis is exact from the first trick it settles within it.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
@policy_access_options
@exposure_options
@client_limit_options(jobs=False)
@bot_budget_options
def web(host: str, port: int, redis_url: str | None, api_key: str | None, api_key_file: Path | None,
        analysis_nodes: int, log_level: str, allow_policies: PolicyAllowList, policy_path: tuple[Path, ...],
        allow_unauthenticated: bool, tls_cert: Path | None, tls_key: Path | None, limits: ClientLimits,
        bot_budget: int, bot_time_limit: float) -> None:
    """Serve the web page: replay viewer, simulation jobs and a live table against the bots."""
    server_import_path(policy_path)
    import uvicorn

    from engine.budget import Budget
    from services.logs import configure_logging
    from services.protogen import ensure_generated

    check_tls(tls_cert, tls_key)
    keys = read_api_keys(api_key_file) if api_key_file is not None else ApiKeys.of(api_key)
    check_exposure(host, keys, allow_unauthenticated)
    ensure_generated()
    from services.web.app import create_app
    from services.web.serving import GRACE_S, StoppingServer

    configure_logging(log_level)
    if redis_url is not None:  # a Redis that does not answer is one line, before anything is served
        check_reachable(redis_url)
    click.echo(f"cardtable web: {page_url(host, port, tls=tls_cert is not None)}", err=True)
    try:
        app = create_app(redis_url, keys, analysis_nodes=analysis_nodes, allowed_hosts=allowed_hosts(host),
                         policies=allow_policies, limits=limits, bot_budget=Budget(bot_budget, bot_time_limit))
        server = StoppingServer(uvicorn.Config(app, host=host, port=port, log_level=log_level,
                                               access_log=log_level == "debug", timeout_graceful_shutdown=GRACE_S,
                                               ssl_certfile=tls_cert, ssl_keyfile=tls_key))
        server.run()
    except (ConnectionError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if not server.started:  # uvicorn said why (its startup failed): the exit status says so too, as uvicorn.run's
        raise SystemExit(3)


if __name__ == "__main__":  # `python -m services.cli.web REPLAY_ID` prints the replay's address (make demo)
    import sys

    click.echo(page_url("127.0.0.1", DEFAULT_PORT, sys.argv[1] if len(sys.argv) > 1 else None))
