"""Belote contrée: every worked example of shared/rules/belote_contree.md (10.1-10.17), every rule, properties."""

from __future__ import annotations

from collections import Counter

import pytest
from belote_text import PLAIN_POINTS, DealerRotation, leader, legal_cards, trick_points, with_belote
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_text import drawn_dealer, fresh_deck, play_checked
from trick_positions import dealt_indices, deck_dealing, documented_example, fill_play, first_accepted, played_by

import engine
from engine.auction import Contract
from engine.cards import CODES, make_deck
from engine.games.belote_contree import PACKETS, contract_points
from engine.rng import Rng
from engine.tricks import cut

GAME = "belote_contree"
DECK = [CODES[c] for c in make_deck("789TJQKA")]
SEAT_INDICES = {  # 3.6 with dealer 0: deck indices of each seat (dealer+1 first), in dealt order
    1: [0, 1, 2, 12, 13, 20, 21, 22], 2: [3, 4, 5, 14, 15, 23, 24, 25],
    3: [6, 7, 8, 16, 17, 26, 27, 28], 0: [9, 10, 11, 18, 19, 29, 30, 31],
}


def codes(cards: list[int]) -> list[str]:
    return [CODES[c] for c in cards]


def new(seed: int = 1, dealer: int = 0, deck: list[str] | None = None, **options) -> engine.State:
    options.setdefault("weak_hand_redeal", False)
    return engine.new_match(GAME, seed=seed, options=options, first_dealer=dealer, deck=deck)


def in_play(trump: str, declarer: int, hands: dict[int, list[str]], trick: list, current: int, dealer: int = 0,
            tricks: list | None = None, **options) -> engine.State:
    """A position in play: a contract of 80 in ``trump`` by ``declarer``, the given hands and trick; short hands get
    other cards and the rest of the deck forms finished tricks won by the seat that leads now (or ``tricks``); deal_deck
    deals it all."""
    base = new(dealer=dealer, **options).to_position()
    first = (dealer + 1) % 4
    auction = []
    for k in range(4):
        seat = (first + k) % 4
        if seat == declarer:
            auction.append([seat, f"bid:80:{trump}"])
            auction += [[(seat + j) % 4, "pass"] for j in (1, 2, 3)]
            break
        auction.append([seat, "pass"])

    def build(rng) -> dict:
        full, finished = fill_play(rng, hands, trick, current, 4, trump, first, DECK, tricks=tricks)
        start = [h + cards for h, cards in zip(full, played_by([*finished, trick], 4), strict=True)]
        p = dict(base)
        p.update(auction=auction, trump=trump, hands=full, trick=trick, tricks=finished, current_player=current,
                 phase="play", belote=None, redeal_queue=[],
                 deal_deck=deck_dealing(dealt_indices(4, dealer, PACKETS), start, 32))
        return p

    return first_accepted(GAME, build)


def deck_for(hands: dict[int, list[str]]) -> list[str]:
    """A deck (dealer 0, no cut) that deals the given cards to the given seats; the rest in canonical order."""
    deck: list[str | None] = [None] * 32
    for seat, cards in hands.items():
        for i, card in zip(SEAT_INDICES[seat], cards, strict=False):
            deck[i] = card
    rest = [c for c in DECK if c not in deck]
    return [c if c is not None else rest.pop(0) for c in deck]


# ---- legal cards: 10.1 - 10.7 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("trump", "trick", "seat", "hand", "legal"), [
    ("S", [[1, "9S"], [2, "7S"]], 3, ["JS", "8S", "AD", "KH"], ["JS"]),                        # 10.1
    ("S", [[0, "JS"]], 1, ["TD", "7S", "AS"], ["7S", "AS"]),                                     # 10.2
    ("H", [[0, "KD"]], 1, ["9C", "7D", "AD", "JH"], ["7D", "AD"]),                               # 10.3
    ("H", [[0, "AD"], [1, "7D"]], 2, ["KC", "8H", "JH", "7S"], ["8H", "JH", "KC", "7S"]),        # 10.4
    ("H", [[1, "TC"], [2, "QH"], [3, "8C"]], 0, ["9D", "7H", "AH", "KS"], ["9D", "AH", "KS"]),  # 10.5
    ("H", [[0, "AC"], [1, "9H"]], 2, ["KD", "8H", "QS"], ["8H"]),                                # 10.6
    ("D", [[0, "7S"]], 1, ["AC", "7D", "JD", "KH"], ["7D", "JD"]),                               # 10.7
])
def test_10_1_to_10_7_legal_cards(trump, trick, seat, hand, legal):
    state = in_play(trump, declarer=(seat + 1) % 4, hands={seat: hand}, trick=trick, current=seat)
    assert state.legal_actions() == sorted(legal)


def test_10_8_trick_winner_and_points():
    state = in_play("C", declarer=1, hands={2: ["TH", "7D"], 3: ["AH", "8D"], 0: ["7C", "9D"], 1: ["8C", "TD"]},
                    trick=[], current=2)
    before = state.observation(0)
    for card in ["TH", "AH", "7C", "8C"]:
        state.apply(card)
    obs = state.observation(0)
    assert state.current_player == 1
    assert obs["card_points"] == [before["card_points"][0], before["card_points"][1] + 21]
    assert obs["tricks_won"] == [before["tricks_won"][0], before["tricks_won"][1] + 1]


# ---- the auction: 10.9 - 10.11 and section 4 -------------------------------------------------------------------


def bid(state: engine.State, *words: str) -> None:
    for word in words:
        state.apply(word)


def test_10_9_a_new_bid_cancels_the_contre_and_three_passes_end_the_auction():
    state = new(dealer=3)
    bid(state, "bid:80:H", "contre", "bid:90:H", "pass", "pass", "pass")
    assert state.phase == "play" and state.current_player == 0
    assert state.observation(0)["contract"] == {"value": 90, "suit": "H", "declarer": 2, "multiplier": 1}


def test_10_10_legal_auction_actions_after_a_contre():
    state = new(dealer=3)
    bid(state, "bid:80:H", "contre")
    legal = state.legal_actions()
    assert "surcontre" in legal and "contre" not in legal and "bid:80:S" not in legal
    assert {"pass", "bid:90:C", "bid:160:S", "bid:capot:C", "bid:capot:S"} <= set(legal)
    assert legal == sorted(legal) and len(legal) == 1 + 8 * 4 + 4 + 1
    state.apply("pass")
    legal = state.legal_actions()
    assert "contre" not in legal and "surcontre" not in legal and "bid:90:D" in legal


def test_4_surcontre_quadruples_and_capot_cannot_be_overbid():
    state = new(dealer=3)
    bid(state, "bid:capot:S", "contre")
    assert [a for a in state.legal_actions() if a.startswith("bid")] == []
    bid(state, "surcontre", "pass", "pass", "pass")
    assert state.observation(0)["contract"]["multiplier"] == 4


def test_4_max_numeric_bid_option():
    assert "bid:180:S" in new(max_numeric_bid=180).legal_actions()
    assert "bid:170:C" not in new().legal_actions()


def test_10_11_all_pass_throws_in_and_the_next_dealer_deals_the_gathered_hands_cut():
    state = new(dealer=1)
    deck = state.deal_deck
    order = [2, 3, 0, 1]
    dealt = {seat: [deck[i] for i in SEAT_INDICES[(seat - 1) % 4]] for seat in order}  # dealer 1 shifts seats
    pack = [c for seat in order for c in dealt[seat]]
    bid(state, "pass", "pass", "pass", "pass")
    assert state.dealer == 2 and state.deal_index == 0 and state.deal_results == []
    assert any(state.deal_deck == cut(pack, c) for c in range(3, 30))


# ---- scoring: 10.12 - 10.15 and section 7 ----------------------------------------------------------------------


def test_10_12_made():
    assert contract_points(Contract(100, "S", 0, 1), 0, [120, 42], [0, 0], [6, 2]) == ([220, 42], True)


def test_10_13_failed_with_belote_goes_to_the_defenders():
    assert contract_points(Contract(110, "H", 1, 1), 1, [82, 80], [0, 20], [4, 4]) == ([290, 0], False)


def test_10_14_contred_made():
    assert contract_points(Contract(90, "D", 2, 2), 0, [105, 57], [0, 0], [5, 3]) == ([500, 0], True)


def test_10_15_capot_failed():
    assert contract_points(Contract("capot", "C", 1, 1), 1, [20, 142], [0, 20], [1, 7]) == ([430, 0], False)


def test_7_3_capot_made_and_7_2_multiply_option():
    assert contract_points(Contract("capot", "C", 1, 2), 1, [0, 162], [0, 20], [0, 8]) == ([0, 1020], True)
    points, made = contract_points(Contract(90, "D", 2, 2), 0, [105, 57], [20, 0], [5, 3], "multiply")
    assert made and points == [(105 + 90) * 2 + 20, 57 * 2]
    assert contract_points(Contract(90, "D", 2, 4), 0, [80, 82], [0, 0], [4, 4]) == ([0, 1000], False)


def test_7_6_equality_makes_the_contract_and_belote_counts():
    assert contract_points(Contract(80, "S", 0, 1), 0, [61, 101], [20, 0], [3, 5]) == ([161, 101], True)


def test_a_whole_deal_scores_162_and_the_last_trick_bonus():
    state = new(seed=11, num_deals=1)
    rng = Rng(5)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    result = state.deal_results[0]
    assert sum(result["card_points"]) == 162 and state.winners is not None


# ---- weak hands: 10.16, 3.8 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "asked"), [
    (["7C", "8C", "9D", "JD", "QH", "7S", "8S", "9S"], True),   # 5 points
    (["TC", "7D", "8D", "9D", "7H", "8H", "7S", "8S"], True),   # exactly 10
    (["AC", "7D", "8D", "9D", "7H", "8H", "7S", "8S"], False),  # 11
])
def test_10_16_weak_hands_are_asked(hand, asked):
    state = new(deck=deck_for({1: hand}), weak_hand_redeal=True)
    assert (state.phase == "redeal" and state.current_player == 1) == asked
    if asked:
        assert state.legal_actions() == ["keep", "redeal"]
        state.apply("keep")
        assert state.to_position()["redeal_queue"][:1] != [1]


def test_3_8_redeal_keeps_the_dealer_and_is_not_a_played_deal():
    deck = deck_for({1: ["7C", "8C", "9D", "JD", "QH", "7S", "8S", "9S"]})
    state = new(deck=deck, weak_hand_redeal=True)
    state.apply("redeal")
    assert state.dealer == 0 and state.deal_index == 0 and state.deal_results == []
    assert Counter(codes(state.deal_deck)) == Counter(deck)


def test_3_8_no_redeal_without_the_option():
    deck = deck_for({1: ["7C", "8C", "9D", "JD", "QH", "7S", "8S", "9S"]})
    assert new(deck=deck).phase == "auction"


# ---- the deck: 10.17, 3.1 - 3.7 --------------------------------------------------------------------------------


def test_10_17_the_next_deck_is_the_tricks_gathered_and_cut_and_dealt_3_2_3():
    state = new(seed=21, dealer=3)
    rng = Rng(4)
    last = None
    while state.deal_index == 0:
        last = state.to_position()
        state.apply(rng.choice(state.legal_actions()))
    final_card = [a for _s, a in state.history][-1]
    tricks = [*last["tricks"], [*last["trick"], [last["current_player"], final_card]]]
    pack = [card for trick in tricks for _s, card in trick]
    cuts = [c for c in range(3, 30) if cut(pack, c) == codes(state.deal_deck)]
    assert len(cuts) == 1 and state.dealer == 0
    p = state.to_position()
    deck = codes(state.deal_deck)
    for seat, indices in SEAT_INDICES.items():
        assert sorted(p["hands"][seat], key=DECK.index) == sorted((deck[i] for i in indices), key=DECK.index)


def test_3_1_first_dealer_drawn_lowest_card_with_the_rng():
    dealers = [engine.new_match(GAME, seed=s).dealer for s in range(40)]
    assert set(dealers) == {0, 1, 2, 3}
    assert dealers == [engine.new_match(GAME, seed=s).dealer for s in range(40)]


def test_3_2_dealer_rotates_and_5_1_dealer_left_leads():
    state = new(seed=2, dealer=2)
    bid(state, "bid:80:C", "pass", "pass", "pass")
    assert state.current_player == 3
    rng = Rng(1)
    while state.deal_index == 0:
        state.apply(rng.choice(state.legal_actions()))
    assert state.dealer == 3


def test_3_4_shuffle_each_deal_option_still_deals_every_card():
    state = new(seed=8, shuffle_each_deal=True, num_deals=2)
    rng = Rng(8)
    decks = []
    while not state.is_terminal:
        if not decks or decks[-1] is not state.deal_deck:
            decks.append(state.deal_deck)
        state.apply(rng.choice(state.legal_actions()))
    assert all(Counter(d) == Counter(decks[0]) for d in decks)


# ---- belote / rebelote: 6 --------------------------------------------------------------------------------------


def test_6_belote_offered_with_both_cards_and_rebelote_is_automatic():
    state = in_play("H", declarer=1, hands={1: ["KH", "QH", "7C"], 2: ["8C", "AC"], 3: ["9C", "TC"], 0: ["JC", "QC"]},
                    trick=[], current=1)
    assert state.legal_actions() == ["7C", "KH", "KH:belote", "QH", "QH:belote"]
    bid(state, "KH:belote", "8C", "9C", "JC")
    assert state.observation(0)["belote"] == 1
    state = in_play("H", declarer=1, hands={1: ["KH", "QH", "7C"]}, trick=[[0, "7S"]], current=1)
    assert state.legal_actions() == ["KH", "KH:belote", "QH", "QH:belote"]
    state = in_play("H", declarer=1, hands={1: ["KH", "7C"]}, trick=[], current=1)
    assert state.legal_actions() == ["7C", "KH"]


def test_6_3_declared_belote_scores_20_for_a_made_contract():
    hands = {1: ["QH"], 2: ["7C"], 3: ["8C"], 0: ["9C"]}
    # Seven tricks already played: seat 1 won them all with the other cards.
    seven = [["AH", "7D", "8D", "9D"], ["KH", "TD", "JD", "QD"], ["JH", "KD", "AD", "7S"], ["9H", "8S", "9S", "TS"],
             ["TH", "JS", "QS", "KS"], ["8H", "AS", "TC", "JC"], ["7H", "QC", "KC", "AC"]]
    tricks = [[[(1 + k) % 4, c] for k, c in enumerate(cards)] for cards in seven]
    p = in_play("H", declarer=1, hands=hands, trick=[], current=1, tricks=tricks, num_deals=1).to_position()
    p.update(belote=1)
    state = engine.from_position(GAME, p)
    for card in ["QH", "7C", "8C", "9C"]:
        state.apply(card)
    assert state.deal_results[0]["made"] and state.deal_results[0]["points"] == [0, 162 + 20 + 80]


# ---- the match: 7.7 --------------------------------------------------------------------------------------------


def test_7_7_num_deals_and_target():
    state = new(seed=3, num_deals=2)
    rng = Rng(3)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert len(state.deal_results) >= 2 and state.scores[0] != state.scores[1]
    state = new(seed=3, target_score=300)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert max(state.scores) >= 300 and len(state.winners) == 2


def test_options_validated():
    with pytest.raises(ValueError, match="max_numeric_bid"):
        new(max_numeric_bid=150)
    with pytest.raises(ValueError):
        engine.new_match(GAME, seed=1, players=2)


def test_the_documented_example_position_round_trips():
    state = documented_example(GAME)
    assert state.legal_actions()


# ---- properties ------------------------------------------------------------------------------------------------

variants = st.fixed_dictionaries({
    "weak_hand_redeal": st.booleans(),
    "max_numeric_bid": st.sampled_from([160, 170, 180]),
    "contre_scoring": st.sampled_from(["fixed160", "multiply"]),
    "num_deals": st.sampled_from([1, 3]),
})


def _hands_pack(deck: list[str], dealer: int) -> list[str]:
    order = [(dealer + k) % 4 for k in (1, 2, 3, 4)]
    return [deck[i] for seat in order for i in SEAT_INDICES[(seat - dealer) % 4]]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), choices=st.integers(0, 2**32), options=variants)
def test_one_continuous_deck_positions_round_trip_and_points_total_162(seed, choices, options):
    state = engine.new_match(GAME, seed=seed, options=options)
    rng = Rng(choices)
    full = Counter(DECK)
    for _ in range(3000):
        if state.is_terminal:
            break
        p = state.to_position()
        assert engine.from_position(GAME, p).to_position() == p
        legal = state.legal_actions()
        assert legal, "the legal-card rule never leaves a player without a move"
        action = rng.choice(legal)
        deck_before, dealer_before, results_before = state.deal_deck, state.dealer, len(state.deal_results)
        state.apply(action)
        if state.deal_deck is not deck_before and not state.is_terminal:
            assert Counter(codes(state.deal_deck)) == full, "no card is lost or added across deals"
            if len(state.deal_results) > results_before:
                tricks = [*p["tricks"], [*p["trick"], [p["current_player"], action.split(":")[0]]]]
                pack = [card for trick in tricks for _s, card in trick]
            else:
                pack = _hands_pack(codes(deck_before), dealer_before)
            assert any(cut(pack, c) == codes(state.deal_deck) for c in range(3, 30)), "gathered and cut, never shuffled"
    assert state.is_terminal
    for result in state.deal_results:
        assert sum(result["card_points"]) == 162


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_same_seed_same_match(seed):
    def run() -> tuple:
        state = engine.new_match(GAME, seed=seed, options={"num_deals": 2})
        rng = Rng(seed)
        while not state.is_terminal:
            ids = state.legal_action_ids()
            assert [state.action_string(a) for a in ids] == sorted(state.legal_actions())
            state.apply_id(ids[rng.below(len(ids))])
        return state.history, state.scores

    assert run() == run()


# ---- the rules text restated: every move, deal score and match end of random matches ----------------------------

def _rules_text_auction(p: dict) -> list[str]:
    """4.9, with the multiplier of 4.3, 4.4 and 4.6: a bid resets it, contre doubles, surcontre doubles again."""
    seat, top, multiplier = p["current_player"], None, 1
    for bidder, action in p["auction"]:
        if action.startswith("bid:"):
            top, multiplier = (bidder, action.split(":")[1]), 1
        elif action != "pass":
            multiplier *= 2
    actions = ["pass"]
    if top is None or top[1] != "capot":
        actions += [f"bid:{v}:{s}" for v in range(80, p["options"]["max_numeric_bid"] + 1, 10)
                    if top is None or v > int(top[1]) for s in "CDHS"]
        actions += [f"bid:capot:{s}" for s in "CDHS"]
    if top is not None and top[0] % 2 != seat % 2 and multiplier == 1:
        actions.append("contre")
    if top is not None and top[0] % 2 == seat % 2 and multiplier == 2:
        actions.append("surcontre")
    return sorted(actions)


def _weak(hand: list[str]) -> bool:
    """3.8: 10 points or fewer with every card valued as a plain card."""
    return sum(PLAIN_POINTS[c[0]] for c in hand) <= 10


def _contract(auction: list) -> tuple[int, str, int]:
    """4.7: the last bid, its bidder and its multiplier."""
    declarer, value, multiplier = -1, "", 1
    for seat, action in auction:
        if action.startswith("bid:"):
            declarer, value, multiplier = seat, action.split(":")[1], 1
        elif action != "pass":
            multiplier *= 2
    return declarer, value, multiplier


def _rules_text_points(tricks: list, p: dict, history: list) -> list[int]:
    """7.1 - 7.4 and the contre_scoring option (8); ``history`` ends with the deal's auction and card plays."""
    declarer, value, m = _contract(p["auction"])
    cards, won, der = trick_points(tricks, p["trump"], 2)
    bel = [0, 0]
    for seat, action in history[-len(p["auction"]) - 32:]:
        if action.endswith(":belote"):  # 6.1, 6.3
            bel[seat % 2] = 20
    a, d = declarer % 2, 1 - declarer % 2
    total = [cards[x] + der[x] + bel[x] for x in (0, 1)]
    out = [0, 0]
    if value == "capot":
        if won[a] == 8:
            out[a], out[d] = 500 * m + bel[a], bel[d]
        else:
            out[d] = 410 * m + sum(bel)
        return out
    b = int(value)
    made = total[a] >= b
    if not made:
        out[d] = (160 + b) * m + sum(bel)
    elif m == 1:
        out[a], out[d] = total[a] + b, total[d]
    elif p["options"]["contre_scoring"] == "multiply":
        out[a], out[d] = (total[a] - bel[a] + b) * m + bel[a], (total[d] - bel[d]) * m + bel[d]
    else:
        out[a], out[d] = (160 + b) * m + bel[a], bel[d]
    return out


def _rules_text_legal(p: dict, asked: dict) -> list[str]:
    """Every decision point; ``asked`` keeps, per dealt deck, the seats asked about a redeal (3.8)."""
    seat = p["current_player"]
    hand = p["hands"][seat]
    order = [(p["dealer"] + k) % 4 for k in (1, 2, 3, 4)]
    weak = [s for s in order if _weak(p["hands"][s])] if p["options"]["weak_hand_redeal"] else []
    deal = asked.setdefault(tuple(p["deal_deck"]), [])
    if p["phase"] == "redeal":  # 3.8: only the eligible seats are asked, in order from the dealer's left
        assert weak[len(deal)] == seat and p["redeal_queue"] == weak[len(deal):], (weak, deal)
        deal.append(seat)
        return ["keep", "redeal"]
    if p["phase"] == "auction":  # 4.1: the dealer's left speaks first, then clockwise
        assert deal == weak, (weak, deal)
        assert seat == (p["dealer"] + 1 + len(p["auction"])) % 4
        return _rules_text_auction(p)
    assert seat == (leader(p["tricks"], p["dealer"], p["trump"], 4) + len(p["trick"])) % 4  # 5.1
    assert _contract(p["auction"])[1] != "" and sum(1 for _s, a in p["auction"][-3:] if a == "pass") == 3  # 4.7
    assert p["trump"] == next(a for _s, a in reversed(p["auction"]) if a.startswith("bid:"))[-1]  # 4.2: it names trump
    return with_belote(legal_cards(hand, p["trick"], p["trump"], seat, 4), hand, p["trump"])


def _bidding(state: engine.State, rng: Rng) -> int:
    """Random play that mostly passes or bids low, so numeric contracts, contres and every outcome occur."""
    ids = state.legal_action_ids()
    if state.phase != "auction":
        return rng.choice(ids)
    named = {state.action_string(a): a for a in ids}
    bids = sorted((a for a in named if a.startswith("bid:") and "capot" not in a), key=lambda a: int(a.split(":")[1]))
    roll = rng.below(12)
    if roll < 6 or roll == 10 and not ({"contre", "surcontre"} & set(named)):
        return named["pass"]
    if roll < 10 and bids:
        return named[rng.choice(bids[:8])]
    if roll == 10:
        return named[next(w for w in ("contre", "surcontre") if w in named)]
    return rng.choice(ids)


@pytest.mark.parametrize("options", [
    {"num_deals": 3},
    {"num_deals": 3, "weak_hand_redeal": False, "max_numeric_bid": 180, "contre_scoring": "multiply"},
    {"target_score": 1500, "max_numeric_bid": 170, "shuffle_each_deal": True},
])
def test_4_5_6_7_random_matches_bid_play_and_score_as_the_rules_text_says(options: dict) -> None:
    for seed in range(20):
        _check_match(seed, options)


def _check_match(seed: int, options: dict) -> None:
    state = engine.new_match(GAME, seed=seed, options=options)
    asked: dict = {}
    rotation = DealerRotation(keeps=lambda p: p["phase"] == "redeal")  # 3.2, 3.8, 4.8

    def legal(p: dict) -> list[str]:
        rotation(p)
        return _rules_text_legal(p, asked)

    play_checked(state, seed, legal, lambda tricks, p: _rules_text_points(tricks, p, state.history), choose=_bidding)
    totals = [0, 0]  # 7.7: the match ends after the first deal that meets its end
    for k, result in enumerate(state.deal_results):
        totals = [t + x for t, x in zip(totals, result["points"], strict=True)]
        if "num_deals" in options:
            over = k + 1 >= options["num_deals"] and totals[0] != totals[1]
        else:
            over = max(totals) >= options["target_score"] and totals[0] != totals[1]
        assert over == (k == len(state.deal_results) - 1), (k, totals)
    assert state.scores == [totals[0], totals[1], totals[0], totals[1]]
    assert state.winners == [s for s in range(4) if totals[s % 2] == max(totals)]


# ---- pointed cases of the rules text ------------------------------------------------------------------------------

def test_4_5_a_seat_that_passed_may_contre_later_and_4_7_three_passes_after_it_end_the_auction():
    state = new(dealer=0)
    bid(state, "pass", "bid:80:H", "pass", "pass")
    assert "contre" in state.legal_actions() and state.current_player == 1
    bid(state, "contre", "pass", "pass")
    assert state.phase == "auction"  # two passes after the contre
    state.apply("pass")
    assert state.phase == "play" and state.observation(0)["contract"] == {
        "value": 80, "suit": "H", "declarer": 2, "multiplier": 2}


def test_4_6_the_contring_side_may_make_the_new_bid_and_it_may_be_contred_again():
    state = new(dealer=0)
    bid(state, "bid:80:H", "contre", "pass")
    assert state.current_player == 0 and "bid:90:S" in state.legal_actions()  # the partner of seat 2, who contred
    bid(state, "bid:90:S")
    legal = state.legal_actions()
    assert "contre" in legal and "surcontre" not in legal  # seat 1: an opponent's new bid, multiplier back to 1


def test_7_4_a_numeric_contract_winning_every_trick_has_no_capot_bonus():
    assert contract_points(Contract(80, "S", 0, 1), 0, [162, 0], [0, 0], [8, 0]) == ([242, 0], True)


def test_7_2_a_failed_contred_contract_under_multiply_gives_the_defenders_the_fixed_score():
    points, made = contract_points(Contract(100, "D", 2, 2), 0, [90, 72], [0, 20], [4, 4], "multiply")
    assert not made and points == [0, (160 + 100) * 2 + 20]


def test_3_1_3_3_3_5_3_7_the_rng_draws_the_dealer_shuffles_once_then_cuts_3_to_29() -> None:
    for seed in range(30):
        rng = Rng(seed)
        dealer = drawn_dealer(rng, 4, DECK, lambda c: "789TJQKA".index(c[0]), lowest=True, fresh_for_ties=True)
        pack = fresh_deck("789TJQKA")
        rng.shuffle(pack)
        c = 3 + rng.below(27)
        state = engine.new_match(GAME, seed=seed)
        assert state.first_dealer == dealer and state.to_position()["deal_deck"] == pack[c:] + pack[:c]


@pytest.mark.parametrize("options", [{"num_deals": 4}, {"num_deals": 4, "shuffle_each_deal": True}])
def test_3_4_3_5_3_7_every_later_deck_is_the_gathered_pack_cut_by_the_matchs_rng(options: dict) -> None:
    """Played deals gather their tricks, thrown-in and redealt ones their hands (3.4); each is cut at 3 + below(27)
    from the match's stream after the first deal's draws (3.5, 3.7), after a fresh shuffle with shuffle_each_deal."""
    for seed in range(8):
        rng = Rng(seed)
        drawn_dealer(rng, 4, DECK, lambda c: "789TJQKA".index(c[0]), lowest=True, fresh_for_ties=True)
        rng.shuffle(fresh_deck("789TJQKA"))
        rng.below(27)
        state, choices = engine.new_match(GAME, seed=seed, options=options), Rng(seed + 7)
        while not state.is_terminal:
            before = state.to_position()
            state.apply_id(_bidding(state, choices))
            if state.is_terminal or state.to_position()["deal_deck"] == before["deal_deck"]:
                continue
            if before["phase"] == "play":
                pack = [a.split(":")[0] for trick in [*before["tricks"], before["trick"]] for _s, a in trick]
                pack.append(state.history[-1][1].split(":")[0])
            else:
                pack = _hands_pack(before["deal_deck"], before["dealer"])
            if options.get("shuffle_each_deal"):
                pack = fresh_deck("789TJQKA")
                rng.shuffle(pack)
            c = 3 + rng.below(27)
            assert state.to_position()["deal_deck"] == pack[c:] + pack[:c]
