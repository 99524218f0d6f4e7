"""The tiers (tests/tiers.py): every test has exactly one, and a unit test that reaches for I/O fails."""

from __future__ import annotations

import _posixsubprocess
import socket
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
from tiers import BY_PATH, ROOT, TIERS, IOGuard, UnitIOError

pytest_plugins = ["pytester"]

INI = "[pytest]\nmarkers =\n" + "".join(f"    {tier}: the {tier} tier\n" for tier in TIERS)


def refused(guard: IOGuard, action) -> str:
    with guard.active(), pytest.raises(UnitIOError) as caught:
        action()
    return str(caught.value)


@pytest.mark.parametrize(("action", "words"), [
    (lambda: socket.create_connection(("127.0.0.1", 6379), timeout=1), "connect a socket to ('127.0.0.1', 6379)"),
    (lambda: socket.socket().bind(("127.0.0.1", 0)), "bind a socket"),
    (lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), "start a process"),
    (lambda: grpc.insecure_channel("127.0.0.1:50051"), "open a gRPC insecure_channel"),
    (lambda: grpc.server(None), "open a gRPC server"),
], ids=["connect", "bind", "subprocess", "grpc channel", "grpc server"])
def test_the_guard_refuses_io_and_remembers_it(action, words: str) -> None:
    guard = IOGuard()
    assert words in refused(guard, action) and "mark it integration" in refused(guard, action)
    assert len(guard.refused) == 2 and words in guard.refused[0]


def test_the_guard_refuses_io_in_a_thread_started_under_it() -> None:
    guard = IOGuard()
    errors: list[BaseException] = []

    def connect() -> None:
        try:
            socket.create_connection(("127.0.0.1", 6379), timeout=1)
        except BaseException as error:  # noqa: BLE001  (kept for the check)
            errors.append(error)

    with guard.active():
        thread = threading.Thread(target=connect)
        thread.start()
        thread.join()
    assert [type(error) for error in errors] == [UnitIOError] and guard.refused


@pytest.mark.integration  # its thread binds a socket (under the unit tier's own guard, it would be refused)
def test_the_guard_leaves_threads_that_ran_before_it_alone() -> None:
    """A thread an integration test left running (a server for the session) goes on with its I/O."""
    guard = IOGuard()
    go, done = threading.Event(), threading.Event()
    outcome: list[str] = []

    def bind_when_told() -> None:
        go.wait(30)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", 0))
                outcome.append("bound")
            except UnitIOError:
                outcome.append("refused")
        done.set()

    thread = threading.Thread(target=bind_when_told, daemon=True)
    thread.start()
    with guard.active():
        go.set()
        assert done.wait(30)
    assert outcome == ["bound"] and guard.refused == []


def test_the_guard_is_gone_after_it() -> None:
    before = (socket.socket.connect, socket.socket.bind, _posixsubprocess.fork_exec, grpc.insecure_channel)
    with IOGuard().active():
        assert socket.socket.connect is not before[0]
    assert (socket.socket.connect, socket.socket.bind, _posixsubprocess.fork_exec, grpc.insecure_channel) == before


def test_every_path_given_a_tier_exists() -> None:
    """A folder or module moved or removed leaves no entry behind (a stale one would tier nothing, silently)."""
    assert [path for path in BY_PATH if not (ROOT / path).exists()] == []


@pytest.fixture
def inner(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(INI)
    return pytester


def test_a_test_without_a_tier_stops_the_collection(inner: pytest.Pytester) -> None:
    inner.makepyfile(test_untiered="def test_nothing():\n    pass\n")
    result = inner.runpytest_inprocess("-p", "tiers")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "test_untiered.py::test_nothing: no tier" in result.stderr.str()


def test_a_test_with_two_tiers_stops_the_collection(inner: pytest.Pytester) -> None:
    inner.makepyfile(test_two="import pytest\n\npytestmark = pytest.mark.unit\n\n\n"
                              "@pytest.mark.e2e\ndef test_both():\n    pass\n")
    result = inner.runpytest_inprocess("-p", "tiers")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "test_two.py::test_both: two tiers: e2e, unit" in result.stderr.str()


SNEAKY = """import socket
import subprocess

import pytest

pytestmark = pytest.mark.unit


def test_falls_back():
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1)
    except Exception:
        pass


def test_runs_a_command():
    try:
        subprocess.run(["true"])
    except Exception:
        pass


def test_stays_home():
    assert sum(range(4)) == 6
"""


def test_a_unit_test_that_swallows_the_refusal_still_fails(inner: pytest.Pytester) -> None:
    inner.makepyfile(test_sneaky=SNEAKY)
    result = inner.runpytest_inprocess("-p", "tiers", "-m", "unit")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*_ test_falls_back _*", "*tried to connect a socket to ('127.0.0.1', 6379)*",
                                 "*_ test_runs_a_command _*", "*tried to start a process*true*"])


@pytest.mark.integration
def test_tests_of_the_other_tiers_are_not_guarded(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent))  # tiers.py, for the pytest it starts
    inner.makepyfile(test_io="""
import socket
import subprocess

import pytest


@pytest.mark.integration
def test_talks():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        socket.create_connection(server.getsockname(), timeout=5).close()
    assert subprocess.run(["true"]).returncode == 0
""")
    result = inner.runpytest_subprocess("-p", "tiers")
    result.assert_outcomes(passed=1)


@pytest.mark.integration  # the inner run starts pytest-xdist's worker processes
def test_the_guard_works_in_xdist_workers(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test` runs the unit tier in pytest-xdist workers: the guard still refuses a unit test's I/O there, and
    takes no offence at the channel a worker reports on."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent))  # tiers.py, for the pytest it starts
    inner.makepyfile(test_in_workers=SNEAKY + """

@pytest.mark.parametrize("n", range(6))
def test_adds_up(n):
    assert sum(range(n + 1)) == n * (n + 1) // 2
""")
    result = inner.runpytest_subprocess("-p", "tiers", "-p", "xdist", "-n", "2", "-m", "unit")
    result.assert_outcomes(passed=7, failed=2)
    result.stdout.fnmatch_lines(["*created: 2/2 workers*"])
    result.stdout.fnmatch_lines(["*_ test_falls_back _*", "*tried to connect a socket to ('127.0.0.1', 6379)*"])
    result.stdout.fnmatch_lines(["*_ test_runs_a_command _*", "*tried to start a process*true*"])
