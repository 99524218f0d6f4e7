"""Thunee: every worked example of shared/rules/thunee.md (section 11) and at least one test per rule, by section."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from rules_text import play_checked

import engine
from engine.cards import SUIT, parse_card, parse_cards
from engine.errors import IllegalAction, PositionError
from engine.games.thunee import CALLS, CARD_POINTS, JODI, POINTS, RANKINGS, Thunee, hand_points
from engine.games.thunee.rules import RaiseForRight, marriages
from engine.rng import Rng
from engine.tricks import NO_TRUMP, trick_winner

GAME = "thunee"

# A deal with dealer 0 (first round 4 cards each, then 2): seat 1, the default trumper, lays 9H; nobody may redeal.
HANDS = {
    1: ["9H", "AH", "TH", "9C", "AD", "TD"],
    2: ["JH", "KH", "QH", "KC", "QC", "JS"],
    3: ["JD", "9D", "KD", "QD", "AC", "TC"],
    0: ["JC", "AS", "TS", "KS", "QS", "9S"],
}
# Six players: one rank each (seat 1 the nines ... seat 0 the tens), 3 first-round cards and a fourth.
HANDS6 = {
    1: ["9S", "9C", "9D", "9H"],
    2: ["AS", "AC", "AD", "AH"],
    3: ["JS", "JC", "JD", "JH"],
    4: ["KS", "KC", "KD", "KH"],
    5: ["QS", "QC", "QD", "QH"],
    0: ["TS", "TC", "TD", "TH"],
}


def deck_for(hands: dict[int, Sequence[str]], dealer: int = 0) -> list[str]:
    """The deck that deals ``hands`` (first-round cards first): deck card k to seat dealer + 1 + k (3.3, 3.6)."""
    n = len(hands)
    return [hands[(dealer + 1 + k) % n][k // n] for k in range(24)]


def new(hands: dict[int, Sequence[str]] | None = None, dealer: int = 0, seed: int = 1, **options: object) -> Thunee:
    hands = HANDS if hands is None else hands
    state = engine.new_match(GAME, seed=seed, players=len(hands), options=options, first_dealer=dealer,
                             deck=deck_for(hands, dealer))
    assert isinstance(state, Thunee)
    return state


def act(state: engine.State, *moves: tuple[int, str]) -> None:
    """Play ``(seat, action)`` moves, checking each seat is the one to act."""
    for seat, action in moves:
        assert state.current_player == seat, f"seat {state.current_player} to act, not {seat} ({action})"
        state.apply(action)


def hand(state: engine.State, seat: int) -> list[str]:
    return state.to_position()["hands"][seat]


CALLED_OFF = [(2, "pass"), (0, "pass")]  # 4.3: nobody calls; seat 1 keeps the right
ALL_PASS = [(1, "pass"), (2, "pass"), (3, "pass"), (0, "pass")]  # 6.4.1: no special call


def to_play(**options: object) -> Thunee:
    """HANDS at the first lead: no call, trump 9H face down, nobody calls thunee."""
    state = new(**options)
    act(state, *CALLED_OFF, (1, "trump:9H"), *ALL_PASS)
    return state


# ---- 1 identity --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 6])
def test_1_2_teams_are_seats_mod_2(players: int) -> None:
    state = engine.new_match(GAME, seed=3, players=players)
    assert state.side_of == tuple(s % 2 for s in range(players))
    assert engine.game_info(GAME).player_counts == (4, 6)


def test_1_3_the_deck_is_24_cards_nine_to_ace() -> None:
    state = new()
    assert sorted(state.deal_deck) == sorted(parse_cards(f"{r}{s}" for s in "CDHS" for r in "9TJQKA"))


def test_1_5_the_match_is_won_at_the_target_in_balls() -> None:
    state = engine.new_match(GAME, seed=5, options={"target_balls": 3})
    rng = Rng(5)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    top = max(state.scores)
    assert top >= 3 and state.winners == [s for s in range(4) if state.scores[s] == top]
    assert all(min(r["points"]) == 0 for r in state.deal_results)  # one team scores a deal (or none)


# ---- 2 cards: ranking and points ---------------------------------------------------------------------------------


def test_2_1_ranking_and_points_and_example_11_1_the_total() -> None:
    ranks = sorted("9TJQKA", key=lambda r: -RANKINGS["normal"].power[NO_TRUMP][parse_card(r + "S")])
    assert "".join(ranks) == "J9ATKQ"
    assert [CARD_POINTS[parse_card(r + "S")] for r in "J9ATKQ"] == [30, 20, 11, 10, 3, 2]
    deck = parse_cards(f"{r}{s}" for s in "CDHS" for r in "9TJQKA")
    assert sum(CARD_POINTS[c] for c in deck) == 304
    assert sum(CARD_POINTS[c] for c in deck) + 10 == 314  # 2.3: with the last trick
    assert all(POINTS[t] == POINTS[NO_TRUMP] for t in range(4))  # the same points whatever the trump


def test_11_2_trick_winner_without_trump() -> None:
    cards = parse_cards(["AS", "KS", "JS", "QS"])  # seats 1, 2, 3, 0
    assert trick_winner(cards, SUIT[parse_card("9H")], RANKINGS["normal"]) == 2  # seat 3's JS


def test_11_3_the_lowest_trump_beats_any_plain_card() -> None:
    cards = parse_cards(["TS", "9S", "QD", "JS"])  # seats 0, 1, 2, 3
    assert trick_winner(cards, SUIT[parse_card("9D")], RANKINGS["normal"]) == 2  # seat 2's QD


def test_2_4_royals_reverse_the_ranking() -> None:
    ranks = sorted("9TJQKA", key=lambda r: -RANKINGS["royals"].power[NO_TRUMP][parse_card(r + "S")])
    assert "".join(ranks) == "QKTA9J"


# ---- 3 deal ------------------------------------------------------------------------------------------------------


def test_3_1_the_first_black_jack_deals() -> None:
    for seed in range(20):
        state = engine.new_match(GAME, seed=seed)
        pack = [parse_card(c) for c in ("9C", "TC", "JC", "QC", "KC", "AC", "9D", "TD", "JD", "QD", "KD", "AD",
                                        "9H", "TH", "JH", "QH", "KH", "AH", "9S", "TS", "JS", "QS", "KS", "AS")]
        rng = Rng(seed)
        rng.shuffle(pack)
        first = next(k for k, c in enumerate(pack) if c in parse_cards(["JC", "JS"]))
        assert state.dealer == first % 4
    assert engine.new_match(GAME, seed=1, first_dealer=2).dealer == 2  # option first_dealer


@pytest.mark.parametrize("dealer", [0, 2])
def test_3_3_and_3_6_the_two_rounds_of_dealing(dealer: int) -> None:
    state = new(dealer=dealer, hands={(s + dealer) % 4: HANDS[s] for s in range(4)})
    deck = state.to_position()["deal_deck"]
    for seat in range(4):
        assert hand(state, seat) == sorted((deck[k] for k in range(16) if (dealer + 1 + k) % 4 == seat), key=parse_card)
    assert state.to_position()["stock"] == deck[16:]
    act(state, ((dealer + 2) % 4, "pass"), (dealer, "pass"))
    trumper = (dealer + 1) % 4
    act(state, (trumper, "trump:9H"))
    for seat in range(4):
        dealt = {deck[k] for k in range(24) if (dealer + 1 + k) % 4 == seat}
        assert set(hand(state, seat)) == dealt - ({"9H"} if seat == trumper else set())
    assert state.to_position()["stock"] == []


def test_3_4_a_weak_hand_may_ask_a_redeal_in_order() -> None:
    weak = {1: ["QH", "QS", "KD", "QC", "9H", "AH"], 2: ["JH", "KH", "TH", "KC", "QD", "JS"],
            3: ["JD", "9D", "AD", "TD", "AC", "TC"], 0: ["JC", "AS", "TS", "KS", "9S", "9C"]}
    assert hand_points(0x0) == 0 and hand_points(sum(1 << parse_card(c) for c in weak[1][:4])) == 9
    state = new(weak)
    assert (state.phase, state.current_player, state.legal_actions()) == ("redeal", 1, ["keep", "redeal"])
    deck = state.deal_deck
    act(state, (1, "redeal"))  # the deal ends at once: no score, same dealer, a new shuffle
    assert state.dealer == 0 and state.scores == [0] * 4 and state.deal_index == 0 and state.deal_deck != deck
    assert state.to_position()["redealt"] == 1
    kept = new(weak)
    act(kept, (1, "keep"))
    assert kept.phase == "calling"  # the other hands hold more than 10 points: not asked
    assert new(weak, redeal_max_points=8).phase == "calling"  # option: only 8 or fewer may ask


def test_3_8_and_11_12_dealer_rotation() -> None:
    state = new()
    state.side_scores, state.dealer = [5, 5], 2
    assert state._next_dealer() == 3  # 5 >= 5: the deal passes on
    state.side_scores = [4, 5]
    assert state._next_dealer() == 2  # the dealer's team is behind: he deals again


# ---- 4 calling -----------------------------------------------------------------------------------------------------


def test_11_5_calling() -> None:
    state = new()
    assert (state.phase, state.current_player) == ("calling", 2)
    act(state, (2, "call:10"), (3, "call:20"), (0, "pass"), (2, "pass"))
    position = state.to_position()
    assert (state.phase, state.current_player, position["trumper"], position["call"]) == ("trump", 3, 3, 20)
    assert 1 not in [s for s, _a in state.history]  # seat 1 never acts


def test_11_6_calling_to_104_ends_at_once() -> None:
    calling = RaiseForRight(CALLS, (0, 1, 0, 1), holder=1, passes_to_end=2)
    for call in CALLS[:-1]:
        assert calling.legal_words() == ["pass", f"call:{call}"]
        calling.apply(f"call:{call}")
    assert calling.legal_words() == ["pass", "call:104"] and not calling.over
    calling.apply("call:104")
    assert calling.over and calling.call == 104


def test_4_2_call_jump_allows_any_higher_call() -> None:
    state = new(call_jump=True)
    assert state.legal_actions() == sorted(["pass", *(f"call:{c}" for c in CALLS)])
    act(state, (2, "call:100"))
    assert state.legal_actions() == ["call:104", "pass"]
    assert new().legal_actions() == ["call:10", "pass"]


def test_4_3_six_players_three_passes_end_the_calling() -> None:
    state = new(HANDS6, redeal_max_points=0, six_trip=False)
    act(state, (2, "pass"), (4, "pass"), (0, "pass"))
    assert (state.phase, state.current_player) == ("trump", 1)


def test_4_5_the_trumper_lays_a_card_of_his_first_four() -> None:
    state = new()
    act(state, *CALLED_OFF)
    assert state.legal_actions() == ["trump:9C", "trump:9H", "trump:AH", "trump:TH"]
    with pytest.raises(IllegalAction):
        state.apply("trump:last")  # only with the option
    act(state, (1, "trump:9H"))
    assert state.to_position()["trump_card"] == "9H" and "9H" not in hand(state, 1)


def test_8_1_last_card_trump_takes_the_last_card_dealt_to_the_trumper() -> None:
    state = new(last_card_trump=True)
    act(state, *CALLED_OFF, (1, "trump:last"))
    position = state.to_position()
    assert position["trump_card"] == "TD" and position["trump"] == "D"  # seat 1's sixth card
    assert state.observation(1)["trump"] is None  # nobody has seen it
    assert state.observation(1)["trump_card"] is None


# ---- 5 play ------------------------------------------------------------------------------------------------------


def test_5_2_and_5_3_the_trumpers_right_leads_and_the_trump_card_turns_up() -> None:
    state = to_play()
    assert (state.phase, state.current_player) == ("play", 2)
    assert state.observation(0)["trump"] is None and state.observation(1)["trump"] == "H"
    assert state.observation(1)["trump_card"] == "9H" and state.observation(0)["trump_card"] is None
    assert [1, "trump"] in state.observation(0)["history"] and [1, "trump:9H"] in state.observation(1)["history"]
    act(state, (2, "JS"))
    assert state.observation(0)["trump"] == "H" and "9H" in hand(state, 1)
    assert "9H" in state.observation(0)["known_cards"]


def test_11_4_legal_cards_follow_suit_with_no_need_to_trump() -> None:
    state = to_play()
    act(state, (2, "JS"))
    assert state.legal_actions() == ["9D", "AC", "JD", "KD", "QD", "TC"]  # void in spades: anything, no need to trump
    act(state, (3, "AC"))
    assert state.legal_actions() == ["9S", "AS", "KS", "QS", "TS"]  # spades held: follow


def test_5_9_a_deal_without_trumps_in_the_counting_team_is_void() -> None:
    hands = {1: ["9H", "AH", "TH", "JH", "AD", "TD"], 2: ["QS", "KC", "QC", "JS", "9D", "KD"],
             3: ["KH", "QH", "JD", "QD", "AC", "TC"], 0: ["JC", "AS", "TS", "KS", "9S", "9C"]}
    state = new(hands)
    act(state, *CALLED_OFF, (1, "trump:9H"), *ALL_PASS)
    assert state.deal_results[-1]["contract"] == "void" and state.scores == [0] * 4
    assert state.dealer == 0 and state.deal_index == 1  # the same dealer deals again


# ---- 6 calls during the deal -------------------------------------------------------------------------------------


def test_11_10_jodi_after_trick_1() -> None:
    state = to_play()
    act(state, (2, "JS"), (3, "AC"), (0, "AS"), (1, "9C"))
    assert (state.phase, state.current_player) == ("jodi", 2)  # seat 2 won: he, then his partner
    assert state.legal_actions() == ["jodi:JH,QH,KH", "jodi:QC,KC", "jodi:QH,KH", "pass"]
    act(state, (2, "jodi:JH,QH,KH"), (2, "jodi:QC,KC"))
    assert state.legal_actions() == ["pass"]  # a card is used once: no QH,KH after JH,QH,KH
    act(state, (2, "pass"), (0, "pass"))
    assert (state.phase, state.current_player) == ("play", 2)
    assert [j[1] for j in state.to_position()["jodi"]] == ["jodi:JH,QH,KH", "jodi:QC,KC"]
    held = sum(1 << parse_card(c) for c in ["JH", "KH", "QH", "KC", "QC"])
    assert [(m.code(), m.value) for m in marriages(held, SUIT[parse_card("9H")], JODI)] == [
        ("QC,KC", 20), ("QH,KH", 40), ("JH,QH,KH", 50)]
    assert state.counting_total() == 72 + 70  # trick 1 (JS AC AS 9C) and the jodi for the counting team {0,2}
    assert state.observation(1)["known_cards"] == ["QC", "KC", "JH", "QH", "KH"]  # shown, still in seat 2's hand


def test_6_1_a_jodi_may_use_the_card_played_to_the_trick_won() -> None:
    state = to_play()
    act(state, (2, "KC"), (3, "TC"), (0, "JC"), (1, "9C"))  # seat 0's jack wins for team {0,2}
    act(state, (0, "pass"))
    assert state.legal_actions() == ["jodi:JH,QH,KH", "jodi:QC,KC", "jodi:QH,KH", "pass"]  # KC from the trick


def test_6_1_no_jodi_window_for_the_losing_team_nor_after_trick_2() -> None:
    state = to_play()
    act(state, (2, "JS"), (3, "AC"), (0, "AS"), (1, "9H"))  # seat 1 trumps: team {1,3} won
    assert (state.phase, state.current_player) == ("jodi", 1)
    act(state, (1, "pass"))
    assert state.legal_actions() == ["jodi:JD,QD,KD", "jodi:QD,KD", "pass"]  # 6.1.2: the partner may call too
    act(state, (3, "jodi:QD,KD"), (3, "pass"))
    assert state.jodis[-1][2] == 20 and state.counting_total() == 0 - 20  # a plain jodi of the trumping team
    assert state.phase == "play" and state.current_player == 1
    act(state, (1, "AH"), (2, "JH"), (3, "9D"), (0, "9S"))  # trick 2 to seat 2: no window
    assert (state.phase, state.current_player) == ("play", 2)


def test_6_1_2_a_jodi_window_after_trick_3_and_none_after_tricks_4_and_5() -> None:
    state = to_play()
    act(state, (2, "JS"), (3, "AC"), (0, "AS"), (1, "9C"), (2, "pass"), (0, "pass"))  # trick 1 to seat 2
    act(state, (2, "KC"), (3, "TC"), (0, "JC"), (1, "AD"))  # trick 2 to seat 0: no window
    act(state, (0, "9S"), (1, "TD"), (2, "QC"), (3, "QD"))  # trick 3 to seat 0: he, then his partner
    assert (state.phase, state.current_player, state.legal_actions()) == ("jodi", 0, ["jodi:QS,KS", "pass"])
    act(state, (0, "pass"), (2, "jodi:JH,QH,KH"), (2, "pass"))
    assert state.jodis == [(2, tuple(parse_cards(["JH", "QH", "KH"])), 50, 3)]
    act(state, (0, "TS"), (1, "TH"), (2, "KH"), (3, "KD"))  # trick 4 to seat 1 (TH over KH): no window
    assert (state.phase, state.current_player) == ("play", 1)
    act(state, (1, "AH"), (2, "JH"), (3, "9D"), (0, "KS"))  # trick 5 to seat 2: no window; tricks split, no double
    assert (state.phase, state.current_player, state.legal_actions()) == ("play", 2, ["QH", "kanak"])


def test_11_7_to_11_9_normal_scoring() -> None:
    state = to_play()
    state.trumper, state.leader = 1, 0  # counting team {0,2}; seat 0 won trick 6
    state.tricks = [[]] * 6  # the deal is played out
    state.card_points, state.call = [98, 206], 0
    assert state.counting_total() == 108 and state.deal_result()[0] == [1, 0]  # 11.7
    state.card_points, state.call, state.leader = [70, 234], 40, 1
    assert state.counting_total() == 110 and state.deal_result()[0] == [2, 0]  # 11.8: 2 balls after a call
    state.card_points, state.call = [80, 224], 30
    state.jodis = [(1, tuple(parse_cards(["QC", "KC"])), 20, 1)]
    assert state.counting_total() == 90 and state.deal_result()[0] == [0, 1]  # 11.9


def test_7_2_a_played_deal_is_scored_from_its_tricks() -> None:
    checked = 0
    for seed in range(40):
        state = engine.new_match(GAME, seed=seed, options={"royals": False})
        rng = Rng(seed)
        while not state.deal_results:
            legal = [a for a in state.legal_actions() if a not in ("thunee", "kanak", "double")]
            before = state.clone()
            state.apply(rng.choice(legal))
        result = state.deal_results[-1]
        if result["contract"] != "normal":
            continue
        assert isinstance(before, Thunee)
        assert before.trumper is not None
        counting = 1 - before.trumper % 2
        last = 10 if result["last_trick"] == counting else 0
        total = result["card_points"][counting] + last + result["call"] + result["jodi"][counting] - \
            result["jodi"][1 - counting]
        assert result["counting"] == counting and sum(result["card_points"]) == 304
        assert result["made"] == (total >= 105)
        winner, balls = (counting, 2 if result["call"] else 1) if total >= 105 else (1 - counting, 1)
        assert result["points"][winner] == balls and result["points"][1 - winner] == 0
        checked += 1
    assert checked > 5


def test_6_2_double_after_winning_five_tricks() -> None:
    state = to_play()
    state.tricks_won = [0, 5]
    state.tricks = [[]] * 5
    state.leader = 1
    state._resume_play()
    assert (state.phase, state.current_player, state.legal_actions()) == ("double", 1, ["double", "pass"])
    state.apply("double")
    assert state.doubler == 1 and state.phase == "play" and "kanak" not in state.legal_actions()
    state.tricks = [[]] * 6
    assert state.deal_result()[0] == [0, 2]  # he wins trick 6 himself
    state.leader = 3
    assert state.deal_result()[0] == [4, 0]  # his partner does: a failure


def test_11_11_kanak() -> None:
    state = to_play()
    state.trumper, state.call = 0, 0  # trumping team {0,2}
    won = [(2, "QH"), (3, "QS"), (0, "KD"), (1, "QC")]  # 9 card points, team {0,2}'s only trick (trick 2)
    tricks = [[(1, "AS")], won, [(2, "JS")], [(1, "JH")], [(1, "JD")], [(1, "JC")]]
    state.tricks = [[(s, parse_card(c)) for s, c in t] for t in tricks]  # each trick's leader won the one before
    state.tricks_won, state.leader, state.kanak = [1, 5], 1, 1
    state.jodis = [(3, tuple(parse_cards(["QD", "KD"])), 20, 1)]
    assert state.kanak_made() and state.deal_result()[0] == [0, 3]
    state.leader = 3  # his partner took trick 6: a failure
    assert not state.kanak_made() and state.deal_result()[0] == [4, 0]


def test_6_3_kanak_is_called_in_the_last_trick_before_a_card() -> None:
    state = to_play()
    assert "kanak" not in state.legal_actions()
    state.tricks, state._legal = [[]] * 5, None  # the last trick
    assert "kanak" in state.legal_actions()
    state.apply("kanak")
    assert state.kanak == 2 and "kanak" not in state.legal_actions() and state.current_player == 2


def test_6_4_thunee_the_caller_leads_names_trump_and_must_win_every_trick() -> None:
    state = new()
    act(state, *CALLED_OFF, (1, "trump:9H"), (1, "pass"))
    assert state.legal_actions() == ["pass", "royals", "thunee"]
    act(state, (2, "thunee"))
    assert (state.phase, state.current_player, state.to_position()["trump_card"]) == ("play", 2, None)
    assert "9H" in hand(state, 1)  # the trump card went back
    act(state, (2, "JH"))
    assert state.to_position()["trump"] == "H"  # the suit of his first card
    act(state, (3, "AC"), (0, "9S"), (1, "9H"))  # seat 1's 9H beats nothing: JH is highest
    assert state.current_player == 2
    act(state, (2, "JS"), (3, "TC"), (0, "AS"), (1, "AH"))  # seat 1 trumps: play stops, thunee lost
    assert state.deal_results[-1]["contract"] == "thunee" and state.scores[1] == 4
    assert not state.deal_results[-1]["made"]


def test_6_5_royals_balls_and_option() -> None:
    state = new(royals_balls=5)
    act(state, *CALLED_OFF, (1, "trump:9H"), (1, "royals"))
    assert state.RULES.ranking is RANKINGS["royals"] and state.current_player == 1
    act(state, (1, "9C"), (2, "QC"))  # royals: Q > K > T > A > 9 > J
    act(state, (3, "TC"), (0, "JC"))
    assert state.deal_results[-1]["contract"] == "royals" and state.scores[0] == 5  # seat 2's QC won the trick
    no_royals = new(royals=False)
    act(no_royals, *CALLED_OFF, (1, "trump:9H"))
    assert no_royals.legal_actions() == ["pass", "thunee"]


def test_6_1_6_no_jodi_in_a_thunee_deal() -> None:
    state = new(thunee_balls=3)
    act(state, *CALLED_OFF, (1, "trump:9H"), (1, "pass"), (2, "thunee"), (2, "KH"), (3, "AC"), (0, "9S"),
        (1, "9H"))
    # seat 1's 9H took the trick (hearts led): the thunee is lost, 3 balls; no jodi window came
    assert state.deal_results[-1]["jodi"] == [0, 0] and state.scores[1] == 3


# ---- 8.2 six players -------------------------------------------------------------------------------------------


def test_8_2_1_six_players_deal_three_then_one() -> None:
    state = new(HANDS6, redeal_max_points=0)
    for seat in range(6):
        assert sorted(hand(state, seat)) == sorted(HANDS6[seat][:3])
    assert (state.phase, state.current_player, state.legal_actions()) == ("trip", 0, ["pass", "trip"])


def test_8_2_2_trip() -> None:
    state = new(HANDS6, redeal_max_points=0)
    act(state, (0, "trip"))
    assert (state.phase, state.current_player, state.to_position()["trump"]) == ("play", 0, None)
    assert all(len(hand(state, s)) == 4 for s in range(6))
    for suit in "SCD":  # 9 = A = T in tricks 1..3: the dealer's ten, played first, wins
        act(state, *[((k) % 6, HANDS6[k % 6][0 if suit == "S" else 1 if suit == "C" else 2]) for k in range(6)])
        assert state.current_player == 0
    act(state, *[(k % 6, HANDS6[k % 6][3]) for k in range(6)])  # trick 4: normal order, seat 3's JH
    assert state.deal_results[-1]["contract"] == "trip" and state.scores[1] == 6


def test_8_2_3_mooney() -> None:
    hands = {1: ["9C", "9D", "JC", "9H"], 2: ["AC", "AD", "JD", "AH"], 3: ["JS", "9S", "AS", "TS"],
             4: ["KS", "KC", "KD", "KH"], 5: ["QS", "QC", "QD", "QH"], 0: ["TC", "TD", "JH", "TH"]}
    state = new(hands, redeal_max_points=0, six_trip=False)
    act(state, (2, "pass"), (4, "pass"), (0, "pass"), (1, "trump:9C"), (1, "pass"), (2, "pass"))
    assert state.legal_actions() == ["mooney", "pass", "royals", "thunee"]
    act(state, (3, "mooney"))
    assert state.to_position()["trump"] == "S" and state.current_player == 3
    act(state, (3, "JS"))  # the caller leads; his opponents hold spades (KS): not void
    assert state.phase == "play" and state.current_player == 4
    off = new(hands, redeal_max_points=0, six_trip=False, six_mooney=False)
    act(off, (2, "pass"), (4, "pass"), (0, "pass"), (1, "trump:9C"), (1, "pass"), (2, "pass"))
    assert off.legal_actions() == ["pass", "royals", "thunee"]  # option six_mooney off


# ---- 7.4 and positions --------------------------------------------------------------------------------------------


def test_positions_replay_the_deal_actions() -> None:
    state = to_play()
    act(state, (2, "JS"))
    position = state.to_position()
    assert engine.from_position(GAME, json.loads(json.dumps(position))).to_position() == position
    bad = dict(position, deal_actions=position["deal_actions"][:-1])
    with pytest.raises(PositionError):
        engine.from_position(GAME, bad)
    wrong = dict(position, call=10)
    with pytest.raises(PositionError, match="call"):
        engine.from_position(GAME, wrong)


# Six players: seat 2 holds JH 9H AH TH (mooney in hearts); seats 4 and 5 are asked about a redeal (3 kings, 3 queens).
MOONEY6 = {1: ["9S", "9C", "9D", "QH"], 2: ["JH", "9H", "AH", "TH"], 3: ["JS", "JC", "JD", "KH"],
           4: ["KS", "KC", "KD", "AS"], 5: ["QS", "QC", "QD", "AC"], 0: ["TS", "TC", "TD", "AD"]}


def test_determinize_never_keeps_the_real_deal_for_want_of_a_consistent_one() -> None:
    # Seat 2 called mooney and led 9H: a sample must give him the rest of hearts with JH (8.2.3), seats 4 and 5 a
    # first round of at most 10 points (3.4), the others more, and the opponents hearts (5.9). Few redeals of the
    # unseen cards do, so samples also come from a walk from the real deal: it must not favour the real deal.
    state = new(MOONEY6, six_trip=False)
    act(state, (4, "keep"), (5, "keep"), (2, "pass"), (4, "pass"), (0, "pass"), (1, "trump:9S"),
        (1, "pass"), (2, "mooney"), (2, "9H"))
    seat, runs = 3, 120
    real = [hand(state, s) for s in range(6) if s != seat]
    seen, rng, deals = state.observation(seat), Rng(17), []
    for _ in range(runs):
        sample = engine.determinize(state, seat, rng)
        assert sample.observation(seat) == seen
        position = sample.to_position()
        # from_position deals deal_deck again and replays deal_actions, each checked legal, then every key
        assert engine.from_position(GAME, position).to_position() == position
        hands = [position["hands"][s] for s in range(6) if s != seat]
        caller = position["hands"][2]
        assert set(caller) <= {"JH", "AH", "TH", "QH"} and "JH" in caller  # seat 2: mooney in hearts
        deals.append(json.dumps(hands, sort_keys=True))
    distinct = len(set(deals))
    chance = runs / distinct  # the real deal is one of at least ``distinct`` equally likely deals
    assert distinct > runs // 2, distinct
    assert deals.count(json.dumps(real, sort_keys=True)) <= chance + 3 * chance ** 0.5 + 1


@pytest.mark.parametrize(("partner_won", "balls"), [(None, [0, 4]), (True, [4, 0]), (False, [8, 0])])
def test_8_2_3_mooney_balls(partner_won: bool | None, balls: list[int]) -> None:
    state = new(HANDS6, redeal_max_points=0)
    state.contract, state.caller = "mooney", 3
    state.tricks = [[]] * (4 if partner_won is None else 2)
    state.leader = 3 if partner_won is None else 5 if partner_won else 0
    assert state.deal_result()[0] == balls


@pytest.mark.parametrize(("contract", "option", "stake"),
                         [("thunee", "thunee_balls", 4), ("royals", "royals_balls", 8)])
def test_6_4_3_and_6_5_2_a_lone_call_made(contract: str, option: str, stake: int) -> None:
    state = to_play()
    assert state.options[option] == stake
    state.contract, state.caller, state.tricks, state.leader = contract, 2, [[]] * 6, 2
    assert state.deal_result()[0] == [stake, 0]
    state.leader = 0  # his partner took the last trick
    assert state.deal_result()[0] == [0, stake]


def test_8_2_2_trip_made_gives_three_balls() -> None:
    state = new(HANDS6, redeal_max_points=0)
    act(state, (0, "trip"))
    state.tricks, state.leader = [[]] * 4, 0
    assert state.deal_result()[0] == [3, 0]


def test_6_4_1_the_trumper_is_asked_first_then_in_turn() -> None:
    state = new()
    act(state, (2, "call:10"), (3, "pass"), (1, "pass"), (2, "trump:KC"))  # seat 0 is seat 2's partner: skipped
    for seat in (2, 3, 0, 1):
        assert (state.phase, state.current_player) == ("special", seat)
        state.apply("pass")
    assert (state.phase, state.current_player) == ("play", 3)  # 5.2: the trumper's right leads


def test_5_9_thunee_void_when_the_opponents_hold_none_of_the_led_suit() -> None:
    state = new()
    act(state, *CALLED_OFF, (1, "trump:9H"), (1, "pass"), (2, "thunee"))
    act(state, (2, "KC"))  # opponents {1,3} hold clubs (9C, AC, TC): play goes on
    assert state.phase == "play"
    void = new()
    act(void, *CALLED_OFF, (1, "trump:9H"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "thunee"))
    act(void, (0, "KS"))  # seats 1 and 3 hold no spade
    assert void.deal_results[-1]["contract"] == "void" and void.dealer == 0 and void.scores == [0] * 4


def test_9_every_action_string() -> None:
    words = set(engine.game_class(GAME).ACTIONS.words)  # type: ignore[attr-defined]
    assert {"redeal", "keep", "pass", "trump:last", "thunee", "royals", "mooney", "trip", "double", "kanak"} <= words
    assert {f"call:{c}" for c in (*range(10, 101, 10), 104)} <= words
    assert {w for w in words if w.startswith("jodi:")} == {f"jodi:{j}" for s in "CDHS"
                                                           for j in (f"Q{s},K{s}", f"J{s},Q{s},K{s}")}


# ---- the rules text restated: every legal list and every deal's balls of random matches ---------------------------

ORDER = {"normal": "J9ATKQ", "royals": "QKTA9J"}  # 2.1, 2.4: high to low
TRIP_TIERS = {"9": 3, "A": 3, "T": 3, "J": 2, "K": 1, "Q": 0}  # 8.2.2: tricks 1..3 of a trip
CARD_VALUE = {"J": 30, "9": 20, "A": 11, "T": 10, "K": 3, "Q": 2}  # 2.1


def _strength(card: str, contract: str, number: int, tricks: int) -> int:
    if contract == "trip" and number < tricks:
        return TRIP_TIERS[card[0]]
    order = ORDER["royals" if contract == "royals" else "normal"]
    return len(order) - order.index(card[0])


def _winner(trick: list, trump: str | None, contract: str, number: int, tricks: int) -> int:
    """5.6: the highest trump, else the highest card of the led suit; equal trip cards: the first played."""
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        same = card[1] == best[1] and _strength(card, contract, number, tricks) > _strength(best, contract, number,
                                                                                              tricks)
        if same or (card[1] == trump and best[1] != trump):
            best_seat, best = seat, card
    return best_seat


def _jodi_value(word: str, trump: str | None) -> int:
    cards = word.split(":")[1].split(",")
    return (30 if len(cards) == 3 else 20) + (20 if cards[0][1] == trump else 0)  # 6.1.1


def _rules_text_legal(p: dict) -> list[str]:
    phase, seat, options = p["phase"], p["current_player"], p["options"]
    hand = p["hands"][seat]
    if phase == "redeal":
        return ["keep", "redeal"]
    if phase == "trip":
        return ["pass", "trip"]
    if phase == "calling":  # 4.2
        higher = [c for c in (*range(10, 101, 10), 104) if c > p["call"]]
        return sorted(["pass", *(f"call:{c}" for c in (higher if options["call_jump"] else higher[:1]))])
    if phase == "trump":  # 4.5
        return sorted([f"trump:{c}" for c in hand] + (["trump:last"] if options["last_card_trump"] else []))
    if phase == "special":  # 6.4.1, 8.2.3
        held = hand + ([p["trump_card"]] if seat == p["trumper"] and p["trump_card"] else [])
        mooney = p["players"] == 6 and options["six_mooney"] and len({c[1] for c in held}) == 1 and \
            "J" + held[0][1] in held
        return sorted(["pass", "thunee", *(["royals"] if options["royals"] else []), *(["mooney"] if mooney else [])])
    if phase == "jodi":  # 6.1.4
        available = hand + [c for s, c in p["tricks"][-1] if s == seat]
        used = {c for _s, word, _k in p["jodi"] for c in word.split(":")[1].split(",")}
        words = [f"jodi:{','.join(r + s for r in ranks)}" for s in "CDHS" for ranks in ("QK", "JQK")
                 if all(r + s in available and r + s not in used for r in ranks)]
        return sorted(["pass", *words])
    if phase == "double":
        return ["double", "pass"]
    trick = p["trick"]  # 5.5
    same = [c for c in hand if trick and c[1] == trick[0][1][1]]
    cards = same or hand
    last = len(p["tricks"]) == 24 // p["players"] - 1
    kanak = last and p["contract"] == "normal" and p["double"] is None and p["kanak"] is None  # 6.3.1
    return sorted(cards + (["kanak"] if kanak else []))


def _rules_text_balls(tricks: list, p: dict) -> list[int]:
    contract, n, options = p["contract"], p["players"], p["options"]
    tricks = [t for t in tricks if t]
    balls = [0, 0]
    if p["phase"] == "special" or (contract in ("thunee", "royals", "mooney") and len(tricks[0]) == 1):
        return balls  # 5.9: a void deal
    trump = p["trump"] if contract != "thunee" and contract != "royals" else tricks[0][0][1][1]
    count = 24 // n
    winners = [_winner(t, trump, contract, k + 1, count) for k, t in enumerate(tricks)]
    last = winners[-1]
    if contract in ("thunee", "royals", "mooney"):  # 6.4.3, 6.5.2, 8.2.3
        caller = p["caller"]
        side = caller % 2
        stake = {"thunee": options["thunee_balls"], "royals": options["royals_balls"], "mooney": 4}[contract]
        if len(tricks) == count and all(w == caller for w in winners):
            balls[side] = stake
        else:
            balls[1 - side] = 8 if contract == "mooney" and last % 2 != side else stake
        return balls
    if contract == "trip":  # 8.2.2
        side = p["caller"] % 2
        balls[side if last == p["caller"] else 1 - side] = 3 if last == p["caller"] else 6
        return balls
    jodi = [sum(_jodi_value(w, trump) for s, w, _k in p["jodi"] if s % 2 == side) for side in (0, 1)]
    won = [sum(CARD_VALUE[c[0]] for t, w in zip(tricks, winners, strict=True) if w % 2 == side for _s, c in t)
           for side in (0, 1)]
    if p["double"] is not None:  # 6.2.2
        side = p["double"] % 2
        balls[side if last == p["double"] else 1 - side] = 2 if last == p["double"] else 4
        return balls
    if p["kanak"] is not None:  # 6.3.2
        side, opp = p["kanak"] % 2, 1 - p["kanak"] % 2
        counting = 1 - p["trumper"] % 2
        before = sum(CARD_VALUE[c[0]] for t, w in zip(tricks[:-1], winners, strict=False) if w % 2 == opp
                     for _s, c in t)
        x = before - jodi[side] - 10 + (p["call"] if opp == counting else -p["call"])
        made = last == p["kanak"] and any(w % 2 == opp for w in winners) and x < 0
        balls[side if made else opp] = 3 if made else 4
        return balls
    counting = 1 - p["trumper"] % 2  # 7.2, 7.3
    total = won[counting] + (10 if last % 2 == counting else 0) + p["call"] + jodi[counting] - jodi[1 - counting]
    if total >= 105:
        balls[counting] = 2 if p["call"] else 1
    else:
        balls[1 - counting] = 1
    return balls


LONE_CALLS = frozenset({"thunee", "royals", "mooney", "trip"})


@pytest.mark.parametrize(("players", "options", "avoid"), [
    (4, {}, frozenset()),
    (4, {}, LONE_CALLS),
    (4, {"target_balls": 12}, LONE_CALLS | {"kanak"}),  # normal deals, scored by 7.2
    (4, {"royals": False, "call_jump": True, "last_card_trump": True, "thunee_balls": 2, "redeal_max_points": 20},
     LONE_CALLS),
    (6, {}, frozenset()),
    (6, {}, LONE_CALLS),
    (6, {"call_jump": True}, LONE_CALLS | {"kanak"}),
    (6, {"six_trip": False, "royals_balls": 5, "call_jump": True}, frozenset({"thunee", "royals"})),
])
def test_random_matches_list_and_score_as_the_rules_text_says(players: int, options: dict,
                                                                avoid: frozenset[str]) -> None:
    for seed in range(10):
        state = engine.new_match(GAME, seed=seed, players=players, options={"target_balls": 6, **options})
        play_checked(state, seed, _rules_text_legal, _rules_text_balls, avoid=avoid)
        assert state.is_terminal
