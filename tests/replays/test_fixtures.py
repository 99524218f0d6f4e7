"""Replays of format version 1, committed as files: every later cardtable must decode them to the same play.

Version 1 stored a fishing game's whole turns; they decode to the same whole turns, and importing their JSON writes
the current version, whose moves are the decisions of those turns (engine/fishing.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import replay
from engine.fishing import join_turns
from replay.export import export_dict, import_dict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replays"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.ctr"))


def test_the_fixtures_are_there() -> None:
    assert len(NAMES) >= 6
    assert all((FIXTURES / f"{name}.json").exists() for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_version_1_fixture_decodes_to_the_same_play(name: str) -> None:
    data = (FIXTURES / f"{name}.ctr").read_bytes()
    expected = json.loads((FIXTURES / f"{name}.json").read_text())
    decoded = replay.decode(data)
    assert decoded.version == 1
    assert [[seat, action] for seat, action in decoded.moves] == expected["moves"]
    assert decoded.scores == expected["scores"]
    assert decoded.deal_results == expected["deal_results"]
    assert decoded.header.to_dict() == expected["header"]
    assert export_dict(data) == expected
    migrated = replay.decode(import_dict(expected))
    assert migrated.version == replay.FORMAT_VERSION == 2
    assert [[seat, action] for seat, action in join_turns(migrated.moves)] == expected["moves"]
    assert (migrated.scores, migrated.deal_results) == (expected["scores"], expected["deal_results"])
    assert replay.encode_replay(migrated.header, decoded.ordinals) == migrated.data
