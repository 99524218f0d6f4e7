"""Corrupt, truncated and forged replays: always a ReplayError, never another exception."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import replay
from replay import ReplayError
from replay.export import export_dict, import_dict

SAMPLES = {
    (game, scope): (replay.record_match if scope == "match" else replay.record_deal)(
        game, seed=21, options={"max_deals": 2})
    for game in engine.list_games() for scope in ("deal", "match")
}
SAMPLES[("tablanette", "later")] = replay.record_match_deals("tablanette", seed=4, options={"max_deals": 2})[1]
SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decode_or_replay_error(data: bytes) -> None:
    try:
        replay.decode(data)
    except ReplayError as exc:
        assert str(exc)


@st.composite
def mutations(draw: st.DrawFn, fix_crc: bool) -> bytes:
    data = bytearray(draw(st.sampled_from(sorted(SAMPLES.items())))[1])
    body = data[:-4] if fix_crc else data
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "set"]))
        at = draw(st.integers(min_value=0, max_value=max(len(body) - 1, 0)))
        if kind == "flip" and body:
            body[at] ^= 1 << draw(st.integers(min_value=0, max_value=7))
        elif kind == "truncate":
            del body[at:]
        elif kind == "insert":
            body[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "delete" and body:
            del body[at]
        elif kind == "set" and body:
            body[at] = draw(st.integers(min_value=0, max_value=255))
    if fix_crc:
        body += zlib.crc32(body).to_bytes(4, "little")
    return bytes(body)


@SETTINGS
@given(mutations(fix_crc=False))
def test_mutated_bytes_give_replay_error(data: bytes) -> None:
    _decode_or_replay_error(data)


@SETTINGS
@given(mutations(fix_crc=True))
def test_forged_bytes_with_a_valid_crc_give_replay_error(data: bytes) -> None:
    _decode_or_replay_error(data)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=80))
def test_random_bytes_give_replay_error(data: bytes) -> None:
    with pytest.raises(ReplayError):
        replay.decode(b"CT\x01" + data)


def test_every_truncation_is_caught() -> None:
    for data in SAMPLES.values():
        for cut in range(len(data)):
            with pytest.raises(ReplayError):
                replay.decode(data[:cut])


JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(1 << 70), max_value=1 << 70),
                        st.text(max_size=6), st.lists(st.integers(min_value=-3, max_value=60), max_size=3))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_json_gives_replay_error(which: tuple[str, str], data: st.DataObject) -> None:
    record = json.loads(json.dumps(export_dict(SAMPLES[which])))
    header = record["header"]
    field = data.draw(st.sampled_from(sorted(header) + ["moves"]))
    if field == "moves" and record["moves"]:
        at = data.draw(st.integers(min_value=0, max_value=len(record["moves"]) - 1))
        record["moves"][at] = data.draw(st.one_of(JSON_VALUES, st.tuples(JSON_VALUES, JSON_VALUES).map(list)))
    else:
        header[field] = data.draw(JSON_VALUES)
    try:
        import_dict(record)
    except ReplayError as exc:
        assert str(exc)
