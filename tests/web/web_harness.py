"""The web tests' harness: the web app served by uvicorn in a background thread, the browser's settings and the
screenshots (test artifacts under build/web/)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

import engine
import replay

CARDTABLE = shutil.which("cardtable", path=str(Path(sys.executable).parent)) or "cardtable"
CHROMIUM = os.environ.get("CARDTABLE_CHROMIUM", "/usr/bin/chromium")
# As the machine's notes say: no GPU, no sandbox (root), and none of Chromium's own connections to the network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "build" / "web"
ANALYSIS_NODES = 10_000  # the test servers' analysis budget: a fraction of a second per replay


@dataclass
class WebServer:
    url: str
    redis_url: str
    collection: str
    replays: dict[str, bytes]  # replay id -> bytes, as seeded


class _Uvicorn(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # a background thread: the test process keeps its own handlers
        pass


def serve_in_thread(app: Any) -> tuple[_Uvicorn, threading.Thread, int]:
    """``app`` served on a free loopback port in a daemon thread, started; returns the server, thread and port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _Uvicorn(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="web-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web test server did not start")
        time.sleep(0.02)
    return server, thread, port


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_answering(base: str, server: subprocess.Popen, timeout: float = 60.0) -> None:
    """Poll a ``cardtable web`` process's page until it answers (any HTTP status); AssertionError if it exits or
    does not answer within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{base}/", timeout=10):
                return
        except urllib.error.HTTPError:
            return
        except (ConnectionError, urllib.error.URLError):
            assert server.poll() is None and time.monotonic() < deadline, "cardtable web did not start"
            time.sleep(0.1)


def seeded_replays() -> list[bytes]:
    """A deal of each kind the viewer draws (a fishing game, an auction game, a plain trick game, a whole match),
    then one deal of every game."""
    return [replay.record_deal("belote_contree", seed=11, policies=["greedy"] * 4),
            replay.record_deal("tablanette", seed=5, policies=["greedy", "random"]),
            replay.record_deal("german_whist", seed=3),
            replay.record_match("tablic", seed=2, policies=["greedy", "greedy"]),
            *(replay.record_deal(game, seed=7) for game in engine.list_games())]


def screenshot(page: Any, name: str) -> Path:
    """Save the whole page as build/web/<name>.png (the tests' artifact)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
