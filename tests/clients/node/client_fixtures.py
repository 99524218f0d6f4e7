"""Fixtures of the Node.js client tests (imported by them: a conftest.py here would be collected by --doctest-modules
before tests/conftest.py under the same module name): the packages from the lock file, a real `cardtable serve` on a
free loopback port, and a client run checked against the replay the server stored."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import redis

from replay import decode
from replay.store import ReplayStore

__all__ = ["node_modules", "play_with_client", "server"]

HERE = Path(__file__).resolve().parent
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """The client's packages, installed from the committed lock file if `make test` has not done it yet."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are needed for the cross-language client test")
    modules = HERE / "node_modules"
    if not all((modules / package).exists() for package in ("@grpc/grpc-js", "@connectrpc/connect-node", "typescript")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True, capture_output=True)
    return modules


@pytest.fixture
def server(grpc_redis_url: str):
    """`cardtable serve` on a free loopback port; yields the port."""
    process = subprocess.Popen([CARDTABLE, "serve", "--port", "0", "--redis-url", grpc_redis_url],
                               stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stderr:
            record = json.loads(line)
            if record.get("msg") == "serving":
                break
        else:
            pytest.fail(f"cardtable serve exited with {process.wait()}")
        # Keep reading the log so the server never blocks on a full pipe.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield record["port"]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


@pytest.fixture
def play_with_client(server: int, grpc_redis_url: str):
    """Runs a client script (``node SCRIPT 127.0.0.1:PORT SEED [GAME]``) that plays seat 0 of a game (Tablanette by
    default; the game's default player count) against greedy bots and prints a JSON report; checks the report against
    the replay the server stored, and returns it."""

    def play(script: Path, seed: int, game: str = "tablanette") -> dict:
        command = ["node", str(script), f"127.0.0.1:{server}", str(seed)] + ([] if game == "tablanette" else [game])
        run = subprocess.run(command, cwd=HERE, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "NODE_NO_WARNINGS": "1"})
        assert run.returncode == 0, run.stderr
        report = json.loads(run.stdout.strip().splitlines()[-1])
        assert report["acts"] > 0 and report["streamed_moves"] == report["moves"]
        stored = decode(ReplayStore(redis.Redis.from_url(grpc_redis_url)).get(report["replay_id"]))
        assert len(stored.moves) == report["moves"] and stored.scores == report["scores"]
        players = report.get("players", 2)  # the TypeScript client plays two-player Tablanette
        assert stored.header.game == game and stored.header.policies == ("human",) + ("greedy",) * (players - 1)
        return report

    return play
