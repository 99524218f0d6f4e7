"""Fixtures of the client tests in Node.js, Go and Java (tests/clients; imported by them: a conftest.py there would be
collected by --doctest-modules before tests/conftest.py under the same module name): the Node.js packages from the
lock file, a real `cardtable serve` on a free loopback port (one a module), and a client run checked against the replay
the server stored."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from grpc_harness import ServerProcess

from replay import decode
from replay.store import ReplayStore

__all__ = ["node_modules", "play_with_client", "run_client", "server"]

NODE = Path(__file__).resolve().parent / "clients" / "node"


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """The client's packages, installed from the committed lock file if `make test` has not done it yet."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are needed for the cross-language client test")
    modules = NODE / "node_modules"
    if not all((modules / package).exists() for package in ("@grpc/grpc-js", "@connectrpc/connect-node", "typescript")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE, check=True, capture_output=True)
    return modules


@pytest.fixture(scope="module")
def server(grpc_redis_url: str) -> Iterator[int]:
    """`cardtable serve` on a free loopback port (tests/grpc_harness.py), one for a module's tests (each plays
    matches of its own on it); yields the port."""
    with ServerProcess("--redis-url", grpc_redis_url) as served:
        yield served.port


@pytest.fixture
def run_client(server: int, grpc_redis_url: str):
    """Runs a client's command, which plays seat 0 of a game against greedy bots on the server and prints a JSON
    report as its last line; checks the report against the replay the server stored, and returns it."""

    def run(command: list[str], game: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> dict:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert report["acts"] > 0 and report.get("streamed_moves", report["moves"]) == report["moves"]
        stored = decode(ReplayStore(redis.Redis.from_url(grpc_redis_url)).get(report["replay_id"]))
        assert len(stored.moves) == report["moves"] and stored.scores == report["scores"]
        players = report.get("players", 2)  # the TypeScript client plays two-player Tablanette
        assert stored.header.game == game and stored.header.policies == ("human",) + ("greedy",) * (players - 1)
        return report

    return run


@pytest.fixture
def play_with_client(server: int, run_client):
    """Runs a Node.js client script (``node SCRIPT 127.0.0.1:PORT SEED [GAME]``) that plays seat 0 of a game
    (Tablanette by default; the game's default player count) against greedy bots: see ``run_client``."""

    def play(script: Path, seed: int, game: str = "tablanette") -> dict:
        command = ["node", str(script), f"127.0.0.1:{server}", str(seed)] + ([] if game == "tablanette" else [game])
        return run_client(command, game, cwd=NODE, env={**os.environ, "NODE_NO_WARNINGS": "1"})

    return play
