"""Every registered game and player count: record, decode (replaying the engine), re-encode, export and import."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import replay
from engine.bots import greedy_games, make_policies
from replay.export import export_json, import_json, text_record
from replay.record import Recorder, header_at_start

GAME_SEATS = [(g, n) for g in engine.list_games() for n in engine.game_info(g).player_counts]
SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _policies(game: str) -> st.SearchStrategy[str]:
    return st.sampled_from(["random", "greedy"] if game in greedy_games() else ["random"])


def _bits(data: bytes) -> float:
    """The information bound of a replay: the sum of log2 of the legal-action counts at each move."""
    replayer = replay.Replayer(data)
    return sum(math.log2(step.legal_count) for step in replayer)


@pytest.mark.parametrize("game, players", GAME_SEATS)
@SETTINGS
@given(seed=st.integers(min_value=0, max_value=(1 << 64) - 1), data=st.data())
def test_deal_round_trip(game: str, players: int, seed: int, data: st.DataObject) -> None:
    policy = data.draw(_policies(game))
    record = replay.record_deal(game, seed=seed, players=players, policies=[policy] * players)
    decoded = replay.decode(record)
    reference = engine.new_match(game, seed=seed, players=players)
    for seat, action in decoded.moves:
        assert reference.current_player == seat
        reference.apply(action)
    assert decoded.scores == reference.scores
    assert replay.encode_replay(decoded.header, decoded.ordinals) == record
    assert import_json(export_json(record)) == record
    assert len(record) <= math.ceil(_bits(record) / 8) + 24
    assert text_record(record).count("\n") > len(decoded.header.policies)


@pytest.mark.parametrize("game, players", GAME_SEATS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=1 << 40))
def test_match_and_its_deals(game: str, players: int, seed: int) -> None:
    options = {"max_deals": 3}
    whole = replay.record_match(game, seed=seed, players=players, options=options)
    deals = replay.record_match_deals(game, seed=seed, players=players, options=options)
    match = replay.decode(whole)
    assert match.final.is_terminal
    moves = []
    for data in deals:
        decoded = replay.decode(data)
        moves += decoded.moves
        assert import_json(export_json(data)) == data
    assert moves == match.moves
    assert replay.decode(deals[-1]).scores == match.scores
    assert [r["deal"] for r in match.deal_results] == list(range(len(deals)))


@pytest.mark.parametrize("game, players", GAME_SEATS)
def test_recorder_on_a_live_state_equals_record_deal(game: str, players: int) -> None:
    state = engine.new_match(game, seed=77, players=players)
    bots = make_policies(["random"] * players, game, seed=77)
    recorder = replay.Recorder(state, "deal", ["random"] * players)
    while not recorder.done:
        seat = state.current_player
        recorder.play(bots[seat].choose_id(state.legal_action_ids(), lambda seat=seat: state.observation(seat)))
    assert recorder.finish() == replay.record_deal(game, seed=77, players=players)


def test_given_deck_match_round_trip() -> None:
    base = engine.new_match("tablanette", seed=5)
    deck = [engine.cards.CODES[c] for c in reversed(base.deal_deck)]
    state = engine.new_match("tablanette", seed=5, deck=deck, options={"max_deals": 2})
    recorder = replay.Recorder(state, "match", ["human", "human"])
    while not recorder.done:
        recorder.play(state.legal_action_ids()[-1])
    data = recorder.finish()
    decoded = replay.decode(data)
    assert list(decoded.header.deck) == deck and decoded.header.first_dealer is None
    assert decoded.scores == state.scores


@pytest.mark.parametrize("game", engine.list_games())
@pytest.mark.parametrize("scope", ["deal", "match"])
def test_bots_play_and_record_through_one_loop(game: str, scope: str) -> None:
    """A seeded recorder (the simulations' shortcut) writes the bytes record_deal / record_match write, and a deal's
    recording stops at the deal's end: the bots' loop is engine.bots.play_out, with deal_only."""
    options = {"max_deals": 2}
    state = engine.new_match(game, seed=4, options=options)
    policies = ["random"] * state.players
    recorder = Recorder(state, scope, policies, seeded=True)
    moves = recorder.play_out(make_policies(policies, game, 4))
    record = replay.record_deal if scope == "deal" else replay.record_match
    assert recorder.finish() == record(game, seed=4, policies=policies, options=options)
    assert recorder.header == header_at_start(engine.new_match(game, seed=4, options=options), scope, policies)
    assert len(state.deal_results) == 1 if scope == "deal" else state.is_terminal
    assert moves == len(replay.decode(recorder.finish()).moves)
