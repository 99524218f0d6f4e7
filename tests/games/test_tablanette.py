"""Tablanette: every worked example (§10) and every rule of shared/rules/tablanette.md."""

from __future__ import annotations

import pytest
from fishing_positions import fishing_state
from fishing_text import Dealt, Rules, check_first_dealer_and_deck, deal_hands, play_turns_checked, sweep_worth

import engine
from engine.cards import CODES, mask_of, parse_card, parse_cards
from engine.fishing import CARD_POINTS, CaptureRules
from engine.games.tablanette.rules import sweep_value

GAME = "tablanette"


def legal_for(card: str, table: list[str], **kw) -> list[str]:
    state = fishing_state(GAME, [[card], ["2H"]], table, current=0, **kw)
    return [a for a in state.legal_turns() if a.split(":")[0] == card]


def deck_with(prefix: list[str]) -> list[str]:
    return prefix + [c for c in CODES if c not in prefix]


def _mask(cards: str) -> int:
    return mask_of(parse_cards(cards.split()))


def _rules(max_sum_cards: int = 3) -> CaptureRules:
    return CaptureRules(jack_takes_all=True, max_sum_cards=max_sum_cards, compulsory=True)


HEARTS = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "QH", "KH", "AH"]


# ---- §10 worked examples ----------------------------------------------------------------------------------------

def test_e1_overlapping_groups_give_two_captures():
    assert legal_for("KC", ["2C", "3D", "5H", "9S"]) == ["KC:2C,3D,9S", "KC:5H,9S"]


def test_e2_ace_values_and_tablanette_worth_22():
    assert legal_for("AC", ["AH", "TS"]) == ["AC:AH", "AC:AH,TS"]
    state = fishing_state(GAME, [["AC", "2D"], ["3D"]], ["AH", "TS"], current=0)
    state.apply("AC:AH,TS")
    assert state.scores == [22, 0]
    assert state.observation(0)["tablanettes"] == [1, 0]


def test_e3_disjoint_groups_must_all_be_taken():
    assert legal_for("QD", ["2C", "3C", "4D", "8H", "9S"]) == ["QD:2C,3C,4D,8H,9S"]
    assert sweep_value(parse_card("QD"), _mask("2C 3C 4D 8H 9S"), _rules()) == 39


def test_e4_rank_and_sum_together():
    assert legal_for("QS", ["3D", "TC", "QH"]) == ["QS:TC,3D,QH"]
    assert sweep_value(parse_card("QS"), _mask("3D TC QH"), _rules()) == 39


def test_e5_four_card_sums_need_the_option():
    assert legal_for("KH", ["2C", "3D", "4H", "5S"]) == ["KH"]
    assert legal_for("KH", ["2C", "3D", "4H", "5S"], options={"max_sum_cards": 0}) == ["KH:2C,3D,4H,5S"]
    assert sweep_value(parse_card("KH"), _mask("2C 3D 4H 5S"), _rules(max_sum_cards=0)) == 28


def test_e6_phillips_examples():
    assert legal_for("KS", ["KC", "9D", "4H", "3S"]) == ["KS:KC"]
    assert legal_for("QD", ["KC", "9D", "4H", "3S"]) == ["QD:9D,4H"]
    assert legal_for("9S", ["KC", "9D", "4H", "5S"]) == ["9S:9D,4H,5S"]


def test_e7_jacks():
    assert legal_for("5D", ["JD", "5C", "7H"]) == ["5D:5C"]
    assert legal_for("JS", ["JD", "5C", "7H"]) == ["JS:5C,JD,7H"]
    assert legal_for("JS", []) == ["JS"]
    state = fishing_state(GAME, [["JS", "2D"], ["3D"]], ["JD", "5C", "7H"], current=0)
    state.apply("JS:5C,JD,7H")
    assert state.scores == [0, 0], "a jack's sweep is never a tablanette"


def test_e8_initial_table_jacks_go_to_the_stock_bottom():
    deck = deck_with(HEARTS + ["JC", "4D", "JH", "9S", "2C", "KD"])
    position = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck).to_position()
    assert position["table"] == ["2C", "4D", "KD", "9S"]
    assert position["stock"][-2:] == ["JC", "JH"]
    assert len(position["stock"]) == 36


def test_e9_end_of_deal_score():
    zero = [c for c in CODES if CARD_POINTS[parse_card(c)] == 0]
    seat0_points = ["AC", "AD", "KS", "QH", "JC", "TD", "TH", "2C"]
    seat1_points = ["AH", "AS", "KC", "KD", "KH", "QC", "QD", "QS", "JD", "JH", "JS", "TC", "TS"]
    last = zero.pop()
    pile0 = seat0_points + zero[:18]
    pile1 = seat1_points + zero[18:30]
    state = fishing_state(GAME, [[last], []], [], captured=[pile0, pile1], stock=[], current=0, last_capturer=0,
                          options={"max_deals": 1})
    state.apply(last)
    assert state.deal_results[0]["cards"] == [27, 25]
    assert state.deal_results[0]["points"] == [12, 13]
    assert state.scores == [12, 13]


def test_e10_most_cards_tie_scores_nobody():
    zero = [c for c in CODES if CARD_POINTS[parse_card(c)] == 0]
    points = [c for c in CODES if CARD_POINTS[parse_card(c)] > 0]
    last = zero.pop()
    pile0 = points[:10] + zero[:15]
    pile1 = points[10:] + zero[15:]
    assert len(pile0) == 25 and len(pile1) == 26
    state = fishing_state(GAME, [[last], []], [], captured=[pile0, pile1], stock=[], current=0, last_capturer=0,
                          options={"max_deals": 1})
    state.apply(last)
    assert state.deal_results[0]["cards"] == [26, 26]
    assert sum(state.deal_results[0]["points"]) == 22


def test_e11_tablanette_reaching_the_target_wins_at_once():
    state = fishing_state(GAME, [["9C", "2D"], ["3D", "4D"]], ["4H", "5S"], current=0, scores=[230, 100])
    state.apply("9C:4H,5S")  # 9 + 4 + 5 = 18 -> 248, not yet
    assert not state.is_terminal and state.scores == [248, 100]


def test_e11_mid_deal_win_and_after_deal_outcomes():
    state = fishing_state(GAME, [["QC", "2D"], ["3D", "4D"]], ["QH"], current=0, scores=[230, 100])
    state.apply("QC:QH")  # 13 + 13 = 26 -> 256 >= 251
    assert state.is_terminal and state.winners == [0] and state.scores == [256, 100]
    assert state.deal_results[-1]["ended_match"] is True
    with pytest.raises(engine.IllegalAction, match="match is over"):
        state.apply("2D")
    # the last deal gives seat 0 12 card points and seat 1 10 (26 cards each, no bonus)
    for before, winners in (([240, 250], [1]), ([248, 250], [0, 1]), ([245, 230], [0])):
        end = _last_play_state(scores=before)
        end.apply(end.legal_actions()[0])
        assert end.is_terminal and end.winners == winners, before
    end = _last_play_state(scores=[200, 200])
    end.apply(end.legal_actions()[0])
    assert not end.is_terminal and end.deal_index == 1 and end.scores == [212, 210]


def _last_play_state(scores: list[int]) -> engine.State:
    """Seat 0 plays the last card of a deal in which seat 1 holds the 12+ points for the winning total."""
    zero = [c for c in CODES if CARD_POINTS[parse_card(c)] == 0]
    points = [c for c in CODES if CARD_POINTS[parse_card(c)] > 0]
    last = zero.pop()
    pile0 = points[:11] + zero[:14]
    pile1 = points[11:] + zero[14:]
    return fishing_state(GAME, [[last], []], [], captured=[pile0, pile1], stock=[], current=0, last_capturer=0,
                         scores=[scores[0], scores[1]])


# ---- rules, section by section ------------------------------------------------------------------------------------

def test_first_dealer_draw_low_and_high_is_seeded_and_varies():
    dealers_low = {engine.new_match(GAME, seed=s).dealer for s in range(40)}
    assert dealers_low == {0, 1}
    for s in range(20):
        a = engine.new_match(GAME, seed=s, options={"first_dealer_draw": "high"})
        b = engine.new_match(GAME, seed=s, options={"first_dealer_draw": "high"})
        assert a.dealer == b.dealer


def test_dealing_singly_from_the_non_dealer_then_table_then_stock():
    deck = deck_with([])
    state = engine.new_match(GAME, seed=3, players=3, first_dealer=1, deck=deck)
    p = state.to_position()
    # seat 2 (dealer + 1) gets deck[0], deck[3], ...; the dealer (seat 1) gets deck[2], deck[5], ...
    assert p["hands"][2] == sorted([deck[i] for i in (0, 3, 6, 9)], key=CODES.index)
    assert p["hands"][0] == sorted([deck[i] for i in (1, 4, 7, 10)], key=CODES.index)
    assert p["hands"][1] == sorted([deck[i] for i in (2, 5, 8, 11)], key=CODES.index)
    assert p["table"] == sorted(deck[12:16], key=CODES.index)  # 2C..5C: no jack among them
    assert p["stock"] == deck[16:]
    assert state.current_player == 2


@pytest.mark.parametrize(("players", "options", "size"), [(2, {}, 6), (2, {"hand_size": 8}, 8), (3, {}, 4),
                                                          (4, {}, 4), (4, {"partnerships": True}, 4)])
def test_hand_sizes(players, options, size):
    state = engine.new_match(GAME, seed=5, players=players, options=options)
    assert state.observation(0)["hand_sizes"] == [size] * players
    assert len(state.observation(0)["table"]) == 4


def test_bad_options_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match="partnerships"):
        engine.new_match(GAME, players=2, options={"partnerships": True})
    with pytest.raises(ValueError, match="hand_size"):
        engine.new_match(GAME, players=3, options={"hand_size": 8})
    with pytest.raises(ValueError, match="jack_mode"):
        engine.new_match(GAME, options={"jack_mode": "wild"})


def test_hands_are_redealt_from_the_stock_when_all_are_empty():
    state = fishing_state(GAME, [["2C"], ["3C"]], ["9H"], dealer=1, current=0,
                          stock=["4D", "5D", "6D", "7D", "8D", "9D", "TD", "QD", "KD", "AD", "2S", "3S"], rest_to=0)
    state.apply("2C")
    state.apply("3C")
    p = state.to_position()
    assert p["hands"] == [["4D", "6D", "8D", "TD", "KD", "2S"], ["5D", "7D", "9D", "QD", "AD", "3S"]]
    assert p["stock"] == [] and state.current_player == 0
    assert p["table"] == ["2C", "3C", "9H"], "no cards go to the table on a redeal (§3.7)"


def test_capture_is_compulsory_and_trail_only_without_capture():
    state = fishing_state(GAME, [["5C", "8D"], ["2D"]], ["5H", "3S"], current=0)
    assert state.legal_turns() == ["5C:5H", "8D:5H,3S"]
    assert state.legal_actions() == ["5C:", "8D:"], "a capture is played as decisions: the card, then its cards"
    state.apply("8D:")
    assert state.legal_actions() == ["+5H"]
    state.apply("+5H")
    assert state.legal_actions() == ["+3S"], "the group 5H+3S is being built"
    state.apply("+3S")
    assert state.current_player == 1 and state.history[-3:] == [(0, "8D:"), (0, "+5H"), (0, "+3S")]
    state = fishing_state(GAME, [["6C", "8D"], ["2D"]], ["KH", "QS"], current=0)
    assert state.legal_actions() == state.legal_turns() == ["6C", "8D"]


def test_a_player_may_take_a_smaller_maximal_combination():
    assert legal_for("AC", ["AH", "TS"]) == ["AC:AH", "AC:AH,TS"]


def test_jack_on_the_table_blocks_a_sweep_and_is_only_taken_by_a_jack():
    state = fishing_state(GAME, [["5D", "2S"], ["3D"]], ["JD", "5C"], current=0)
    state.apply("5D:5C")
    assert state.scores == [0, 0] and state.observation(0)["table"] == ["JD"]


def test_jack_value12_mode():
    opts = {"jack_mode": "value12"}
    assert legal_for("JS", ["JD", "5C", "7H"], options=opts) == ["JS:5C,JD,7H"]
    assert legal_for("KS", ["JD", "2C"], options=opts) == ["KS:2C,JD"]
    state = fishing_state(GAME, [["JS", "2S"], ["3D"]], ["5C", "7H"], current=0, options=opts)
    state.apply("JS:5C,7H")
    assert state.scores == [24, 0]


def test_value12_mode_leaves_initial_table_jacks():
    deck = deck_with(HEARTS + ["JC", "4D", "JH", "9S"])
    state = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck, options={"jack_mode": "value12"})
    assert state.to_position()["table"] == ["JC", "4D", "JH", "9S"]


def test_3_6_jacks_dealt_face_up_and_put_back_into_the_stock_are_known_to_every_seat():
    """§3.5-3.6: the table's four cards are dealt face up, so every seat saw the jacks that went back to the stock
    (and where: E8, the bottom), as Tablić's observation shows its revealed bottom card (tablic.md §3.4)."""
    deck = deck_with(HEARTS + ["JC", "4D", "JH", "9S", "2C", "KD"])
    state = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck)
    assert state.to_position()["stock"][-2:] == ["JC", "JH"]
    for seat in range(2):
        assert {"JC", "JH"} <= set(state.observation(seat)["known_cards"]), seat


def test_initial_jack_middle_buries_the_second_jack():
    deck = deck_with(HEARTS + ["JC", "4D", "JH", "9S"])
    state = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck, options={"initial_jack": "middle"})
    stock = state.to_position()["stock"]
    assert stock[-1] == "JC" and stock.index("JH") == 17  # 36-card stock: JH went in at 36 // 2 = 18, then one taken


def test_last_play_tablanette_option():
    for flag, points in ((True, 26), (False, 0)):
        state = fishing_state(GAME, [["QC"], []], ["QH"], current=0, stock=[], rest_to=1,
                              options={"last_play_tablanette": flag, "max_deals": 1})
        state.apply("QC:QH")
        assert state.deal_results[0]["tablanettes"] == ([1, 0] if flag else [0, 0])
        assert state.deal_results[0]["points"] == [points + 2, 20 + 3]  # QC, QH; seat 1: the rest and most cards


# ---- positions against deal_deck (docs/positions/tablanette.md) --------------------------------------------------

def _started(**options) -> dict:
    """A position of a deal dealt from the E8 deck (jacks JC and JH dealt to the table went to the stock bottom)."""
    deck = deck_with(HEARTS + ["JC", "4D", "JH", "9S", "2C", "KD"])
    return engine.new_match(GAME, seed=1, first_dealer=0, deck=deck, options=options).to_position()


def test_a_position_holds_the_hands_deal_deck_dealt():
    position = _started()
    assert engine.from_position(GAME, position).to_position() == position
    assert position["hands"] == [["3H", "5H", "7H", "9H", "QH", "AH"], ["2H", "4H", "6H", "8H", "TH", "KH"]]
    position["hands"] = [["2H", "5H", "7H", "9H", "QH", "AH"], ["3H", "4H", "6H", "8H", "TH", "KH"]]  # 2H <-> 3H
    with pytest.raises(engine.PositionError, match="hands\\[0\\]: seat 0 holds 2H, but deal_deck dealt it to seat 1"):
        engine.from_position(GAME, position)


@pytest.mark.parametrize("initial_jack", ["bottom", "middle"])
def test_the_stock_is_the_rest_of_the_deal_after_the_initial_jacks(initial_jack):
    position = _started(initial_jack=initial_jack)
    assert engine.from_position(GAME, position).to_position() == position
    stock = position["stock"]
    at = stock.index("JH")
    stock[at], stock[at - 1] = stock[at - 1], stock[at]
    with pytest.raises(engine.PositionError, match=f"stock\\[{at - 1}\\] is JH where the deal from deal_deck left"):
        engine.from_position(GAME, position)


def test_a_jack_dealt_to_the_table_does_not_stay_there():
    deck = deck_with(HEARTS + ["JC", "4D", "5D", "9S", "2C"])
    position = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck).to_position()
    assert position["table"] == ["2C", "4D", "5D", "9S"] and position["stock"][-1] == "JC"
    position["table"], position["stock"] = ["JC", "4D", "5D", "9S"], deck[16:]  # the layout as dealt (§3.6 undone)
    with pytest.raises(engine.PositionError, match="stock\\[0\\] is 2C where the deal from deal_deck left"):
        engine.from_position(GAME, position)
    assert engine.from_position(GAME, {**position, "options": {**position["options"], "jack_mode": "value12"}})
    position = _started()  # the layout as dealt, JC 4D JH 9S, its two jacks left on the table
    position["table"], position["stock"] = ["JC", "4D", "JH", "9S"], position["deal_deck"][16:]
    with pytest.raises(engine.PositionError, match="the table holds JC JH: a jack is trailed only to an empty table"):
        engine.from_position(GAME, position)


def test_a_capture_pile_holds_a_card_its_seat_played():
    position = _started()
    position["captured"][1], position["table"], position["last_capturer"] = position["table"], [], 1
    with pytest.raises(engine.PositionError, match="captured\\[1\\] holds no card that deal_deck dealt seat 1"):
        engine.from_position(GAME, position)


def test_a_capture_in_progress_plays_a_card_dealt_to_its_seat():
    state = fishing_state(GAME, [["5C", "2D"], ["5D", "3S"]], ["5H", "9C"], current=0)
    state.apply("5C:")
    position = state.to_position()
    assert engine.from_position(GAME, position).to_position() == position
    position["turn_card"], position["hands"][1] = "5D", ["5C", "3S"]
    with pytest.raises(engine.PositionError, match="turn_card: seat 0 holds 5D, but deal_deck dealt it to seat 1"):
        engine.from_position(GAME, position)


def test_dealt_rounds_deal_deal_deck_again():
    state = engine.new_match(GAME, seed=1, first_dealer=0, deck=deck_with(HEARTS + ["JC", "4D", "JH", "9S"]))
    table, rounds = state.dealt_rounds()
    assert table == state.table and [dealt.stock for dealt in rounds][0] == state.stock
    assert [len(dealt.stock) for dealt in rounds] == [36, 24, 12, 0]
    assert rounds[0].hands == state.hands and rounds[-1].stock == []


# ---- the rules text restated: every turn, step, sweep, deal score and match end of random matches ---------------

@pytest.mark.parametrize(("players", "options"), [
    (2, {}), (2, {"hand_size": 8, "max_sum_cards": 0, "last_play_tablanette": False, "target": 120}),
    (2, {"jack_mode": "value12", "first_dealer_draw": "high", "target": 120}),
    (2, {"initial_jack": "middle", "max_sum_cards": 2, "target": 120}),
    (3, {}), (3, {"jack_mode": "value12", "max_sum_cards": 0}),
    (4, {}), (4, {"partnerships": True, "target": 151}), (4, {"partnerships": True, "jack_mode": "value12"}),
    (3, {"initial_jack": "middle", "last_play_tablanette": False, "first_dealer_draw": "high"}),
    (4, {"partnerships": True, "initial_jack": "middle", "last_play_tablanette": False, "max_sum_cards": 0}),
])
def test_5_and_7_random_matches_capture_sweep_and_score_as_the_rules_text_says(players: int, options: dict):
    for seed in range(4):
        _check_match(seed, players, options)


def _rules_text_dealt(p: dict) -> Dealt:
    """3.5 - 3.7: h cards singly from the dealer's left, 4 to the table, jacks there replaced from the stock (the
    first to the bottom, later ones to the middle with initial_jack = "middle"), then h more each while cards last."""
    n, o, deck = p["players"], p["options"], p["deal_deck"]
    order = [(p["dealer"] + 1 + k) % n for k in range(n)]
    first, start = deal_hands(deck, 0, order, [1] * o["hand_size"])
    table, stock = deck[start:start + 4], deck[start + 4:]
    buried = 0
    for slot in range(4):
        while o["jack_mode"] == "special" and table[slot][0] == "J":
            if o["initial_jack"] == "middle" and buried:
                stock.insert(len(stock) // 2, table[slot])
            else:
                stock.append(table[slot])
            buried += 1
            table[slot] = stock.pop(0)
    rounds, k = [first], 0
    while k < len(stock):
        hands, k = deal_hands(stock, k, order, [1] * o["hand_size"])
        rounds.append(hands)
    return Dealt(rounds, table, stock)


def _check_match(seed: int, players: int, options: dict, explore_tables: int = 0) -> None:
    state = engine.new_match(GAME, seed=seed, players=players, options=options)
    o = state.to_position()["options"]
    rules = Rules(jack_takes_all=o["jack_mode"] == "special", max_sum_cards=o["max_sum_cards"], compulsory=True)
    target = o["target"] or (251 if players == 2 or o["partnerships"] else 151)  # 7.4
    assert state.target == target

    def sweep(played: str, captured: frozenset, table: list, last_play: bool) -> int:
        """5.6a, 5.7: a jack that takes all is never a tablanette; 8: last_play_tablanette."""
        if rules.jack_takes_all and played[0] == "J" or last_play and not o["last_play_tablanette"]:
            return 0
        return sweep_worth(played, captured, table, rules)

    play_turns_checked(state, seed, rules, sweep, lambda totals: max(totals) >= target, _rules_text_dealt,
                       explore_tables)
    top = max(state.scores)  # 7.6: the highest total wins, a shared top is a draw among those tied
    assert state.winners == [s for s in range(players) if state.scores[s] == top]


# ---- pointed cases of the rules text ------------------------------------------------------------------------------

def test_9_5_a_jack_taking_a_table_of_jacks_is_no_tablanette_and_5_6b_a_jack_trails_to_an_empty_table():
    state = fishing_state(GAME, [["JS", "2S"], ["JC", "3D"]], ["JD"], current=0)
    assert state.legal_turns() == ["2S", "JS:JD"]  # 5.6c: only a jack takes a jack
    state.apply("JS:JD")
    assert state.scores == [0, 0] and state.to_position()["sweeps"] == [0, 0]
    assert state.legal_turns() == ["3D", "JC"]  # 5.6b: a jack trails to the empty table
    state.apply("JC")
    assert state.to_position()["table"] == ["JC"]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("draw", ["low", "high"])
def test_3_1_3_3_the_rng_draws_the_dealer_from_one_pack_then_shuffles_the_deck(players: int, draw: str) -> None:
    ranks = "A23456789TJQK" if draw == "low" else "23456789TJQKA"  # 3.1: the ace low, or high
    check_first_dealer_and_deck(GAME, players, draw, ranks)


@pytest.mark.parametrize(("players", "options"), [(2, {}), (2, {"max_sum_cards": 0}), (4, {})])
def test_5_4_the_steps_of_a_capture_reach_exactly_its_capture_sets(players: int, options: dict) -> None:
    """docs/fishing_moves.md: every step tried on tables of up to 7 cards, no dead end, no other turn."""
    for seed in range(2):
        _check_match(seed, players, options, explore_tables=7)

