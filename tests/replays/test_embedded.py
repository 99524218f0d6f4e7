"""The embedded Valkey: cardtable starts it itself, its data on disk (AOF), and finds it again after a restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from listening import descendants
from waiting import wait_until

import replay
from replay.connect import open_store
from replay.embedded import EmbeddedValkey, default_data_dir
from replay.store import ReplayStore

REPLAYS = [replay.record_deal("german_whist", seed=seed) for seed in range(150)]


def test_write_stop_restart_read_back(tmp_path: Path) -> None:
    with EmbeddedValkey(tmp_path) as valkey:
        assert valkey.owner and valkey.url.startswith("redis://127.0.0.1:")
        ReplayStore(redis.Redis.from_url(valkey.url)).put_many("kept", enumerate(REPLAYS))
    assert list((tmp_path / "valkey" / "appendonlydir").iterdir())
    with EmbeddedValkey(tmp_path) as valkey:
        store = ReplayStore(redis.Redis.from_url(valkey.url))
        assert store.count("kept") == len(REPLAYS)
        assert store.get("kept/149") == REPLAYS[149]
        assert store.redis.config_get("appendonly")["appendonly"] == "yes"


def test_a_second_user_of_the_folder_shares_the_running_server(tmp_path: Path) -> None:
    with EmbeddedValkey(tmp_path) as first:
        second = EmbeddedValkey(tmp_path)
        assert second.start() == first.url and not second.owner
        second.stop()
        redis.Redis.from_url(first.url).ping()


def test_open_store_without_redis_url_uses_the_embedded_server(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    with open_store(data_dir=tmp_path) as store:
        replay_id = store.save(REPLAYS[0])
    with open_store(data_dir=tmp_path) as store:
        assert store.get(replay_id) == REPLAYS[0]


def test_default_data_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CARDTABLE_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / "cardtable"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path.home() / ".local" / "share" / "cardtable"
    monkeypatch.setenv("CARDTABLE_DATA_DIR", str(tmp_path / "x"))
    assert default_data_dir() == tmp_path / "x"


# A cardtable process that starts the embedded Valkey on a folder, says its URL, and keeps running until killed.
OWNER = ("import sys, time; from replay.embedded import EmbeddedValkey; "
         "print(EmbeddedValkey(sys.argv[1]).start(), flush=True); time.sleep(600)")


def _servers_on(folder: Path) -> list[int]:
    """The pids of the valkey-server processes working in ``folder``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == folder.resolve() \
                    and b"valkey-server" in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def _watchdogs_of(pid: int) -> list[int]:
    """The embedded Valkey's watchdogs that process ``pid`` started (replay.valkey_watchdog)."""
    return [child for child in descendants(pid) if b"valkey_watchdog" in Path(f"/proc/{child}/cmdline").read_bytes()]


@pytest.fixture
def orphan(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """The URL and pid of an embedded Valkey whose owning process was killed with SIGKILL, its watchdog with it (the
    server keeps running: a server left by a process killed with all its children, or by an older cardtable)."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    url = owner.stdout.readline().strip()
    for watchdog in _watchdogs_of(owner.pid):
        os.kill(watchdog, signal.SIGKILL)
    owner.kill()
    owner.wait()
    owner.stdout.close()
    [pid] = _servers_on(tmp_path / "valkey")
    ReplayStore(redis.Redis.from_url(url)).put_many("before", enumerate(REPLAYS[:5]))
    yield url, pid
    for leftover in _servers_on(tmp_path / "valkey"):  # the servers these tests started, whatever happened
        os.kill(leftover, signal.SIGCONT)
        os.kill(leftover, signal.SIGKILL)


def test_the_server_of_a_killed_owner_is_taken_over_not_doubled(tmp_path: Path, orphan: tuple[str, int]) -> None:
    url, pid = orphan
    with EmbeddedValkey(tmp_path) as valkey:
        assert valkey.url == url and valkey.owner
        assert _servers_on(tmp_path / "valkey") == [pid]
        assert ReplayStore(redis.Redis.from_url(valkey.url)).count("before") == 5
    assert _servers_on(tmp_path / "valkey") == []  # stopped by its new owner, gracefully: its data is all there
    with EmbeddedValkey(tmp_path) as valkey:
        assert ReplayStore(redis.Redis.from_url(valkey.url)).get("before/4") == REPLAYS[4]


def _gone(pids: list[int], message: str, timeout: float = 30) -> None:
    """Waits until the processes ``pids`` all ended (a zombie has); AssertionError with ``message`` if they have not
    within ``timeout`` seconds."""
    wait_until(lambda: not any(_alive(pid) for pid in pids), timeout, message)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _killed_owner(script: str, folder: Path) -> int:
    """The pid of the server that ``script`` (an owner saying its URL) started on ``folder``, five replays written to
    it before the owner was killed with SIGKILL."""
    owner = subprocess.Popen([sys.executable, "-c", script, str(folder)], stdout=subprocess.PIPE, text=True)
    url = owner.stdout.readline().strip()
    [pid] = _servers_on(folder / "valkey")
    ReplayStore(redis.Redis.from_url(url)).put_many("before", enumerate(REPLAYS[:5]))
    owner.kill()
    owner.wait()
    owner.stdout.close()
    return pid


def _stopped_by_its_watchdog(pid: int, folder: Path, message: str) -> None:
    """The server ``pid`` on ``folder`` stops; killed if it does not."""
    try:
        _gone([pid], message)
    finally:
        for leftover in _servers_on(folder / "valkey"):
            os.kill(leftover, signal.SIGKILL)


def _data_kept(folder: Path) -> None:
    """The replays written before the owner's death are there (the server was stopped gracefully)."""
    with EmbeddedValkey(folder) as valkey:
        assert ReplayStore(redis.Redis.from_url(valkey.url)).get("before/4") == REPLAYS[4]


def test_the_watchdog_of_a_killed_owner_stops_the_server_nobody_uses(tmp_path: Path) -> None:
    pid = _killed_owner(OWNER, tmp_path)
    _stopped_by_its_watchdog(pid, tmp_path, "the server outlived its killed owner")
    url_file = tmp_path / "valkey" / "url"
    wait_until(lambda: not url_file.exists(), 30, "the watchdog left the stopped server's address behind")
    _data_kept(tmp_path)


# An owner whose files outlive it a moment: a child forked without exec shares its lock on ``users`` (as a thread
# of a dying server still holds them after the thread that started the watchdog is gone), then leaves within a second.
LINGERING_OWNER = ("import os, sys, time; from replay.embedded import EmbeddedValkey; "
                   "valkey = EmbeddedValkey(sys.argv[1]); url = valkey.start()\n"
                   "if os.fork() == 0:\n"
                   "    valkey._watchdog.stdin.close(); os.close(1); time.sleep(1.0); os._exit(0)\n"
                   "print(url, flush=True); time.sleep(600)")


def test_the_watchdog_waits_for_what_still_holds_a_killed_owners_lock(tmp_path: Path) -> None:
    pid = _killed_owner(LINGERING_OWNER, tmp_path)
    _stopped_by_its_watchdog(pid, tmp_path, "the server outlived its killed owner whose lock went a moment later")
    _data_kept(tmp_path)


def test_the_watchdog_of_a_killed_owner_leaves_the_server_to_another_user(tmp_path: Path) -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    url = owner.stdout.readline().strip()
    user = subprocess.Popen([sys.executable, "-c", USER, str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert user.stdout.readline().strip() == url
        [pid] = _servers_on(tmp_path / "valkey")
        watchdogs = _watchdogs_of(owner.pid)
        owner.kill()
        owner.wait()
        owner.stdout.close()
        _gone(watchdogs, "the owner's watchdog did not leave")  # it has looked, and left
        ReplayStore(redis.Redis.from_url(url)).put_many("after", enumerate(REPLAYS[:3]))
        user.communicate("\n", timeout=60)  # the last user leaves: it takes the server over and stops it
        assert user.returncode == 0
        _gone([pid], "the server did not stop")
    finally:
        if user.poll() is None:
            user.kill()
    with EmbeddedValkey(tmp_path) as valkey:
        assert ReplayStore(redis.Redis.from_url(valkey.url)).get("after/2") == REPLAYS[2]


def test_a_server_left_running_that_does_not_answer_is_not_doubled(tmp_path: Path, orphan: tuple[str, int]) -> None:
    url, pid = orphan
    os.kill(pid, signal.SIGSTOP)
    with pytest.raises(ConnectionError, match=rf"valkey-server \(pid {pid}\) still runs on .* but does not answer "
                                              rf"at {url}; stop it \(kill {pid}\)"):
        EmbeddedValkey(tmp_path).start()
    assert _servers_on(tmp_path / "valkey") == [pid]
    os.kill(pid, signal.SIGCONT)
    with EmbeddedValkey(tmp_path) as valkey:
        assert valkey.url == url


# A second cardtable process on the same folder: it says the URL it was given, then runs until a line on its stdin.
USER = ("import sys; from replay.embedded import EmbeddedValkey; "
        "print(EmbeddedValkey(sys.argv[1]).start(), flush=True); sys.stdin.readline()")


def test_the_server_outlives_its_owner_while_another_process_uses_it(tmp_path: Path) -> None:
    owner = EmbeddedValkey(tmp_path)
    url = owner.start()
    user = subprocess.Popen([sys.executable, "-c", USER, str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert user.stdout.readline().strip() == url
        owner.stop()  # the first command ends while the second still works
        [pid] = _servers_on(tmp_path / "valkey")
        ReplayStore(redis.Redis.from_url(url)).put_many("after", enumerate(REPLAYS[:3]))
        user.communicate("\n", timeout=60)  # the last user leaves: it stops the server, gracefully
        assert user.returncode == 0 and not _running_pid(pid)
    finally:
        if user.poll() is None:
            user.kill()
    with EmbeddedValkey(tmp_path) as valkey:
        assert ReplayStore(redis.Redis.from_url(valkey.url)).get("after/2") == REPLAYS[2]


def test_a_user_leaving_first_leaves_the_server_to_its_owner(tmp_path: Path) -> None:
    with EmbeddedValkey(tmp_path) as owner:
        user = subprocess.Popen([sys.executable, "-c", USER, str(tmp_path)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        assert user.stdout.readline().strip() == owner.url
        user.communicate("\n", timeout=60)
        redis.Redis.from_url(owner.url).ping()
        [pid] = _servers_on(tmp_path / "valkey")
    assert not _running_pid(pid)


def _running_pid(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"valkey-server")
    except OSError:
        return False
