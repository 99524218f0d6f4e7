"""``cardtable web`` as a user starts it: it binds 127.0.0.1 by default, prints its address, takes the API key as
``cardtable serve`` does ($CARDTABLE_API_KEY, --api-key, --api-key-file) and serves https with --tls-cert/--tls-key."""

from __future__ import annotations

import http.client
import json
import os
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from web_harness import CARDTABLE, free_port

from services.cli.main import cli
from services.cli.web import web


def get(url: str, key: str | None = None, context: ssl.SSLContext | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"x-api-key": key} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def first_answer(server: subprocess.Popen, url: str, context: ssl.SSLContext | None = None) -> tuple[int, dict]:
    """The first answer of a `cardtable web` that is starting (within a minute)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return get(url, context=context)
        except (ConnectionError, urllib.error.URLError):
            assert server.poll() is None and time.monotonic() < deadline, "cardtable web did not start"
            time.sleep(0.1)


def test_web_binds_loopback_by_default_and_takes_the_api_key_from_the_environment(redis_url: str) -> None:
    assert {p.name: p.default for p in web.params}["host"] == "127.0.0.1"
    port = free_port()
    env = {**os.environ, "CARDTABLE_API_KEY": "s3cret"}
    server = subprocess.Popen([CARDTABLE, "web", "--port", str(port), "--redis-url", redis_url], env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        assert server.stderr.readline().strip() == f"cardtable web: http://127.0.0.1:{port}/"
        base = f"http://127.0.0.1:{port}"
        status, body = first_answer(server, f"{base}/api/games")
        assert status == 401 and body["error"]["code"] == "UNAUTHENTICATED"
        status, games = get(f"{base}/api/games", key="s3cret")
        assert status == 200 and "tablanette" in [g["id"] for g in games]
        assert get(f"http://localhost:{port}/api/games", key="s3cret")[0] == 200
        rebound = urllib.request.Request(f"{base}/api/games", headers={"x-api-key": "s3cret", "host": "evil.example"})
        try:
            urllib.request.urlopen(rebound, timeout=10)
            raise AssertionError("a request for another host name was served")
        except urllib.error.HTTPError as refused:
            assert refused.code == 400
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_an_empty_api_key_file_is_a_usage_error(tmp_path: Path) -> None:
    empty = tmp_path / "key.txt"
    empty.write_text("\n")
    result = CliRunner().invoke(cli, ["web", "--api-key-file", str(empty)])
    assert result.exit_code == 2 and "key.txt: it holds no API key" in result.output


def test_web_serves_https_with_a_certificate_and_its_key(redis_url: str, certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    port = free_port()
    server = subprocess.Popen([CARDTABLE, "web", "--port", str(port), "--redis-url", redis_url, "--tls-cert", str(cert),
                               "--tls-key", str(key)], env={**os.environ, "CARDTABLE_API_KEY": "s3cret"},
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        assert server.stderr.readline().strip() == f"cardtable web: https://127.0.0.1:{port}/"
        trusting = ssl.create_default_context(cafile=str(cert))
        status, body = first_answer(server, f"https://127.0.0.1:{port}/api/games", trusting)
        assert status == 401 and body["error"]["code"] == "UNAUTHENTICATED"  # the key still guards the API
        status, games = get(f"https://localhost:{port}/api/games", key="s3cret", context=trusting)
        assert status == 200 and "tablanette" in [g["id"] for g in games]
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=10, context=trusting) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):  # it is this certificate
            get(f"https://127.0.0.1:{port}/api/games", context=ssl.create_default_context())
        with pytest.raises((ConnectionError, urllib.error.URLError, http.client.HTTPException)):  # no plain http
            get(f"http://127.0.0.1:{port}/api/games", key="s3cret")
    finally:
        server.terminate()
        server.wait(timeout=30)
