"""``replay.analysis`` and ``cardtable replay analyze``: each card's double-dummy value against brute force play-outs
of the solver, losses and turning points, too-large positions, --from-trick, the CLI's table and JSON."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import engine
import replay
from engine.cards import CODES
from engine.search.double_dummy import DoubleDummy, taken
from replay.analysis import BEFORE, EXACT, TOO_LARGE, analyze
from replay.store import ReplayStore
from services.cli.main import cli


@pytest.fixture
def run(store: ReplayStore, replay_redis_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REDIS_URL", replay_redis_url)
    monkeypatch.setattr("replay.connect.ReplayStore", lambda client, prefix: ReplayStore(client, store.prefix))

    def invoke(*args: str):
        return CliRunner().invoke(cli, ["replay", *args], catch_exceptions=False)
    return invoke


def _whist() -> bytes:
    return replay.record_deal("german_whist", 3, ["greedy", "random"])


def test_every_exact_card_is_valued_as_the_side_totals_with_best_play_from_there() -> None:
    data = _whist()
    report = analyze(data, from_trick=20)
    moves = replay.decode(data).moves
    state = engine.new_match("german_whist", seed=replay.decode(data).header.seed, players=2,
                             first_dealer=replay.decode(data).header.first_dealer)
    rows = {row["move"]: row for row in report["moves"]}
    for number, (_seat, action) in enumerate(moves, 1):
        row = rows[number]
        if row["status"] == EXACT:
            side = state.side_of[row["seat"]]
            assert row["best"] == taken(state, side) + DoubleDummy(state).solve()
            assert row["loss"] == row["best"] - row["value"] >= 0
            assert row["card"] in row["values"] and len(row["values"]) == len(state.legal_actions())
        else:
            assert row["status"] == BEFORE and row["trick"] < 20
        state.apply(action)
    assert report["turning_points"] == sorted((r["move"] for r in rows.values() if r.get("loss")),
                                              key=lambda n: (-rows[n]["loss"], n))


@pytest.mark.parametrize(("game", "players"), [("german_whist", 2), ("belote_contree", 4), ("belote", 4),
                                               ("belote", 3), ("thunee", 4)])
def test_one_sides_searches_value_the_other_sides_cards_as_their_own_would(game: str, players: int) -> None:
    """With two sides every position is searched for one of them (one transposition table for the deal): the other
    side's values, the deal's whole less the first side's, are those of its own search, card for card."""
    data = replay.record_deal(game, 7, ["greedy"] * players, players=players)
    report = analyze(data, max_nodes=20_000)
    header = replay.decode(data).header
    state = engine.new_match(game, seed=header.seed, players=players, first_dealer=header.first_dealer)
    rows = {row["move"]: row for row in report["moves"]}
    exact = 0
    for number, (_seat, action) in enumerate(replay.decode(data).moves, 1):
        row = rows.get(number)
        if row is not None and row["status"] == EXACT:
            own = taken(state, state.side_of[row["seat"]])
            expected = {CODES[card]: own + value for card, value in DoubleDummy(state).card_values().items()}
            assert row["values"] == expected, (number, row)
            exact += 1
        state.apply(action)
    assert exact >= 16 and max(state.side_of) + 1 == (3 if players == 3 else 2)


def test_a_budget_too_small_marks_the_early_positions_too_large() -> None:
    report = analyze(replay.record_deal("belote_contree", 5, ["greedy"] * 4, options={"num_deals": 1}),
                     max_nodes=2000)
    statuses = [row["status"] for row in report["moves"]]
    assert statuses[0] == TOO_LARGE and statuses[-1] == EXACT
    first_exact = statuses.index(EXACT)
    assert report["exact_from_move"] == report["moves"][first_exact]["move"]
    assert set(statuses[:first_exact]) == {TOO_LARGE}


def test_only_trick_games_are_analysed() -> None:
    with pytest.raises(ValueError, match="not a trick game"):
        analyze(replay.record_deal("tablanette", 1))
    with pytest.raises(ValueError, match="from_trick counts tricks from 1"):
        analyze(_whist(), from_trick=0)


def test_the_cli_prints_a_table_and_json(run, store: ReplayStore) -> None:
    store.put_many("an:1", enumerate([_whist()]))
    table = run("analyze", "an:1/0", "--from-trick", "22")
    assert table.exit_code == 0, table.output
    assert "turning points:" in table.output and "before from_trick" in table.output
    as_json = json.loads(run("analyze", "an:1/0", "--from-trick", "22", "--json").output)
    assert as_json["replay_id"] == "an:1/0" and as_json["moves"][-1]["status"] == EXACT
    refused = CliRunner().invoke(cli, ["replay", "analyze", "an:1/0", "--from-trick", "0"])
    assert refused.exit_code == 2
