"""The shared trick-taking machinery: dealing, card action ids, rankings, trick winners, the legal-card rule."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cards import CODES, SUIT, SUIT_MASK, cards_in, codes_of, mask_of, parse_card, parse_cards
from engine.dealing import deal_rounds
from engine.errors import PositionError
from engine.games.tres.rules import TrickBonus, ranks_mask, second_card_mask
from engine.scoring import highest_once_target_reached, point_table
from engine.tricks import (
    CLUBS,
    DIAMONDS,
    FOLLOW_SUIT,
    HEARTS,
    NO_TRUMP,
    SPADES,
    CardActions,
    FollowRule,
    Ranking,
    beaters_mask,
    beats,
    check_play_order,
    cut,
    gather_tricks,
    legal_mask,
    trick_winner,
)

BELOTE = Ranking("ATKQJ987", "J9ATKQ87")
WHIST = Ranking("AKQJT98765432")
BELOTE_RULE = FollowRule(must_trump=True, partner_exempts=True, must_overtrump=True)


def legal(rule, hand, trick, trump, partner_winning=False, ranking=BELOTE):
    cards = parse_cards(trick)
    led = SUIT[cards[0]] if cards else None
    trumps = [c for c in cards if SUIT[c] == trump]
    best = max(trumps, key=ranking.power[trump].__getitem__) if trumps else None
    over = beaters_mask(ranking, trump, best)
    return codes_of(cards_in(legal_mask(rule, mask_of(parse_cards(hand)), led, trump, over, partner_winning)))


def test_deal_rounds_in_packets_3_2_3():
    deck = list(range(32))
    hands, used = deal_rounds(deck, [1, 2, 3, 0], [3, 2, 3])
    assert hands[1] == [0, 1, 2, 12, 13, 20, 21, 22]
    assert hands[0] == [9, 10, 11, 18, 19, 29, 30, 31]
    assert used == 32


def test_deal_rounds_with_per_seat_counts_and_a_start():
    hands, used = deal_rounds(list(range(32)), [3, 0, 1, 2], [(3, 2, 3, 3)], start=21)
    assert hands[3] == [21, 22, 23] and hands[0] == [24, 25] and hands[2] == [29, 30, 31] and used == 32


def test_after_a_trick_each_seat_draws_from_the_winner_on_while_the_stock_lasts():
    state = engine.new_match("two_ten_jack", seed=4, players=3, first_dealer=0, options={"max_deals": 1})
    stock = list(state.stock)
    while state.current_player is not None:
        top, before = state.stock_top, list(state.hands)
        for _ in range(3):
            state.apply_id(state.legal_action_ids()[-1])
        if state.current_player is None:
            break
        winner, drawn = state.current_player, stock[top:top + 3]
        assert state.stock_top == top + len(drawn)
        for k, card in enumerate(drawn):
            seat = (winner + k) % 3
            assert state.hands[seat] & ~before[seat] == 1 << card


def test_gather_and_cut():
    tricks = [[(1, 10), (2, 11)], [(2, 12), (1, 13)]]
    assert gather_tricks(tricks) == [10, 11, 12, 13]
    assert cut([1, 2, 3, 4, 5], 3) == [4, 5, 1, 2, 3]


def test_ranking_powers_trumps_above_plain_cards():
    power = BELOTE.power[HEARTS]
    order = [parse_card(r + "H") for r in "J9ATKQ87"]
    assert [power[c] for c in order] == sorted((power[c] for c in order), reverse=True)
    assert min(power[c] for c in order) > max(power[parse_card(r + "S")] for r in "ATKQJ987")


@pytest.mark.parametrize(("cards", "trump", "winner"), [
    (["TH", "AH", "7C", "8C"], CLUBS, 3),       # belote_contree 10.8: 8C beats 7C in trumps
    (["KS", "AS", "7D", "TS"], DIAMONDS, 2),    # belote 10.5: only trump
    (["7S", "KD"], HEARTS, 0),                  # german_whist E5: off-suit never wins
    (["9H", "JH", "AH"], NO_TRUMP, 2),
])
def test_trick_winner(cards, trump, winner):
    ranking = BELOTE if trump != HEARTS else WHIST
    assert trick_winner(parse_cards(cards), trump, ranking) == winner


def test_beats_only_same_suit_or_trump():
    power = WHIST.power[SPADES]
    assert beats(parse_card("2S"), parse_card("AH"), SPADES, power)
    assert not beats(parse_card("AD"), parse_card("2H"), SPADES, power)
    assert beats(parse_card("3H"), parse_card("2H"), SPADES, power)


def test_beaters_mask():
    assert beaters_mask(BELOTE, SPADES, None) == SUIT_MASK[SPADES]
    assert codes_of(cards_in(beaters_mask(BELOTE, SPADES, parse_card("AS")))) == ["9S", "JS"]
    assert beaters_mask(BELOTE, NO_TRUMP, None) == 0


@pytest.mark.parametrize(("hand", "trick", "trump", "partner", "expected"), [
    (["JS", "8S", "AD", "KH"], ["9S", "7S"], SPADES, True, ["JS"]),          # contree 10.1: overtrump even partner
    (["TD", "7S", "AS"], ["JS"], SPADES, False, ["7S", "AS"]),               # 10.2: only lower trumps
    (["9C", "7D", "AD", "JH"], ["KD"], HEARTS, False, ["7D", "AD"]),         # 10.3: follow suit
    (["KC", "8H", "JH", "7S"], ["AD", "7D"], HEARTS, True, ["KC", "8H", "JH", "7S"]),  # 10.4
    (["9D", "7H", "AH", "KS"], ["TC", "QH", "8C"], HEARTS, True, ["9D", "AH", "KS"]),  # 10.5
    (["KD", "8H", "QS"], ["AC", "9H"], HEARTS, False, ["8H"]),                # 10.6: undertrump
    (["AC", "7D", "JD", "KH"], ["7S"], DIAMONDS, False, ["7D", "JD"]),       # 10.7: must trump
    (["7C", "9S", "QS"], ["AD", "8S"], SPADES, False, ["9S", "QS"]),          # belote 10.3
    (["JC", "8C", "AH"], ["AC", "9C"], CLUBS, False, ["JC"]),                 # belote 10.4
    (["AH", "KD"], [], CLUBS, False, ["KD", "AH"]),                           # the leader plays anything
    (["AH", "KD"], ["7S"], CLUBS, False, ["KD", "AH"]),                       # void and no trump: anything
])
def test_belote_rule(hand, trick, trump, partner, expected):
    assert legal(BELOTE_RULE, hand, trick, trump, partner) == sorted(expected, key=parse_card)


def test_follow_suit_rule_never_forces_a_trump():
    assert legal(FOLLOW_SUIT, ["3C", "9S", "KS", "4H"], ["QS"], HEARTS, ranking=WHIST) == ["9S", "KS"]
    assert legal(FOLLOW_SUIT, ["3C", "4H", "AD"], ["QS"], HEARTS, ranking=WHIST) == ["3C", "AD", "4H"]


def test_overtrump_without_must_trump_applies_only_to_a_player_who_trumps():
    rule = FollowRule(must_overtrump=True)
    assert legal(rule, ["7H", "AH", "KS"], ["TC", "QH"], HEARTS) == ["AH", "KS"]


@settings(max_examples=200, deadline=None)
@given(hand=st.sets(st.sampled_from(range(52)), min_size=1, max_size=13),
       trick=st.lists(st.sampled_from(range(52)), max_size=3, unique=True),
       trump=st.sampled_from(range(5)), partner=st.booleans(),
       rule=st.sampled_from([FOLLOW_SUIT, BELOTE_RULE, FollowRule(must_trump=True), FollowRule(must_overtrump=True)]))
def test_legal_mask_is_never_empty_and_a_subset_of_the_hand(hand, trick, trump, partner, rule):
    hand -= set(trick)
    if not hand:
        return
    codes = legal(rule, [CODES[c] for c in hand], [CODES[c] for c in trick], trump, partner, ranking=WHIST)
    assert codes and set(codes) <= {CODES[c] for c in hand}
    if trick and any(SUIT[c] == SUIT[trick[0]] for c in hand):
        assert all(SUIT[parse_card(c)] == SUIT[trick[0]] for c in codes), "must follow suit"


def test_card_actions_sort_like_their_strings():
    acts = CardActions(suffixes=("belote",), words=("pass", "bid:80:H", "bid:100:C", "contre", "bid:capot:S"))
    assert [acts.string(a) for a in range(len(acts.strings))] == sorted(acts.strings)
    assert acts.ids_of_string["KH:belote"] == acts.card_id(parse_card("KH"), 1)
    assert acts.card_of[acts.card_id(parse_card("7D"))] == parse_card("7D")
    assert acts.card_of[acts.word_id("pass")] is None


@settings(max_examples=100, deadline=None)
@given(cards=st.sets(st.sampled_from(range(52))))
def test_card_actions_ids_of_a_mask(cards):
    acts = CardActions()
    ids = acts.ids(mask_of(cards))
    assert [acts.string(a) for a in ids] == sorted(CODES[c] for c in cards)
    for suit in range(4):
        in_suit = mask_of(cards) & SUIT_MASK[suit]
        assert acts.suit_ids(in_suit, suit) == [a for a in ids if SUIT[acts.card_of[a]] == suit]


def test_card_actions_refuse_bad_words():
    with pytest.raises(ValueError):
        CardActions(words=("Pass",))
    with pytest.raises(ValueError):
        CardActions(suffixes=("z", "a"))


def test_point_table_and_match_target():
    table = point_table({"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2},
                        {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3})
    deck = [s * 13 + r for s, r in itertools.product(range(4), range(5, 13))]
    assert all(sum(table[t][c] for c in deck) == 152 for t in range(4))
    assert highest_once_target_reached([999, 10], 1000) is None
    assert highest_once_target_reached([1000, 1200], 1000) == [1]


# ---- tricks of more cards than seats (Très, tres.md 5) ----------------------------------------------------------


@pytest.mark.parametrize(("hand", "winning", "opponent_winning", "expected"), [
    (["3C", "AC", "2H", "7S"], "KC", True, ["3C", "AC"]),               # tres.md E4: follow the winning card's suit
    (["3C", "AC", "2H", "QH", "7S"], "4H", True, ["2H", "QH"]),         # E5: it is a trump: follow trumps
    (["3C", "AC", "7S"], "4H", True, ["3C", "AC", "7S"]),               # void in it: anything
    (["KD", "2H", "7S"], "9C", False, ["KD", "2H", "7S"]),              # E6: own card winning: anything
])
def test_second_card_mask(hand, winning, opponent_winning, expected):
    mask = second_card_mask(mask_of(parse_cards(hand)), parse_card(winning), opponent_winning)
    assert codes_of(cards_in(mask)) == sorted(expected, key=parse_card)


def test_check_play_order_with_three_card_tricks_and_the_lead_passing():
    tricks = [[(1, 0), (0, 1), (1, 2)], [(0, 3), (1, 4), (0, 5)]]  # the lead passes, whoever won trick 1
    assert check_play_order(tricks, [(1, 6)], 1, 2, lambda cards: 1, size=3, lead_passes=True) == 0
    with pytest.raises(PositionError, match="trick 2 must be played in seat order from seat 0"):
        check_play_order(tricks[:1] + [[(1, 3), (0, 4), (1, 5)]], [], 1, 2, lambda cards: 2, size=3,
                         lead_passes=True)
    with pytest.raises(PositionError, match="finished trick 1 must hold 3 cards"):
        check_play_order([tricks[0][:2]], [], 1, 2, lambda cards: 0, size=3, lead_passes=True)


def test_trick_bonus_by_count_and_by_suits():
    bonus = TrickBonus(ranks_mask("234"), by_count=(0, 2, 4, 8), by_suits=((1, 16), (3, 16)))
    assert [bonus.bonus(parse_cards(t)) for t in (["AS", "KS", "QS"], ["2S", "KS", "QS"], ["2S", "3C", "QS"],
                                                  ["2S", "3C", "4S"], ["2S", "3S", "4S"], ["2S", "3C", "4D"])] == \
        [0, 2, 4, 8, 16, 16]
    assert bonus.value(parse_cards(["AS", "KS", "QS"])) == 1
    assert bonus.value(parse_cards(["AS", "KS", "QS"]), additive=True) == 1
    assert bonus.value(parse_cards(["2S", "3C", "4D"]), trick_point=2, additive=True) == 18
