"""Two-Ten-Jack: every worked example of shared/rules/two_ten_jack.md (section 10) and every rule, by section."""

from __future__ import annotations

import pytest
from rules_text import play_checked

import engine
from engine import trickgame
from engine.bots import make_policy
from engine.cards import CODES, mask_of, parse_card, parse_cards
from engine.games.two_ten_jack import CARDS, deck_for
from engine.rng import Rng
from engine.tricks import CLUBS, DIAMONDS, HEARTS, SPADES

GAME = "two_ten_jack"


def dealt(hands: list[list[str]], stock: list[str] | None = None, **options) -> engine.State:
    """A match whose first deal gives seat k ``hands[k]`` (seat 0 leads) with ``stock`` on top of the stock; the rest
    of the deck follows in canonical order."""
    n, size = len(hands), len(hands[0])
    deck = [hands[seat][k] for k in range(size) for seat in range(n)]
    stock = stock or []
    deck += stock + [CODES[c] for c in deck_for(n) if CODES[c] not in deck and CODES[c] not in stock]
    return engine.new_match(GAME, seed=1, players=n, first_dealer=n - 1, options={"hand_size": size, **options},
                            deck=deck)


def winner(cards: str, trump: int, first: bool = False, down: str = "", **options) -> str:
    """The card that wins a trick of ``cards`` (in play order), as the game decides it."""
    state = engine.new_match(GAME, seed=1, options=options)
    played = parse_cards(cards.split())
    hidden = mask_of(parse_cards(down.split()))
    return CODES[played[state._winner(first, played, trump, hidden)]]


def pile(codes: str) -> int:
    """The mask of space-separated card codes."""
    return mask_of(parse_cards(codes.split()))


def points(codes: str) -> int:
    return CARDS.pile_points(pile(codes))


# ---- 1. identity -----------------------------------------------------------------------------------------------

def test_1_2_two_to_seven_players_two_by_default() -> None:
    info = engine.game_info(GAME)
    assert info.player_counts == (2, 3, 4, 5, 6, 7) and info.default_players == 2
    assert engine.new_match(GAME, seed=1).players == 2
    with pytest.raises(ValueError, match="2, 3, 4, 5, 6, 7 players"):
        engine.new_match(GAME, seed=1, players=8)


@pytest.mark.parametrize(("players", "removed"), [(2, ""), (3, "3C"), (4, ""), (5, "3C 3D"),
                                                  (6, "3C 3D 3H 3S"), (7, "3C 3D 3H")])
def test_1_3_fifty_two_mod_n_threes_are_removed(players: int, removed: str) -> None:
    deck = engine.new_match(GAME, seed=1, players=players).to_position()["deal_deck"]
    assert sorted(set(CODES) - set(deck)) == sorted(removed.split())
    assert len(deck) % players == 0 and engine.game_info(GAME).deck_size_for(players) == len(deck)


# ---- 2. ranking and card points --------------------------------------------------------------------------------

def test_2_3_strength_classes_and_examples_1_to_4() -> None:
    assert winner("7H TC", DIAMONDS) == "7H"  # 10.1: led suit
    assert winner("AH 3C", CLUBS) == "3C"  # 10.2: trump
    assert winner("AH AS", HEARTS) == "AS"  # 10.3: almighty, even over trump
    assert winner("AS QH", DIAMONDS) == "QH"  # 10.4: yoromeki
    assert winner("QH KH", CLUBS) == "KH"  # QH without AS is an ordinary heart
    assert winner("5D QH AS 2D", SPADES) == "QH"  # special cards first, in any order


def test_2_4_plus_and_minus_cards_make_each_deal_zero_sum() -> None:
    assert points("2H TH JH QH KH AH") == 45
    assert points("TC JC QC KC AC TD JD QD KD AD") == 10
    assert points("QS KS 2S TS JS AS") == -55
    assert sum(CARDS.points) == 0 and points("3C 9D 5H 9S") == 0


# ---- 3. deal ---------------------------------------------------------------------------------------------------

def test_3_1_the_seat_after_the_dealer_leads_the_first_game_and_is_dealt_first() -> None:
    state = engine.new_match(GAME, seed=3, players=4, first_dealer=2)
    deck = state.to_position()["deal_deck"]
    assert state.current_player == 3
    assert state.to_position()["hands"][3] == sorted(deck[0:16:4], key=CODES.index)
    drawn = {engine.new_match(GAME, seed=s, players=4).dealer for s in range(40)}
    assert drawn == {0, 1, 2, 3}  # first_dealer unset: drawn by the seeded RNG


@pytest.mark.parametrize(("players", "size"), [(2, 6), (3, 4), (7, 4)])
def test_3_4_hand_size_six_for_two_players_else_four(players: int, size: int) -> None:
    state = engine.new_match(GAME, seed=2, players=players)
    p = state.to_position()
    assert [len(h) for h in p["hands"]] == [size] * players
    assert len(p["stock"]) + 1 == len(p["deal_deck"]) - size * players


def test_3_5_the_stocks_top_card_names_trump() -> None:
    state = dealt([["4C"], ["5C"]], ["7H", "8S"])
    assert state.to_position()["face_up"] == "7H" and state.to_position()["trump"] == "H"


def test_3_6_a_void_deal_is_dealt_again_by_the_same_dealer() -> None:
    state = dealt([["2H", "3H", "4H"], ["2S", "3S", "4S"]])
    p = state.to_position()
    assert p["redealt"] == 1 and p["dealer"] == 1 and p["deal_index"] == 0
    assert any(c[1] in "CD" for hand in p["hands"] for c in hand)
    assert engine.from_position(GAME, p).to_position() == p


def test_3_2_the_winner_of_a_game_leads_the_next_ties_from_the_last_first_leader() -> None:
    for seed in range(6):
        state = engine.new_match(GAME, seed=seed, players=3 + seed % 3, options={"num_games": 3})
        rng, results = Rng(seed), 0
        while not state.is_terminal:
            state.apply_id(rng.choice(state.legal_action_ids()))
            if len(state.deal_results) > results and not state.is_terminal:
                last = state.deal_results[-1]
                first, n = (last["dealer"] + 1) % state.players, state.players
                order = [(first + k) % n for k in range(n)]
                best = max(last["points"])
                assert state.current_player == next(s for s in order if last["points"][s] == best)
                assert state.dealer == (state.current_player - 1) % n
                results += 1


# ---- 4. no auction; 6. no declarations ---------------------------------------------------------------------------

def test_4_6_play_begins_at_once_and_a_deal_records_only_its_points_and_reversal() -> None:
    state = engine.new_match(GAME, seed=8, players=4, options={"max_deals": 1})
    assert state.phase == "play" and all(a[:2] in CODES or a.startswith("facedown:") for a in state.legal_actions())
    rng = Rng(8)
    while not state.is_terminal:
        state.apply_id(rng.choice(state.legal_action_ids()))
    assert set(state.deal_results[0]) == {"deal", "dealer", "points", "reversal"}


# ---- 5. play ---------------------------------------------------------------------------------------------------

def test_5_2_follow_the_led_suit_else_any_card_and_as_is_a_spade() -> None:
    state = dealt([["4C", "9C"], ["AS", "6C"]], ["7D"])
    state.apply("4C")
    assert state.legal_actions() == ["6C"]
    state = dealt([["4C", "9C"], ["AS", "6D"]], ["7D"])
    state.apply("4C")
    assert state.legal_actions() == ["6D", "AS"]  # no club: anything, no obligation to trump


def test_5_3_example_7_the_first_lead_is_a_club_or_a_diamond_else_face_down() -> None:
    state = dealt([["2H", "5S", "9C", "KD", "QH", "3S"], ["2C", "3C", "4C", "5C", "6C", "7C"]])
    assert state.legal_actions() == ["9C", "KD"]
    state = dealt([["2H", "5S", "QH", "3S", "AS", "7H"], ["2C", "3C", "4C", "5C", "6C", "7C"]])
    assert sorted(state.legal_actions()) == sorted(f"facedown:{c}" for c in ["2H", "7H", "QH", "3S", "5S", "AS"])


def test_5_3_example_8_after_a_face_down_card_the_next_seat_leads_and_wins() -> None:
    state = dealt([["7H", "2H", "3H", "4H", "5S", "6H"], ["4C", "9H", "AS", "KD", "TS", "6S"]])
    state.apply("facedown:7H")
    assert state.current_player == 1 and state.legal_actions() == ["4C", "KD"]
    assert state.observation(1)["trick"] == [[0, "facedown"]]
    assert state.observation(0)["trick"] == [[0, "facedown:7H"]]
    assert state.observation(1)["history"] == [[0, "facedown"]]
    state.apply("KD")
    assert state.current_player == 1 and state.observation(0)["taken"][1] == ["KD", "7H"]
    assert state.observation(0)["points"] == [0, 1]
    assert state.to_position()["face_down"] == ["7H"]
    assert state.observation(1)["history"] == [[0, "facedown:7H"], [1, "KD"]]  # public once gathered


def test_5_3_a_move_played_face_down_shows_the_others_no_card() -> None:
    # 5.3: the card is face down until the trick is gathered, so the move itself (as a watcher or another seat
    # receives it when it is played) names no card; its player sees it whole.
    state = dealt([["7H", "2H", "3H", "4H", "5S", "6H"], ["4C", "9H", "AS", "KD", "TS", "6S"]])
    state.apply("facedown:7H")
    assert state.action_seen_by(1, 0, "facedown:7H") == "facedown"
    assert state.action_seen_by(None, 0, "facedown:7H") == "facedown"
    assert state.action_seen_by(0, 0, "facedown:7H") == "facedown:7H"
    state.apply("KD")
    assert state.action_seen_by(None, 1, "KD") == state.action_seen_by(0, 1, "KD") == "KD"


def test_5_3_face_down_cards_never_win_and_three_players_play_one_card_each() -> None:
    state = dealt([["7H", "2H", "3H", "4H"], ["AS", "9H", "TH", "6S"], ["4C", "3D", "5D", "6D"]])
    state.apply("facedown:7H")
    assert state.legal_actions() == [f"facedown:{c}" for c in ["6S", "9H", "AS", "TH"]]
    state.apply("facedown:AS")  # the almighty face down does not win either
    assert state.legal_actions() == ["3D", "4C", "5D", "6D"]
    state.apply("4C")
    assert state.current_player == 2 and state.observation(2)["taken"][2] == ["4C", "7H", "AS"]


def test_5_3_example_9_followers_in_the_first_trick_may_play_hearts_and_spades() -> None:
    state = dealt([["9C", "2C", "3C", "4C", "5C", "6C"], ["AS", "QH", "4D", "5D", "6H", "TS"]])
    state.apply("9C")
    assert state.legal_actions() == ["4D", "5D", "6H", "AS", "QH", "TS"]
    state.apply("AS")
    assert state.current_player == 1


@pytest.mark.parametrize(("first", "win"), [(False, "2D"), (True, "AD")])
def test_5_4_example_5_same_two_but_not_in_the_first_trick(first: bool, win: str) -> None:
    assert winner("AD 2D", SPADES, first=first) == win
    assert winner("3H TH AH 2H", CLUBS) == "2H"  # the seed's own example, 4 players
    assert winner("QH 2H", CLUBS) == "2H"  # 9.3: QH without AS does not block same two


def test_5_4_example_6_same_two_needs_one_suit_and_no_special_card() -> None:
    assert winner("2S AS", CLUBS) == "AS"
    assert winner("AD 2D 3C", CLUBS) == "3C"  # not all of one suit: the trump wins


def test_5_4_same_two_in_play_after_the_first_trick() -> None:
    state = dealt([["4C", "AD"], ["5C", "2D"]], ["8S", "9S"], fixed_trump="S")
    state.apply("4C")
    state.apply("5C")  # seat 1 wins the first trick, draws 8S; seat 0 draws 9S
    state.apply("2D")
    state.apply("AD")
    assert state.current_player == 1  # same two


def test_5_7_example_10_the_winner_draws_first_then_in_seat_order() -> None:
    state = dealt([["4C"], ["5C"]], ["8C", "JH"])
    state.apply("4C")
    state.apply("5C")
    hands = state.to_position()["hands"]
    assert hands == [["JH"], ["8C"]] and state.current_player == 1
    assert state.observation(0)["known_cards"] == ["8C"]  # drawn from the face-up stock, in view of all


def test_5_7_5_8_the_stock_runs_out_then_hands_are_played_out() -> None:
    state = engine.new_match(GAME, seed=9, players=3, options={"max_deals": 1})
    rng, sizes = Rng(4), []
    while not state.is_terminal:
        p = state.to_position()
        if not p["trick"]:
            sizes.append((len(p["stock"]) + (p["face_up"] is not None), [len(h) for h in p["hands"]]))
        state.apply_id(rng.choice(state.legal_action_ids()))
    assert all(stock % 3 == 0 for stock, _ in sizes)
    assert [hands for stock, hands in sizes if stock] == [[4, 4, 4]] * (51 // 3 - 4)
    assert [hands for stock, hands in sizes if not stock] == [[4, 4, 4], [3, 3, 3], [2, 2, 2], [1, 1, 1]]


def _drawn_in_view(p: dict) -> set[str]:
    """3.5, 5.7 from a position: the cards drawn so far from the face-up stock, each in view of all (deal_deck's
    cards after the hands, less the stock left)."""
    dealt = len(p["hands"]) * p["options"]["hand_size"]
    left = len(p["stock"]) + (p["face_up"] is not None)
    return set(p["deal_deck"][dealt:len(p["deal_deck"]) - left])


@pytest.mark.parametrize("players", [2, 3, 7])
def test_3_5_5_7_every_seat_knows_where_each_drawn_card_went_across_deals_clones_and_positions(players: int) -> None:
    def check(state: engine.State, p: dict) -> None:
        drawn = _drawn_in_view(p)
        for seat in range(players):
            others = {c for other, hand in enumerate(p["hands"]) if other != seat for c in hand}
            known = sorted(drawn & others, key=parse_card)
            assert state.observation(seat)["known_cards"] == known
            assert state.shown_cards(seat)[1] == mask_of(parse_cards(known))

    state = engine.new_match(GAME, seed=players, players=players, options={"num_games": 2})
    rng, moves = Rng(players), 0
    while not state.is_terminal:
        p = state.to_position()
        check(state, p)
        if moves % 7 == 3:  # a copy, a loaded position and a seat's sample answer the same
            check(state.clone(), p)
            check(engine.from_position(GAME, p), p)
            seat = state.current_player
            sample = engine.determinize(state, seat, rng)
            assert sample.observation(seat)["known_cards"] == state.observation(seat)["known_cards"]
        state.apply_id(rng.choice(state.legal_action_ids()))
        moves += 1
    assert state.deal_index == 2 or len(state.deal_results) == 2


def test_5_5_in_the_first_trick_a_face_down_qh_does_not_beat_the_almighty() -> None:
    state = dealt([["QH", "2H", "3H"], ["4C", "5C", "6C"], ["AS", "7D", "8D"]], fixed_trump="D")
    state.apply("facedown:QH")
    state.apply("4C")
    assert state.legal_actions() == ["7D", "8D", "AS"]  # seat 2 has no club: any card
    state.apply("AS")
    assert state.current_player == 2  # AS wins: QH was face down (5.3), so no yoromeki
    assert winner("4C QH AS", DIAMONDS, first=True) == "QH"  # face up, QH takes AS in the first trick too


def test_5_4_same_two_in_the_trump_suit_beats_the_higher_trumps() -> None:
    assert winner("AC KC 2C", CLUBS) == "2C"
    assert winner("AC KC 2C", CLUBS, first=True) == "AC"


def _rules_text_legal(p: dict) -> list[str]:
    """5.2, 5.3 and the must_trump option as the rules file writes them."""
    seat, face_down = p["current_player"], set(p["face_down"])
    hand = p["hands"][seat]
    up = [c for _s, c in p["trick"] if c not in face_down]
    if not up:
        if p["tricks"]:
            return sorted(hand)
        minors = [c for c in hand if c[1] in "CD"]
        return sorted(minors) if minors else sorted("facedown:" + c for c in hand)
    same = [c for c in hand if c[1] == up[0][1]]
    trumps = [c for c in hand if c[1] == p["trump"] or c == "AS"]
    if same:
        return sorted(same)
    return sorted(trumps if p["options"]["must_trump"] and trumps else hand)


def _rules_text_winner(trick: list, trump: str, first: bool, face_down: set, same_two: bool) -> int:
    """5.5 as the rules file writes it: the seat that wins a trick of [seat, card] pairs."""
    order = "AKQJT98765432"
    up = [(s, c) for s, c in trick if c not in face_down]
    cards = [c for _s, c in up]
    if "AS" in cards:
        return up[cards.index("QH" if "QH" in cards else "AS")][0]
    suit = trick[0][1][1]
    if same_two and not first and all(c[1] == suit for _s, c in trick) and "2" + suit in cards:
        return up[cards.index("2" + suit)][0]
    best = [pair for pair in up if pair[1][1] == trump] or [pair for pair in up if pair[1][1] == up[0][1][1]]
    return min(best, key=lambda pair: order.index(pair[1][0]))[0]


@pytest.mark.parametrize("players", [2, 3, 4, 7])
@pytest.mark.parametrize("options", [{}, {"must_trump": True, "same_two": False, "reversal": False}])
def test_5_and_7_random_games_play_win_and_score_as_the_rules_text_says(players: int, options: dict) -> None:
    def winner_leads(p: dict, state: engine.State) -> None:  # 5.1: the winner of a trick leads the next
        after = state.to_position()
        if len(after["tricks"]) > len(p["tricks"]):
            first, trick = not p["tricks"], after["tricks"][-1]
            down = set(p["face_down"]) if first else set()
            assert state.current_player == _rules_text_winner(trick, p["trump"], first, down, state.options["same_two"])

    for seed in range(3):
        state = engine.new_match(GAME, seed=seed, players=players, options={"num_games": 2, **options})
        play_checked(state, seed, _rules_text_legal, lambda tricks, p: _rules_text_points(tricks, p, p["options"]),
                     winner_leads)


def _rules_text_points(tricks: list, p: dict, options: dict) -> list[int]:
    """2.4, 7.1 and 7.2 as the rules file writes them, from a deal's tricks."""
    values = {"2H": 10, "TH": 10, "JH": 10, "QH": 5, "KH": 5, "AH": 5, "QS": -5, "KS": -5, "2S": -10, "TS": -10,
              "JS": -10, "AS": -15, **{r + s: 1 for r in "TJQKA" for s in "CD"}}
    taken: list[set[str]] = [set() for _ in p["hands"]]
    for number, trick in enumerate(tricks):
        down = set(p["face_down"]) if number == 0 else set()
        taken[_rules_text_winner(trick, p["trump"], number == 0, down, options["same_two"])] |= {c for _s, c in trick}
    points = [sum(values.get(c, 0) for c in pile) for pile in taken]
    minus = {"2S", "TS", "JS", "QS", "KS", "AS"}
    return [-x for x in points] if options["reversal"] and any(minus <= pile for pile in taken) else points


# ---- 7. scoring ------------------------------------------------------------------------------------------------

def test_7_1_example_11_deal_scores() -> None:
    zero = pile("3C")
    first = pile("2H TH QH AC KD 2S QS")
    second = pile("JH KH AH TC JC QC KC TD JD QD AD TS JS KS AS")
    assert CARDS.scores([first | zero, second]) == ([12, -12], None)


def test_7_2_example_12_reversal() -> None:
    first = pile("2S TS JS QS KS AS TH KH AC AD")
    second = mask_of(c for c in range(52) if not first >> c & 1)
    assert CARDS.scores([first, second]) == ([38, -38], 0)
    assert CARDS.scores([first, second], reversal=False) == ([-38, 38], None)


@pytest.mark.parametrize("reversal", [True, False])
def test_7_2_a_deal_scored_with_and_without_the_reversal_option(reversal: bool) -> None:
    state = engine.new_match(GAME, seed=5, players=3, options={"reversal": reversal, "num_games": 2})
    minus = pile("2S TS JS QS KS AS")
    state.taken = [minus | mask_of([parse_card("2H")]), mask_of([parse_card("TH")]), 0]
    state._score_deal()
    expected = [55 - 10, -10, 0] if reversal else [-55 + 10, 10, 0]
    assert state.deal_results[-1]["points"] == expected and state.scores == expected
    assert state.deal_results[-1]["reversal"] == (0 if reversal else None)


def test_7_3_a_match_of_num_games_games_the_highest_total_wins() -> None:
    for games in (1, 5):
        state = engine.new_match(GAME, seed=games, players=3, options={"num_games": games})
        rng = Rng(games)
        while not state.is_terminal:
            state.apply_id(rng.choice(state.legal_action_ids()))
        assert len(state.deal_results) == games and sum(state.scores) == 0
        assert state.winners == [s for s in range(3) if state.scores[s] == max(state.scores)]
        assert state.scores == [sum(r["points"][s] for r in state.deal_results) for s in range(3)]


# ---- 8. options ------------------------------------------------------------------------------------------------

def test_8_must_trump_makes_a_void_player_trump_and_as_counts_as_a_trump() -> None:
    state = dealt([["4C", "9C"], ["AS", "6D"]], ["7H"], must_trump=True)
    state.apply("4C")
    assert state.legal_actions() == ["AS"]  # trump H held: none, but AS counts as a trump
    state = dealt([["4C", "9C"], ["AS", "6H", "6D"][:2]], ["7H"], must_trump=True)
    state.apply("4C")
    assert state.legal_actions() == ["6H", "AS"]
    state = dealt([["4C", "9C"], ["6D", "7D"]], ["7H"], must_trump=True)
    state.apply("4C")
    assert state.legal_actions() == ["6D", "7D"]  # nothing to trump with: any card


def test_8_fixed_trump_ignores_the_stock() -> None:
    state = dealt([["4C"], ["5C"]], ["7H"], fixed_trump="S")
    assert state.to_position()["trump"] == "S" and state.to_position()["face_up"] == "7H"


def test_8_same_two_off() -> None:
    assert winner("AD 2D", SPADES, same_two=False) == "AD"


@pytest.mark.parametrize(("players", "largest"), [(2, 25), (3, 16), (4, 12), (5, 9), (6, 7), (7, 6)])
def test_8_hand_size_leaves_a_stock_to_name_trump(players: int, largest: int) -> None:
    engine.new_match(GAME, seed=1, players=players, options={"hand_size": largest})
    with pytest.raises(ValueError, match="hand_size"):
        engine.new_match(GAME, seed=1, players=players, options={"hand_size": largest + 1})
    with pytest.raises(ValueError, match="hand_size"):
        engine.new_match(GAME, seed=1, players=players, options={"hand_size": 0})


def test_8_hand_size_default_is_listed_for_every_player_count() -> None:
    (hand_size,) = [o for o in engine.game_info(GAME).to_dict()["options"] if o["name"] == "hand_size"]
    assert hand_size["default"] == {2: 6, 3: 4, 4: 4, 5: 4, 6: 4, 7: 4}


def test_8_options_are_validated() -> None:
    for bad in ({"num_games": 0}, {"fixed_trump": "X"}, {"reversal": 1}, {"must_trump": "yes"}):
        with pytest.raises(ValueError):
            engine.new_match(GAME, seed=1, options=bad)


# ---- positions -------------------------------------------------------------------------------------------------

def test_a_position_with_a_face_down_card_round_trips_and_is_checked() -> None:
    state = dealt([["7H", "2H", "3H", "4H", "5S", "6H"], ["4C", "9H", "AS", "KD", "TS", "6S"]])
    state.apply("facedown:7H")
    p = state.to_position()
    assert p["face_down"] == ["7H"] and p["trick"] == [[0, "7H"]]
    assert engine.from_position(GAME, p).legal_actions() == ["4C", "KD"]
    with pytest.raises(engine.PositionError, match="may not play 7H"):
        engine.from_position(GAME, {**p, "face_down": []})  # played face up, it would have to be a club or diamond
    with pytest.raises(engine.PositionError):
        engine.from_position(GAME, {**p, "face_down": ["7H", "2H"]})
    with pytest.raises(engine.PositionError, match="add up to 0"):
        engine.from_position(GAME, {**p, "scores": [1, 0]})


# ---- greedy (engine/games/two_ten_jack/greedy.py) -----------------------------------------------------------------

def _greedy(legal: list[str], trick: list, trump: str = "C", tricks_played: int = 3, players: int = 2) -> str:
    obs = {"game": GAME, "players": players, "trump": trump, "trick": trick, "tricks_played": tricks_played,
           "options": {"same_two": True}, "legal_actions": legal}
    return make_policy("greedy", GAME, 0, 1)(obs)


def test_greedy_takes_plus_points_cheaply_and_dodges_minus_ones() -> None:
    assert _greedy(["2H", "QH", "AH"], [[1, "JH"]]) == "2H"  # same two takes the JH with the 2H's own 10
    assert _greedy(["3S", "KS"], [[1, "JS"]]) == "3S"  # under the JS: leave the minus trick
    assert _greedy(["AS", "4D"], [[1, "QH"]], trump="D") == "AS"  # QH takes AS: dump the almighty's -15 on it
    assert _greedy(["facedown:AS", "facedown:2H"], [], tricks_played=0) == "facedown:AS"


def test_greedy_never_leads_the_almighty() -> None:
    assert _greedy(["AS", "7C", "KD"], []) == "7C"


# ---- determinization -------------------------------------------------------------------------------------------

def test_a_face_down_card_is_unseen_by_the_others_until_the_trick_is_gathered() -> None:
    state = dealt([["7H", "2H", "3H", "4H", "5S", "6H"], ["4C", "9H", "AS", "KD", "TS", "6S"]])
    state.apply("facedown:7H")
    rng, seen = Rng(3), set()
    for _ in range(40):
        sample = engine.determinize(state, 1, rng)
        assert sample.observation(1) == state.observation(1)
        (down,) = sample.to_position()["face_down"]
        assert down[1] in "HS" and sample.history == [(0, f"facedown:{down}")]
        assert sample.to_position()["trick"] == [[0, down]]
        seen.add(down)
    assert len(seen) > 5  # any heart or spade seat 1 has not seen
    assert {engine.determinize(state, 0, rng).to_position()["face_down"][0] for _ in range(10)} == {"7H"}


def test_a_sample_is_no_void_deal_and_not_the_real_deal_when_the_quick_tries_run_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trickgame, "MISDEAL_TRIES", 0)  # every sample from the chain
    state = dealt([["7H", "2H", "3H", "4H", "5S", "6H"], ["4C", "9H", "AS", "KD", "TS", "6S"]])
    rng, real = Rng(5), state.to_position()["hands"][0]
    samples = [engine.determinize(state, 1, rng) for _ in range(20)]
    assert all(sample._misdeal() is None and sample.observation(1) == state.observation(1) for sample in samples)
    assert any(sample.to_position()["hands"][0] != real for sample in samples)


def test_a_position_checks_the_trump_and_the_first_games_dealer() -> None:
    p = dealt([["4C", "9C"], ["5C", "6C"]], ["7H", "8S"]).to_position()
    with pytest.raises(engine.PositionError, match="trump must be H"):
        engine.from_position(GAME, {**p, "trump": "S"})
    with pytest.raises(engine.PositionError, match="first game's dealer"):
        engine.from_position(GAME, {**p, "dealer": 0, "current_player": 1})
    fixed = dealt([["4C", "9C"], ["5C", "6C"]], ["7H", "8S"], fixed_trump="D").to_position()
    assert fixed["trump"] == "D" and engine.from_position(GAME, fixed).to_position() == fixed


# ---- sections 2.1, 5.1 and 5.6 by number ------------------------------------------------------------------------


def test_2_1_ace_high_two_low_in_every_suit() -> None:
    assert winner("2C AC KC", SPADES, first=True) == "AC" and winner("3D 2D", HEARTS, first=True) == "3D"
    assert winner("KS QS AS", CLUBS) == "AS" and winner("9H TH 8H", DIAMONDS) == "TH"


def test_5_1_the_winner_of_a_trick_leads_the_next() -> None:
    state = dealt([["4C", "9C"], ["KC", "2D"]], fixed_trump="S")
    state.apply("4C")
    state.apply("KC")
    assert state.current_player == 1 and state.trick == []  # seat 1 won with KC
    state.apply("2D")
    assert state.observation(0)["trick"] == [[1, "2D"]]


def test_5_6_the_winner_takes_every_card_of_the_trick_face_down_ones_too() -> None:
    state = dealt([["7H", "2H", "3H"], ["4C", "9H", "AS"], ["KD", "TH", "5S"]], fixed_trump="S")
    state.apply("facedown:7H")
    state.apply("4C")
    state.apply("KD")
    assert state.current_player == 1  # 4C led the trick: KD is of another suit
    assert state.observation(0)["taken"] == [[], ["4C", "KD", "7H"], []]
