"""The declared maximum game length (``engine.game_length``, like OpenSpiel's ``max_game_length``): random matches stay
within it, the engine ends a match that reaches it (German Whist's ever-rising target, Belote's all-pass throw-ins),
and the replay decoder refuses a move count above it before replaying anything (issue 9)."""

from __future__ import annotations

import time

import pytest
from game_cases import FEW_EXAMPLES, GAME_CASES, seeds, start_variant, variant_options
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.rng import Rng
from replay import ReplayError, decode
from replay.codec import Header, encode


def play_counting(state: engine.State, choose, budget: int) -> tuple[int, int]:
    """Play until the match ends (at most ``budget`` moves); the dealings seen and the most moves in one of them."""
    deck, dealings, moves, longest = state.deal_deck, 1, 0, 0
    for _ in range(budget):
        if state.is_terminal:
            break
        state.apply_id(choose(state))
        moves += 1
        if state.deal_deck is not deck and not state.is_terminal:
            deck, dealings, longest, moves = state.deal_deck, dealings + 1, max(longest, moves), 0
    return dealings, max(longest, moves)


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
@FEW_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_random_matches_stay_within_the_declared_length(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 3}
    state = start_variant(game, players, seed, options)
    length = engine.game_length(game, players, state.options)
    rng = Rng(play_seed)
    dealings, longest = play_counting(state, lambda s: rng.choice(s.legal_action_ids()), length.moves)
    assert state.is_terminal
    assert dealings <= length.deals and longest <= length.moves_per_deal


def test_every_game_declares_its_length_in_its_info() -> None:
    for game in engine.list_games():
        info = engine.game_info(game)
        assert set(info.max_length) == set(info.player_counts)
        for players, length in info.max_length.items():
            assert length == engine.game_length(game, players)
            assert info.to_dict()["max_length"][str(players)] == {
                "deals": length.deals, "moves_per_deal": length.moves_per_deal, "moves": length.moves}


def test_max_deals_shortens_the_length() -> None:
    assert engine.game_length("tablic", 2, {"max_deals": 2}).deals == 2
    assert engine.game_length("belote", 4, {"max_deals": 1}).deals > 1  # thrown-in deals are dealt again


def test_targets_are_bounded_so_every_match_is() -> None:
    with pytest.raises(ValueError, match="out of range"):
        engine.new_match("belote", seed=1, options={"target_score": 10**9})


def test_german_whist_with_a_target_that_keeps_rising_ends_at_the_declared_length() -> None:
    # score_all_tricks with per_trick scoring: both players pass the target almost every deal and 7.4b raises it.
    options = {"target_score": 20, "score_all_tricks": True}
    state = engine.new_match("german_whist", seed=5, options=options)
    length = engine.game_length("german_whist", 2, options)
    play_counting(state, lambda s: s.legal_action_ids()[0], length.moves)
    assert state.is_terminal and state.deal_index < length.deals
    rebuilt = engine.from_position("german_whist", state.to_position())
    assert rebuilt.to_position() == state.to_position() and rebuilt.is_terminal


@pytest.mark.parametrize(("game", "players"), [("belote", 4), ("belote", 3), ("belote_contree", 4), ("boonaken", 4)])
def test_an_adversary_who_always_passes_cannot_make_a_match_run_forever(game: str, players: int) -> None:
    state = engine.new_match(game, seed=9, players=players)
    length = engine.game_length(game, players)

    def always_pass(s: engine.State) -> int:
        legal = s.legal_action_ids()
        words = [s.action_string(a) for a in legal]
        return legal[words.index("pass")] if "pass" in words else legal[words.index("keep")] if "keep" in words \
            else legal[0]

    dealings, _ = play_counting(state, always_pass, length.moves + 1)
    assert state.is_terminal, "every deal is thrown in: the match must end at the declared length"
    assert dealings == length.deals and state.deal_index == 0 and state.scores == [0] * players
    assert state.winners == list(range(players))  # nobody scored: a draw
    position = state.to_position()  # the deal after the last one allowed is dealt, and the match ends unplayed
    assert position["redealt"] == length.deals and position["phase"] == "over"
    assert engine.from_position(game, position).to_position() == position


def test_the_decoder_refuses_a_forged_move_count_before_replaying() -> None:
    # About 20 bytes with a valid CRC: a Belote deal whose move count says a million moves of ordinal 0 ("pass").
    forged = encode(Header(game="belote", players=4, seed=1, policies=("random",) * 4), [], move_count=10**6)
    assert len(forged) < 24
    started = time.perf_counter()
    with pytest.raises(ReplayError, match="more moves than"):
        decode(forged)
    assert time.perf_counter() - started < 0.5
