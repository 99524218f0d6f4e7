"""The TypeScript client: its code generated from protos/ by `buf generate` (buf.gen.yaml, protoc-gen-es), compiled by
`tsc` in strict mode, then run against a real `cardtable serve`: it plays a Tablanette match against a bot and streams
the replay, which must agree with what the server stored."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from client_fixtures import *  # noqa: F403 (the fixtures)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TS = HERE / "ts"
BUILD = HERE / "build" / "ts"


def _run(args: list[str], cwd: Path) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(args)}\n{done.stdout}\n{done.stderr}"


def test_the_generated_typescript_client_compiles_and_plays_a_match(node_modules, play_with_client):
    shutil.rmtree(TS / "gen", ignore_errors=True)
    shutil.rmtree(BUILD, ignore_errors=True)
    _run(["npm", "exec", "--prefix", str(HERE), "--", "buf", "generate", "--output", str(TS)], ROOT)  # as the README
    assert (TS / "gen" / "ts" / "cardtable" / "v1" / "game_service_pb.ts").exists()
    _run([str(node_modules / ".bin" / "tsc"), "-p", str(TS)], ROOT)
    play_with_client(BUILD / "play_tablanette.js", 5)
