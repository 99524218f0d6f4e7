"""Exposure is deliberate: ``cardtable serve`` and ``cardtable web`` bound beyond loopback need an API key, or the
operator's explicit ``--allow-unauthenticated``; and they serve TLS when given a certificate and its key.

    check_exposure("0.0.0.0", api_key=None, allow_unauthenticated=False)   # click.ClickException, one line
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from services.app.auth import ApiKeys

ALLOW_UNAUTHENTICATED = "--allow-unauthenticated"
F = TypeVar("F", bound=Callable[..., object])


def is_loopback(host: str) -> bool:
    """The address (127.0.0.0/8, ::1) or every address of the name (``localhost``) is this machine's loopback.

    >>> [is_loopback(h) for h in ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]]
    [True, True, True, True, True]
    >>> [is_loopback(h) for h in ["0.0.0.0", "::", "", "192.168.1.20", "no-such-host.invalid"]]
    [False, False, False, False, False]
    """
    name = host.strip().removeprefix("[").removesuffix("]")
    if not name:
        return False  # every interface, as 0.0.0.0
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return False  # a name that does not resolve binds nothing anyway; it is not loopback
    return bool(addresses) and all(ipaddress.ip_address(a.partition("%")[0]).is_loopback for a in addresses)


def check_exposure(host: str, api_key: str | ApiKeys | None, allow_unauthenticated: bool) -> None:
    """Refuse (one line) to serve ``host`` beyond loopback with no API key, unless the operator said so."""
    if api_key or allow_unauthenticated or is_loopback(host):
        return
    raise click.ClickException(
        f"refusing to serve {host or 'every interface'} without an API key (anyone who reaches it could call it): "
        f"set $CARDTABLE_API_KEY or --api-key-file, or pass {ALLOW_UNAUTHENTICATED} to serve it open")


def exposure_options(command: F) -> F:
    """The options that say how a server is exposed: the explicit open door, and TLS."""
    for option in reversed([
        click.option(ALLOW_UNAUTHENTICATED, "allow_unauthenticated", is_flag=True,
                     help="Serve beyond loopback (--host 0.0.0.0, a LAN address) with no API key: anyone who "
                          "reaches the port may call it. Without it, such a bind needs a key."),
        click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="PEM certificate (chain): serve TLS with it and --tls-key."),
        click.option("--tls-key", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="PEM private key of --tls-cert."),
    ]):
        command = option(command)
    return command


def check_tls(tls_cert: Path | None, tls_key: Path | None) -> None:
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("TLS needs both --tls-cert and --tls-key")
