"""The version-1 format: header fields, compactness, and a clear ReplayError for every bad input."""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest

import engine
import replay
from engine.bots import make_policies, play_out
from replay import Header, ReplayError
from replay.codec import FORMAT_VERSION, MAGIC, decode_frame, encode
from replay.export import import_json
from replay.record import Recorder, header_at_start


def _fix_crc(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "little")


def test_common_header_is_tiny() -> None:
    data = replay.record_deal("tablanette", seed=(1 << 63) - 1)
    frame = decode_frame(data)
    moves = len(data) - 4 - (2 + 1 + 1 + 1 + 1 + 9 + 1 + 1)  # magic version flags game players seed policy count
    assert frame.header == Header("tablanette", 2, (1 << 63) - 1, policies=("random", "random"))
    assert 0 < moves <= 20
    assert data[:2] == MAGIC and data[2] == FORMAT_VERSION


def test_header_fields_round_trip() -> None:
    options = {"hand_size": 8, "jack_mode": "value12", "target": 500, "max_deals": 2}
    data = replay.record_match("tablanette", seed=3, policies=["greedy", "random"], options=options, first_dealer=1)
    header = decode_frame(data).header
    assert header.options == options
    assert header.first_dealer == 1
    assert header.policies == ("greedy", "random")
    assert header.scope == "match"
    assert replay.decode(data).final.options["hand_size"] == 8


def test_default_options_are_not_written() -> None:
    plain = replay.record_deal("tablanette", seed=4)
    explicit = replay.record_deal("tablanette", seed=4, options={"hand_size": 6, "max_sum_cards": 3})
    assert plain == explicit


def test_unknown_game_and_policy_names_are_written_as_text() -> None:
    state = engine.new_match("tablic", seed=5)
    recorder = Recorder(state, policies=["my-bot v2", "random"])
    while not recorder.done:
        recorder.play(state.legal_action_ids()[-1])
    assert replay.decode(recorder.finish()).header.policies == ("my-bot v2", "random")


def test_policy_parameters_are_recorded_in_the_label_and_plain_names_keep_their_codes() -> None:
    labels = ["greedy:epsilon=0.3", "random"]
    data = replay.record_deal("tablanette", seed=6, policies=labels, bot_seed=9)
    decoded = replay.decode(data)
    assert decoded.header.policies == tuple(labels)
    state = engine.new_match("tablanette", seed=6, options={"max_deals": 1})
    play_out(state, make_policies(labels, "tablanette", 9))
    assert decoded.moves == state.history
    plain = replay.record_deal("tablanette", seed=6, policies=["greedy", "random"], bot_seed=9)
    assert b"greedy" not in plain and b"greedy:epsilon=0.3" in data


def test_given_deck_is_carried() -> None:
    deck = engine.new_match("german_whist", seed=1).deal_deck
    codes = [engine.cards.CODES[c] for c in reversed(deck)]
    state = engine.new_match("german_whist", seed=1, first_dealer=0, deck=codes)
    header = header_at_start(state)
    assert header.deck == tuple(codes) and header.first_dealer == 0


def test_later_deal_header() -> None:
    deals = replay.record_match_deals("tablanette", seed=2, options={"max_deals": 3})
    later = replay.decode(deals[2])
    assert later.header.deal_index == 2
    assert later.header.deck is not None and later.header.rng is not None
    assert [r["deal"] for r in later.deal_results] == [2]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d[:3], "truncated"),
    (lambda d: d[:-1], "corrupt or truncated replay: CRC"),
    (lambda d: b"XX" + d[2:], "not a cardtable replay"),
    (lambda d: d[:2] + bytes([3]) + d[3:], "version 3 is not supported"),
    (lambda d: d[:10] + bytes([d[10] ^ 0x10]) + d[11:], "CRC"),
])
def test_bad_bytes(mutate, message: str) -> None:
    data = replay.record_deal("tablanette", seed=11)
    with pytest.raises(ReplayError, match=message):
        replay.decode(mutate(data))


def test_unknown_game_is_named() -> None:
    header = Header("tablanette", 2, 1, policies=("", ""))
    body = encode(header, [], 0)[:-4]
    body = body[:4] + bytes([0, 5]) + b"chess" + body[5:]
    with pytest.raises(ReplayError, match="unknown game 'chess'"):
        replay.decode(_fix_crc(body))


def test_move_count_mismatch_is_named_with_the_move() -> None:
    data = replay.record_deal("german_whist", seed=3)
    frame = decode_frame(data)
    short = encode(frame.header, [], 3)
    with pytest.raises(ReplayError, match="holds 3 moves but the deal is not over") as err:
        replay.decode(short)
    assert err.value.move == 4


def test_trailing_data_is_rejected() -> None:
    data = replay.record_deal("german_whist", seed=3)
    with pytest.raises(ReplayError, match="left over"):
        replay.decode(_fix_crc(data[:-4] + b"\x01" * 30))


def test_encode_replay_checks_ordinals() -> None:
    decoded = replay.decode(replay.record_deal("tablic", seed=8))
    with pytest.raises(ReplayError, match="out of range") as err:
        replay.encode_replay(decoded.header, [*decoded.ordinals[:5], 99, *decoded.ordinals[6:]])
    assert err.value.move == 6
    with pytest.raises(ReplayError, match="not over"):
        replay.encode_replay(decoded.header, decoded.ordinals[:-1])


def test_header_checks_on_encode() -> None:
    header = Header("tablanette", 2, 1, policies=("random",))
    with pytest.raises(ValueError, match="each of the 2 seats"):
        encode(header, [], 0)
    with pytest.raises(ValueError, match="later deal"):
        encode(replace(header, policies=("", ""), deal_index=3), [], 0)


# Headers with a valid CRC that a fuzzer forged (every field at odd values): each is refused before anything is
# replayed, with what is wrong. The first hung (a sum-group limit of 2**31 costs time with its square), the second
# raised RuntimeError (Boonaken's carried - marks leaving nobody at the table to deal to).
FORGED = [
    ("4354020201020102010303808080801001fe548650", "option 'max_sum_cards' = 2147483648 is out of range"),
    ("4354026e0b040101020203020703060102000000002c895453a6f4a6ef0101dc220105451abe92fda76ce1e58f96d15726ccaceacb",
     r"\+ marks \(scores plus minus_marks\) must be"),
]


@pytest.mark.parametrize(("data", "says"), FORGED)
def test_forged_headers_are_refused_with_what_is_wrong(data: str, says: str) -> None:
    with pytest.raises(replay.ReplayError, match=says):
        replay.decode(bytes.fromhex(data))


@pytest.mark.parametrize("game", engine.list_games())
def test_the_header_refuses_a_move_count_no_match_of_its_game_reaches(game: str) -> None:
    """Read alone (as a listing reads it), a header's move count is at most the game's longest match: a forged count
    past 2**32 would not fit a listing's 32-bit field."""
    players = engine.game_info(game).default_players
    header = Header(game=game, players=players, seed=1, policies=("random",) * players)
    most = engine.game_length(game, players).moves
    assert decode_frame(encode(header, [], move_count=most)).move_count == most
    for forged in (most + 1, 2**32 + 7):
        with pytest.raises(ReplayError, match=f"it holds {forged:,} moves, more moves than a {game} match can take "
                                              f"\\({most:,}, engine.game_length\\)"):
            decode_frame(encode(header, [], move_count=forged))


@pytest.mark.parametrize(("text", "says"), [("[" * 5000 + "]" * 5000, "nested too deep"),
                                            ('{"moves": ' + "9" * 5000 + "}", "not a replay record")])
def test_json_no_replay_can_be_is_a_replay_error(text: str, says: str) -> None:
    with pytest.raises(replay.ReplayError, match=says):
        import_json(text)
