"""German Whist: every worked example of shared/rules/german_whist.md (E1-E11) and every rule, plus properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_text import fresh_deck, play_checked
from trick_positions import documented_example, first_accepted, legal_tricks, pad

import engine
from engine.cards import CODES, make_deck, mask_of, parse_card
from engine.errors import PositionError
from engine.games.german_whist import RULES
from engine.rng import Rng

GAME = "german_whist"
DECK = [CODES[c] for c in make_deck()]


def new(seed: int = 1, **options) -> engine.State:
    first_dealer = options.pop("first_dealer", 0)
    deck = options.pop("deck", None)
    return engine.new_match(GAME, seed=seed, options=options, first_dealer=first_dealer, deck=deck)


def position(state: engine.State | None = None, *, trump: str, hands: list[list[str]], current_player: int,
             trick: list | None = None, face_up: str | None = None, stock: list[str] | None = None,
             won: dict | None = None, face_down: list | None = None, options: dict | None = None,
             **keys) -> engine.State:
    """A state with the given hands, trick and stock (phase 2 when the stock is empty): the seat of the trick (or
    ``current_player``) leads it; hands that are short get other cards (of suits other than the trick's and trump
    first); the rest of the deck forms the finished tricks, won as ``won`` says (else all by that leader)."""
    p = (state or new()).to_position()
    options = options or p["options"]
    phase1 = 11 if options["face_down_four"] else 13
    trick, face_down = trick or [], face_down or [[], []]
    undrawn = ([face_up] if face_up else []) + (stock or [])
    leader = trick[0][0] if trick else current_player
    if won is None:
        held = max(len(h) + sum(c is not None for c in d) + any(s == seat for s, _c in trick)
                   for seat, (h, d) in enumerate(zip(hands, face_down, strict=True)))
        winners = [leader] * (26 - held - len(undrawn) // 2)
    else:
        winners = [[0] * won["phase1"][0] + [1] * won["phase1"][1], [0] * won["phase2"][0] + [1] * won["phase2"][1]]
        last = winners[1] if winners[1] else winners[0]
        last.remove(leader)
        winners = [*winners[0], *winners[1], leader]
    played = len(winners)
    non_dealer, dealer = 1 - p["dealer"], p["dealer"]
    in_hand = phase1

    def build(rng) -> dict:
        placed = [*(c for h in hands for c in h), *(c for _s, c in trick), *undrawn,
                  *(c for d in face_down for c in d if c is not None)]
        spare = [parse_card(c) for c in DECK if c not in placed]
        avoid = trump + "".join(c[1] for _s, c in trick)
        full = [pad(hand, 26 - played - len(undrawn) // 2 - any(s == seat for s, _c in trick)
                    - sum(c is not None for c in face_down[seat]), spare, avoid) for seat, hand in enumerate(hands)]
        final = [mask_of(parse_card(c) for c in [*h, *(c for s, c in trick if s == seat)])
                 for seat, h in enumerate(full)]
        tricks = [[[s, CODES[c]] for s, c in t]
                  for t in legal_tricks(rng, spare, final, non_dealer, winners, "CDHS".index(trump), RULES, (0, 1))]
        # 5.5: after phase-1 trick k the winner draws stock card 2k, the loser 2k + 1; each a card it holds at the
        # end or plays later. The first stock card is turned up and names trump.
        drawn = min(played, phase1)
        stock_cards: list[str] = [""] * (2 * drawn)
        taken_by: dict[str, int] = {}
        for k in sorted(range(drawn), key=lambda k: k != 0):  # the first face-up card (a trump) first
            for j, seat in enumerate((winners[k], 1 - winners[k])):
                later = [c for t in [*tricks[k + 1:], trick] for s, c in t if s == seat]
                free = [c for c in [*full[seat], *later] if c not in taken_by and (k or j or c[1] == trump)]
                assert free, f"nothing for seat {seat} to draw after trick {k}"
                stock_cards[2 * k + j] = rng.choice(free)
                taken_by[stock_cards[2 * k + j]] = seat
        start = [[c for c in [*full[seat], *(c for t in [*tricks, trick] for s, c in t if s == seat)]
                  if taken_by.get(c) != seat] for seat in (0, 1)]
        deck = [start[(non_dealer, dealer)[i % 2]][i // 2] for i in range(2 * in_hand)]
        deck += [c for seat in (non_dealer, dealer) for c in face_down[seat]] + stock_cards + undrawn
        q = dict(p)
        q.update(options=options, trump=trump, hands=full, trick=trick, current_player=current_player,
                 face_up=face_up, stock=stock or [], deal_deck=deck, tricks=tricks, tricks_played=played,
                 taken_face_up=[[winners[k], stock_cards[2 * k]] for k in range(len(stock_cards) // 2)],
                 face_down=face_down, target=options["target_score"],
                 won={"phase1": [winners[:phase1].count(s) for s in (0, 1)],
                      "phase2": [winners[phase1:].count(s) for s in (0, 1)]},
                 face_down_seen=[options["face_down_four"] and s in winners for s in (0, 1)])
        q.update(keys)
        return q

    return first_accepted(GAME, build)


def deck_with(top: dict[int, str]) -> list[str]:
    """A deck order with the given codes at the given positions and the other cards in canonical order."""
    rest = [c for c in DECK if c not in top.values()]
    return [top[i] if i in top else rest.pop(0) for i in range(52)]


def play(state: engine.State, *actions: str) -> None:
    for action in actions:
        state.apply(action)


# ---- worked examples -------------------------------------------------------------------------------------------


def test_e1_deal_alternates_from_the_non_dealer_and_turns_up_trump():
    deck = deck_with({26: "9H"})
    state = new(deck=deck, first_dealer=0)
    p = state.to_position()
    assert sorted(p["hands"][1]) == sorted(deck[0:26:2])
    assert sorted(p["hands"][0]) == sorted(deck[1:26:2])
    assert p["face_up"] == "9H" and p["trump"] == "H"
    assert p["stock"] == deck[27:]
    assert state.current_player == 1 and state.phase == "play"


def test_e2_must_follow_suit():
    state = position(trump="H", hands=[["3C", "9S", "KS", "4H"], ["QS"]], trick=[], current_player=1)
    state.apply("QS")
    assert state.legal_actions() == ["9S", "KS"]


def test_e3_void_may_play_anything_trumping_not_compulsory():
    state = position(trump="H", hands=[["3C", "4H", "AD"], []], trick=[[1, "QS"]], current_player=0)
    assert state.legal_actions() == ["3C", "4H", "AD"]


def _trick_winner(trump: str, lead: str, reply: str) -> int:
    """Seat 1 leads, seat 0 replies; the seat that leads next (the winner) in phase 2."""
    state = position(trump=trump, hands=[[reply, "2D"], [lead, "3D"]], trick=[], current_player=1, face_up=None,
                     stock=[], won={"phase1": [6, 7], "phase2": [5, 6]})
    play(state, lead, reply)
    return state.current_player


@pytest.mark.parametrize(("trump", "lead", "reply", "winner"), [
    ("H", "7S", "2H", 0),   # E4: a trump wins
    ("H", "7S", "KD", 1),   # E5: an off-suit plain card never wins
    ("S", "TS", "JS", 0),   # E6: a higher trump wins
    ("S", "AH", "2S", 0),   # E6: a trump on a plain lead wins
    ("S", "AH", "KH", 1),   # 5.4: a lower card of the led suit loses
])
def test_e4_to_e6_trick_winner(trump, lead, reply, winner):
    assert _trick_winner(trump, lead, reply) == winner


def test_e7_drawing_winner_takes_face_up_loser_the_next_and_a_new_card_is_turned_up():
    stock = ["5C", "8H", "2S"]
    state = position(trump="D", face_up="QD", stock=stock, hands=[["4C", "6C"], ["AS", "7C"]], trick=[],
                     current_player=1, won={"phase1": [5, 6], "phase2": [0, 0]})
    play(state, "AS", "4C")  # seat 1 wins
    p = state.to_position()
    assert "QD" in p["hands"][1] and "5C" in p["hands"][0]
    assert p["face_up"] == "8H" and p["stock"] == ["2S"]
    assert p["taken_face_up"][-1] == [1, "QD"]
    assert state.current_player == 1
    assert state.observation(0)["face_up"] == "8H" and state.observation(1)["taken_face_up"][-1] == [1, "QD"]


def test_e8_last_stock_trick_then_no_drawing():
    state = position(trump="C", face_up="AC", stock=["4D"], hands=[["KS", "2H"], ["QS", "3H"]], trick=[],
                     current_player=0, won={"phase1": [6, 6], "phase2": [0, 0]})
    before = state.to_position()["hands"]
    play(state, "KS", "QS")
    p = state.to_position()
    assert set(p["hands"][0]) == set(before[0]) - {"KS"} | {"AC"}
    assert set(p["hands"][1]) == set(before[1]) - {"QS"} | {"4D"}
    assert p["face_up"] is None and p["stock"] == []
    assert state.current_player == 0 and p["tricks_played"] == 13
    play(state, "2H", "3H")  # trick 14: no drawing any more
    assert [len(h) for h in state.to_position()["hands"]] == [12, 12]


def _last_trick(won_phase1, won_phase2, seat0_wins: bool = True, scores=(0, 0), **options) -> engine.State:
    """A position before trick 26 where seat 0 leads AS; seat 1 answers 2S, so seat 0 wins it (or KS, losing)."""
    options = {**new().options, **options}
    reply = "2S" if seat0_wins else "3D"
    lead = "AS" if seat0_wins else "2D"
    state = position(options=options, trump="S", face_up=None, stock=[], hands=[[lead], [reply]], trick=[],
                     current_player=0, won={"phase1": won_phase1, "phase2": won_phase2},
                     scores=list(scores), target=options["target_score"])
    play(state, lead, reply)
    return state


def test_e9_per_trick_and_difference_scoring():
    state = _last_trick([7, 6], [7, 5])
    assert state.deal_results[-1]["counted_tricks"] == [8, 5]
    assert state.scores == [8, 5] and state.winners == [0] and state.is_terminal
    state = _last_trick([7, 6], [7, 5], deal_scoring="difference")
    assert state.scores == [3, 0] and state.winners == [0]


def test_e10_all_tricks_counted_can_draw():
    state = _last_trick([6, 7], [6, 6], score_all_tricks=True)
    assert state.scores == [13, 13] and state.winners == [0, 1]


def test_7_4b_the_target_goes_up_by_ten_once_per_deal_even_if_both_stay_over_it():
    state = _last_trick([6, 7], [6, 6], scores=(60, 59), target_score=50)
    assert state.scores == [67, 65] and state.to_position()["target"] == 60 and not state.is_terminal


def test_7_4b_a_raised_target_is_checked_again_after_the_next_deal():
    options = {**new().options, "target_score": 50}
    state = _last_trick([6, 7], [6, 6], scores=(60, 59), target_score=50)
    p = state.to_position()
    again = position(engine.from_position(GAME, p), trump="S", face_up=None, stock=[], hands=[["AS"], ["2S"]],
                     trick=[], current_player=0, won={"phase1": [6, 7], "phase2": [6, 6]}, options=options,
                     scores=[70, 58], target=60)
    play(again, "AS", "2S")  # 77 and 64: both over 60 again, so 70
    assert again.scores == [77, 64] and again.to_position()["target"] == 70 and not again.is_terminal
    once = position(engine.from_position(GAME, p), trump="S", face_up=None, stock=[], hands=[["AS"], ["2S"]],
                    trick=[], current_player=0, won={"phase1": [6, 7], "phase2": [6, 6]}, options=options,
                    scores=[70, 40], target=60)
    play(once, "AS", "2S")  # 77 and 46: only seat 0 has reached 60
    assert once.winners == [0]


def test_e11_both_reach_the_target_raises_it_by_ten():
    state = _last_trick([6, 7], [6, 6], scores=(46, 45), target_score=50)  # 91 points: 7 deals of 13 tricks
    assert state.scores == [53, 51]
    assert not state.is_terminal and state.to_position()["target"] == 60 and state.deal_index == 1


def test_7_4b_with_all_tricks_per_trick_the_higher_total_wins_instead_of_raising_the_target():
    state = _last_trick([6, 7], [6, 6], scores=(40, 45), target_score=50, score_all_tricks=True)
    assert state.scores == [53, 58] and state.winners == [1] and state.to_position()["target"] == 50
    state = _last_trick([6, 7], [6, 6], scores=(55, 52), target_score=50, score_all_tricks=True,
                        deal_scoring="difference")  # the exception is per_trick only: difference raises the target
    assert state.scores == [55, 52] and not state.is_terminal and state.to_position()["target"] == 60


def test_asking_whether_the_match_is_won_changes_nothing():
    """7.4b's raise of the target belongs to the deal's scoring: the match-end check only reads the state."""
    state = new(target_score=50)
    state.side_scores = [60, 59]  # both over the target in force
    before = state.to_position()
    assert [state._match_winners(), state._match_winners()] == [None, None]
    assert state.to_position() == before and before["target"] == 50


def test_7_4b_with_all_tricks_per_trick_equal_totals_over_the_target_play_another_deal():
    state = _last_trick([6, 7], [6, 6], scores=(40, 40), target_score=50, score_all_tricks=True)
    assert state.scores == [53, 53] and not state.is_terminal and state.deal_index == 1
    assert state.to_position()["target"] == 50


def test_7_4b_a_raised_target_is_refused_where_it_is_never_raised():
    state = _last_trick([6, 7], [6, 6], scores=(40, 40), target_score=50, score_all_tricks=True)
    p = state.to_position()
    p["target"] = 60
    with pytest.raises(PositionError, match="never raised"):
        engine.from_position(GAME, p)


# ---- the other rules --------------------------------------------------------------------------------------------


def test_7_4b_one_player_reaching_the_target_wins():
    state = _last_trick([6, 7], [6, 6], scores=(40, 45), target_score=50)
    assert state.scores == [47, 51] and state.winners == [1]


def test_7_4b_nobody_reaching_the_target_deals_again_with_the_other_dealer():
    state = _last_trick([6, 7], [6, 6], scores=(10, 10), target_score=50)
    assert not state.is_terminal and state.dealer == 1 and state.current_player == 0


def test_3_1_first_dealer_is_drawn_by_the_rng_when_not_given():
    dealers = {engine.new_match(GAME, seed=s).dealer for s in range(30)}
    assert dealers == {0, 1}
    assert engine.new_match(GAME, seed=5).dealer == engine.new_match(GAME, seed=5).dealer


def test_5_5_everyone_holds_13_cards_after_each_phase1_trick():
    state = new(seed=9)
    rng = Rng(3)
    while state.to_position()["tricks_played"] < 13:
        state.apply(rng.choice(state.legal_actions()))
        p = state.to_position()
        if not p["trick"]:
            assert [len(h) for h in p["hands"]] == [13, 13]
    assert state.to_position()["face_up"] is None


def test_7_1_phase2_tricks_are_the_only_ones_counted_by_default():
    state = new(seed=4)
    rng = Rng(2)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    result = state.deal_results[0]
    assert sum(result["counted_tricks"]) == 13 and sum(result["phase1_tricks"]) == 13
    assert state.scores == result["counted_tricks"]


def test_options_are_validated():
    with pytest.raises(ValueError, match="deal_scoring"):
        new(deal_scoring="most")
    with pytest.raises(ValueError, match="played by 2"):
        engine.new_match(GAME, seed=1, players=3)


def test_illegal_card_is_refused_and_the_state_unchanged():
    state = position(trump="H", hands=[["3C", "9S", "KS", "4H"], ["QS"]], trick=[], current_player=1)
    state.apply("QS")
    before = state.to_position()
    with pytest.raises(engine.IllegalAction, match="9S, KS"):
        state.apply("3C")
    assert state.to_position() == before


# ---- face_down_four (8.1) ---------------------------------------------------------------------------------------


def test_8_1a_face_down_dealing():
    deck = deck_with({30: "9H"})
    state = new(deck=deck, face_down_four=True, first_dealer=0)
    p = state.to_position()
    assert sorted(p["hands"][1]) == sorted(deck[0:22:2]) and sorted(p["hands"][0]) == sorted(deck[1:22:2])
    assert p["face_down"] == [deck[26:30], deck[22:26]]
    assert p["face_up"] == "9H" and len(p["stock"]) == 21


# The face-down cards of a seat that led every trick so far: it could play none of them (8.1c), so all are there.
UNPLAYED = ["JC", "QC", "KC", "AC"]


def _down_position(hands, down, trick, current) -> engine.State:
    """Phase 2 of a face_down_four deal; the seat that leads now has won every trick so far."""
    options = {**new().options, "face_down_four": True}
    return position(options=options, trump="H", hands=hands, face_down=down, trick=trick, current_player=current,
                    face_up=None, stock=[])


def test_8_1c_void_player_may_play_a_face_down_card():
    state = _down_position([["3C", "4D"], ["2H"]], [["5C", "8D", "6D", "7D"], UNPLAYED], [[1, "QS"]], 0)
    assert state.legal_actions() == ["3C", "4D", "down:0", "down:1", "down:2", "down:3"]
    state.apply("down:2")
    assert state.to_position()["face_down"][0] == ["5C", "8D", None, "7D"]


def test_8_1c_a_follower_that_can_follow_must_follow_from_hand():
    state = _down_position([["3S", "4D"], ["2H"]], [["5C", "8D", "6D", "7D"], UNPLAYED], [[1, "QS"]], 0)
    assert state.legal_actions() == ["3S"]


def test_8_1c_a_leader_plays_face_down_only_with_an_empty_hand():
    state = _down_position([["3C"], ["QS"]], [["5C", "8D", "9D", "TD"], UNPLAYED], [], 0)
    assert state.legal_actions() == ["3C"]
    state = _down_position([[], []], [["5C", "8D", "9D", "8C"], UNPLAYED], [], 0)
    assert state.legal_actions() == ["down:0", "down:1", "down:2", "down:3"]


def test_8_1b_face_down_cards_are_seen_by_their_owner_after_a_won_trick():
    state = _down_position([["AS"], ["QS"]], [["5C", "8D", "9D", "TD"], UNPLAYED], [], 1)
    assert state.observation(0)["face_down"][0] == ["?"] * 4  # seat 0 has won no trick yet
    assert state.observation(1)["face_down"][1] == UNPLAYED
    state.apply("QS")
    state.apply("AS")
    assert state.observation(0)["face_down"] == [["5C", "8D", "9D", "TD"], ["?"] * 4]
    assert state.observation(1)["face_down"][0] == ["?"] * 4


def test_8_1d_face_down_deal_has_11_phase1_and_15_phase2_tricks():
    state = new(seed=12, face_down_four=True)
    rng = Rng(12)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    result = state.deal_results[0]
    assert sum(result["phase1_tricks"]) == 11 and sum(result["counted_tricks"]) == 15


# ---- properties -------------------------------------------------------------------------------------------------

variants = st.fixed_dictionaries({
    "score_all_tricks": st.booleans(),
    "deal_scoring": st.sampled_from(["per_trick", "difference"]),
    "target_score": st.sampled_from([0, 0, 20]),
    "face_down_four": st.booleans(),
}).map(lambda o: {**o, "max_deals": 4 if o["target_score"] else 0})  # bound the long all-tricks matches (7.4b)


def _all_cards(p: dict) -> Counter:
    cards = Counter(c for hand in p["hands"] for c in hand)
    cards.update(p["stock"])
    cards.update(c for _s, c in p["trick"])
    cards.update(c for slots in p["face_down"] for c in slots if c is not None)
    if p["face_up"]:
        cards[p["face_up"]] += 1
    return cards


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), choices=st.integers(0, 2**32), options=variants)
def test_random_play_conserves_cards_round_trips_and_ends(seed, choices, options):
    state = engine.new_match(GAME, seed=seed, options=options)
    rng = Rng(choices)
    played: list[str] = []
    deal = 0
    for _ in range(5000):
        if state.is_terminal:
            break
        p = state.to_position()
        assert engine.from_position(GAME, p).to_position() == p
        if state.deal_index != deal:
            deal, played = state.deal_index, []
        in_trick = Counter(c for _s, c in p["trick"])
        cards = _all_cards(p) + Counter(played) - in_trick
        assert cards == Counter(DECK), "the 52 cards are conserved within a deal"
        legal = state.legal_action_ids()
        assert legal, "a player always has a legal card"
        action = state.legal_actions()[rng.below(len(legal))]
        state.apply(action)
        card = action if not action.startswith("down:") else None
        if card is None:
            slot = int(action[5:])
            card = p["face_down"][p["current_player"]][slot]
        played.append(card)
    assert state.is_terminal
    for result in state.deal_results:
        total = 26 if options["score_all_tricks"] else (15 if options["face_down_four"] else 13)
        assert sum(result["counted_tricks"]) == total


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), options=variants)
def test_same_seed_same_match(seed, options):
    def run() -> tuple:
        state = engine.new_match(GAME, seed=seed, options=options)
        rng = Rng(seed)
        while not state.is_terminal:
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.below(len(legal))])
        return state.history, state.scores, state.winners

    assert run() == run()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_string_and_id_actions_agree(seed):
    state = engine.new_match(GAME, seed=seed)
    rng = Rng(seed)
    while not state.is_terminal:
        ids = state.legal_action_ids()
        assert [state.action_string(a) for a in ids] == state.legal_actions() == sorted(state.legal_actions())
        state.apply_id(ids[rng.below(len(ids))])


def test_the_documented_example_position_round_trips():
    state = documented_example(GAME)
    assert state.legal_actions() == ["5H", "QH"]


# ---- the rules text restated: every move, draw, deal score and match end of random matches ----------------------

ORDER = "23456789TJQKA"  # low -> high (2.1)


def _card(p: dict, seat: int, action: str) -> str:
    """A face-down slot played (8.1c) counts as its real card."""
    return p["face_down"][seat][int(action[5:])] if action.startswith("down:") else action


def _rules_text_winner(p: dict, trick: list) -> int:
    """5.4: the highest trump, else the higher card of the led suit."""
    cards = [(seat, _card(p, seat, a)) for seat, a in trick]
    led = cards[0][1][1]

    def strength(code: str) -> int:
        return (200 if code[1] == p["trump"] else 100 if code[1] == led else 0) + ORDER.index(code[0])
    return max(cards, key=lambda sc: strength(sc[1]))[0]


def _rules_text_legal(p: dict) -> list[str]:
    seat, trick = p["current_player"], p["trick"]
    leader = _rules_text_winner(p, p["tricks"][-1]) if p["tricks"] else 1 - p["dealer"]  # 5.1
    assert seat == (leader + len(trick)) % 2
    hand = p["hands"][seat]
    down = [f"down:{k}" for k, c in enumerate(p["face_down"][seat]) if c is not None]  # 8.1c: slots keep numbers
    if not trick:  # 5.2; a face-down card only from an empty hand
        return sorted(hand) if hand else down
    led = _card(p, trick[0][0], trick[0][1])[1]
    same = [c for c in hand if c[1] == led]  # 5.3
    return sorted(same) if same else sorted(hand + down)


def _rules_text_draw(before: dict, state: engine.State) -> None:
    """5.5: after a phase-1 trick the winner takes the face-up card, the loser the next, and the next is turned up."""
    after = state.to_position()
    if len(after["tricks"]) == len(before["tricks"]) or not before["stock"] and before["face_up"] is None:
        return
    trick = after["tricks"][-1]
    winner = _rules_text_winner(before, trick)
    assert before["face_up"] in after["hands"][winner] and before["stock"][0] in after["hands"][1 - winner]
    assert after["face_up"] == (before["stock"][1] if len(before["stock"]) > 1 else None)
    assert after["stock"] == before["stock"][2:] and after["current_player"] == winner


def _rules_text_points(tricks: list, p: dict) -> list[int]:
    """7.1 - 7.3 and 8.1d: phase 1 is 13 tricks (11 with face_down_four); only phase 2 counts unless all do."""
    options = p["options"]
    phase1 = 11 if options["face_down_four"] else 13
    won = [0, 0]
    for k, trick in enumerate(tricks):
        if options["score_all_tricks"] or k >= phase1:
            won[_rules_text_winner(p, trick)] += 1
    if options["deal_scoring"] == "per_trick":
        return won
    return [max(0, won[s] - won[1 - s]) for s in (0, 1)]


@pytest.mark.parametrize("options", [
    {}, {"face_down_four": True}, {"score_all_tricks": True, "deal_scoring": "difference", "target_score": 20},
    {"target_score": 30}, {"score_all_tricks": True, "target_score": 60},
    {"deal_scoring": "difference", "face_down_four": True, "target_score": 15},
    {"face_down_four": True, "score_all_tricks": True, "target_score": 40},
])
def test_5_and_7_random_matches_play_draw_and_score_as_the_rules_text_says(options: dict) -> None:
    for seed in range(10):
        _check_match(seed, options)


def _check_match(seed: int, options: dict) -> None:
    state = engine.new_match(GAME, seed=seed, options=options)
    face_down: list = []

    def legal(p: dict) -> list[str]:
        if not p["tricks"] and not p["trick"]:  # a deal's start: 3.5, 4.1 the face-up stock card names trump
            face_down[:] = [list(slots) for slots in p["face_down"]]
            assert p["trump"] == p["face_up"][1]
        return _rules_text_legal(p)

    def score(tricks: list, p: dict) -> list[int]:
        return _rules_text_points(tricks, {**p, "face_down": face_down})

    play_checked(state, seed, legal, score, _rules_text_draw)
    target, totals, dealers = options.get("target_score", 0), [0, 0], []
    for k, result in enumerate(state.deal_results):  # 3.2, 7.4
        dealers.append(result["dealer"])
        totals = [t + x for t, x in zip(totals, result["points"], strict=True)]
        if target == 0:
            over = True
        elif min(totals) >= target and options.get("score_all_tricks") and options.get("deal_scoring",
                                                                                        "per_trick") == "per_trick":
            over = totals[0] != totals[1]
        elif min(totals) >= target:
            over, target = False, target + 10
        else:
            over = max(totals) >= target
        assert over == (k == len(state.deal_results) - 1), (k, totals, target)
    assert dealers == [(dealers[0] + k) % 2 for k in range(len(dealers))]
    assert state.scores == totals
    assert state.winners == [s for s in (0, 1) if totals[s] == max(totals)]  # 7.4a: a tied single deal is a draw


def test_3_1_3_3_the_rng_picks_the_dealer_then_shuffles_the_deck() -> None:
    for seed in range(20):
        rng = Rng(seed)
        dealer = rng.below(2)
        pack = fresh_deck("23456789TJQKA")
        rng.shuffle(pack)
        state = engine.new_match(GAME, seed=seed)
        assert state.first_dealer == dealer and state.to_position()["deal_deck"] == pack
