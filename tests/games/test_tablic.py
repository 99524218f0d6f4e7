"""Tablić: every worked example (§10) and every rule of shared/rules/tablic.md."""

from __future__ import annotations

import pytest
from fishing_positions import fishing_state
from fishing_text import Dealt, Rules, check_first_dealer_and_deck, deal_hands, play_turns_checked

import engine
from engine.cards import CODES, parse_card
from engine.fishing import CARD_POINTS

GAME = "tablic"
ZERO = [c for c in CODES if CARD_POINTS[parse_card(c)] == 0]


def legal_for(card: str, table: list[str], **kw) -> list[str]:
    other = next(c for c in ("2S", "3S", "4S") if c != card and c not in table)
    state = fishing_state(GAME, [[card], [other]], table, current=0, **kw)
    return state.legal_turns()


def deck_with(prefix: list[str]) -> list[str]:
    return prefix + [c for c in CODES if c not in prefix]


def last_play(scores: list[int], pile0: list[str], pile1: list[str], sweeps=(0, 0), **kw) -> engine.State:
    """Seat 0 trails the last card of the deal (a 0-point card) onto an empty table; seat 0 captured last."""
    last = next(c for c in ZERO if c not in pile0 and c not in pile1)
    state = fishing_state(GAME, [[last], []], [], captured=[pile0, pile1], stock=[], current=0, last_capturer=0,
                          rest_to=0, scores=scores, **kw)
    position = state.to_position()
    position["sweeps"] = position["sweep_points"] = list(sweeps)
    return engine.from_position(GAME, position)


# ---- §10 worked examples ------------------------------------------------------------------------------------------

def test_e1_only_separate_combinations():
    assert legal_for("9C", ["2C", "3D", "4H", "7S"]) == ["9C", "9C:2C,3D,4H", "9C:2C,7S"]


def test_e2_partial_captures_and_a_tabla():
    assert legal_for("6D", ["4C", "TD", "KH", "6S"]) == ["6D", "6D:6S"]
    assert legal_for("KS", ["4C", "TD", "KH"]) == ["KS", "KS:4C,TD", "KS:4C,TD,KH", "KS:KH"]
    state = fishing_state(GAME, [["KS", "2D"], ["3D"]], ["4C", "TD", "KH"], current=0)
    state.apply("KS:4C,TD,KH")
    assert state.observation(0)["tablas"] == [1, 0]
    assert state.scores == [0, 0], "tablas are scored after the deal (§7.2)"


def test_e3_jack_is_worth_12():
    assert legal_for("JS", ["JC", "5D", "7H"]) == ["JS", "JS:5D,7H", "JS:JC", "JS:JC,5D,7H"]


def test_e4_aces():
    assert legal_for("AS", ["AC", "5D", "6H"]) == ["AS", "AS:5D,6H", "AS:AC", "AS:AC,5D,6H"]


def test_e5_two_table_aces():
    assert legal_for("JH", ["AC", "AD"]) == ["JH", "JH:AC,AD"]
    assert legal_for("2H", ["AC", "AD"]) == ["2H", "2H:AC,AD"]
    assert legal_for("QH", ["AC", "AD"]) == ["QH"]


def test_e6_long_sums():
    assert legal_for("KH", ["2C", "3D", "4H", "5S"]) == ["KH", "KH:2C,3D,4H,5S"]


def test_e7_deal_score():
    side0 = ["AC", "AD", "AH", "KC", "KD", "QS", "JH", "JS", "TD", "2C"]
    side1 = ["AS", "KH", "KS", "QC", "QD", "QH", "JC", "JD", "TC", "TH", "TS"]
    pile1 = side1 + ZERO[:11]
    state = last_play([0, 0], side0, pile1, sweeps=(2, 0), options={"max_deals": 1})
    state.apply(state.legal_actions()[0])
    assert state.deal_results[0]["cards"] == [30, 22]
    assert state.deal_results[0]["points"] == [16, 11]
    assert state.deal_results[0]["tablas"] == [2, 0]


def test_e8_last_card_sweep_scores_no_tabla():
    state = fishing_state(GAME, [["5C"], []], ["5H"], current=0, stock=[], rest_to=1, options={"max_deals": 1})
    state.apply("5C:5H")
    assert state.deal_results[0]["tablas"] == [0, 0]
    assert state.deal_results[0]["cards"] == [2, 50]
    flagged = fishing_state(GAME, [["5C"], []], ["5H"], current=0, stock=[], rest_to=1,
                            options={"max_deals": 1, "last_play_tabla": True})
    flagged.apply("5C:5H")
    assert flagged.deal_results[0]["tablas"] == [1, 0]
    assert flagged.deal_results[0]["points"][0] == 1


@pytest.mark.parametrize(("before", "outcome"), [([95, 86], [0]), ([94, 94], [1]), ([80, 80], None)])
def test_e9_game_end(before, outcome):
    """The deal below gives side 0 +9 and side 1 +13: 104-99 -> side 0; 103-107 -> side 1; 89-93 -> play on."""
    points = [c for c in CODES if CARD_POINTS[parse_card(c)] > 0]
    pile0 = points[:8] + ZERO[:17]  # 2C TC JC QC KC AC TD JD: 9 points, 26 cards with the last
    pile1 = points[8:] + ZERO[17:30]  # 13 cards, 13 points, 26 cards in all
    state = last_play(before, pile0, pile1)
    state.apply(state.legal_actions()[0])
    gained = state.deal_results[0]["points"]
    assert gained == [9, 13]
    totals = [before[0] + 9, before[1] + 13]
    if outcome is None:
        assert not state.is_terminal
    else:
        assert state.is_terminal and state.winners == outcome, totals


def test_e9_equal_totals_above_the_target_play_on():
    points = [c for c in CODES if CARD_POINTS[parse_card(c)] > 0]
    state = last_play([96, 92], points[:8] + ZERO[:17], points[8:] + ZERO[17:30])
    state.apply(state.legal_actions()[0])
    assert state.scores == [105, 105] and not state.is_terminal and state.deal_index == 1


# ---- rules, section by section ------------------------------------------------------------------------------------

def test_players_two_or_four_in_partnerships():
    with pytest.raises(ValueError, match="2, 4"):
        engine.new_match(GAME, players=3)
    state = fishing_state(GAME, [["5C", "2D"], ["5D"], ["KS"], ["3C"]], ["5H"], current=0)
    state.apply("5C:5H")
    assert state.side_of == (0, 1, 0, 1)
    assert state.observation(2)["tablas"] == [1, 0]


def test_first_dealer_draw_high_and_low():
    assert {engine.new_match(GAME, seed=s).dealer for s in range(30)} == {0, 1}
    for s in range(10):
        a = engine.new_match(GAME, seed=s, options={"first_dealer_draw": "low"})
        assert a.dealer == engine.new_match(GAME, seed=s, options={"first_dealer_draw": "low"}).dealer


def test_cut_layout_then_packets_of_three():
    deck = deck_with([])
    p = engine.new_match(GAME, seed=1, first_dealer=1, deck=deck).to_position()
    assert p["table"] == sorted(deck[:4], key=CODES.index)
    # seat 0 (dealer + 1): deck[4:7] and deck[10:13]; the dealer: deck[7:10] and deck[13:16]
    assert p["hands"][0] == sorted(deck[4:7] + deck[10:13], key=CODES.index)
    assert p["hands"][1] == sorted(deck[7:10] + deck[13:16], key=CODES.index)
    assert p["stock"] == deck[16:]


def test_knock_layout_deals_hands_first():
    deck = deck_with([])
    p = engine.new_match(GAME, seed=1, first_dealer=1, deck=deck, options={"cut_mode": "knock"}).to_position()
    assert p["hands"][0] == sorted(deck[0:3] + deck[6:9], key=CODES.index)
    assert p["table"] == sorted(deck[12:16], key=CODES.index)


@pytest.mark.parametrize("mode", ["cut", "knock"])
def test_bottom_card_goes_to_the_dealer_and_who_sees_it(mode):
    deck = deck_with([])
    state = engine.new_match(GAME, seed=1, first_dealer=1, deck=deck, options={"cut_mode": mode})
    bottom = deck[-1]
    assert state.observation(1)["bottom_card"] == bottom
    assert ("bottom_card" in state.observation(0)) == (mode == "knock")
    while state.deal_index == 0 and bottom not in state.observation(1)["hand"]:
        actions = state.legal_actions()
        state.apply(([a for a in actions if ":" in a] or actions)[0])
    assert bottom in state.observation(1)["hand"], "the bottom card is the dealer's last card (§3.4)"


def test_redeal_of_six_each_in_packets():
    stock = ZERO[:12]
    state = fishing_state(GAME, [["KC"], ["KD"]], ["9H"], dealer=1, current=0, stock=stock, rest_to=0)
    state.apply("KC")
    state.apply("KD")
    p = state.to_position()
    assert p["hands"][0] == sorted(stock[0:3] + stock[6:9], key=CODES.index)
    assert p["hands"][1] == sorted(stock[3:6] + stock[9:12], key=CODES.index)


def test_capture_compulsory_option():
    opts = {"capture_compulsory": True}
    assert legal_for("9C", ["2C", "3D", "4H", "7S"], options=opts) == ["9C:2C,3D,4H", "9C:2C,7S"]
    assert legal_for("KS", ["4C", "TD", "KH"], options=opts) == ["KS:4C,TD,KH"]
    assert legal_for("QH", ["AC", "AD"], options=opts) == ["QH"]


def test_max_sum_cards_option():
    assert legal_for("KH", ["2C", "3D", "4H", "5S"], options={"max_sum_cards": 3}) == ["KH"]


def test_remainder_goes_to_the_last_capturer_and_is_no_tabla():
    state = fishing_state(GAME, [["2C"], []], ["9H", "8S"], current=0, stock=[], rest_to=1, last_capturer=1,
                          options={"max_deals": 1})
    state.apply("2C")
    assert state.deal_results[0]["cards"] == [0, 52]
    assert state.deal_results[0]["tablas"] == [0, 0]


def test_remainder_belongs_to_nobody_without_any_capture():
    table = [code for code in CODES if code != "2C"]  # everyone trailed: no capture pile holds a card
    state = fishing_state(GAME, [["2C"], []], table, current=0, stock=[], options={"max_deals": 1})
    state.apply("2C")
    assert state.deal_results[0]["cards"] == [0, 0]  # the 52 cards on the table stay with nobody


def test_target_option():
    with pytest.raises(ValueError, match="target"):
        engine.new_match(GAME, options={"target": 0})
    assert engine.new_match(GAME, options={"target": 51}).target == 51


# ---- positions against deal_deck (docs/positions/tablic.md) ------------------------------------------------------

def test_a_position_is_dealt_as_its_cut_mode_deals():
    position = engine.new_match(GAME, seed=3, first_dealer=0, options={"cut_mode": "knock"}).to_position()
    assert engine.from_position(GAME, position).to_position() == position
    position["options"]["cut_mode"] = "cut"  # the table would be the deck's first 4 cards, the hands after them
    with pytest.raises(engine.PositionError, match="deal_deck"):
        engine.from_position(GAME, position)


def test_hands_and_stock_follow_deal_deck():
    state = fishing_state(GAME, [["KC", "2D"], ["KD", "3D"], ["KH", "4D"], ["KS", "5D"]], ["9H"], current=1)
    position = state.to_position()
    swapped = {**position, "hands": [["2D", "KD"], ["KC", "3D"], *position["hands"][2:]]}
    with pytest.raises(engine.PositionError, match="hands\\[0\\]: seat 0 holds KD, but deal_deck dealt it to seat 1"):
        engine.from_position(GAME, swapped)
    stock = position["stock"]
    with pytest.raises(engine.PositionError, match="stock\\[0\\] is"):
        engine.from_position(GAME, {**position, "stock": stock[1:] + stock[:1]})


def test_a_capture_pile_never_holds_one_card():
    position = fishing_state(GAME, [["KC", "2D"], ["3D"]], ["9H", "5S"], current=0).to_position()
    pile = position["captured"][1]
    assert len(pile) > 2 and position["last_capturer"] == 1
    position["captured"][1] = pile[:1]  # one card left: the rest of it, written on the table
    position["table"] = sorted(position["table"] + pile[1:], key=CODES.index)
    with pytest.raises(engine.PositionError, match=f"captured\\[1\\] holds {pile[0]} alone: a capture takes the card"):
        engine.from_position(GAME, position)


# ---- the rules text restated: every turn, step, tabla, deal score and match end of random matches --------------

@pytest.mark.parametrize(("players", "options"), [
    (2, {}), (2, {"capture_compulsory": True, "last_play_tabla": True, "target": 61}),
    (2, {"max_sum_cards": 3, "cut_mode": "knock", "first_dealer_draw": "low", "target": 61}),
    (4, {}), (4, {"capture_compulsory": True, "max_sum_cards": 2, "target": 61}),
    (4, {"cut_mode": "knock", "last_play_tabla": True, "first_dealer_draw": "low", "target": 61}),
])
def test_5_and_7_random_matches_capture_sweep_and_score_as_the_rules_text_says(players: int, options: dict):
    for seed in range(4):
        _check_match(seed, players, options)


def _rules_text_dealt(p: dict) -> Dealt:
    """3.4, 3.5: four cards to the table before the hands ("cut") or after the first hands ("knock"); hands of two
    packets of three from the dealer's left, dealt again while cards last; the deck's last card ends at the dealer."""
    n, deck = p["players"], p["deal_deck"]
    order = [(p["dealer"] + 1 + k) % n for k in range(n)]
    table_at = 0 if p["options"]["cut_mode"] == "cut" else 6 * n
    rest = deck[:table_at] + deck[table_at + 4:]
    rounds = [deal_hands(rest, k, order, [3, 3])[0] for k in range(0, len(rest), 6 * n)]
    assert deck[-1] in rounds[-1][p["dealer"]]
    return Dealt(rounds, deck[table_at:table_at + 4], rest[6 * n:])


def _check_match(seed: int, players: int, options: dict, explore_tables: int = 0) -> None:
    state = engine.new_match(GAME, seed=seed, players=players, options=options)
    o = state.to_position()["options"]
    rules = Rules(jack_takes_all=False, max_sum_cards=o["max_sum_cards"], compulsory=o["capture_compulsory"])

    def tabla(played: str, captured: frozenset, table: list, last_play: bool) -> int:
        """5.5: one point, none with the deal's last card unless last_play_tabla."""
        return 0 if last_play and not o["last_play_tabla"] else 1

    def over(totals: list[int]) -> bool:  # 7.3: a side at the target, and the totals differ
        return max(totals) >= o["target"] and totals[0] != totals[1]

    play_turns_checked(state, seed, rules, tabla, over, _rules_text_dealt, explore_tables)
    winner = max(range(2), key=lambda side: state.scores[side])
    assert state.winners == [s for s in range(players) if s % 2 == winner]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("draw", ["low", "high"])
def test_3_1_3_3_the_rng_draws_the_dealer_from_one_pack_then_shuffles_the_deck(players: int, draw: str) -> None:
    ranks = "A23456789TJQK" if draw == "low" else "23456789TAJQK"  # 3.1: the ace 1, or 11 (between T and J)
    check_first_dealer_and_deck(GAME, players, draw, ranks)


@pytest.mark.parametrize(("players", "options"), [(2, {}), (2, {"capture_compulsory": True}), (4, {})])
def test_5_4_the_steps_of_a_capture_reach_exactly_its_capture_sets(players: int, options: dict) -> None:
    """docs/fishing_moves.md: every step tried on tables of up to 7 cards, no dead end, no other turn."""
    for seed in range(2):
        _check_match(seed, players, options, explore_tables=7)

