"""``cardtable serve``: run the gRPC server (GameService, ReplayService, health, reflection) until SIGTERM.

    cardtable serve --port 50051 --redis-url redis://127.0.0.1:6379
    cardtable serve --api-key s3cret --tls-cert server.crt --tls-key server.key

It binds 127.0.0.1 unless told otherwise; with no ``--redis-url`` it starts an embedded Valkey. Logs are JSON lines
on stderr; the "serving" line names the bound port (useful with ``--port 0``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click

from services.protogen import ensure_generated

DEFAULT_PORT = 50051


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to bind (0: a free one, named in the 'serving' log line).")
@click.option("--redis-url", default=lambda: os.environ.get("REDIS_URL"),
              help="Redis holding matches and replays (default: $REDIS_URL, else an embedded Valkey).")
@click.option("--api-key", default=lambda: os.environ.get("CARDTABLE_API_KEY"),
              help="Require this key in every call's 'x-api-key' metadata (default: $CARDTABLE_API_KEY; none).")
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="PEM certificate.")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="PEM private key.")
@click.option("--grace", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Seconds running calls get to finish on SIGTERM.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
def serve(host: str, port: int, redis_url: str | None, api_key: str | None, tls_cert: Path | None,
          tls_key: Path | None, grace: float, log_level: str) -> None:
    """Serve the cardtable gRPC API (health checking and reflection on)."""
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("TLS needs both --tls-cert and --tls-key")
    ensure_generated()
    from services.logs import configure_logging
    from services.server import ServerConfig
    from services.server import serve as run_server

    configure_logging(log_level)
    config = ServerConfig(host=host, port=port, redis_url=redis_url, api_key=api_key or None, tls_cert=tls_cert,
                          tls_key=tls_key, grace_s=grace)
    try:
        asyncio.run(run_server(config))
    except (ConnectionError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
