"""Trappola: every worked example of shared/rules/trappola.md (section 10) and every rule, by section."""

from __future__ import annotations

from collections import Counter

import pytest
from rules_text import play_checked
from trick_positions import documented_example

import engine
from engine.cards import CODES, parse_card, parse_cards
from engine.games.trappola import DECK, POINTS, RANKING, SET_VALUES
from engine.games.trappola.rules import hidden_set_ranks, rank_sets
from engine.rng import Rng
from engine.tricks import NO_TRUMP, trick_winner

GAME = "trappola"
CANONICAL = [CODES[c] for c in DECK]
NON_DEALER_CARDS = [0, 1, 2, 3, 8, 9, 10, 11, 12]  # 3.4: 4 then 5 each, the non-dealer first
DEALER_CARDS = [4, 5, 6, 7, 13, 14, 15, 16, 17]


def deck_for(non_dealer: list[str], dealer: list[str], stock: list[str] | None = None) -> list[str]:
    """A deck that deals these hands (short ones filled from the rest), then ``stock`` on top of the stock."""
    placed = [*non_dealer, *dealer, *(stock or [])]
    rest = [c for c in CANONICAL if c not in placed]
    hands = [list(non_dealer), list(dealer)]
    for hand in hands:
        while len(hand) < 9:
            hand.append(rest.pop(0))
    deck: list[str] = [""] * 18
    for index, card in zip(NON_DEALER_CARDS, hands[0], strict=True):
        deck[index] = card
    for index, card in zip(DEALER_CARDS, hands[1], strict=True):
        deck[index] = card
    return deck + list(stock or []) + rest


def new(hands: tuple[list[str], list[str]] | None = None, stock: list[str] | None = None, dealer: int = 1,
        seed: int = 1, keep: bool = True, **options) -> engine.State:
    """Seat 1 deals unless told (section 10); ``hands`` is (seat 0, seat 1); both keep their hands by default."""
    deck = None
    if hands is not None:
        deck = deck_for(hands[1 - dealer], hands[dealer], stock)
    state = engine.new_match(GAME, seed=seed, first_dealer=dealer, options=options, deck=deck)
    if keep and state.phase == "exchange":
        play(state, "keep", "keep")
    return state


def play(state: engine.State, *actions: str) -> None:
    for action in actions:
        state.apply(action)


def hand(state: engine.State, seat: int) -> list[str]:
    return state.to_position()["hands"][seat]


# ---- 10: the worked examples ----------------------------------------------------------------------------------------


def _after_four_tricks() -> engine.State:
    """Seat 1 left holding AC 7C KD 2S 9H, seat 0 to lead trick 5."""
    state = new((["AS", "KS", "AH", "AD", "9C", "8D", "7S", "QH", "TC"],
                 ["AC", "7C", "KD", "2S", "9H", "TS", "8S", "JH", "QD"]))
    play(state, "AS", "TS", "KS", "8S", "AH", "JH", "AD", "QD")
    assert hand(state, 1) == ["7C", "AC", "KD", "9H", "2S"] and state.current_player == 0
    return state


@pytest.mark.parametrize(("lead", "legal"), [("9C", ["7C", "AC"]), ("8D", ["KD"]), ("7S", ["2S"]), ("QH", ["9H"])])
def test_example_1_legal_cards(lead: str, legal: list[str]) -> None:
    state = _after_four_tricks()
    state.apply(lead)
    assert state.legal_actions() == legal


def test_example_2_a_two_is_the_lowest_card_but_wins_when_led_and_not_followed() -> None:
    assert trick_winner(parse_cards(["7H", "2H"]), NO_TRUMP, RANKING) == 0
    state = new((["2H", "AS"], ["AC", "KC"]))
    play(state, "2H")
    assert "2H" not in state.legal_actions() and "AC" in state.legal_actions()  # seat 1 has no hearts
    play(state, "AC")
    assert state.trick_winners() == [(0, True)]
    assert state.card_points == [6, 0]


def test_example_3_queen_over_jack() -> None:
    state = new((["JD"], ["QD"]))
    play(state, "JD", "QD")
    assert state.trick_winners() == [(1, False)] and state.card_points == [0, 7] and state.current_player == 1


def test_example_4_the_non_dealer_exchanges_twice_and_the_dealer_cannot() -> None:
    state = new(keep=False)
    deck = list(state.deal_deck)
    play(state, "redeal")
    assert state.phase == "exchange" and state.current_player == 0 and state.stock_left() == 9
    play(state, "redeal")
    p = state.to_position()
    assert state.phase == "play" and state.current_player == 0 and p["stock"] == []
    assert p["dead"] == [[sorted_codes(deck[i] for i in NON_DEALER_CARDS), sorted_codes(deck[18:27])], []]
    assert p["hands"][0] == sorted_codes(deck[27:36])
    dead_points = sum(POINTS[NO_TRUMP][c] for hands in state.dead for h in hands for c in h)
    hands_points = sum(POINTS[NO_TRUMP][parse_card(c)] for h in p["hands"] for c in h)
    assert hands_points == 72 - dead_points  # 10.4: the card points available


def sorted_codes(cards) -> list[str]:
    return [CODES[c] for c in sorted(cards)]


def test_example_5_keep_then_the_dealer_exchanges_once() -> None:
    state = new(keep=False)
    deck = list(state.deal_deck)
    play(state, "keep")
    assert state.current_player == 1 and state.legal_actions() == ["keep", "redeal"]
    play(state, "redeal")
    assert state.current_player == 1 and state.stock_left() == 9
    play(state, "keep")
    p = state.to_position()
    assert p["dead"] == [[], [sorted_codes(deck[i] for i in DEALER_CARDS)]]
    assert p["stock"] == [CODES[c] for c in deck[27:]]
    assert p["exchanges"] == [[0, "keep"], [1, "redeal"], [1, "keep"]]
    assert state.phase == "play" and state.current_player == 0


def test_example_6_declarations_are_offered_for_the_sets_held_and_the_opponent_sees_the_ace_rank_only() -> None:
    state = new((["AC", "AD", "AH", "2C", "2D", "2H", "2S", "KC", "KD"], []))
    declarations = [a for a in state.legal_actions() if a.startswith("declare")]
    assert declarations == ["declare:four:2", "declare:three:A"]
    play(state, "declare:four:2")
    assert state.current_player == 0 and state.legal_actions()[-1] == "declare:three:A"
    play(state, "declare:three:A", "2C")
    seen = state.observation(1)
    assert seen["history"][-3:] == [[0, "declare:four"], [0, "declare:three:A"], [0, "2C"]]
    assert seen["declarations"] == [[0, "declare:four", 0], [0, "declare:three:A", 0]]
    assert state.observation(0)["declarations"] == [[0, "declare:four:2", 0], [0, "declare:three:A", 0]]
    bot = engine.bots.make_policies(["random", "random"], GAME, seed=3)
    engine.bots.play_out(state, bot)
    assert state.deal_results[0]["declarations"][0] == 20 + 12
    assert state.observation(1)["history"][2:4] == [[0, "declare:four:2"], [0, "declare:three:A"]]  # 6.4: shown


def test_example_7_a_three_left_of_a_four_may_still_be_declared() -> None:
    state = new((["7C", "AS", "8C"], ["QC", "QD", "QH", "QS", "AC"]))
    play(state, "7C")
    assert "declare:four:Q" in state.legal_actions()
    play(state, "AC", "QS", "AS", "8C")
    assert state.current_player == 1 and "declare:three:Q" in state.legal_actions()
    play(state, "declare:three:Q")
    assert state.declarations[-1][:3] == (1, "Q", 3)


def test_example_8_the_final_run_of_two_twos_scores_52_instead_of_6_plus_10_plus_10() -> None:
    # 10.8 also has seat 0 win trick 3 with 2C, which cannot happen with these last tricks: seat 1 holds 7C, 7H and QD
    # to the end, so it follows any club, heart or diamond led (and seat 0 keeps 2H and 2S). The run is tested here;
    # a trick won by a 2 outside the run scores 10 in example 10.
    state = new((["AC", "KC", "QC", "AD", "KD", "JD", "AH", "2H", "2S"],
                 ["8C", "9C", "TC", "8D", "9D", "TD", "7H", "7C", "QD"]))
    play(state, "AC", "8C", "KC", "9C", "QC", "TC", "AD", "8D", "KD", "9D", "JD", "TD")
    play(state, "AH", "7H", "2H", "7C", "2S", "QD")
    result = state.deal_results[0]
    assert result["final_run"] == 2 and result["run_points"] == [52, 0] and result["last_trick"] == [0, 0]
    assert result["two_tricks"] == [0, 0]
    assert result["card_points"] == [6 + 5 + 4 + 6 + 5 + 3 + 6 + 4, 0]  # AH 6 + QD 4 from the last three tricks
    assert state.scores == [39 + 52, 0]


def test_example_9_a_last_trick_won_by_a_two_scores_26_instead_of_6_plus_10() -> None:
    state = new((["7S", "8S", "9S", "TS", "7H", "8H", "9H", "TH", "9C"],
                 ["AS", "KS", "QS", "JS", "AH", "KH", "QH", "JH", "2D"]))
    play(state, "7S", "AS", "AH", "7H", "KH", "8H", "QH", "9H", "JH", "TH", "QS", "8S", "JS", "9S", "KS", "TS")
    assert state.legal_actions() == ["2D"]  # seat 1 leads its last card
    play(state, "2D", "9C")
    result = state.deal_results[0]
    assert result["final_run"] == 1 and result["run_points"] == [0, 26] and result["two_tricks"] == [0, 0]
    assert state.scores == [0, 36 + 26]


EXAMPLE_10 = (["AC", "QC", "2D", "AD", "2S", "TH", "AH", "7H", "8D"],
              ["KC", "JC", "9C", "8C", "KH", "QH", "JH", "9H", "8H"])


def test_example_10_a_full_deal() -> None:
    state = new(EXAMPLE_10)
    assert sum(POINTS[NO_TRUMP][parse_card(c)] for c in EXAMPLE_10[0]) == 22
    assert sum(POINTS[NO_TRUMP][parse_card(c)] for c in EXAMPLE_10[1]) == 20
    play(state, "declare:three:A", "AC", "KC", "QC", "JC", "2D", "8C", "2S", "9C", "AD", "8H", "TH", "KH")
    assert state.current_player == 1
    play(state, "QH", "AH", "8D", "9H", "7H", "JH")
    result = state.deal_results[0]
    assert result["card_points"] == [34, 8] and result["two_tricks"] == [2, 0] and result["declarations"] == [12, 0]
    assert result["last_trick"] == [0, 6] and result["final_run"] == 0
    assert result["points"] == [66, 14] and result["difference"] == [52, -52]
    assert state.is_terminal and state.winners == [0]


# ---- 1: identity ----------------------------------------------------------------------------------------------------


def test_1_two_players_and_36_cards_in_canonical_order() -> None:
    info = engine.game_info(GAME)
    assert info.player_counts == (2,) and info.deck_size == 36
    assert CANONICAL[:9] == ["2C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"] and CANONICAL[-1] == "AS"
    assert not any(c[0] in "3456" for c in CANONICAL)
    with pytest.raises(ValueError):
        engine.new_match(GAME, players=3)


# ---- 2: ranking and points ------------------------------------------------------------------------------------------


def test_2_1_the_rank_order_is_the_same_in_every_suit_and_no_suit_is_trump() -> None:
    order = "AKQJT9872"
    for suit in "CDHS":
        for high, low in zip(order, order[1:], strict=False):
            assert trick_winner(parse_cards([low + suit, high + suit]), NO_TRUMP, RANKING) == 1
    assert trick_winner(parse_cards(["7D", "AS"]), NO_TRUMP, RANKING) == 0  # 5.3: another suit never wins


def test_2_2_card_points_18_a_suit_72_in_all() -> None:
    table = {r: POINTS[NO_TRUMP][parse_card(r + "H")] for r in "AKQJT9872"}
    assert table == {"A": 6, "K": 5, "Q": 4, "J": 3, "T": 0, "9": 0, "8": 0, "7": 0, "2": 0}
    assert sum(POINTS[NO_TRUMP][c] for c in DECK) == 72


# ---- 3: the deal ----------------------------------------------------------------------------------------------------


def test_3_1_the_first_dealer_is_the_option_or_a_fair_draw() -> None:
    assert new(dealer=0, keep=False).dealer == 0
    assert engine.new_match(GAME, seed=4, options={"first_dealer": 1}).dealer == 1
    drawn = Counter(engine.new_match(GAME, seed=seed).dealer for seed in range(400))
    assert 160 < drawn[0] < 240, drawn  # 200 expected, sd 10
    assert engine.new_match(GAME, seed=9).dealer == Rng(9).below(2)


def test_3_2_the_deal_alternates() -> None:
    state = new(keep=False, target_score=150)
    engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=1))
    dealers = [r["dealer"] for r in state.deal_results]
    assert len(dealers) > 2 and dealers == [(1 + k) % 2 for k in range(len(dealers))]


@pytest.mark.parametrize("dealer", [0, 1])
def test_3_4_four_then_five_cards_each_the_non_dealer_first_the_rest_is_the_stock(dealer: int) -> None:
    state = new(dealer=dealer, keep=False)
    deck = state.deal_deck
    p = state.to_position()
    assert p["hands"][1 - dealer] == sorted_codes(deck[i] for i in NON_DEALER_CARDS)
    assert p["hands"][dealer] == sorted_codes(deck[i] for i in DEALER_CARDS)
    assert p["stock"] == [CODES[c] for c in deck[18:]]


def test_3_5_each_exchange_takes_the_next_nine_stock_cards_and_lays_the_hand_dead_in_view() -> None:
    state = new(keep=False)
    first = hand(state, 0)
    play(state, "redeal")
    assert state.observation(1)["dead"] == [[first], []]  # 3.5.1: shown to the opponent
    assert state.observation(1)["stock_size"] == 9
    play(state, "keep")
    assert state.current_player == 1 and state.legal_actions() == ["keep", "redeal"]  # 3.5.2: one left for the dealer
    play(state, "redeal")
    assert state.phase == "play" and state.stock_left() == 0  # 3.5.3: no decision with an empty stock


def test_3_5_2_after_a_keep_the_dealer_may_exchange_twice_then_the_play_begins() -> None:
    state = new(keep=False)
    deck = list(state.deal_deck)
    play(state, "keep")
    assert state.current_player == 1 and state.legal_actions() == ["keep", "redeal"]
    play(state, "redeal")
    assert state.current_player == 1 and state.legal_actions() == ["keep", "redeal"]
    play(state, "redeal")
    p = state.to_position()
    assert state.phase == "play" and state.current_player == 0 and p["stock"] == []  # 3.5.3: nothing left to ask
    assert p["dead"] == [[], [sorted_codes(deck[i] for i in DEALER_CARDS), sorted_codes(deck[18:27])]]
    assert p["hands"] == [sorted_codes(deck[i] for i in NON_DEALER_CARDS), sorted_codes(deck[27:36])]


def test_3_5_exchanges_come_before_any_declaration_which_the_new_hand_decides() -> None:
    state = new((["AC", "AD", "AH"], []), stock=["KC", "KD", "KH"], keep=False)
    assert state.legal_actions() == ["keep", "redeal"]  # no declaration while exchanging (6.3: on a turn to play)
    play(state, "redeal", "keep", "keep")
    assert {"KC", "KD", "KH"} <= set(hand(state, 0)) and state.dead[0][0][-3:] == parse_cards(["AC", "AD", "AH"])
    assert [a for a in state.legal_actions() if a.startswith("declare")] == ["declare:three:K"]


def test_3_5_the_unused_stock_stays_hidden_and_never_scores() -> None:
    state = new(keep=False)
    play(state, "keep", "keep")
    assert "stock" not in state.observation(0) and state.observation(0)["stock_size"] == 18
    engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=2))
    assert state.to_position()["stock"] == [CODES[c] for c in state.deal_deck[18:]]


def test_8_allow_redeal_false_skips_the_exchanges() -> None:
    state = new(keep=False, allow_redeal=False)
    assert state.phase == "play" and state.current_player == 0 and "redeal" not in state.legal_actions()


# ---- 5: play --------------------------------------------------------------------------------------------------------


def test_5_1_the_non_dealer_leads_and_the_winner_leads_next() -> None:
    state = new((["7C", "AD"], ["AC", "2D"]), dealer=1)
    assert state.current_player == 0
    play(state, "7C", "AC")
    assert state.current_player == 1


def test_5_2_follow_suit_else_anything() -> None:
    state = new((["7C"], ["AC", "KC", "2D", "AS"]))
    play(state, "7C")
    assert state.legal_actions() == ["AC", "KC"]


def test_5_5_the_stock_is_never_drawn_during_play() -> None:
    state = new()
    stock = state.to_position()["stock"]
    engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=4))
    assert state.to_position()["stock"] == stock and len(state.tricks) == 9


# ---- 6: declarations ------------------------------------------------------------------------------------------------


def test_6_1_set_values() -> None:
    assert {r: (v[3], v[4]) for r, v in SET_VALUES.items()} == {
        "A": (12, 24), "K": (6, 12), "Q": (6, 12), "J": (6, 12), "2": (10, 20)}
    held = engine.cards.mask_of(parse_cards(["TC", "TD", "TH", "TS", "9C", "9D", "9H"]))
    assert rank_sets(held, SET_VALUES) == []  # tens and nines are no sets


def test_6_3_declarations_on_ones_own_turn_once_per_rank_and_optional() -> None:
    state = new((["KC", "KD", "KH", "7S"], ["JC", "JD", "JH", "JS"]))
    assert state.legal_actions()[-1] == "declare:three:K"
    play(state, "declare:three:K")
    assert not any(a.startswith("declare") for a in state.legal_actions())  # K declared once
    play(state, "7S")
    assert state.legal_actions()[-1] == "declare:four:J"  # the opponent, on its turn
    with pytest.raises(engine.IllegalAction):
        state.apply("declare:three:J")  # 9.3: a four held is declared as a four
    play(state, "JS")  # not declaring is allowed; seat 1 wins the trick and holds three jacks now
    assert state.current_player == 1 and state.legal_actions()[-1] == "declare:three:J"


def test_6_4_hidden_ranks_are_revealed_when_the_deal_is_scored_and_public_with_the_option() -> None:
    for public in (False, True):
        state = new((["KC", "KD", "KH"], []), public_declaration_ranks=public)
        play(state, "declare:three:K")
        shown = state.observation(1)["history"][-1]
        assert shown == [0, "declare:three:K" if public else "declare:three"]
        assert state.observation(0)["history"][-1] == [0, "declare:three:K"]


def test_6_4_a_sample_for_the_opponent_may_give_a_hidden_set_another_rank() -> None:
    state = new((["KC", "KD", "KH"], []))
    play(state, "declare:three:K")
    ranks = set()
    for k in range(60):
        sample = engine.determinize(state, 1, Rng(k))
        assert sample.observation(1) == state.observation(1)
        seat, rank, size, _trick, _move = sample.declarations[0]
        assert (seat, size) == (0, 3) and sample.legal_actions()  # the sample's own moves were legal
        held = engine.cards.mask_of(parse_cards(sample.to_position()["hands"][0]))
        assert hidden_set_ranks([held], [3], "KQJ2") and rank in "KQJ2"
        ranks.add(rank)
    assert len(ranks) > 1


def test_8_declarations_false_offers_none_and_scores_none() -> None:
    state = new((["AC", "AD", "AH", "AS"], []), declarations=False)
    assert not any(a.startswith("declare") for a in state.legal_actions())


# ---- 7: scoring and the match ---------------------------------------------------------------------------------------


def test_7_1_a_deal_score_adds_up_from_its_parts() -> None:
    for seed in range(60):
        state = engine.new_match(GAME, seed=seed, options={"public_declaration_ranks": seed % 2 == 0})
        engine.bots.play_out(state, engine.bots.make_policies(["random", "greedy"], GAME, seed=seed))
        r = state.deal_results[0]
        played = [parse_card(c) for t in state.to_position()["tricks"] for _s, c in t]
        assert sum(r["card_points"]) == sum(POINTS[NO_TRUMP][c] for c in played)  # 7.1.1: the 18 cards played
        run = r["final_run"]
        assert sum(r["run_points"]) == 26 * run and sum(r["last_trick"]) == (0 if run else 6)  # 7.1.4, 7.1.5
        for seat in (0, 1):
            parts = (r["card_points"][seat] + r["declarations"][seat] + 10 * r["two_tricks"][seat]
                     + r["last_trick"][seat] + r["run_points"][seat])
            assert r["points"][seat] == parts
        winners = state.trick_winners()
        assert sum(r["two_tricks"]) == sum(two for _s, two in winners[:9 - run])  # 7.1.3: outside the run only
        assert all(two for _s, two in winners[9 - run:]) and (run == 9 or not winners[8 - run][1])


def test_7_1_5_a_final_run_of_three_twos_scores_78_and_no_last_trick() -> None:
    state = new((["AC", "KC", "QC", "JC", "AD", "KD", "2C", "2D", "2H"],
                 ["7C", "8C", "9C", "TC", "7D", "8D", "7S", "8S", "9S"]))
    play(state, "AC", "7C", "KC", "8C", "QC", "9C", "JC", "TC", "AD", "7D", "KD", "8D")
    play(state, "2C", "7S", "2D", "8S", "2H", "9S")  # seat 1 holds spades only: each 2 wins its trick
    result = state.deal_results[0]
    assert result["final_run"] == 3 and result["run_points"] == [78, 0] and result["last_trick"] == [0, 0]
    assert result["two_tricks"] == [0, 0] and result["card_points"] == [6 + 5 + 4 + 3 + 6 + 5, 0]
    assert result["points"] == [29 + 78, 0]


_TRAPPOLA_ORDER = "AKQJT9872"
_TRAPPOLA_POINTS = {"A": 6, "K": 5, "Q": 4, "J": 3}
_TRAPPOLA_SETS = {"A": (12, 24), "K": (6, 12), "Q": (6, 12), "J": (6, 12), "2": (10, 20)}


def _rules_text_legal(p: dict) -> list[str]:
    """3.5 and 5.2, 6.3 as the rules file writes them: keep or redeal; the cards that follow suit (else any) and the
    sets held, each rank not yet declared."""
    if p["phase"] == "exchange":
        return ["keep", "redeal"]
    seat = p["current_player"]
    held = p["hands"][seat]
    led = p["trick"][0][1][1] if p["trick"] else None
    cards = [c for c in held if c[1] == led] or held
    declared = [action.rsplit(":", 1)[1] for s, action, _trick in p["declarations"] if s == seat]
    sets = []
    for rank in _TRAPPOLA_SETS:
        count = sum(1 for c in held if c[0] == rank)
        if count >= 3 and rank not in declared and p["options"]["declarations"]:
            sets.append(f"declare:{'four' if count == 4 else 'three'}:{rank}")
    return sorted(cards + sets)


def _rules_text_score(tricks: list, declarations: list, leader: int) -> list[int]:
    """7.1 as the rules file writes it, from the nine tricks in play order and the declarations."""
    won = []  # (winner, won by a 2)
    score = [0, 0]
    for (first, led), (second, card) in tricks:
        assert first == leader
        if card[1] == led[1] and _TRAPPOLA_ORDER.index(card[0]) < _TRAPPOLA_ORDER.index(led[0]):
            won.append((second, False))
        else:
            won.append((first, led[0] == "2"))
        leader = won[-1][0]
        score[leader] += _TRAPPOLA_POINTS.get(led[0], 0) + _TRAPPOLA_POINTS.get(card[0], 0)
    run = 0
    while run < 9 and won[8 - run][1]:
        run += 1
    for seat, by_two in won[:9 - run]:
        score[seat] += 10 * by_two
    score[won[-1][0]] += 26 * run if run else 6
    for seat, action, _trick in declarations:
        _, size, rank = action.split(":")
        score[seat] += _TRAPPOLA_SETS[rank][size == "four"]
    return score


@pytest.mark.parametrize("options", [{}, {"target_score": 120}, {"allow_redeal": False, "declarations": False}])
def test_5_6_7_every_move_and_deal_score_of_random_matches_is_the_rules_texts(options: dict) -> None:
    for seed in range(8):
        play_checked(engine.new_match(GAME, seed=seed, options=options), seed, _rules_text_legal,
                     lambda tricks, p: _rules_text_score(tricks, p["declarations"], 1 - p["dealer"]))


def test_7_2_the_deal_reports_both_scores_and_the_difference() -> None:
    state = new()
    engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=8))
    result = state.deal_results[0]
    first, second = result["points"]
    assert result["difference"] == [first - second, second - first]
    assert sum(result["card_points"]) + sum(result["last_trick"]) + sum(result["run_points"]) >= 6


def test_7_3_a_single_deal_by_default_a_draw_on_equal_scores() -> None:
    for seed in range(40):
        state = engine.new_match(GAME, seed=seed)
        engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=seed))
        points = state.deal_results[0]["points"]
        assert state.deal_index == 0 and state.scores == points
        assert state.winners == [s for s in (0, 1) if points[s] == max(points)]


def test_7_3_with_a_target_deals_go_on_until_a_total_reaches_it_and_the_higher_wins() -> None:
    state = engine.new_match(GAME, seed=3, options={"target_score": 200})
    engine.bots.play_out(state, engine.bots.make_policies(["random", "random"], GAME, seed=3))
    totals = [0, 0]
    for k, result in enumerate(state.deal_results):
        totals = [t + p for t, p in zip(totals, result["points"], strict=True)]
        assert (max(totals) >= 200 and totals[0] != totals[1]) == (k == len(state.deal_results) - 1)
    assert state.scores == totals and state.winners == [totals.index(max(totals))]


def test_the_longest_match_is_declared() -> None:
    assert engine.game_length(GAME, 2).deals == 1 and engine.game_length(GAME, 2).moves_per_deal == 27
    assert engine.game_length(GAME, 2, {"target_score": 300}).deals == 110


# ---- positions -----------------------------------------------------------------------------------------------------


def test_the_documented_position_loads() -> None:
    state = documented_example(GAME)
    assert state.legal_actions()


def _position_after(*actions: str, hands=EXAMPLE_10) -> dict:
    state = new(hands)
    play(state, *actions)
    return state.to_position()


@pytest.mark.parametrize(("change", "match"), [
    (lambda p: p["declarations"].append([1, "declare:three:A", 1]), "not to play|did not hold"),
    (lambda p: p["declarations"].__setitem__(0, [0, "declare:four:A", 0]), "did not hold"),
    (lambda p: p["declarations"].append([0, "declare:three:A", 0]), "twice"),
    (lambda p: p["declarations"].__setitem__(0, [0, "declare:three:A", 2]), "did not hold"),
    (lambda p: p["declarations"].__setitem__(0, [0, "declare:three:A", 3]), "trick"),
    (lambda p: p["exchanges"].append([1, "keep"]), "exchanges"),
    (lambda p: p["exchanges"].__setitem__(0, [0, "redeal"]), "hands|dead|stock|missing"),
    (lambda p: p["dead"][0].append(p["stock"][:9]), "twice|dead"),
    (lambda p: p.__setitem__("phase", "exchange"), "exchanges are over"),
    (lambda p: p["declarations"].__setitem__(0, [0, "keep", 0]), "declare"),
])
def test_positions_that_the_rules_cannot_reach_are_refused(change, match: str) -> None:
    position = _position_after("declare:three:A", "AC", "KC", "QC", "JC", "2D")
    assert engine.from_position(GAME, position).to_position() == position
    change(position)
    with pytest.raises(engine.PositionError, match=match):
        engine.from_position(GAME, position)


def test_a_position_in_the_exchanges_round_trips_and_refuses_a_card_played() -> None:
    state = new(keep=False)
    play(state, "redeal")
    position = state.to_position()
    assert engine.from_position(GAME, position).to_position() == position
    position["trick"] = [[0, position["hands"][0][0]]]
    position["hands"][0] = position["hands"][0][1:]
    with pytest.raises(engine.PositionError, match="exchange"):
        engine.from_position(GAME, position)


@pytest.mark.parametrize("keeps", [0, 1])
def test_6_3_a_position_in_the_exchanges_may_list_no_declaration(keeps: int) -> None:
    # 6.3: sets are declared on a turn to play, so none while a seat may still exchange (3.5). Accepted, the dealer's
    # three aces here would score 12 after the hand holding them went dead on a redeal.
    state = new((["KC", "KD", "KH"], ["AC", "AD", "AH"]), keep=False)
    play(state, *["keep"] * keeps)
    seat = state.current_player
    position = state.to_position()
    assert position["phase"] == "exchange" and engine.from_position(GAME, position).to_position() == position
    position["declarations"] = [[seat, ["declare:three:K", "declare:three:A"][seat], 0]]
    with pytest.raises(engine.PositionError, match="not to play"):
        engine.from_position(GAME, position)


def test_declarations_are_listed_in_the_order_made() -> None:
    state = new((["KC", "KD", "KH", "7S"], ["JC", "JD", "JH"]))
    play(state, "declare:three:K", "7S", "declare:three:J")
    position = state.to_position()
    assert position["declarations"] == [[0, "declare:three:K", 0], [1, "declare:three:J", 0]]
    assert engine.from_position(GAME, position).to_position() == position
    position["declarations"].reverse()
    with pytest.raises(engine.PositionError, match="in the order made"):
        engine.from_position(GAME, position)


# ---- greedy (engine/games/trappola/greedy.py) ------------------------------------------------------------------------


def _greedy(**obs) -> str:
    base = {"game": GAME, "phase": "play", "seat": 0, "trick": [], "tricks": [], "dead": [[], []]}
    return engine.bots.make_policy("greedy", GAME, 0, 1)({**base, **obs})


def test_greedy_declares_first_and_leads_a_two_where_the_opponent_is_void() -> None:
    hand = ["2C", "9D", "AH", "AD", "AS"]
    assert _greedy(legal_actions=[*hand, "declare:three:A"], hand=hand) == "declare:three:A"
    void_in_clubs = [[[0, "KC"], [1, "7D"]]]
    assert _greedy(legal_actions=hand, hand=hand, tricks=void_in_clubs) == "2C"


def test_greedy_leads_a_sure_winner_with_points_else_a_cheap_card() -> None:
    assert _greedy(legal_actions=["9D", "AH", "KS"], hand=["9D", "AH", "KS"]) == "AH"
    assert _greedy(legal_actions=["9D", "KS", "2C"], hand=["9D", "KS", "2C"]) == "9D"


def test_greedy_wins_a_trick_with_points_cheaply_and_ducks_an_empty_one() -> None:
    assert _greedy(legal_actions=["7C", "KC", "AC"], hand=["7C", "KC", "AC"], trick=[[1, "JC"]]) == "KC"
    assert _greedy(legal_actions=["7C", "KC", "AC"], hand=["7C", "KC", "AC"], trick=[[1, "8C"]]) == "7C"
    assert _greedy(legal_actions=["2S", "9D", "QH"], hand=["2S", "9D", "QH"], trick=[[1, "8C"]]) == "9D"


def test_greedy_redeals_a_poor_hand_and_keeps_a_rich_one() -> None:
    poor = ["7C", "8C", "9C", "TC", "7D", "8D", "9D", "7H", "8H"]
    rich = ["AC", "AD", "AH", "KC", "KD", "QH", "2S", "JS", "7H"]
    for hand, choice in ((poor, "redeal"), (rich, "keep")):
        assert _greedy(phase="exchange", legal_actions=["keep", "redeal"], hand=hand) == choice


# ---- sections 4, 5.3 and 5.4 by number ------------------------------------------------------------------------------


def test_4_no_auction_and_no_trump_the_exchanges_lead_straight_to_the_play() -> None:
    state = new(keep=False)
    assert state.phase == "exchange" and state.observation(0)["trump"] is None
    play(state, "keep", "keep")
    assert state.phase == "play" and state.current_player == 0 and state.to_position()["trump"] is None


def test_5_3_only_the_highest_card_of_the_led_suit_wins_another_suit_never() -> None:
    state = new((["7H", "AS"], ["AC", "KC"]))  # seat 1 holds no heart
    play(state, "7H", "AC")
    assert state.trick_winners() == [(0, False)] and state.current_player == 0
    assert trick_winner(parse_cards(["8S", "AC"]), NO_TRUMP, RANKING) == 0


def test_5_4_the_winner_takes_both_cards_and_their_points() -> None:
    state = new((["KH", "7S"], ["QH", "8S"]))
    play(state, "KH", "QH")
    assert state.trick_winners() == [(0, False)] and state.card_points == [9, 0]
    assert state.observation(1)["tricks"] == [[[0, "KH"], [1, "QH"]]]
