"""Très: every worked example of shared/rules/tres.md (E1-E13) and at least one test per rule, by section."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_text import play_checked

import engine
from engine.cards import CODES, parse_card, parse_cards
from engine.games.tres import BONUS, RANKING, TRICKS_PER_DEAL
from engine.games.tres.rules import TrickBonus, ranks_mask
from engine.rng import Rng
from engine.tricks import suit_of_code, trick_winner

GAME = "tres"
TRIES = 2000


def new(seed: int = 1, first_dealer: int | None = 0, deck: list[str] | None = None, **options) -> engine.State:
    return engine.new_match(GAME, seed=seed, options=options, first_dealer=first_dealer, deck=deck)


def deck_cards(removed: str = "5D") -> list[str]:
    return [c for c in CODES if c != removed]


def played_before(trick: int, first: bool) -> int:
    """Cards the first (or second) player has played before trick ``trick`` (1-based): 2 in each trick he leads."""
    return sum((2 if (k % 2 == 1) == first else 1) for k in range(1, trick))


def at_trick(number: int, hands: dict[int, Sequence[str]], trick: Sequence[str] = (), dealer: int = 0,
             avoid: str = "", **options) -> engine.State:
    """The first deal (dealer ``dealer``) at trick ``number`` with ``trick`` played to it so far: each seat listed
    in ``hands`` holds exactly those cards, the other seat its own cards plus others (not of the suits in
    ``avoid``); the earlier tricks are built from the last one back, each card one its player could play holding
    the cards it plays later (a seeded random search), and the engine plays them all again from the deal."""
    first = 1 - dealer
    leader = first if number % 2 == 1 else dealer
    order = [leader, 1 - leader, leader][:len(trick)]
    removed = options.get("removed_card", "5D")
    rng = random.Random(number)
    for _ in range(TRIES):
        placed = [c for h in hands.values() for c in h] + list(trick)
        spare = [c for c in deck_cards(removed) if c not in placed]
        rng.shuffle(spare)
        held = {}
        for seat in (0, 1):
            in_trick = [c for s, c in zip(order, trick, strict=True) if s == seat]
            size = (26 if seat == first else 25) - played_before(number, seat == first) - len(in_trick)
            if seat in hands:
                assert len(hands[seat]) == size, f"seat {seat} holds {size} cards at trick {number}"
                held[seat] = list(hands[seat]) + in_trick
            else:
                pad = [c for c in spare if c[1] not in avoid][:size]
                assert len(pad) == size, "not enough cards outside the avoided suits"
                spare = [c for c in spare if c not in pad]
                held[seat] = pad + in_trick
        tricks = _tricks_back(rng, spare, held, number, first)
        if tricks is None:
            continue
        full = {seat: [c for t in tricks for s, c in t if s == seat] + held[seat] for seat in (0, 1)}
        deck = [full[first if i % 2 == 0 else dealer][i // 2] for i in range(51)]
        state = new(deck=deck, first_dealer=dealer, **options)
        for _seat, card in [*(pair for t in tricks for pair in t), *zip(order, trick, strict=True)]:
            state.apply(card)
        return state
    raise AssertionError("no deal found")


def _tricks_back(rng: random.Random, spare: list[str], held: dict[int, list[str]], number: int,
                 first: int) -> list[list[tuple[int, str]]] | None:
    """Tricks 1 .. number-1 of the ``spare`` cards, built from the last one back (``held``: each seat's cards after
    them, grown as tricks are added); None at a dead end. Cards of the led suit are preferred: always legal."""
    tricks: list[list[tuple[int, str]]] = []
    for t in reversed(range(1, number)):
        leader = first if t % 2 == 1 else 1 - first
        c1 = spare[0]
        same = [c for c in spare[1:] if c[1] == c1[1]]
        c2 = same[0] if same else spare[1]
        rest = [c for c in spare if c not in (c1, c2)]
        same = [c for c in rest if c[1] == c2[1]]
        c3 = same[0] if same else rest[0]
        if not _legal_trick(c1, c2, c3, held[leader], held[1 - leader]):
            return None
        spare[:] = [c for c in spare if c not in (c1, c2, c3)]
        rng.shuffle(spare)
        held[leader] += [c1, c3]
        held[1 - leader] += [c2]
        tricks.insert(0, [(leader, c1), (1 - leader, c2), (leader, c3)])
    return tricks


def _legal_trick(c1: str, c2: str, c3: str, leader_later: list[str], follower_later: list[str]) -> bool:
    """Whether 5.3 and 5.4 allow the trick when the players hold also the cards they play later."""
    if c2[1] != c1[1] and any(c[1] == c1[1] for c in follower_later):
        return False
    follower_winning = trick_winner(parse_cards([c1, c2]), suit_of_code("H"), RANKING) == 1
    return not (follower_winning and c3[1] != c2[1] and any(c[1] == c2[1] for c in leader_later))


def values_of(state: engine.State) -> list[int]:
    return [BONUS.value([parse_card(c) for _s, c in t], additive=state.options["additive_trick_point"])
            for t in state.to_position()["tricks"]]


def last_trick_of_deal(seed: int, deal: int = 0, scores: Sequence[int] | None = None, **options) -> engine.State:
    """A random match at the start of the last trick of deal ``deal``, its match scores set to ``scores``."""
    state = new(seed=seed, **options)
    rng = Rng(seed)
    while not (state.deal_index == deal and len(state.to_position()["tricks"]) == TRICKS_PER_DEAL - 1
               and not state.to_position()["trick"]):
        state.apply(rng.choice(state.legal_actions()))
    p = state.to_position()
    if scores is not None:
        p["scores"] = list(scores)
    return engine.from_position(GAME, p)


def finish_deal(state: engine.State) -> list[int]:
    """Play the last trick's first legal cards; the deal's points."""
    deal = state.deal_index
    while state.deal_index == deal and not state.is_terminal:
        state.apply(state.legal_actions()[0])
    return state.deal_results[-1]["points"]


# ---- 1. identity ------------------------------------------------------------------------------------------------


def test_1_1_identity_and_1_2_exactly_two_players():
    info = engine.game_info(GAME)
    assert info.id == "tres" and info.name == "Très" and info.player_counts == (2,) and info.deck_size == 51
    for players in (3, 4):
        with pytest.raises(ValueError, match="played by 2 players"):
            engine.new_match(GAME, seed=1, players=players)


@pytest.mark.parametrize("removed", ["5C", "5D", "5H", "5S"])
def test_1_3_the_deck_is_51_cards_without_the_removed_five(removed):
    state = new(removed_card=removed)
    p = state.to_position()
    cards = [c for hand in p["hands"] for c in hand]
    assert len(cards) == len(set(cards)) == 51 and removed not in cards
    assert sorted(p["deal_deck"], key=CODES.index) == deck_cards(removed)


def test_1_5_every_trick_holds_three_cards_leader_follower_leader():
    state = new(seed=4)
    leader = state.current_player
    seats = []
    for _ in range(3):
        seats.append(state.current_player)
        state.apply(state.legal_actions()[0])
    assert seats == [leader, 1 - leader, leader]
    p = state.to_position()
    assert len(p["tricks"]) == 1 and [s for s, _c in p["tricks"][0]] == seats and p["trick"] == []


# ---- 2. ranking and trump ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("trump", "cards", "winner"), [
    ("H", ["AS", "KS", "2S"], 0),    # 2.1: A is high
    ("H", ["3S", "4S", "2S"], 1),    # 2.1: 2 is low
    ("H", ["TC", "JC", "AD"], 1),    # an off-suit card never wins
    ("H", ["AC", "2H", "3H"], 2),    # 2.2: trump beats the led suit, a higher trump beats it
    ("S", ["AC", "2H", "2S"], 2),    # trump_suit S
    ("C", ["AS", "KS", "2C"], 2),    # trump_suit C
])
def test_2_trick_winner_by_rank_and_trump(trump, cards, winner):
    assert trick_winner(parse_cards(cards), suit_of_code(trump), RANKING) == winner


def test_2_2_trump_is_the_trump_suit_option():
    assert new().to_position()["trump"] == "H"
    assert new(trump_suit="C").observation(0)["trump"] == "C"


# ---- 3. deal ----------------------------------------------------------------------------------------------------


def test_e1_deal_one_at_a_time_first_player_first_and_alternating_lead():
    deck = deck_cards()
    random.Random(5).shuffle(deck)
    state = new(deck=deck, first_dealer=0)
    p = state.to_position()
    assert p["hands"][1] == sorted(deck[0::2], key=CODES.index) and len(p["hands"][1]) == 26
    assert p["hands"][0] == sorted(deck[1::2], key=CODES.index) and len(p["hands"][0]) == 25
    assert p["first_player"] == 1 and state.current_player == 1
    leaders = []
    rng = Rng(2)
    while state.deal_index == 0:
        if not state.to_position()["trick"]:
            leaders.append(state.current_player)
        state.apply(rng.choice(state.legal_actions()))
    assert leaders == [1, 0] * 8 + [1]  # seat 1 leads tricks 1, 3, ..., 17


def test_3_1_first_dealer_given_or_drawn_with_the_rng():
    assert {new(seed=s, first_dealer=None).dealer for s in range(40)} == {0, 1}
    assert new(seed=3, first_dealer=None).dealer == new(seed=3, first_dealer=None).dealer
    assert engine.new_match(GAME, seed=1, options={"first_dealer": 1}).dealer == 1


def test_3_2_the_deal_alternates():
    state = new(seed=2, first_dealer=1, num_deals=3)
    rng = Rng(1)
    dealers = [state.dealer]
    while not state.is_terminal:
        deal = state.deal_index
        state.apply(rng.choice(state.legal_actions()))
        if state.deal_index != deal:
            dealers.append(state.dealer)
            assert state.current_player == 1 - state.dealer  # 3.3: the non-dealer is the first player
    assert dealers == [1, 0, 1]


# ---- 5. play ----------------------------------------------------------------------------------------------------


def test_5_1_the_lead_alternates_whoever_wins():
    state = new(seed=11)
    rng = Rng(4)
    for trick in range(1, TRICKS_PER_DEAL + 1):
        leader = state.current_player
        assert leader == (1 - state.dealer if trick % 2 else state.dealer)
        for _ in range(3):
            state.apply(rng.choice(state.legal_actions()))


def test_e2_follower_must_follow_the_led_suit():
    state = at_trick(15, {0: ["3C", "KC", "2H", "7S"]}, trick=["9C"], dealer=0)
    assert state.current_player == 0 and state.legal_actions() == ["3C", "KC"]


def test_e3_follower_void_plays_anything():
    state = at_trick(16, {1: ["2H", "7S", "KD"]}, trick=["9C"], dealer=0)
    assert state.current_player == 1 and state.legal_actions() == ["2H", "7S", "KD"]


def test_e4_follower_winning_the_leader_follows_his_suit():
    state = at_trick(15, {0: ["3C", "AC", "2H", "7S"]}, trick=["9C", "KC"], dealer=1)
    assert state.current_player == 0 and state.legal_actions() == ["3C", "AC"]


def test_e5_follower_trumped_the_leader_must_follow_trumps():
    state = at_trick(14, {1: ["3C", "AC", "2H", "QH", "7S"]}, trick=["9C", "4H"], dealer=1, avoid="C")
    assert state.current_player == 1 and state.legal_actions() == ["2H", "QH"]


def test_e5b_follower_winning_and_leader_void_in_his_suit_plays_anything():
    state = at_trick(15, {1: ["3C", "AC", "7S", "8D"]}, trick=["9C", "4H"], dealer=0, avoid="C")
    assert state.legal_actions() == ["3C", "7S", "8D", "AC"]


def test_e6_leader_winning_plays_anything():
    # E6's leader holds KD, 2H, 7S; a leader never holds 3 cards after his first card (26 - 3k - 1 or 25 - 3k - 2
    # cards), so he holds one more here: 9D
    state = at_trick(15, {1: ["KD", "2H", "7S", "9D"]}, trick=["9C", "3C"], dealer=0)
    assert state.current_player == 1 and state.legal_actions() == ["2H", "7S", "9D", "KD"]


def test_e7_the_highest_trump_wins_one_low_card_is_worth_2():
    state = at_trick(15, {1: ["QH", "2S", "3S", "8S"]}, trick=["9C", "4H"], dealer=0, avoid="C")
    before = state.to_position()["points"]
    state.apply("QH")
    p = state.to_position()
    assert p["tricks"][-1] == [[1, "9C"], [0, "4H"], [1, "QH"]]
    assert p["points"] == [before[0], before[1] + 2]
    assert state.current_player == 0  # 5.1: the other seat leads trick 16, the winner or not


def test_e8_the_follower_wins_with_the_highest_card_of_the_led_suit():
    state = at_trick(15, {1: ["2C", "8D", "9D", "TD"]}, trick=["7S", "KS"], dealer=0)
    before = state.to_position()["points"]
    assert state.legal_actions() == ["2C", "8D", "9D", "TD"]  # void in spades
    state.apply("2C")
    assert state.to_position()["points"] == [before[0] + 2, before[1]]
    assert state.current_player == 0  # the follower (seat 0) won and leads trick 16 as 5.1 says anyway


def test_5_7_a_seat_sees_its_own_hand_only():
    state = new(seed=3)
    p = state.to_position()
    for seat in (0, 1):
        obs = state.observation(seat, history=False)
        assert obs["hand"] == p["hands"][seat]
        assert not set(p["hands"][1 - seat]) & set(re.findall(r"[2-9TJQKA][CDHS]", json.dumps(obs)))


def _tres_beats(card: str, best: str, trump: str) -> bool:
    """5.4, 5.5: a higher card of the best card's suit, or a trump over a plain card."""
    order = "AKQJT98765432"
    if card[1] == best[1]:
        return order.index(card[0]) < order.index(best[0])
    return card[1] == trump


def _rules_text_legal(p: dict) -> list[str]:
    """5.2 - 5.4 as the rules file writes them."""
    hand, trick = p["hands"][p["current_player"]], [c for _s, c in p["trick"]]
    if not trick:
        return sorted(hand)
    if len(trick) == 1:
        return sorted([c for c in hand if c[1] == trick[0][1]] or hand)
    if _tres_beats(trick[1], trick[0], p["trump"]):  # the follower is winning: follow his suit if able
        return sorted([c for c in hand if c[1] == trick[1][1]] or hand)
    return sorted(hand)


def _rules_text_points(tricks: list, p: dict) -> list[int]:
    """5.1, 5.5 and 7.1 - 7.2 as the rules file writes them: the lead alternates from the first player."""
    points = [0, 0]
    for number, trick in enumerate(tricks):
        leader = 1 - p["dealer"] if number % 2 == 0 else p["dealer"]
        assert [s for s, _c in trick] == [leader, 1 - leader, leader]
        best = 0
        for k in (1, 2):
            if _tres_beats(trick[k][1], trick[best][1], p["trump"]):
                best = k
        low = [c for _s, c in trick if c[0] in "234"]
        bonus = [0, 2, 4, 16 if len({c[1] for c in low}) in (1, 3) else 8][len(low)]
        points[trick[best][0]] += 1 + bonus if p["options"]["additive_trick_point"] else max(1, bonus)
    return points


@pytest.mark.parametrize("options", [{}, {"trump_suit": "C", "removed_card": "5S", "additive_trick_point": True},
                                     {"target_score": 60}])
def test_5_and_7_random_matches_play_and_score_as_the_rules_text_says(options: dict) -> None:
    for seed in range(5):
        play_checked(new(seed=seed, first_dealer=seed % 2, **options), seed, _rules_text_legal, _rules_text_points)


# ---- 7. scoring -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cards", "value", "additive"), [
    (["2H", "2C", "2D"], 16, 17),   # E9: three low cards of three suits
    (["2H", "3H", "4H"], 16, 17),   # E10: 2, 3, 4 of one suit
    (["2H", "3D", "4H"], 8, 9),     # E11: three low cards of two suits
    (["AS", "KS", "QS"], 1, 1),     # E12: no low card
    (["3S", "4C", "AH"], 4, 5),     # E12: two low cards
    (["9C", "4H", "QH"], 2, 3),     # E7: one low card
    (["2S", "2H", "3S"], 8, 9),     # three low cards, two suits
])
def test_e9_to_e12_trick_values(cards, value, additive):
    assert BONUS.value(parse_cards(cards)) == value
    assert BONUS.value(parse_cards(cards), additive=True) == additive


def test_7_1_the_low_cards_are_the_twelve_2s_3s_and_4s():
    low = ranks_mask("234")
    assert [CODES[c] for c in range(52) if low >> c & 1] == [c for c in CODES if c[0] in "234"]
    assert TrickBonus(low, by_count=(0, 2, 4, 8)).value(parse_cards(["2H", "2C", "2D"])) == 8  # no suit rule: 8


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), additive=st.booleans())
def test_7_2_the_deal_score_adds_the_values_of_the_tricks_won(seed, additive):
    """Each seat scores the sum of the values of the tricks it won (at least 17 in all, 7.1)."""
    state = new(seed=seed, additive_trick_point=additive)
    rng = Rng(seed)
    while len(state.to_position()["tricks"]) < TRICKS_PER_DEAL - 1 or state.to_position()["trick"]:
        state.apply(rng.choice(state.legal_actions()))
    p = state.to_position()
    won = [[], []]
    for value, trick in zip(values_of(state), p["tricks"], strict=True):
        cards = parse_cards(c for _s, c in trick)
        won[trick[trick_winner(cards, suit_of_code("H"), RANKING)][0]].append(value)
    assert p["points"] == [sum(w) for w in won] and p["tricks_won"] == [len(w) for w in won]
    assert sum(p["points"]) >= 16
    points = finish_deal(state)
    assert points[0] + points[1] >= TRICKS_PER_DEAL and state.scores == points


# E13's deal, dealer 0: seat 1 leads the odd tricks. Each trick is leader, follower, leader.
E13_TRICKS = [
    ("2C", "3C", "AC"), ("3H", "2H", "4D"), ("4C", "QC", "KC"), ("3D", "6D", "AD"), ("2D", "7D", "KD"),
    ("4H", "5H", "AH"), ("2S", "3S", "4S"), ("5C", "6C", "7C"), ("8C", "9C", "TC"), ("8D", "9D", "TD"),
    ("QD", "JD", "JC"), ("6H", "7H", "8H"), ("9H", "TH", "JH"), ("KH", "QH", "5S"), ("6S", "7S", "8S"),
    ("9S", "TS", "JS"), ("QS", "KS", "AS"),
]


def test_e13_deal_score_is_the_sum_of_the_won_tricks_values():
    held: dict[int, list[str]] = {0: [], 1: []}
    for t, (c1, c2, c3) in enumerate(E13_TRICKS, start=1):
        leader = 1 if t % 2 else 0
        held[leader] += [c1, c3]
        held[1 - leader].append(c2)
    deck = [held[1 if i % 2 == 0 else 0][i // 2] for i in range(51)]
    state = new(deck=deck, first_dealer=0)
    for trick in E13_TRICKS:
        for card in trick:
            state.apply(card)
    won = {0: [], 1: []}
    for t, trick in enumerate(E13_TRICKS, start=1):
        leader = 1 if t % 2 else 0
        winner = [leader, 1 - leader, leader][trick_winner(parse_cards(trick), suit_of_code("H"), RANKING)]
        won[winner].append(BONUS.value(parse_cards(trick)))
    assert sorted(won[1]) == sorted([1, 1, 2, 4, 1, 16, 1, 2, 1])
    assert sorted(won[0]) == sorted([1, 2, 8, 1, 1, 1, 1, 2])
    assert state.deal_results[0]["points"] == [17, 29] and state.deal_results[0]["tricks_won"] == [8, 9]
    assert state.scores == [17, 29] and state.deal_index == 1


def test_7_3_two_deals_by_default_then_the_higher_total_wins():
    state = last_trick_of_deal(seed=1, deal=1, scores=[40, 10])
    points = finish_deal(state)
    assert state.is_terminal and state.scores == [40 + points[0], 10 + points[1]]
    assert state.winners == ([0] if state.scores[0] > state.scores[1] else [1] if state.scores[1] > state.scores[0]
                             else [0, 1])
    assert len(new().deal_results) == 0 and engine.game_length(GAME, 2).deals == 2


def test_7_3_equal_totals_are_a_draw():
    probe = last_trick_of_deal(seed=2, deal=1, scores=[0, 0])
    points = finish_deal(probe.clone())
    state = last_trick_of_deal(seed=2, deal=1, scores=[points[1], points[0]])
    finish_deal(state)
    assert state.is_terminal and state.scores[0] == state.scores[1] and state.winners == [0, 1]


def test_7_3_num_deals():
    state = new(seed=3, num_deals=3)
    rng = Rng(3)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert len(state.deal_results) == 3


def test_7_3_target_score_plays_on_until_a_total_reaches_it():
    state = last_trick_of_deal(seed=4, deal=2, target_score=100, scores=[50, 60])
    points = finish_deal(state)
    assert not state.is_terminal and state.deal_index == 3 and max(points) < 40  # num_deals is ignored
    state = last_trick_of_deal(seed=4, deal=0, target_score=100, scores=[95, 20])
    finish_deal(state)
    assert state.is_terminal and state.winners == [0] and state.scores[0] >= 100


def test_7_3_target_score_reached_with_equal_totals_plays_another_deal():
    probe = last_trick_of_deal(seed=5, deal=0, target_score=50, scores=[0, 0])
    points = finish_deal(probe.clone())
    state = last_trick_of_deal(seed=5, deal=0, target_score=50, scores=[60 + points[1], 60 + points[0]])
    finish_deal(state)
    assert not state.is_terminal and state.deal_index == 1 and state.scores[0] == state.scores[1]


# ---- 8. options -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "match"), [
    ({"trump_suit": "X"}, "trump_suit"),
    ({"removed_card": "AS"}, "removed_card"),
    ({"removed_card": "5X"}, "removed_card"),
    ({"num_deals": 0}, "num_deals"),
    ({"target_score": -1}, "target_score"),
    ({"additive_trick_point": 1}, "additive_trick_point"),
])
def test_8_options_are_validated(options, match):
    with pytest.raises(ValueError, match=match):
        engine.new_match(GAME, seed=1, options=options)


def test_8_defaults():
    assert new().options == {"trump_suit": "H", "removed_card": "5D", "additive_trick_point": False,
                             "num_deals": 2, "target_score": 0, "max_deals": 0}


def test_game_length_bounds_a_match_to_a_target():
    length = engine.game_length(GAME, 2, {"target_score": 1000})
    assert length.deals == 118 + 10 and length.moves_per_deal == 51
    state = new(seed=6, target_score=170)
    rng = Rng(6)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert max(state.scores) >= 170 and len(state.deal_results) <= engine.game_length(GAME, 2, state.options).deals


# ---- greedy (engine/games/tres/greedy.py) ------------------------------------------------------------------------


def _obs(hand: list[str], trick: list[list], tricks: list | None = None, **options) -> dict:
    options = {"trump_suit": "H", "removed_card": "5D", "additive_trick_point": False, **options}
    return {"game": GAME, "seat": trick[0][0] if len(trick) == 2 else 1 - trick[0][0] if trick else 0,
            "options": options, "hand": hand, "trick": trick, "tricks": tricks or [], "legal_actions": hand}


def _best(obs: dict) -> str:
    from engine.bots.seen import Seen
    from engine.games.tres.greedy import rank_tres
    keys = rank_tres(Seen(obs))
    return obs["legal_actions"][keys.index(max(keys))]


def test_greedy_second_card_wins_a_valuable_trick_and_adds_a_low_card_to_a_won_one():
    assert _best(_obs(["3C", "AC"], [[1, "9C"], [0, "KC"]])) == "AC"       # E4: win it back
    assert _best(_obs(["2H", "7S", "KD"], [[1, "9C"], [0, "3C"]])) == "2H"  # E6: winning: add a low card (4)
    assert _best(_obs(["2D", "3D", "4D"], [[1, "9D"], [0, "KD"]])) == "2D"  # lost anyway: the cheapest
    assert _best(_obs(["2H", "3C", "4H"], [[1, "2C"], [0, "3H"]])) == "4H"  # 8 won with the higher trump


def test_greedy_follower_wins_when_the_leader_cannot_take_it_back_or_ducks_cheaply():
    # seat 0 follows 9C holding KC and 6C; the other hand is what seat 0 has not seen
    for other, best in ((["2C", "3C"], "KC"), (["AC", "JH"], "6C")):
        hand = ["6C", "KC"]
        seen = [c for c in deck_cards() if c not in [*hand, "9C", *other]]
        tricks = [[[0, seen[i]], [1, seen[i + 1]], [0, seen[i + 2]]] for i in range(0, len(seen) - 2, 3)]
        obs = _obs(hand + seen[len(tricks) * 3:], [[1, "9C"]], tricks)
        obs["legal_actions"] = hand
        assert _best(obs) == best, other


def test_greedy_leads_a_card_the_follower_cannot_beat():
    hand = ["AS", "7S", "2C"]
    seen = [c for c in deck_cards() if c not in hand + ["KS", "3D", "4D"]]
    tricks = [[[0, seen[i]], [1, seen[i + 1]], [0, seen[i + 2]]] for i in range(0, len(seen) - 2, 3)]
    obs = _obs(hand + seen[len(tricks) * 3:], [], tricks)
    obs["legal_actions"] = hand
    assert _best(obs) == "AS"


# ---- positions (docs/positions/tres.md) -------------------------------------------------------------------------


def _in_play(seed: int = 3, tricks: int = 3, in_trick: int = 1) -> dict:
    """A position of a random first deal after ``tricks`` tricks and ``in_trick`` cards of the next."""
    state = new(seed=seed)
    rng = Rng(seed)
    for _ in range(3 * tricks + in_trick):
        state.apply(rng.choice(state.legal_actions()))
    position = state.to_position()
    assert engine.from_position(GAME, position).to_position() == position
    return position


def _refused(position: dict, match: str) -> None:
    with pytest.raises(engine.PositionError, match=match):
        engine.from_position(GAME, position)


@pytest.mark.parametrize(("key", "value", "match"), [
    ("points", [0, 0], "points must add up"),
    ("tricks_won", [3, 0], "tricks_won"),
    ("tricks_played", 2, "tricks_played"),
    ("first_player", 0, "first_player"),
    ("trump", "S", "trump must be the trump_suit option"),
])
def test_position_keys_the_tricks_imply_are_checked(key, value, match):
    position = _in_play()
    if position[key] == value:
        value = [1, 1] if key == "points" else [0, 3]
    position[key] = value
    _refused(position, match)


def test_position_cards_once_each_of_the_51():
    position = _in_play()
    card = position["hands"][0].pop()
    _refused(position, f"51-card deck once each: missing {card}")
    position["hands"][1] = sorted([*position["hands"][1], card], key=CODES.index)
    _refused(position, "hands")
    removed = _in_play()
    removed["hands"][0] = sorted([*removed["hands"][0], "5D"], key=CODES.index)
    _refused(removed, "not in the deck: 5D")


def test_position_tricks_of_three_played_leader_follower_leader_with_the_lead_alternating():
    position = _in_play(in_trick=2)
    short = json.loads(json.dumps(position))
    seat, card = short["tricks"][0].pop()
    short["hands"][seat] = sorted([*short["hands"][seat], card], key=CODES.index)
    _refused(short, "finished trick 1 must hold 3 cards")
    turned = json.loads(json.dumps(position))
    for pair in turned["tricks"][1]:
        pair[0] = 1 - pair[0]
    _refused(turned, "trick 2 must be played in seat order from seat")
    full = json.loads(json.dumps(position))
    full["trick"].append([full["trick"][0][0], full["hands"][full["trick"][0][0]].pop()])
    _refused(full, "trick must list at most 2")


def test_position_follow_rules_are_checked_when_the_tricks_are_replayed():
    for seed in range(50):
        position = _in_play(seed=seed, tricks=6, in_trick=0)
        for trick in position["tricks"]:
            (_l, c1), (follower, c2), _c3 = trick
            other = next((c for c in position["hands"][follower] if c[1] != c1[1]), None)
            if c2[1] == c1[1] and other is not None:
                trick[1][1] = other
                position["hands"][follower] = sorted([c for c in position["hands"][follower] if c != other] + [c2],
                                                     key=CODES.index)
                _refused(position, f"may not play {other}")
                return
    raise AssertionError("no trick to break")


def test_position_over_only_after_the_last_trick_of_the_match():
    state = new(seed=8)
    rng = Rng(8)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    position = state.to_position()
    assert position["phase"] == "over" and len(position["tricks"]) == TRICKS_PER_DEAL
    assert engine.from_position(GAME, position).to_position() == position
    early = _in_play()
    early.update(phase="over", current_player=None, winners=[0])
    _refused(early, "over only after the 17th trick")


# ---- sections 4 and 5.6 by number -------------------------------------------------------------------------------


def test_4_no_trump_selection_the_play_begins_at_once() -> None:
    state = new(trump_suit="S")
    assert state.phase == "play" and state.to_position()["trump"] == "S" and state.history == []


def test_5_6_each_won_trick_is_recorded_separately_as_its_three_cards() -> None:
    state = new()
    rng = Rng(5)
    for _ in range(9):  # three tricks
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    tricks = state.to_position()["tricks"]
    assert len(tricks) == 3 and all(len(trick) == 3 for trick in tricks)
    assert sum(state.to_position()["tricks_won"]) == 3
