"""Messages name things in words, never as Python lists (issue 10): what a person reads from the command line or an
API error lists games, options, policies and moves separated by commas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from engine.bots import make_policy
from replay import ReplayError
from replay.export import export_json, import_json
from services.app.errors import InvalidArgument
from services.app.matches import PERSON, LiveMatch, Seat

FIXTURE = Path(__file__).parent / "fixtures" / "replays" / "tablanette-2p-deal.ctr"


def _bad_replay_json() -> str:
    record = json.loads(export_json(FIXTURE.read_bytes()))
    record["moves"][0][-1] = "ZZ"  # a move no state has
    return json.dumps(record)


def _long_action() -> None:
    match, tokens, _ = LiveMatch.create("tablanette", [Seat(PERSON), Seat(PERSON)], {}, 7, 0, "m")
    seat = match.state.current_player
    match.play_person(seat, tokens[seat], "X" * 10_000, 0)


@pytest.mark.parametrize(("call", "error", "names"), [
    (lambda: engine.new_match("snap", seed=1), ValueError, "games are belote"),
    (lambda: engine.new_match("tablanette", seed=1, options={"nope": 1}), ValueError, "options are 'first_"),
    (lambda: make_policy("clever", "tablanette", 0, 1), ValueError, "policies are greedy, ismcts, pimc, random"),
    (lambda: import_json(_bad_replay_json()), ReplayError, "legal: "),
    (_long_action, InvalidArgument, "legal actions: "),
])
def test_messages_list_names_in_words(call, error: type[Exception], names: str) -> None:
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    assert names in message and "[" not in message and "]" not in message, message


def test_an_illegal_move_names_its_deal_counted_from_1() -> None:
    """Issue 28: the engine said "deal 0" in the first deal, where the page, the CLI and the exports say deal 1."""
    state = engine.new_match("tablanette", seed=3)
    with pytest.raises(engine.IllegalAction, match=r"\(tablanette deal 1, play, seat \d to act\)"):
        state.apply("ZZ")
    while state.deal_index == 0:
        state.apply(state.legal_actions()[0])
    with pytest.raises(engine.IllegalAction, match=r"\(tablanette deal 2, play, seat \d to act\)"):
        state.apply("ZZ")
