"""Writes the version-1 replay fixtures (tests/fixtures/replays/*.ctr, each with a JSON sidecar of what it decodes to).

Run once per format version: ``.venv/bin/python tests/replays/make_fixtures.py``. The files are committed and never
regenerated: every later cardtable must still decode them to the same moves and scores. The committed ones are of
version 1 (whole fishing turns); the script writes the current version and leaves existing files alone.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import engine
import replay
from replay.export import export_dict

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "replays"


def _given_deck_match() -> bytes:
    base = engine.new_match("tablic", seed=8)
    deck = [engine.cards.CODES[c] for c in reversed(base.deal_deck)]
    state = engine.new_match("tablic", seed=8, deck=deck, first_dealer=1, options={"max_deals": 2})
    recorder = replay.Recorder(state, "match", ["human", "greedy"])
    while not recorder.done:
        recorder.play(state.legal_action_ids()[-1])
    return recorder.finish()


def _as_version_1(data: bytes) -> bytes:
    """A replay of a game without fishing turns as version 1 wrote it: the two versions differ only in how a fishing
    game's moves are stored, so only the version number (one byte after the magic) and the CRC change."""
    body = bytearray(data[:-4])
    assert body[2] == replay.FORMAT_VERSION == 2
    body[2] = 1
    return bytes(body) + zlib.crc32(body).to_bytes(4, "little")


def fixtures() -> dict[str, bytes]:
    return {
        "tablanette-2p-deal": replay.record_deal("tablanette", seed=2026, policies=["greedy", "random"]),
        "tablanette-3p-match": replay.record_match("tablanette", seed=7, players=3,
                                                   options={"hand_size": 4, "target": 61}),
        "tablic-4p-deal": replay.record_deal("tablic", seed=1 << 63, players=4, first_dealer=2),
        "german_whist-deal": replay.record_deal("german_whist", seed=123456789),
        "belote_contree-deal1": replay.record_match_deals("belote_contree", seed=3)[1],
        "belote-3p-match": replay.record_match("belote", seed=11, players=3, options={"max_deals": 2}),
        "tablic-given-deck-match": _given_deck_match(),
        "trappola-deal": _as_version_1(replay.record_deal("trappola", seed=12, policies=["greedy", "random"])),
        "trappola-public-ranks-match": _as_version_1(replay.record_match(
            "trappola", seed=31, options={"target_score": 120, "public_declaration_ranks": True})),
        "tres-deal": _as_version_1(replay.record_deal("tres", seed=17, policies=["greedy", "random"])),
        "tres-options-match": _as_version_1(replay.record_match(
            "tres", seed=29, policies=["greedy", "greedy"], options={
                "trump_suit": "S", "removed_card": "5C", "additive_trick_point": True, "target_score": 120})),
        "two_ten_jack-3p-match": _as_version_1(replay.record_match(
            "two_ten_jack", seed=12, players=3, options={"num_games": 2}, first_dealer=0,
            policies=["greedy", "random", "greedy"])),
        "boonaken-deal": _as_version_1(replay.record_deal("boonaken", seed=41, policies=["greedy", "random"] * 2)),
        "boonaken-5p-elimination-match": _as_version_1(replay.record_match(
            "boonaken", seed=42, players=5, options={"elimination": True, "minus_to_lose": 3}, first_dealer=1,
            policies=["greedy"] * 5)),
        "thunee-deal": _as_version_1(replay.record_deal("thunee", seed=41, policies=["greedy", "random"] * 2)),
        "thunee-6p-match": _as_version_1(replay.record_match(
            "thunee", seed=43, players=6, options={"target_balls": 6, "call_jump": True}, first_dealer=5,
            policies=["greedy", "random", "greedy", "greedy", "random", "random"])),
        "botifarra-deal": _as_version_1(replay.record_deal("botifarra", seed=13,
                                                           policies=["greedy", "random", "greedy", "random"])),
        "botifarra-options-match": _as_version_1(replay.record_match(
            "botifarra", seed=14, options={"target_score": 50, "max_double": "contro", "botifarra_multiplier": 3})),
        "botifarra-rotation-deal4": _as_version_1(replay.record_match_deals(
            "botifarra", seed=5, policies=["greedy", "random", "random", "greedy"],
            options={"three_game_rotation": True, "target_score": 30})[4]),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in fixtures().items():
        if (OUT / f"{name}.ctr").exists():
            print(f"{name}: kept as committed")
            continue
        (OUT / f"{name}.ctr").write_bytes(data)
        (OUT / f"{name}.json").write_text(json.dumps(export_dict(data), indent=1) + "\n")
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
