"""``cardtable play --save`` and ``watch --save``: a person's match goes into the replay store, and the id printed is
one that ``cardtable replay stream`` and ``show`` take (against a real Redis)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import engine
from engine.bots import make_policies
from engine.fishing import join_turns
from replay import decode
from replay.store import ReplayStore
from services.cli.main import cli

SHORT = ["--option", "max_deals=1"]


@pytest.fixture
def invoke(store: ReplayStore, replay_redis_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))

    def run(*args: str, input: str | None = None):
        result = CliRunner().invoke(cli, list(args), input=input)
        assert result.exit_code == 0, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        return result.output
    return run


def _saved_id(output: str) -> str:
    found = re.search(r"Saved as replay (\S+): cardtable replay stream (\S+)\n", output)
    assert found and found[1] == found[2], output
    return found[1]


def test_a_played_match_is_saved_and_streams_back(invoke, store: ReplayStore) -> None:
    output = invoke("play", "tablanette", "--seed", "5", "--opponents", "greedy:epsilon=0.3", "--save", *SHORT,
                    input="1\n" * 60)
    replay_id = _saved_id(output)
    assert replay_id.startswith("played/")
    header = decode(store.get(replay_id)).header
    assert (header.game, header.seed, header.scope, header.policies) == (
        "tablanette", 5, "match", ("human", "greedy:epsilon=0.3"))
    played = re.findall(r"(?:You play|seat 1 plays) (\S+)", output)
    streamed = invoke("replay", "stream", replay_id)
    steps = [(int(line.split(" seat ")[1].split(":")[0]), line.rsplit(": ", 1)[1])
             for line in streamed.splitlines()[1:-1]]
    assert [turn for _, turn in join_turns(steps)] == played  # a capture's steps make the turn that was shown
    final = re.search(r"Final scores: you (\d+), seat 1 (\d+)\.", " ".join(output.split()))
    assert streamed.splitlines()[-1] == f"scores: {final[1]} {final[2]}"


def test_a_watched_match_is_saved(invoke, store: ReplayStore) -> None:
    output = invoke("watch", "belote_contree", "--seed", "9", "--policy", "random", "--save", *SHORT)
    replay_id = _saved_id(output)
    replayed = decode(store.get(replay_id))
    match = engine.new_match("belote_contree", seed=9, options={"max_deals": 1})
    bots = make_policies(["random"] * 4, "belote_contree", 9)
    while not match.is_terminal:
        match.apply(bots[match.current_player](match.observation(match.current_player)))
    assert replayed.header.policies == ("random",) * 4
    assert [a for _, a in match.history] == [action for _, action in replayed.moves]
    assert "[Scope \"match\"]" in invoke("replay", "show", replay_id)


def test_a_match_left_unfinished_is_not_saved(store: ReplayStore, replay_redis_url: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))
    result = CliRunner().invoke(cli, ["play", "tablanette", "--seed", "5", "--save"], input="q\n")
    assert result.exit_code == 0
    assert "Saved" not in result.output and store.collections() == []
