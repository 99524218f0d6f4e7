"""A later deal replayed on its own starts where the match was: scores, dealer, RNG and what it inherits (CARRIED)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import engine
import replay
from engine.bots import make_policies
from replay.codec import decode_frame, encode
from replay.export import export_json, import_json
from replay.record import header_at_start, start_state

GAME_SEATS = [(g, n) for g in engine.list_games() for n in engine.game_info(g).player_counts]


@pytest.mark.parametrize("game, players", GAME_SEATS)
def test_each_deal_starts_from_the_matchs_position(game: str, players: int) -> None:
    for seed in range(6):
        state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 4})
        bots = make_policies(["random"] * players, game, seed=seed)
        deal = 0
        while not state.is_terminal:
            if state.deal_index != deal:
                deal = state.deal_index
                assert start_state(header_at_start(state)).to_position() == state.to_position()
            seat = state.current_player
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), lambda s=seat, m=state: m.observation(s)))


def _litige_match() -> tuple[list[bytes], replay.Replay]:
    # Found by hypothesis: deal 2 of this Belote match is a litige, whose held points go to the winner of deal 3.
    options = {"max_deals": 3}
    deals = replay.record_match_deals("belote", seed=629120981, players=4, options=options)
    return deals, replay.decode(replay.record_match("belote", seed=629120981, players=4, options=options))


def test_a_litige_pot_is_carried_into_the_next_deals_replay() -> None:
    deals, match = _litige_match()
    assert [r["outcome"] for r in match.deal_results][1] == "litige"
    last = replay.decode(deals[-1])
    assert last.header.carried == {"pot": 91}
    assert last.scores == match.scores == [177, 329, 177, 329]


def test_carried_values_survive_json_and_corruption_is_refused() -> None:
    deals, _ = _litige_match()
    assert import_json(export_json(deals[-1])) == deals[-1]
    header = replay.decode(deals[-1]).header
    assert decode_frame(encode(header, [], 0)).header == replace(header, deck=None)  # the deck is in the digits
    with pytest.raises(ValueError, match="carries no"):
        encode(replace(header, carried={"kitty": 3}), [], 0)
    with pytest.raises(ValueError, match="only a later deal"):
        encode(replace(header, deal_index=0, carried={"pot": 3}), [], 0)
    with pytest.raises(ValueError, match="other than 0"):
        encode(replace(header, carried={"pot": 0}), [], 0)


def test_a_later_boonaken_deal_is_dealt_to_the_seats_still_at_the_table() -> None:
    # boonaken.md 8.3: with elimination a winner leaves; a replay of a later deal deals it to those who stay
    left = 0
    for seed in range(8):
        state = engine.new_match("boonaken", seed=seed, players=4, options={"elimination": True, "minus_to_lose": 3})
        bots = make_policies(["greedy"] * 4, "boonaken", seed=seed)
        deal = 0
        while not state.is_terminal:
            if state.deal_index != deal:
                deal = state.deal_index
                assert start_state(header_at_start(state)).to_position() == state.to_position()
                left += bool(state.observation(0)["left_table"])
            seat = state.current_player
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), lambda s=seat, m=state: m.observation(s)))
    assert left, "no deal began with a seat gone"
