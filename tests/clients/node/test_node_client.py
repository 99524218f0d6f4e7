"""The Node.js client (@grpc/grpc-js) plays a match against bots on a real `cardtable serve` (the fishing game
Tablanette, two-player trick games, and four-player partnership games with an auction), then streams its replay;
the match and the replay it reports must agree with what the server stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from client_fixtures import *  # noqa: F403 (the fixtures)

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("game", ["tablanette", "trappola", "tres", "two_ten_jack", "belote_contree", "thunee"])
def test_the_node_client_plays_a_match_and_streams_its_replay(node_modules, play_with_client, game):
    assert play_with_client(HERE / "play_tablanette.js", 11, game)["game"] == game
