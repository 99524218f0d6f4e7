"""Boonaken: every worked example of shared/rules/boonaken.md (12.1-12.12) and at least one test per rule, by
section."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from itertools import combinations

import pytest
from rules_text import play_checked

import engine
from engine.cards import SUIT, cards_in, codes_of, mask_of, parse_card, parse_cards
from engine.games.boonaken import (
    DECK,
    POINTS,
    RANKING,
    RULES,
    bid_ladder,
    most_roem,
    pack_marks,
    roem_of,
    unpack_marks,
)
from engine.rng import Rng
from engine.tricks import NO_TRUMP, beaters_mask, legal_mask, suit_of_code, trick_winner

GAME = "boonaken"
ALL = [engine.cards.CODES[c] for c in DECK]


def deck_for(n: int, dealer: int, hands: dict[int, Sequence[str]] | None = None, down: Sequence[str] = (),
             up: Sequence[str] = (), order: Sequence[int] | None = None) -> list[str]:
    """A deck (top first) that deals each listed seat the cards listed (its first 6), the centre's face-down and
    face-up cards as given (4.2), and the other cards in canonical order wherever they fall. ``order``: the seats
    dealt to, in turn (all ``n`` from the dealer's left by default)."""
    hands = hands or {}
    order = list(order) if order is not None else [(dealer + 1 + i) % n for i in range(n)]
    places: list[tuple[str, int]] = [("hand", s) for s in order for _ in range(3)]
    if len(order) == 5:
        places += [("up", 0)] * 2 + [("hand", s) for s in order for _ in range(3)]
    else:
        places += [("down", 0)] * 2 + [("hand", s) for s in order for _ in range(3)] + [("up", 0)] * 2
    places += [("aside", 0)] * (32 - len(places))
    wanted = {("hand", s): list(cards) for s, cards in hands.items()}
    wanted[("down", 0)], wanted[("up", 0)] = list(down), list(up)
    used = {c for cards in wanted.values() for c in cards}
    spare = [c for c in ALL if c not in used]
    deck = []
    for place in places:
        listed = wanted.get(place, [])
        deck.append(listed.pop(0) if listed else spare.pop(0))
    return deck


# Seat 1 holds the lowest cards, seat 2 the aces and kings: a misère by seat 1 is made, one by seat 2 fails.
LOW = ["7C", "7D", "7H", "7S", "8C", "8D"]
HIGH = ["AC", "AD", "AH", "AS", "KC", "KD"]
CENTRE = {"down": ["9C", "9D"], "up": ["8S", "9S"]}
LOW_HIGH = {1: LOW, 2: HIGH}
TRUMPS = ["JH", "9H", "AH", "KH", "QH", "TH"]  # seat 0's hand that makes any numeric bid up to 141 + 220


def table(n: int, plus: list[int], minus: list[int], deck: list[str] | None = None, dealer: int = 0,
          **options) -> engine.State:
    """A match whose seats hold these marks, at the start of a deal by ``dealer`` from ``deck`` (as a position
    would hold it: loaded back from its own position)."""
    state = engine.new_match(GAME, seed=3, players=n, options=options, first_dealer=dealer)
    state.side_scores, state.minus = [p - m for p, m in zip(plus, minus, strict=True)], list(minus)
    state.deal_index, state.dealings = sum(plus) + sum(minus), 0
    state._begin_deal(engine.cards.parse_deck(deck, DECK) if deck else None)
    p = state.to_position()
    loaded = engine.from_position(GAME, p)
    assert loaded.to_position() == p
    return loaded


def new(n: int = 4, dealer: int = 3, deck: list[str] | None = None, seed: int = 1, **options) -> engine.State:
    return engine.new_match(GAME, seed=seed, players=n, options=options, first_dealer=dealer, deck=deck)


def play(state: engine.State, *actions: str) -> engine.State:
    for action in actions:
        state.apply(action)
    return state


def play_cards(state: engine.State, choose=lambda legal: legal[0]) -> None:
    """Play the rest of the deal's cards, each seat choosing among its legal cards."""
    deal = state.deal_index
    while not state.is_terminal and state.deal_index == deal and state.phase == "play":
        state.apply(choose(state.legal_actions()))


def hand(state: engine.State, seat: int) -> list[str]:
    return state.to_position()["hands"][seat]


# ---- 1 identity ---------------------------------------------------------------------------------------------------

def test_1_2_three_to_five_players_four_by_default() -> None:
    info = engine.game_info(GAME)
    assert info.player_counts == (3, 4, 5) and info.default_players == 4
    with pytest.raises(ValueError, match="3, 4, 5"):
        engine.new_match(GAME, seed=1, players=2)


def test_1_3_thirty_two_cards() -> None:
    assert sorted(ALL) == sorted(r + s for r in "789TJQKA" for s in "CDHS")
    assert engine.game_info(GAME).deck_size == 32


def test_1_4_play_goes_clockwise() -> None:
    state = new(deck=deck_for(4, 3))
    assert [s for s, _ in play(state, "pass", "pass", "pass").history] == [0, 1, 2]
    assert state.current_player == 3


# ---- 2 ranking and card points ------------------------------------------------------------------------------------

def test_2_12_1_the_points_add_up_to_141() -> None:
    for trump in range(4):
        assert sum(POINTS[trump][c] for c in DECK) == 141
    trump = suit_of_code("H")
    assert sum(POINTS[trump][c] for c in DECK if SUIT[c] == trump) == 60  # 12.1: 60 + 3 x 27
    assert sum(POINTS[trump][c] for c in DECK if SUIT[c] == 0) == 27


def test_2_1_ten_ranks_below_the_queen_but_is_worth_ten() -> None:
    hearts = suit_of_code("H")
    assert trick_winner(parse_cards(["TH", "QH"]), hearts, RANKING) == 1  # 12.3
    assert trick_winner(parse_cards(["TS", "QS"]), hearts, RANKING) == 1
    assert POINTS[hearts][parse_card("TH")] == 10 and POINTS[hearts][parse_card("QH")] == 2


def test_12_2_only_trump_wins() -> None:
    assert trick_winner(parse_cards(["AS", "7H", "KS", "8S"]), suit_of_code("H"), RANKING) == 1


def test_12_3_trump_order_j_9_a_k_q_t_8_7() -> None:
    hearts = suit_of_code("H")
    assert trick_winner(parse_cards(["TH", "QH", "9H"]), hearts, RANKING) == 2
    order = ["JH", "9H", "AH", "KH", "QH", "TH", "8H", "7H"]
    for high, low in zip(order, order[1:], strict=False):
        assert trick_winner(parse_cards([low, high]), hearts, RANKING) == 1


def test_12_4_plain_jack_above_ten_and_its_points() -> None:
    clubs = suit_of_code("C")
    cards = parse_cards(["TD", "JD", "9D"])
    assert trick_winner(cards, clubs, RANKING) == 1
    assert sum(POINTS[clubs][c] for c in cards) == 11


def test_2_3_contracts_without_trump_rank_every_suit_plain() -> None:
    assert trick_winner(parse_cards(["AH", "JH", "9H"]), NO_TRUMP, RANKING) == 0


def test_2_4_discards_and_undealt_cards_score_for_nobody() -> None:
    state = new(deck=deck_for(4, 3, {0: ["JH", "9H", "AH", "KH", "QH", "TH"]}, down=["AS", "TS"], up=["AC", "TC"]))
    play(state, "bid:70", "pass", "pass", "pass", "discard:TC,AC,TS,AS", "trump:H", "roem:20")
    aside = mask_of(parse_cards(state.to_position()["set_aside"]))
    play_cards(state)
    result = state.deal_results[0]
    lost = sum(POINTS[suit_of_code("H")][c] for c in cards_in(aside)) + 42  # 11 + 10 + 10 + 11 discarded
    assert sum(result["card_points"]) == 141 - lost


# ---- 3 roem -------------------------------------------------------------------------------------------------------

def roem(codes: Sequence[str], trump: str, six: int = 200) -> int:
    return roem_of(mask_of(parse_cards(codes)), suit_of_code(trump), six)


def test_12_8_a_card_counts_in_a_sequence_and_a_four_of_a_kind() -> None:
    assert roem(["QS", "JS", "TS", "QC", "QD", "QH"], "S") == 120


def test_12_9_stuk_only_in_trumps() -> None:
    assert roem(["KS", "QS", "JS", "TS", "7C", "8D"], "S") == 70
    assert roem(["KS", "QS", "JS", "TS", "7C", "8D"], "H") == 50


@pytest.mark.parametrize(("cards", "value"), [
    (["AC", "KC", "QC", "7D", "8H", "9S"], 20),
    (["AC", "KC", "QC", "JC", "8H", "9S"], 50),
    (["AC", "KC", "QC", "JC", "TC", "9S"], 100),
    (["AC", "KC", "QC", "JC", "TC", "9C"], 200),  # a run of 6 scores once, never 20 + 20
    (["JC", "JD", "JH", "JS", "7C", "8D"], 200),
    (["AC", "AD", "AH", "AS", "7C", "8D"], 100),
    (["TC", "TD", "TH", "TS", "7C", "9D"], 0),  # four tens, nines, eights, sevens: nothing
    (["7C", "7D", "7H", "7S", "9C", "9D"], 0),
    (["TC", "9C", "8C", "TD", "9D", "8D"], 40),  # a run in each of two suits
])
def test_3_1_3_2_3_4_sequences_and_four_of_a_kind(cards: list[str], value: int) -> None:
    assert roem(cards, "S") == value


def test_3_1_option_six_sequence_value() -> None:
    six = ["AC", "KC", "QC", "JC", "TC", "9C"]
    assert roem(six, "S", six=100) == 100
    assert roem(six, "C", six=100) == 120  # and the stuk in trumps


def test_3_5_and_5_1_the_most_roem_of_a_hand() -> None:
    assert roem(["JC", "JD", "JH", "JS", "KS", "QS"], "S") == 240 == most_roem(200)
    assert most_roem(300) == 320 and most_roem(100) == 240


# ---- 4 the deal ---------------------------------------------------------------------------------------------------

def test_4_1_the_first_dealer_is_drawn_from_the_seed_or_given() -> None:
    dealers = {engine.new_match(GAME, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert engine.new_match(GAME, seed=5, options={"first_dealer": 2}).dealer == 2


@pytest.mark.parametrize("n", [3, 4])
def test_4_2_three_or_four_players_two_face_down_then_two_face_up(n: int) -> None:
    state = new(n=n, dealer=0, deck=list(ALL))
    p = state.to_position()
    order = [(1 + i) % n for i in range(n)]
    for i, seat in enumerate(order):
        second = 3 * n + 2 + 3 * i
        assert p["hands"][seat] == codes_of(parse_cards(ALL[3 * i:3 * i + 3] + ALL[second:second + 3]))
    assert p["centre"] == codes_of(parse_cards(ALL[3 * n:3 * n + 2] + ALL[6 * n + 2:6 * n + 4]))
    assert state.observation(1)["face_up"] == codes_of(parse_cards(ALL[6 * n + 2:6 * n + 4]))
    assert state.observation(1)["centre"] == state.observation(1)["face_up"]  # the face-down two are unseen
    assert p["set_aside"] == codes_of(parse_cards(ALL[6 * n + 4:]))
    assert len(p["set_aside"]) == 32 - 6 * n - 4


def test_4_2_five_players_two_face_up_between_the_packets() -> None:
    state = new(n=5, dealer=4, deck=list(ALL))
    p = state.to_position()
    for i in range(5):
        assert p["hands"][i] == codes_of(parse_cards(ALL[3 * i:3 * i + 3] + ALL[17 + 3 * i:20 + 3 * i]))
    assert p["centre"] == codes_of(parse_cards(ALL[15:17])) == state.observation(0)["face_up"]
    assert p["set_aside"] == []


def test_4_1_5_4_all_pass_the_next_dealer_deals_with_no_score() -> None:
    state = new(deck=deck_for(4, 3))
    play(state, "pass", "pass", "pass", "pass")
    assert state.dealer == 0 and state.deal_index == 0 and state.phase == "bidding" and state.current_player == 1
    assert state.scores == [0, 0, 0, 0] and state.deal_results == []
    assert state.to_position()["redealt"] == 1


# ---- 5 bidding ----------------------------------------------------------------------------------------------------

def bids(state: engine.State) -> list[str]:
    return [a for a in state.legal_actions() if a != "pass"]


def test_5_1_numeric_bids_from_min_to_max_in_steps() -> None:
    state = new(deck=deck_for(4, 3))
    numeric = sorted(int(a[4:]) for a in bids(state) if a[4:].isdigit())
    assert numeric == list(range(70, 381, 5))
    state = new(deck=deck_for(4, 3), min_bid=60, max_bid=100, bid_step=10)
    assert sorted(int(a[4:]) for a in bids(state) if a[4:].isdigit()) == [60, 70, 80, 90, 100]


def test_5_1_boonaak_roem_bids_up_to_the_most_roem() -> None:
    state = new(deck=deck_for(4, 3))
    roems = sorted(int(a.split(":")[2]) for a in bids(state) if a.startswith("bid:boonaak:"))
    assert roems == list(range(20, 241, 10))
    state = new(deck=deck_for(4, 3), six_sequence_value=300)
    assert max(int(a.split(":")[2]) for a in bids(state) if a.startswith("bid:boonaak:")) == 320


def test_5_1_strengths_misere_between_70_and_75_zwabber_between_100_and_105() -> None:
    ladder = bid_ladder(70, 380, 5, 200).bids
    assert ladder.index("bid:70") < ladder.index("bid:misere") < ladder.index("bid:75")
    assert ladder.index("bid:100") < ladder.index("bid:zwabber") < ladder.index("bid:105")
    assert ladder.index("bid:380") < ladder.index("bid:boonaak") < ladder.index("bid:boonaak:20")
    assert ladder[-1] == "bid:boonaak:240"


def test_5_3_legal_bids_are_stronger_than_the_highest() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:70")
    legal = bids(state)
    assert "bid:70" not in legal and "bid:75" in legal and "bid:misere" in legal
    play(state, "bid:75")
    assert "bid:misere" not in bids(state) and "bid:zwabber" in bids(state)


def test_12_12_zwabber_after_100_not_after_105() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:100")
    assert "bid:zwabber" in bids(state)
    play(state, "bid:105")
    assert "bid:zwabber" not in bids(state) and "bid:boonaak" in bids(state)


def test_5_3_after_a_boonaak_only_stronger_boonaak_bids() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:boonaak")
    assert all(a.startswith("bid:boonaak:") for a in bids(state)) and len(bids(state)) == 23
    play(state, "bid:boonaak:100")
    assert sorted(int(a.split(":")[2]) for a in bids(state)) == list(range(110, 241, 10))


def test_12_10_two_misere_bids_close_the_bidding_to_misere() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:70", "bid:misere", "bid:misere", "pass")
    assert state.current_player == 0 and state.legal_actions() == ["bid:misere", "pass"]
    play(state, "pass")
    assert state.phase == "exchange" and state.current_player == 1
    assert state.observation(0)["declarers"] == [1, 2] and state.observation(0)["contract"] == "misere"


def test_5_3_a_single_misere_may_be_joined_or_outbid() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:misere")
    assert "bid:misere" in bids(state) and "bid:75" in bids(state) and "bid:70" not in bids(state)
    play(state, "bid:80")  # the misère bidder holds it no more: he outbids or passes
    assert state.current_player == 2
    play(state, "pass", "pass")
    assert state.current_player == 0 and "bid:misere" not in bids(state) and "bid:85" in bids(state)
    play(state, "pass")
    assert state.phase == "exchange" and state.current_player == 1


def test_5_2_the_high_bidder_and_passed_players_are_skipped() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:70", "pass", "bid:75", "bid:80")
    assert state.current_player == 0  # seat 1 passed
    play(state, "bid:85")
    assert state.current_player == 2  # seat 1 passed, seat 0 holds the bid
    play(state, "pass", "pass")
    assert state.phase == "exchange" and state.current_player == 0


def test_5_4_one_bid_and_everybody_else_passes() -> None:
    state = play(new(deck=deck_for(4, 3)), "pass", "pass", "pass", "bid:90")
    assert state.phase == "exchange" and state.current_player == 3


# ---- 6 the exchange -----------------------------------------------------------------------------------------------

def test_6_1_the_declarer_takes_the_centre_and_discards_as_many() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:70", "pass", "pass", "pass")
    legal = state.legal_actions()
    assert len(legal) == 210 and all(a.startswith("discard:") and len(a.split(",")) == 4 for a in legal)
    centre = state.to_position()["centre"]
    play(state, "discard:" + ",".join(centre))  # he may discard the cards he just took
    p = state.to_position()
    assert p["discards"] == centre and p["centre"] == [] and len(p["hands"][0]) == 6 and state.phase == "trump"
    state = play(new(n=5, dealer=4, deck=deck_for(5, 4)), "bid:70", "pass", "pass", "pass", "pass")
    assert len(state.legal_actions()) == 28  # 2 of 8


def test_6_1_the_discard_is_face_down() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:70", "pass", "pass", "pass")
    assert state.observation(0)["centre"] == state.to_position()["centre"]  # the declarer sees what he takes
    assert len(state.observation(1)["centre"]) == 2
    discard = state.legal_actions()[5]
    play(state, discard)
    assert state.observation(1)["history"][-1] == [0, "discard"]
    assert state.observation(0)["history"][-1] == [0, discard]
    assert state.observation(1)["discards"] == [] and state.observation(1)["discards_size"] == 4
    assert state.observation(0)["discards"] == discard[8:].split(",")
    assert set(state.observation(1)["known_cards"]) == set(state.observation(1)["face_up"])  # not where they went
    assert state.action_seen_by(1, 0, discard) == "discard" and state.action_seen_by(0, 0, discard) == discard


def test_6_2_misere_declarers_exchange_in_bidding_order() -> None:
    state = play(new(deck=deck_for(4, 3)), "pass", "bid:misere", "bid:misere", "pass")
    assert state.current_player == 1
    first = state.legal_actions()[0]
    play(state, first)
    assert state.current_player == 2 and state.to_position()["centre"] == first[8:].split(",")
    assert state.observation(2)["centre"] == first[8:].split(",")  # he takes the previous declarer's discards
    assert state.observation(1)["centre"] == first[8:].split(",")  # his own discards
    assert state.observation(3)["centre"] == [] and state.observation(3)["centre_size"] == 4  # face down
    second = state.legal_actions()[-1]
    play(state, second)
    assert state.phase == "play" and state.current_player == 1  # 7.1: the first misère bidder leads
    assert state.to_position()["trump"] is None and state.to_position()["discards"] == second[8:].split(",")


# ---- 7 play -------------------------------------------------------------------------------------------------------

def test_7_2_7_3_trump_then_roem_for_a_numeric_bid() -> None:
    state = new(deck=deck_for(4, 3, {0: ["KS", "QS", "JS", "TS", "7C", "8D"]}, down=["7H", "8H"], up=["9H", "AD"]))
    play(state, "bid:100", "pass", "pass", "pass", "discard:AD,7H,8H,9H")
    assert state.phase == "trump" and state.legal_actions() == ["trump:C", "trump:D", "trump:H", "trump:S"]
    play(state, "trump:S")
    assert state.phase == "roem" and state.legal_actions() == [f"roem:{r}" for r in (0, 10, 20, 30, 40, 50, 60, 70)]
    play(state, "roem:60")  # understating keeps the amount declared
    assert state.phase == "play" and state.current_player == 0 and state.observation(1)["roem"] == 60


def test_7_3_no_roem_declaration_for_boonaak() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:boonaak", "pass", "pass", "pass")
    play(state, state.legal_actions()[0], "trump:C")
    assert state.phase == "play" and state.current_player == 0


def test_7_2_no_trump_for_zwabber() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:zwabber", "pass", "pass", "pass")
    play(state, state.legal_actions()[0])
    assert state.phase == "play" and state.to_position()["trump"] is None


def mask(codes: Sequence[str]) -> int:
    return mask_of(parse_cards(codes))


def legal(hand_codes: Sequence[str], led: str, trump: str) -> list[str]:
    t = suit_of_code(trump)
    over = beaters_mask(RANKING, t, parse_card(led) if led[1] == trump else None)
    return codes_of(cards_in(legal_mask(RULES.follow, mask(hand_codes), SUIT[parse_card(led)], t, over, False)))


def test_12_5_a_lone_trump_jack_need_not_follow() -> None:
    assert legal(["JS", "7H", "AD", "KC"], "8S", "S") == codes_of(parse_cards(["JS", "7H", "AD", "KC"]))


def test_12_6_a_trump_lead_asks_any_trump() -> None:
    assert legal(["JS", "9S", "7H"], "QS", "S") == ["9S", "JS"]
    assert legal(["8S", "7H"], "QS", "S") == ["8S"]  # no need to overtrump
    assert legal(["7H", "AD"], "QS", "S") == ["AD", "7H"]


def test_12_7_follow_or_trump() -> None:
    assert legal(["AH", "8H", "7S", "KC"], "KH", "S") == ["8H", "AH", "7S"]
    assert legal(["7S", "KC", "AD"], "KH", "S") == ["KC", "AD", "7S"]  # void: anything


def test_7_5_without_trump_follow_suit_else_anything() -> None:
    hand_mask = mask(["AH", "8H", "7S"])
    assert codes_of(cards_in(legal_mask(RULES.follow, hand_mask, suit_of_code("H"), NO_TRUMP, 0, False))) == \
        ["8H", "AH"]
    assert cards_in(legal_mask(RULES.follow, hand_mask, suit_of_code("D"), NO_TRUMP, 0, False)) == cards_in(hand_mask)


def test_7_5_the_game_lists_the_follow_rule() -> None:
    state = new(deck=deck_for(4, 3, {0: ["KH", "AS", "7C", "8C", "9C", "TC"], 1: ["AH", "8H", "7S", "KC", "8D", "9D"]},
                              down=["7D", "TD"], up=["QD", "KD"]))
    play(state, "bid:70", "pass", "pass", "pass", "discard:7D,TD,QD,KD", "trump:S", "roem:0", "KH")
    assert state.legal_actions() == ["7S", "8H", "AH"]


# ---- 7.7, 8.1 success and marks -----------------------------------------------------------------------------------

def test_12_11_numeric_points_plus_declared_roem() -> None:
    state = new(deck=deck_for(4, 3, {0: ["JH", "9H", "AH", "KH", "QH", "TH"]}, down=["7C", "8C"], up=["9C", "7D"]))
    play(state, "bid:70", "pass", "pass", "pass", "discard:7C,8C,9C,7D", "trump:H", "roem:20")
    play_cards(state)
    result = state.deal_results[0]
    assert result["card_points"][0] + 20 >= 70 and result["plus"] == [1, 0, 0, 0] and result["made"]
    assert state.scores == [1, 0, 0, 0]


def test_7_7_numeric_failure_is_a_minus() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:380", "pass", "pass", "pass")
    play(state, state.legal_actions()[0], "trump:C", "roem:0")
    play_cards(state)
    assert state.deal_results[0]["minus"] == [1, 0, 0, 0] and state.scores == [-1, 0, 0, 0]  # 8.1: net marks
    assert state.to_position()["minus_marks"] == 1


def test_7_7_misere_declarers_succeed_one_by_one() -> None:
    state = play(new(deck=deck_for(4, 3)), "pass", "bid:misere", "bid:misere", "pass")
    play(state, state.legal_actions()[0], state.legal_actions()[0])
    play_cards(state)
    result = state.deal_results[0]
    won = result["tricks_won"]
    assert result["plus"] == [0, int(won[1] == 0), int(won[2] == 0), 0]
    assert result["minus"] == [0, int(won[1] > 0), int(won[2] > 0), 0]


def test_7_7_zwabber_and_boonaak_take_every_trick() -> None:
    trumps = ["JS", "9S", "AS", "KS", "QS", "TS"]
    state = new(deck=deck_for(4, 3, {0: trumps}, down=["7C", "8C"], up=["9C", "7D"]))
    play(state, "bid:boonaak", "pass", "pass", "pass", "discard:7C,8C,9C,7D", "trump:S")
    play_cards(state)
    assert state.deal_results[0]["plus"] == [1, 0, 0, 0] and state.deal_results[0]["tricks_won"][0] == 6
    state = new(deck=deck_for(4, 3, {0: trumps}, down=["7C", "8C"], up=["9C", "7D"]))
    play(state, "bid:zwabber", "pass", "pass", "pass", "discard:7C,8C,9C,7D")  # no trump: spades are plain
    play_cards(state, lambda legal: legal[-1])
    assert state.deal_results[0]["made"] == (state.deal_results[0]["tricks_won"][0] == 6)


@pytest.mark.parametrize(("promise", "plus"), [(90, 1), (100, 0)])
def test_7_7_boonaak_with_roem_needs_the_roem_held(promise: int, plus: int) -> None:
    # J-9-A-K-Q-T of spades: the run A-K-Q-J-T-9 of 6 is 200, the stuk 20, but with six_sequence_value 70: 90
    trumps = ["JS", "9S", "AS", "KS", "QS", "TS"]
    state = new(deck=deck_for(4, 3, {0: trumps}, down=["7C", "8C"], up=["9C", "7D"]), six_sequence_value=70)
    play(state, f"bid:boonaak:{promise}", "pass", "pass", "pass", "discard:7C,8C,9C,7D", "trump:S")
    play_cards(state)
    assert state.deal_results[0]["tricks_won"][0] == 6 and state.deal_results[0]["plus"][0] == plus


def test_7_4_all_six_tricks_are_played_out() -> None:
    state = play(new(deck=deck_for(4, 3)), "pass", "bid:misere", "pass", "pass")
    play(state, state.legal_actions()[0])
    cards = 0
    while state.deal_index == 0:
        play(state, state.legal_actions()[0])
        cards += 1
    assert cards == 24


# ---- 8 the match --------------------------------------------------------------------------------------------------

def misere_deal(state: engine.State, *bidders: int) -> None:
    """The seats ``bidders`` bid misère, the others pass; each declarer discards the centre cards he took, and
    every seat plays its first legal card."""
    while state.phase == "bidding":
        play(state, "bid:misere" if state.current_player in bidders else "pass")
    while state.phase == "exchange":
        play(state, "discard:" + ",".join(state.to_position()["centre"]))
    play_cards(state)


def test_8_2_two_plus_marks_win() -> None:
    state = table(4, [1, 0, 0, 0], [0, 1, 1, 0], deck_for(4, 3, {0: TRUMPS}, **CENTRE), dealer=3)
    play(state, "bid:70", "pass", "pass", "pass", "discard:9C,9D,8S,9S", "trump:H", "roem:220")
    play_cards(state)
    assert state.deal_results[-1]["made"] and state.is_terminal and state.winners == [0]


def test_8_2_a_loser_ends_the_match_and_there_is_no_winner() -> None:
    state = table(4, [0, 0, 0, 0], [1, 0, 0, 0], deck_for(4, 3), dealer=3)
    play(state, "bid:380", "pass", "pass", "pass")
    play(state, state.legal_actions()[0], "trump:C", "roem:0")
    play_cards(state)
    assert state.is_terminal and state.winners == [] and state.to_position()["minus_marks"] == 2
    p = state.to_position()
    assert p["winners"] == [] and engine.from_position(GAME, p).to_position() == p


def test_8_2_two_plus_marks_are_checked_before_two_minus() -> None:
    state = table(4, [0, 1, 0, 0], [0, 0, 1, 0], deck_for(4, 3, LOW_HIGH, **CENTRE), dealer=3)
    misere_deal(state, 1, 2)
    assert state.deal_results[-1]["plus"] == [0, 1, 0, 0] and state.deal_results[-1]["minus"] == [0, 0, 1, 0]
    assert state.is_terminal and state.winners == [1]


def test_8_options_plus_to_win_and_minus_to_lose() -> None:
    state = new(deck=deck_for(4, 3, LOW_HIGH, **CENTRE), minus_to_lose=1)
    misere_deal(state, 2)
    assert state.is_terminal and state.winners == []
    state = new(deck=deck_for(4, 3, LOW_HIGH, **CENTRE), plus_to_win=1)
    misere_deal(state, 1)
    assert state.is_terminal and state.winners == [1]


def test_8_3_elimination_a_winner_leaves_and_the_others_go_on() -> None:
    state = table(4, [0, 1, 0, 0], [0, 0, 0, 0], deck_for(4, 3, LOW_HIGH, **CENTRE), dealer=3, elimination=True)
    misere_deal(state, 1)
    assert not state.is_terminal and state.scores == [0, 2, 0, 0]
    p = state.to_position()
    assert state.dealer == 0 and state.current_player == 2  # the rotation and the bidding skip seat 1
    assert p["hands"][1] == [] and len(p["set_aside"]) == 32 - 6 * 3 - 4  # three at the table: dealt as for 3
    assert state.observation(0)["left_table"] == [1]
    assert engine.from_position(GAME, p).to_position() == p
    play(state, "bid:70", "pass", "pass")
    play(state, state.legal_actions()[0], "trump:C", "roem:0")
    seats, deal = [], state.deal_index
    while state.deal_index == deal and not state.is_terminal:
        seats.append(state.current_player)
        play(state, state.legal_actions()[0])
    assert 1 not in seats and len(seats) == 18


def test_8_3_the_dealer_rotation_skips_a_seat_that_left() -> None:
    # Dealer 0; seat 1, the next dealer, makes its second + and leaves: seat 2 deals and seat 3 speaks first
    state = table(4, [0, 1, 0, 0], [0, 0, 0, 0], deck_for(4, 0, LOW_HIGH, **CENTRE), dealer=0, elimination=True)
    misere_deal(state, 1)
    assert state.deal_results[-1]["plus"] == [0, 1, 0, 0] and not state.is_terminal
    assert state.observation(0)["left_table"] == [1] and state.dealer == 2 and state.current_player == 3


def test_8_3_two_players_left_are_dealt_as_for_three_or_four() -> None:
    state = table(3, [2, 0, 0], [0, 0, 0], dealer=1, elimination=True)
    p = state.to_position()
    assert p["hands"][0] == [] and len(p["hands"][1]) == len(p["hands"][2]) == 6
    assert len(p["centre"]) == 4 and len(p["set_aside"]) == 32 - 12 - 4 and state.current_player == 2


def test_8_3_the_last_player_at_the_table_loses() -> None:
    deck = deck_for(3, 0, LOW_HIGH, **CENTRE, order=[1, 2])
    state = table(3, [2, 1, 0], [0, 0, 1], deck, dealer=0, elimination=True)
    misere_deal(state, 1)
    assert state.is_terminal and state.winners == [0, 1]


def test_8_3_a_loser_ends_an_elimination_match_nobody_having_left_it_has_no_winner() -> None:
    state = table(4, [0, 0, 0, 0], [0, 0, 1, 0], deck_for(4, 3, LOW_HIGH, **CENTRE), dealer=3, elimination=True)
    misere_deal(state, 2)
    assert state.is_terminal and state.winners == []
    p = state.to_position()
    assert engine.from_position(GAME, p).to_position() == p


def test_8_3_a_loser_ends_an_elimination_match_those_who_left_are_its_winners() -> None:
    deck = deck_for(4, 3, LOW_HIGH, **CENTRE, order=[1, 2, 3])
    state = table(4, [2, 0, 0, 0], [0, 0, 1, 0], deck, dealer=3, elimination=True)
    misere_deal(state, 2)
    assert state.deal_results[-1]["minus"] == [0, 0, 1, 0]
    assert state.is_terminal and state.winners == [0]  # seat 0 left the table as a winner; seat 2 lost
    p = state.to_position()
    assert engine.from_position(GAME, p).to_position() == p


def test_8_3_without_elimination_no_seat_leaves() -> None:
    state = table(4, [1, 1, 1, 1], [0, 0, 0, 0])
    assert [len(h) for h in state.to_position()["hands"]] == [6, 6, 6, 6]


# ---- 9 options ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"min_bid": 0}, {"max_bid": 501}, {"bid_step": 0}, {"plus_to_win": 0}, {"minus_to_lose": 10},
    {"six_sequence_value": -10}, {"elimination": "yes"}, {"min_bid": 200, "max_bid": 100},
    {"min_bid": 71, "max_bid": 74, "bid_step": 5},
])
def test_9_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(ValueError):
        engine.new_match(GAME, seed=1, options=options)


def test_9_options_are_listed() -> None:
    names = [o.name for o in engine.game_info(GAME).options]
    assert names == ["min_bid", "max_bid", "bid_step", "elimination", "plus_to_win", "minus_to_lose",
                     "six_sequence_value"]


# ---- positions ----------------------------------------------------------------------------------------------------

def test_marks_pack_into_one_integer() -> None:
    assert pack_marks([1, 0, 1, 0, 1]) == 10101 and unpack_marks(10101, 5) == [1, 0, 1, 0, 1]
    with pytest.raises(engine.PositionError):
        unpack_marks(1000, 3)
    with pytest.raises(engine.PositionError):
        unpack_marks(True, 3)


def random_position(seed: int, steps: int, **options) -> dict:
    state = engine.new_match(GAME, seed=seed, options=options)
    rng = Rng(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply_id(rng.choice(state.legal_action_ids()))
    return state.to_position()


def test_positions_round_trip_in_every_phase() -> None:
    phases = set()
    for seed in range(40):
        for steps in (3, 8, 12, 20):
            p = random_position(seed, steps)
            phases.add(p["phase"])
            assert engine.from_position(GAME, p).to_position() == p
    assert {"bidding", "exchange", "trump", "play"} <= phases


@pytest.mark.parametrize(("key", "value"), [
    ("centre", ["9C"]), ("discards", ["7C", "8C"]), ("set_aside", []), ("minus_marks", 2), ("roem", 230),
    ("exchanges", []), ("auction", []), ("trump", None), ("phase", "trump"), ("minus_marks", True),
    ("current_player", 1),
])
def test_a_position_that_does_not_follow_from_its_deal_is_refused(key: str, value: object) -> None:
    state = new(deck=deck_for(4, 3, {0: TRUMPS}, **CENTRE))
    play(state, "bid:70", "pass", "pass", "pass", "discard:9C,9D,8S,9S", "trump:H", "roem:0")
    p = state.to_position()
    assert engine.from_position(GAME, p).to_position() == p
    with pytest.raises(engine.PositionError):
        engine.from_position(GAME, {**copy.deepcopy(p), key: value})


def test_6_1_samples_for_another_seat_vary_which_face_up_cards_were_discarded() -> None:
    state = new(deck=deck_for(4, 3, {0: TRUMPS}, **CENTRE))
    play(state, "bid:70", "pass", "pass", "pass", "discard:9C,9D,8S,9S", "trump:H", "roem:0")
    seen = state.observation(1)
    places = set()
    for k in range(40):
        sample = engine.determinize(state, 1, Rng(k))
        assert sample.observation(1) == seen
        p = sample.to_position()
        places.add(tuple(c for c in ("8S", "9S") if c in p["discards"]))
        assert engine.from_position(GAME, p).to_position() == p
    assert len(places) > 1  # the face-up 8S and 9S are sometimes kept, sometimes discarded


@pytest.mark.parametrize("n", [3, 5])
def test_5_4_a_table_that_always_passes_ends_at_the_declared_length(n: int) -> None:
    state = engine.new_match(GAME, seed=9, players=n, options={"elimination": n == 5})
    length = engine.game_length(GAME, n, {"elimination": n == 5})
    moves = 0
    while not state.is_terminal:
        assert moves <= length.moves
        play(state, "pass")
        moves += 1
    assert state.deal_index == 0 and state.scores == [0] * n and state.winners == list(range(n))
    p = state.to_position()
    assert p["redealt"] == length.deals and p["phase"] == "over"
    assert engine.from_position(GAME, p).to_position() == p


def test_8_3_a_finished_match_s_last_deal_is_checked_against_the_marks() -> None:
    state = table(4, [0, 1, 0, 0], [0, 0, 0, 0], deck_for(4, 3, LOW_HIGH, **CENTRE), dealer=3, elimination=True,
                  plus_to_win=2, max_deals=1)
    misere_deal(state, 1)
    p = state.to_position()
    assert state.is_terminal and engine.from_position(GAME, p).to_position() == p
    with pytest.raises(engine.PositionError, match="at the table"):  # seat 2 had left: it played no last deal
        engine.from_position(GAME, {**p, "scores": [0, 2, 2, 0]})


# ---- the rules text, restated: every move of random matches ----------------------------------------------------

PLAIN_TEXT, TRUMP_TEXT = "AKQJT987", "J9AKQT87"  # 2: high to low
PLAIN_POINTS_TEXT = {"A": 11, "K": 3, "Q": 2, "J": 1, "T": 10}
TRUMP_POINTS_TEXT = {"J": 20, "9": 14, "A": 11, "K": 3, "Q": 2, "T": 10}


def _strength(word: str) -> float:
    """5.1: a bid's strength."""
    value = word.split(":", 1)[1]
    special = {"misere": 72.5, "zwabber": 102.5, "boonaak": 10_000}
    if value in special:
        return special[value]
    if value.startswith("boonaak:"):
        return 10_000 + int(value.split(":")[1])
    return int(value)


def _text_bids(p: dict) -> list[str]:
    """5.3, as the rules file writes it."""
    o = p["options"]
    highest, misere_bidders, boonaak_r = None, [], None
    for seat, word in p["auction"]:
        if word == "pass":
            continue
        if word == "bid:misere" and highest == "bid:misere":
            misere_bidders.append(seat)
            continue
        highest, misere_bidders = word, [seat] if word == "bid:misere" else []
        if word.startswith("bid:boonaak"):
            boonaak_r = int(word.split(":")[2]) if word.count(":") == 2 else 0
    hb = 0 if highest is None else _strength(highest)
    if len(misere_bidders) >= 2:
        return sorted(["pass", "bid:misere"])
    legal = ["pass"]
    if boonaak_r is None:
        legal += [f"bid:{n}" for n in range(o["min_bid"], o["max_bid"] + 1) if n % o["bid_step"] == 0 and n > hb]
        legal += ["bid:misere"] if hb <= 72.5 else []
        legal += ["bid:zwabber"] if hb < 102.5 else []
        legal += ["bid:boonaak"]
    most = max(240, o["six_sequence_value"] + 20)
    legal += [f"bid:boonaak:{r}" for r in range(20, most + 1, 10) if boonaak_r is None or r > boonaak_r]
    return sorted(legal)


def _text_roem(cards: list[str], trump: str, six: int) -> int:
    """3: runs in A K Q J T 9 8 7 of one suit, four of a kind, the stuk."""
    total = 0
    for suit in "CDHS":
        run = 0
        for rank in PLAIN_TEXT + " ":
            if rank + suit in cards:
                run += 1
                continue
            total += {3: 20, 4: 50, 5: 100, 6: six}.get(run, 0)
            run = 0
    total += sum(value for rank, value in {"J": 200, "A": 100, "K": 100, "Q": 100}.items()
                 if all(rank + s in cards for s in "CDHS"))
    return total + (20 if "K" + trump in cards and "Q" + trump in cards else 0)


def _text_cards(hand: list[str], trick: list[list], trump: str | None) -> list[str]:
    """7.5, the rules file's legal(hand, trick, trump)."""
    if not trick:
        return hand
    led = trick[0][1][1]
    same = [c for c in hand if c[1] == led]
    if trump is None:
        return same or hand
    trumps = [c for c in hand if c[1] == trump]
    if led == trump:
        if not trumps or trumps == ["J" + trump]:
            return hand
        return trumps
    return same + trumps if same else hand


def _text_legal(p: dict) -> list[str]:
    seat = p["current_player"]
    hand = p["hands"][seat]
    if p["phase"] == "bidding":
        return _text_bids(p)
    if p["phase"] == "exchange":
        pool = sorted(hand + p["centre"], key=engine.cards.CODES.index)
        return sorted("discard:" + ",".join(c) for c in combinations(pool, len(p["centre"])))
    if p["phase"] == "trump":
        return ["trump:C", "trump:D", "trump:H", "trump:S"]
    if p["phase"] == "roem":
        held = _text_roem(hand, p["trump"], p["options"]["six_sequence_value"])
        return sorted(f"roem:{r}" for r in range(0, held + 1, 10))
    return sorted(_text_cards(hand, p["trick"], p["trump"]))


def _text_winner(trick: list[list], trump: str | None) -> int:
    """7.6: the highest trump if any, else the highest card of the led suit."""
    def power(card: str) -> int:
        if card[1] == trump:
            return 100 - TRUMP_TEXT.index(card[0])
        return 50 - PLAIN_TEXT.index(card[0]) if card[1] == trick[0][1][1] else -1
    return max(trick, key=lambda played: power(played[1]))[0]


def _text_marks(tricks: list[list[list]], p: dict) -> list[int]:
    """7.7, 8.1: each declarer's mark (+1 or -1), from the tricks played."""
    trump, n = p["trump"], p["players"]
    bids = [w for _s, w in p["auction"] if w != "pass"]
    contract = bids[-1]
    declarers = [s for s, w in p["auction"] if w == contract] if contract == "bid:misere" else \
        [next(s for s, w in reversed(p["auction"]) if w == contract)]
    won = [0] * n
    points = [0] * n
    for trick in tricks:
        winner = _text_winner(trick, trump)
        won[winner] += 1
        points[winner] += sum((TRUMP_POINTS_TEXT if c[1] == trump else PLAIN_POINTS_TEXT).get(c[0], 0)
                              for _s, c in trick)
    marks = [0] * n
    for d in declarers:
        value = contract.split(":", 1)[1]
        if value.isdigit():
            made = points[d] + (p["roem"] or 0) >= int(value)
        elif value == "misere":
            made = won[d] == 0
        else:
            held = p["hands"][d] + [c for trick in tricks for s, c in trick if s == d and [s, c] not in p["trick"]]
            held = sorted(set(held) | {c for s, c in p["trick"] if s == d})
            roem_needed = int(value.split(":")[1]) if value.count(":") else 0
            made = won[d] == 6 and _text_roem(held, trump, p["options"]["six_sequence_value"]) >= roem_needed
        marks[d] = 1 if made else -1
    return marks


# Bids a random player makes only when nothing else is legal (uniform bids would nearly always end in a boonaak with
# roem: they are most of the bids): the strong ones; or every bid but misère; or every bid but the numeric bids up
# to 100.
STRONG_BIDS = frozenset({*(f"bid:boonaak:{r}" for r in range(20, 521, 10)), *(f"bid:{v}" for v in range(101, 501))})
MISERE_ONLY = frozenset({*STRONG_BIDS, *(f"bid:{v}" for v in range(1, 101)), "bid:zwabber", "bid:boonaak"})
NUMERIC_ONLY = frozenset({*STRONG_BIDS, "bid:misere", "bid:zwabber", "bid:boonaak"})


@pytest.mark.parametrize("options", [{}, {"elimination": True, "plus_to_win": 1}, {"min_bid": 300, "max_bid": 300},
                                     {"six_sequence_value": 100, "bid_step": 10, "minus_to_lose": 3}])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_5_to_8_random_matches_play_and_score_as_the_rules_text_says(options: dict, n: int) -> None:
    for seed in range(4):
        play_checked(engine.new_match(GAME, seed=seed, players=n, options=options), seed, _text_legal, _text_marks)
        for avoid in (STRONG_BIDS, MISERE_ONLY, NUMERIC_ONLY):
            play_checked(engine.new_match(GAME, seed=seed, players=n, options=options), seed, _text_legal,
                         _text_marks, avoid=avoid)


def test_6_2_samples_of_a_misere_chain_fit_what_each_seat_saw() -> None:
    state = new(deck=deck_for(4, 3, LOW_HIGH, **CENTRE))
    start = state.clone()
    play(state, "pass", "bid:misere", "bid:misere", "pass")
    for choice in (3, 5, 0):  # two discards, then the lead
        play(state, state.legal_actions()[choice])
    for seat in range(4):
        seen, discards = state.observation(seat), set()
        for k in range(12):
            sample = engine.determinize(state, seat, Rng(k))
            assert sample.observation(seat) == seen
            again = start.clone()  # the sample's deck dealt again and its moves played: the sample itself
            again._start_deal(list(sample.deal_deck))
            again.deal_deck, again._legal = list(sample.deal_deck), None
            for _seat, action in sample.moves:
                again.apply_id(action)
            p, q = again.to_position(), sample.to_position()
            assert {k: v for k, v in p.items() if k not in ("seed", "rng")} == \
                {k: v for k, v in q.items() if k not in ("seed", "rng")}
            discards.add(tuple(q["discards"]))
        assert (len(discards) > 1) == (seat != 2)  # only seat 2, the last to exchange, knows its discards


def discard_of(state: engine.State, codes: Sequence[str]) -> str:
    """The legal discard action of exactly these cards."""
    return next(a for a in state.legal_actions() if a.startswith("discard:") and set(a[8:].split(",")) == set(codes))


def test_6_2_an_earlier_misere_declarer_may_have_kept_or_discarded_a_face_up_card() -> None:
    # Seat 1 keeps the face-up 8S and discards 8D, seat 2 passes 8D on; or seat 1 keeps 8D and discards 8S, which
    # seat 2 passes on. Seats 0 and 3 see neither discard: the two states look alike to them, so must their samples
    # (where 8S lies, in seat 1's hand or the last discards, is not theirs to know).
    states = []
    for kept, passed in (("8S", "8D"), ("8D", "8S")):
        state = play(new(deck=deck_for(4, 3, LOW_HIGH, **CENTRE)), "pass", "bid:misere", "bid:misere", "pass")
        play(state, discard_of(state, ["9C", "9D", "9S", passed]))
        play(state, discard_of(state, ["AC", "AD", "AH", passed]))
        assert kept in hand(state, 1) and passed in state.to_position()["discards"]
        states.append(state)
    for steps in range(3):
        if steps:  # the same lead and follows in both (none is 8S or 8D)
            action = next(a for a in states[0].legal_actions() if a not in ("8S", "8D"))
            assert action in states[1].legal_actions()
            for state in states:
                state.apply(action)
        for seat in (0, 3):
            assert states[0].observation(seat) == states[1].observation(seat)
            for k in range(6):
                a, b = (engine.determinize(state, seat, Rng(k)).to_position() for state in states)
                assert engine.from_position(GAME, a).to_position() == a
                assert {k: v for k, v in a.items() if k not in ("seed", "rng")} == \
                    {k: v for k, v in b.items() if k not in ("seed", "rng")}, f"seat {seat} sees where 8S went"


def test_4_2_6_1_where_a_card_the_declarer_played_was_dealt_is_unseen() -> None:
    # The declarer plays 9C, dealt to him or face down in the centre: the others cannot tell, so their samples'
    # decks do not show it either.
    states = []
    for dealt, down in (("TH", "9C"), ("9C", "TH")):
        deck = deck_for(4, 3, {0: [*TRUMPS[:5], dealt]}, down=[down, "9D"], up=["8S", "9S"])
        state = play(new(deck=deck), "bid:70", "pass", "pass", "pass")
        states.append(play(state, discard_of(state, ["TH", "9D", "8S", "9S"]), "trump:H", "roem:0", "9C"))
    for seat in (1, 2, 3):
        assert states[0].observation(seat) == states[1].observation(seat)
        for k in range(6):
            a, b = (engine.determinize(state, seat, Rng(k)).to_position() for state in states)
            assert engine.from_position(GAME, a).to_position() == a
            assert {k: v for k, v in a.items() if k not in ("seed", "rng")} == \
                {k: v for k, v in b.items() if k not in ("seed", "rng")}, f"seat {seat} sees where 9C was dealt"


@pytest.mark.parametrize("actions", [["pass", "bid:misere", "pass", "pass"], ["bid:70"]])
def test_7_2_a_position_naming_trump_out_of_place_is_refused(actions: list[str]) -> None:
    state = play(new(deck=deck_for(4, 3)), *actions)
    if state.phase == "exchange":
        play(state, state.legal_actions()[0])  # misère: no trump
    with pytest.raises(engine.PositionError, match="trump is named only"):
        engine.from_position(GAME, {**state.to_position(), "trump": "H"})


# ---- audit scenarios (issue 13): exact legal-action lists and edge cases, by section ---------------------------

# Seats 1 and 2 hold every 7, 8 and 9; seats 0 and 3 the aces, kings and queens; the jacks are the centre and the
# tens are set aside: in a misère (no trump) seats 0 and 3 take every trick.
MISERE_TABLE = deck_for(4, 3, {0: ["AC", "KC", "AD", "KD", "AH", "KH"], 3: ["AS", "KS", "QC", "QD", "QH", "QS"],
                               1: ["7C", "7D", "7H", "7S", "8C", "8D"], 2: ["8H", "8S", "9C", "9D", "9H", "9S"]},
                        down=["JC", "JD"], up=["JH", "JS"])
BOONAAK_BIDS = ["bid:boonaak", *(f"bid:boonaak:{r}" for r in range(20, 241, 10))]


def test_5_1_first_bidder_s_exact_list_of_bids() -> None:
    state = new(deck=deck_for(4, 3))
    assert state.current_player == 0  # 5.2: the dealer's left
    numeric = [f"bid:{v}" for v in range(70, 381, 5)]
    assert state.legal_actions() == sorted(["pass", *numeric, "bid:misere", "bid:zwabber", *BOONAAK_BIDS])


def test_5_3_above_the_highest_numeric_bid_only_boonaak() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:380")
    assert state.legal_actions() == sorted(["pass", *BOONAAK_BIDS])


def test_5_3_after_zwabber_numeric_bids_from_105_and_no_misere() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:misere", "bid:zwabber")
    assert state.current_player == 2
    numeric = [f"bid:{v}" for v in range(105, 381, 5)]
    assert state.legal_actions() == sorted(["pass", *numeric, *BOONAAK_BIDS])
    play(state, "bid:105", "pass", "pass")
    assert state.current_player == 1  # the zwabber bidder is outbid: he speaks again
    assert "bid:zwabber" not in bids(state) and "bid:misere" not in bids(state) and "bid:110" in bids(state)


def test_5_3_the_strongest_bid_leaves_only_pass() -> None:
    state = play(new(deck=deck_for(4, 3)), "bid:boonaak:240")
    assert state.legal_actions() == ["pass"]
    play(state, "pass", "pass", "pass")
    assert state.phase == "exchange" and state.current_player == 0
    assert state.observation(1)["contract"] == "boonaak:240"


def test_5_3_a_closed_misere_may_be_joined_again_three_declarers() -> None:
    state = play(new(deck=MISERE_TABLE), "pass", "bid:misere", "bid:misere")
    assert state.current_player == 3 and state.legal_actions() == ["bid:misere", "pass"]
    play(state, "bid:misere")
    assert state.phase == "exchange" and state.observation(0)["declarers"] == [1, 2, 3]  # 5.4: all still in hold it
    exchangers = []
    while state.phase == "exchange":
        exchangers.append(state.current_player)
        play(state, "discard:" + ",".join(state.to_position()["centre"]))
    assert exchangers == [1, 2, 3] and state.phase == "play" and state.current_player == 1  # 6.2, 7.1
    play_cards(state)
    result = state.deal_results[0]
    assert result["tricks_won"] == [6, 0, 0, 0] and result["plus"] == [0, 1, 1, 1] and result["minus"] == [0] * 4


def test_5_4_passing_is_for_the_whole_deal() -> None:
    state = play(new(deck=deck_for(4, 3)), "pass", "bid:70", "bid:75", "pass")
    assert state.current_player == 1  # seat 0 passed and never speaks again
    play(state, "bid:80", "pass")
    assert state.phase == "exchange" and state.current_player == 1


FOLLOW_TABLE = deck_for(4, 3, {0: ["AS", "KS", "QS", "7C", "8C", "9C"], 1: ["JS", "7H", "AD", "KC", "8D", "9D"],
                               2: ["9S", "TH", "7D", "AH", "KH", "QH"]}, down=["TD", "JD"], up=["QD", "KD"])


def test_7_5_a_trump_lead_in_play_lone_jack_free_a_trump_forced_void_free() -> None:
    state = play(new(deck=FOLLOW_TABLE), "bid:70", "pass", "pass", "pass", "discard:TD,JD,QD,KD", "trump:S")
    # 3.4: A-K-Q of spades 20, 7-8-9 of clubs 20, the stuk 20
    assert state.legal_actions() == [f"roem:{r}" for r in (0, 10, 20, 30, 40, 50, 60)]
    play(state, "roem:60", "AS")
    assert state.current_player == 1 and state.legal_actions() == ["7H", "8D", "9D", "AD", "JS", "KC"]  # lone JS
    play(state, "7H")
    assert state.legal_actions() == ["9S"]  # a trump lead asks a trump
    play(state, "9S")
    held = hand(state, 3)
    assert not any(c[1] == "S" for c in held) and state.legal_actions() == sorted(held)  # void in trumps: anything
    play(state, held[0])
    assert state.current_player == 2  # 7.6: the nine beats the ace in trumps


def test_7_5_void_in_a_plain_suit_need_not_trump() -> None:
    state = play(new(deck=FOLLOW_TABLE), "bid:70", "pass", "pass", "pass", "discard:TD,JD,QD,KD", "trump:S",
                 "roem:0", "7C")
    assert state.legal_actions() == ["JS", "KC"]  # follow the club, or trump with the lone jack
    play(state, "JS")
    assert state.legal_actions() == sorted(hand(state, 2))  # no club: any card, a trump or not
    assert "9S" in state.legal_actions() and "TH" in state.legal_actions()


def test_3_5_roem_counts_the_hand_after_the_exchange_with_the_trump_named() -> None:
    deck = deck_for(4, 3, {0: ["KH", "QH", "7C", "8C", "9D", "7S"]}, down=["AC", "AD"], up=["JH", "TH"])
    for trump, top in (("H", 70), ("C", 50)):  # K-Q-J-T of hearts 50, with the stuk only in hearts
        state = play(new(deck=deck), "bid:70", "pass", "pass", "pass", "discard:7C,8C,AC,AD", f"trump:{trump}")
        assert state.legal_actions() == sorted(f"roem:{r}" for r in range(0, top + 1, 10))
    state = play(new(deck=deck), "bid:70", "pass", "pass", "pass", "discard:7C,8C,AD,QH", "trump:H")
    assert state.legal_actions() == ["roem:0"]  # the queen discarded: K and J-T break, no stuk


@pytest.mark.parametrize(("declared", "plus"), [(220, 1), (210, 0)])
def test_7_3_understated_roem_counts_only_as_declared(declared: int, plus: int) -> None:
    # Six hearts J 9 A K Q T: the run A-K-Q-J-T-9 200 and the stuk 20; the declarer takes every trick
    state = new(deck=deck_for(4, 3, {0: TRUMPS}, **CENTRE))
    pile = state.to_position()["set_aside"] + ["9C", "9D", "8S", "9S"]
    taken = 141 - sum(PLAIN_POINTS_TEXT.get(c[0], 0) for c in pile)  # 2.4: discards and set-aside score nothing
    contract = (taken + 220) // 5 * 5  # made with 220 declared, not with 210
    play(state, f"bid:{contract}", "pass", "pass", "pass", "discard:9C,9D,8S,9S", "trump:H", f"roem:{declared}")
    play_cards(state)
    result = state.deal_results[0]
    assert result["tricks_won"][0] == 6 and result["card_points"][0] == taken and result["plus"][0] == plus


@pytest.mark.parametrize(("over", "plus"), [(0, 1), (1, 0)])
def test_7_7_numeric_card_points_plus_roem_equal_to_the_bid_make_it(over: int, plus: int) -> None:
    # 7.7: points + declared roem >= N; exactly N makes the contract, N + 1 does not (bid_step 1 allows every N)
    state = new(deck=deck_for(4, 3, {0: TRUMPS}, **CENTRE), bid_step=1)
    pile = state.to_position()["set_aside"] + ["9C", "9D", "8S", "9S"]
    taken = 141 - sum(PLAIN_POINTS_TEXT.get(c[0], 0) for c in pile)  # the declarer takes every trick
    play(state, f"bid:{taken + 220 + over}", "pass", "pass", "pass", "discard:9C,9D,8S,9S", "trump:H", "roem:220")
    play_cards(state)
    result = state.deal_results[0]
    assert result["card_points"][0] == taken and result["plus"][0] == plus and result["minus"][0] == 1 - plus


def test_8_2_every_seat_reaching_two_plus_wins() -> None:
    state = table(4, [0, 1, 1, 0], [0, 0, 0, 0], MISERE_TABLE, dealer=3)
    misere_deal(state, 1, 2)
    assert state.deal_results[-1]["plus"] == [0, 1, 1, 0] and state.is_terminal and state.winners == [1, 2]


def test_8_2_a_loser_ends_the_match_even_when_a_co_declarer_makes() -> None:
    state = table(4, [0, 0, 0, 0], [1, 0, 0, 1], MISERE_TABLE, dealer=3)
    misere_deal(state, 0, 3)
    result = state.deal_results[-1]
    assert result["tricks_won"] == [6, 0, 0, 0] and result["plus"] == [0, 0, 0, 1] and result["minus"] == [1, 0, 0, 0]
    assert state.is_terminal and state.scores == [-2, 0, 0, 0] and state.winners == []  # 8.2: seat 3's + wins nothing


def test_8_2_no_plus_no_two_minus_the_match_goes_on() -> None:
    state = table(4, [1, 0, 0, 0], [0, 1, 0, 0], MISERE_TABLE, dealer=3)
    misere_deal(state, 1)
    assert state.deal_results[-1]["plus"] == [0, 1, 0, 0] and not state.is_terminal and state.scores == [1, 0, 0, 0]
    assert state.to_position()["minus_marks"] == 10
    assert state.dealer == 0 and state.current_player == 1  # 4.1: the next dealer


def test_4_2_6_1_five_players_take_the_two_face_up_cards() -> None:
    state = new(n=5, dealer=4)
    centre = state.to_position()["centre"]
    assert len(centre) == 2 and state.observation(2)["face_up"] == centre and state.to_position()["set_aside"] == []
    play(state, "bid:70", "pass", "pass", "pass", "pass")
    pool = sorted(hand(state, 0) + centre, key=engine.cards.CODES.index)
    assert state.legal_actions() == sorted("discard:" + ",".join(c) for c in combinations(pool, 2))


def test_4_2_6_1_three_players_ten_set_aside_four_in_the_centre() -> None:
    state = new(n=3, dealer=2)
    p = state.to_position()
    assert len(p["set_aside"]) == 10 and len(p["centre"]) == 4 and state.current_player == 0
    play(state, "pass", "bid:misere", "pass")
    assert state.phase == "exchange" and state.current_player == 1 and len(state.legal_actions()) == 210


def _text_turn(p: dict) -> int:
    """5.2, 7.1, 7.6, 8.3: the seat to act, from the rules text: in the bidding the next seat from the dealer's left
    that has not passed and does not hold the highest bid; in the exchange the declarers in bidding order; then the
    declarer (the first misère bidder); in play the next seat at the table, or the last trick's winner."""
    n, o = p["players"], p["options"]
    minus = unpack_marks(p["minus_marks"], n)
    table_seats = [s for s in range(n) if not o["elimination"] or p["scores"][s] + minus[s] < o["plus_to_win"]]
    around = [(p["dealer"] + k) % n for k in range(1, n + 1) if (p["dealer"] + k) % n in table_seats]
    highest, holders, passed = None, [], set()
    for seat, word in p["auction"]:
        if word == "pass":
            passed.add(seat)
        elif word == highest:
            holders.append(seat)
        else:
            highest, holders = word, [seat]
    if p["phase"] == "bidding":
        if not p["auction"]:
            return around[0]
        last = around.index(p["auction"][-1][0])
        return next(s for s in around[last + 1:] + around[:last + 1] if s not in passed and s not in holders)
    if p["phase"] == "exchange":
        return holders[len(p["exchanges"])]
    if p["phase"] in ("trump", "roem") or not (p["trick"] or p["tricks"]):
        return holders[0]
    if p["trick"]:
        last = around.index(p["trick"][-1][0])
        return around[(last + 1) % len(around)]
    return _text_winner(p["tricks"][-1], p["trump"])


@pytest.mark.parametrize("options", [{}, {"elimination": True, "plus_to_win": 1}])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_5_2_7_1_7_6_the_seat_to_act_is_the_rules_text_s(options: dict, n: int) -> None:
    def checked(p: dict) -> list[str]:
        assert p["current_player"] == _text_turn(p), p
        return _text_legal(p)

    for seed in range(3):
        for avoid in (STRONG_BIDS, MISERE_ONLY, NUMERIC_ONLY):
            play_checked(engine.new_match(GAME, seed=seed, players=n, options=options), seed, checked, avoid=avoid)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_2_7_6_tricks_won_and_card_points_are_the_rules_text_s(n: int) -> None:
    deals = 0
    for seed in range(3):
        for avoid in (STRONG_BIDS, MISERE_ONLY, NUMERIC_ONLY):
            state, rng = engine.new_match(GAME, seed=seed, players=n), Rng(seed)
            while not state.is_terminal:
                before, done = state.to_position(), len(state.deal_results)
                ids = state.legal_action_ids()
                state.apply_id(rng.choice([a for a in ids if state.action_string(a) not in avoid] or ids))
                if len(state.deal_results) == done:
                    continue
                seat, card = state.history[-1]
                won, points = [0] * n, [0] * n
                for trick in [*before["tricks"], [*before["trick"], [seat, card]]]:
                    winner = _text_winner(trick, before["trump"])
                    won[winner] += 1
                    points[winner] += sum((TRUMP_POINTS_TEXT if c[1] == before["trump"] else PLAIN_POINTS_TEXT)
                                          .get(c[0], 0) for _s, c in trick)
                result = state.deal_results[-1]
                assert (result["tricks_won"], result["card_points"]) == (won, points)
                deals += 1
    assert deals >= 9


def test_7_2_7_3_a_card_before_trump_and_an_overstated_roem_are_refused() -> None:
    state = play(new(deck=FOLLOW_TABLE), "bid:70", "pass", "pass", "pass", "discard:TD,JD,QD,KD")
    before = state.to_position()
    with pytest.raises(engine.IllegalAction):
        state.apply("AS")  # 7.2: trump is named first (the engine writes a lead without naming as trump:<suit>)
    with pytest.raises(engine.IllegalAction):
        state.apply("trump:none")  # no no-trump in a numeric contract
    assert state.to_position() == before and before["phase"] == "trump"
    play(state, "trump:S")
    named = state.to_position()
    with pytest.raises(engine.IllegalAction):
        state.apply("roem:70")  # 7.3: 60 held, never overstated
    assert state.to_position() == named and named["phase"] == "roem"


def test_5_every_auction_of_a_short_ladder_is_the_rules_text_s() -> None:
    """5.2-5.5 on every bidding sequence of three players with the numeric bids 70 and 75 (and three of the boonaak
    roem bids): the legal bids, the seat to speak, and who declares what when the bidding ends."""
    ended = []

    def walk(state: engine.State) -> None:
        p = state.to_position()
        if p["phase"] == "bidding" and not p.get("redealt"):
            assert state.legal_actions() == _text_bids(p) and state.current_player == _text_turn(p), p["auction"]
            for action in state.legal_actions():
                if action.count(":") < 2 or action in ("bid:boonaak:20", "bid:boonaak:30", "bid:boonaak:240"):
                    walk(play(state.clone(), action))
        elif p["phase"] == "exchange":
            words = [(s, w) for s, w in p["auction"] if w != "pass"]
            holders = [s for s, w in words if w == words[-1][1]] if words[-1][1] == "bid:misere" else [words[-1][0]]
            assert state.observation(0)["declarers"] == holders and state.current_player == holders[0]
            assert state.observation(0)["contract"] == words[-1][1].split(":", 1)[1]
            ended.append(holders)
        else:  # 5.4: all passed; the next dealer deals, no score
            assert p["redealt"] == 1 and p["dealer"] == 0 and p["scores"] == [0, 0, 0] and p["phase"] == "bidding"

    walk(engine.new_match(GAME, seed=5, players=3, first_dealer=2, options={"min_bid": 70, "max_bid": 75}))
    assert len(ended) == 1296 and [1, 2, 0] in ended


def test_9_players_is_an_option_too() -> None:
    """9: the options table names ``players`` (like ``first_dealer``, it is also new_match's own argument)."""
    state = engine.new_match(GAME, seed=1, options={"players": 5, "first_dealer": 2})
    assert state.n_players == 5 and state.dealer == 2 and len(state.to_position()["hands"]) == 5
    assert engine.new_match(GAME, seed=1, players=3, options={"players": 3}).n_players == 3
    for bad in ({"players": 6}, {"players": 2}):
        with pytest.raises(ValueError):
            engine.new_match(GAME, seed=1, options=bad)
    with pytest.raises(ValueError):
        engine.new_match(GAME, seed=1, players=4, options={"players": 5})
