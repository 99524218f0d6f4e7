"""Exposure is deliberate: `cardtable serve` and `cardtable web` bound beyond loopback with no API key refuse to start
(one line naming --allow-unauthenticated and how to set a key) and bind nothing; with a key, or on any loopback
address, they serve. No test here binds beyond loopback: the refusals exit before binding, and the servers that do
start bind 127.0.0.1 or 127.0.0.2 (loopback too)."""

from __future__ import annotations

import os
import socket
import subprocess

import grpc
import pytest
from grpc_harness import CARDTABLE, ROOT, ServerProcess

from services.cli.exposure import ALLOW_UNAUTHENTICATED, check_exposure, is_loopback
from services.generated.cardtable.v1 import game_service_pb2, game_service_pb2_grpc

NO_KEY = {name: value for name, value in os.environ.items() if name != "CARDTABLE_API_KEY"}
BEYOND_LOOPBACK = ["0.0.0.0", "::", "192.168.1.20", "10.0.0.7", "fe80::1", "no-such-host.invalid"]
LOOPBACK = ["127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "[::1]", "localhost"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def refused(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CARDTABLE, *args], cwd=ROOT, env=NO_KEY, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("host", BEYOND_LOOPBACK)
def test_an_address_beyond_loopback_needs_a_key_or_the_flag(host):
    assert not is_loopback(host)
    with pytest.raises(Exception, match=f"refusing to serve {host} without an API key.*{ALLOW_UNAUTHENTICATED}"):
        check_exposure(host, api_key=None, allow_unauthenticated=False)
    check_exposure(host, api_key="s3cret", allow_unauthenticated=False)
    check_exposure(host, api_key=None, allow_unauthenticated=True)


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_needs_neither(host):
    assert is_loopback(host)
    check_exposure(host, api_key=None, allow_unauthenticated=False)


@pytest.mark.parametrize("command", [["serve"], ["serve", "--workers", "2"], ["web"]],
                         ids=["serve", "serve --workers 2", "web"])
@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_starting_beyond_loopback_without_a_key_is_one_line_and_binds_nothing(command, host):
    port = free_port()
    answer = refused(*command, "--host", host, "--port", str(port))
    assert answer.returncode == 1, answer
    assert answer.stderr.splitlines() == [
        f"Error: refusing to serve {host} without an API key (anyone who reaches it could call it): set "
        f"$CARDTABLE_API_KEY or --api-key-file, or pass {ALLOW_UNAUTHENTICATED} to serve it open"]
    assert answer.stdout == ""
    with socket.socket() as probe:  # the port it was given is still free: nothing bound it, nothing holds it
        probe.bind(("127.0.0.1", port))


def test_a_second_loopback_address_serves_with_no_key(grpc_redis_url):
    with ServerProcess("--host", "127.0.0.2", "--redis-url", grpc_redis_url, env={"CARDTABLE_API_KEY": None}) as server:
        assert server.log_lines[-1]["host"] == "127.0.0.2" and server.log_lines[-1]["api_key"] is False
        with grpc.insecure_channel(f"127.0.0.2:{server.port}") as channel:
            games = game_service_pb2_grpc.GameServiceStub(channel)
            assert games.ListGames(game_service_pb2.ListGamesRequest(), timeout=10).games
