"""``cardtable web`` as a user starts it: it binds 127.0.0.1 by default, prints its address and takes the API key as
``cardtable serve`` does ($CARDTABLE_API_KEY, --api-key, --api-key-file)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from click.testing import CliRunner

from services.cli.main import cli
from services.cli.web import web

CARDTABLE = shutil.which("cardtable", path=str(Path(sys.executable).parent)) or "cardtable"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, key: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"x-api-key": key} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


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
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = get(f"{base}/api/games")
                break
            except (ConnectionError, urllib.error.URLError):
                assert server.poll() is None and time.monotonic() < deadline, "cardtable web did not start"
                time.sleep(0.1)
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
