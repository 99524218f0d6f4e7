"""Running real cardtable servers for the tests: in a thread of this process, or as a `cardtable serve` process.

    with ServerThread(ServerConfig(port=0, redis_url=url)) as server:
        stub = game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(server.target))
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from services.protogen import ensure_generated

ensure_generated()  # a fresh clone has no stubs until the build makes them

from services.server import CardtableServer, ServerConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
THREAD_NAME = "cardtable-grpc-server"  # a test elsewhere checks that none is left running


class ServerThread:
    """A CardtableServer on its own event loop in a background thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.server = CardtableServer(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=THREAD_NAME, daemon=True)
        self.port = 0

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(grace=1.0), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


class ServerProcess:
    """``cardtable serve --port 0`` as a child process; the port comes from its 'serving' log line."""

    def __init__(self, *args: str, env: dict[str, str | None] | None = None, cwd: Path = ROOT) -> None:
        """``env`` adds to the test's environment; a variable given None is left out; ``cwd`` is its working
        folder."""
        self.args = ["--port", "0", *args]
        self.cwd = cwd
        merged = {**os.environ, **(env or {})}
        self.env = {name: value for name, value in merged.items() if value is not None}
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.log_lines: list[dict] = []
        self._reader: threading.Thread | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        self.process = subprocess.Popen([CARDTABLE, "serve", *self.args], cwd=self.cwd, env=self.env,
                                        stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError(f"cardtable serve exited with {self.process.wait()}: {self.log_lines}")
            self._note(line)
            if self.log_lines and self.log_lines[-1].get("msg") == "serving":
                self.port = self.log_lines[-1]["port"]
                # The rest is read as it comes (from the same buffered stream: the lines it already holds are not
                # lost), so the server never blocks on a full pipe.
                self._reader = threading.Thread(target=self._read_rest, daemon=True)
                self._reader.start()
                return self
        raise TimeoutError(f"cardtable serve did not start in {timeout} s: {self.log_lines}")

    def _note(self, line: str) -> None:
        try:
            self.log_lines.append(json.loads(line))
        except json.JSONDecodeError:
            self.log_lines.append({"text": line.rstrip()})

    def _read_rest(self) -> None:
        for line in self.process.stderr:
            self._note(line)

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait; returns the exit code and keeps the remaining log lines."""
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self._finish_reading()
        return self.process.returncode

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()  # its last lines are not waited for: orphans it left may hold the pipe open

    def _finish_reading(self) -> None:
        if self._reader is not None:
            self._reader.join(timeout=30)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.terminate()
