"""The embedded Valkey: cardtable starts it itself, its data on disk (AOF), and finds it again after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

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
