"""Botifarra: every worked example of shared/rules/botifarra.md (E1-E13) and at least one test per rule, by section."""

from __future__ import annotations

import pytest
from rules_text import play_checked
from trick_positions import documented_example

import engine
from engine.auction import DoublingRounds, TrumpChoice
from engine.bots import make_policy
from engine.cards import CODES, SUIT, mask_of, parse_card, parse_cards
from engine.games.botifarra import DECK, PAIRINGS, PLAY_RULES, POINTS, RANKING
from engine.games.botifarra.rules import over_half
from engine.rng import Rng
from engine.tricks import HEARTS, NO_TRUMP, trick_winner

GAME = "botifarra"
CARDS = [CODES[c] for c in DECK]
DOUBLE = ["contro", "recontro", "santvicenc"]


def new(seed: int = 1, dealer: int | None = 0, deck: list[str] | None = None, **options) -> engine.State:
    return engine.new_match(GAME, seed=seed, first_dealer=dealer, deck=deck, options=options)


def deck_for(hands: dict[int, list[str]], avoid: dict[int, str] | None = None, dealer: int = 0) -> list[str]:
    """A deck that deals seat s ``hands[s]`` and 12 - len of other cards, none of the suits ``avoid[s]`` (3.4: round
    r gives seat dealer+1+k the deck positions 16r + 4k .. 16r + 4k + 3)."""
    avoid = avoid or {}
    spare = [c for c in CARDS if all(c not in h for h in hands.values())]
    full = {}
    for seat in sorted(range(4), key=lambda s: -len(avoid.get(s, ""))):
        cards = list(hands.get(seat, []))
        while len(cards) < 12:
            card = next(c for c in spare if c[1] not in avoid.get(seat, ""))
            spare.remove(card)
            cards.append(card)
        full[seat] = cards
    deck = [""] * 48
    for r in range(3):
        for k in range(4):
            deck[16 * r + 4 * k:16 * r + 4 * k + 4] = full[(dealer + 1 + k) % 4][4 * r:4 * r + 4]
    return deck


def first_trick(hands: dict[int, list[str]], avoid: dict[int, str] | None = None, trump: str = "H",
                plays: tuple[str, ...] = (), **options) -> engine.State:
    """Dealer 0 names ``trump`` (``none``: botifarra), nobody doubles; seat 1 leads trick 1 with ``plays``."""
    state = new(deck=deck_for(hands, avoid), **options)
    state.apply(f"trump:{trump}")
    while state.phase == "doubling":
        state.apply("pass")
    for card in plays:
        state.apply(card)
    return state


def legal(hand: str, trick: str, trump: int, rule: str = "seed") -> list[str]:
    """The rule's legal cards of a hand (codes) to a trick (codes in play order, seat 1 leading, seat 2 ... next)."""
    cards = parse_cards(trick.split())
    best = trick_winner(cards, trump, RANKING)
    seat = 1 + len(cards)
    partner_winning = (1 + best) % 2 == seat % 2
    mask = PLAY_RULES[rule].legal(mask_of(parse_cards(hand.split())), SUIT[cards[0]], trump, cards[best],
                                  partner_winning, len(cards) == 1)
    return [CODES[c] for c in range(52) if mask >> c & 1]


def play_randomly(state: engine.State, seed: int, until=lambda s: s.is_terminal) -> engine.State:
    rng = Rng(seed)
    while not until(state):
        state.apply_id(rng.choice(state.legal_action_ids()))
    return state


def at_last_trick(seed: int, **options) -> engine.State:
    """A random match at the start of its first deal's last trick."""
    return play_randomly(new(seed=seed, **options), seed,
                         lambda s: s.phase == "play" and len(s.tricks) == 11 and not s.trick)


# ---- 1. identity ------------------------------------------------------------------------------------------------

def test_1_1_and_1_2_four_players_in_partnerships() -> None:
    info = engine.game_info(GAME)
    assert info.name == "Botifarra" and info.player_counts == (4,) and info.default_players == 4
    with pytest.raises(ValueError, match="4 players"):
        engine.new_match(GAME, seed=1, players=3)
    state = new()
    assert state.side_of == (0, 1, 0, 1) and [state.partner_of(s) for s in range(4)] == [2, 3, 0, 1]


def test_1_3_the_deck_is_48_cards_without_tens() -> None:
    dealt = new().to_position()["deal_deck"]
    assert len(dealt) == 48 and sorted(dealt) == sorted(CARDS)
    assert not [c for c in dealt if c[0] == "T"] and engine.game_info(GAME).deck_size == 48


def test_1_4_play_goes_to_the_next_seat() -> None:
    state = first_trick({}, plays=())
    seats = []
    for _ in range(4):
        seats.append(state.current_player)
        state.apply(state.legal_actions()[0])
    assert seats == [1, 2, 3, 0]


# ---- 2. ranking and points --------------------------------------------------------------------------------------

def test_2_1_the_manilla_is_highest_then_the_ace_in_every_suit() -> None:
    for trump in (HEARTS, NO_TRUMP):
        for suit in "CH":
            order = [r + suit for r in "9AKQJ8765432"]
            for high, low in zip(order, order[1:], strict=False):
                assert trick_winner(parse_cards([low, high]), trump, RANKING) == 1


def test_2_2_and_2_3_card_points_total_60_and_72_with_the_tricks() -> None:
    table = POINTS[HEARTS]
    assert [table[parse_card(r + "S")] for r in "9AKQJ8765432"] == [5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0]
    assert sum(table[c] for c in DECK) == 60 and POINTS[NO_TRUMP] == table  # the same in trumps and botifarra
    state = play_randomly(new(seed=3, max_deals=3), 3)
    assert all(sum(d["deal_points"]) == 72 for d in state.deal_results)


def test_2_4_a_trump_beats_every_plain_card_and_botifarra_only_the_led_suit_wins() -> None:
    assert trick_winner(parse_cards(["9C", "2H", "AC", "KC"]), HEARTS, RANKING) == 1
    assert trick_winner(parse_cards(["2C", "9H", "9D", "3C"]), NO_TRUMP, RANKING) == 3


# ---- 3. deal ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6, 7, 8])
def test_3_1_the_first_dealer_is_the_suit_of_a_turned_card_then_the_deck_is_shuffled(seed: int) -> None:
    rng = Rng(seed)
    draw = list(DECK)
    rng.shuffle(draw)
    deck = list(DECK)
    rng.shuffle(deck)
    state = engine.new_match(GAME, seed=seed)
    assert state.dealer == SUIT[draw[0]] and state.to_position()["deal_deck"] == [CODES[c] for c in deck]


def test_3_2_the_deal_passes_to_the_right() -> None:
    state = play_randomly(new(dealer=2, seed=4, max_deals=5, target_score=1000), 4)
    assert [d["dealer"] for d in state.deal_results] == [2, 3, 0, 1, 2]


def test_3_4_and_e1_three_rounds_of_four_from_the_dealers_right() -> None:
    state = new(deck=CARDS)
    hands = state.to_position()["hands"]
    for seat, k in ((1, 0), (2, 1), (3, 2), (0, 3)):
        positions = [16 * r + 4 * k + j for r in range(3) for j in range(4)]
        assert hands[seat] == sorted((CARDS[i] for i in positions), key=CODES.index)
    assert positions[:4] == [12, 13, 14, 15] and positions[-1] == 47  # E1: seat 0 gets 12-15, ..., 44-47
    state.apply("trump:C")
    while state.phase == "doubling":
        state.apply("pass")
    assert state.current_player == 1  # E1: seat 1 leads trick 1


def test_3_5_no_redeals_every_deal_is_played() -> None:
    state = play_randomly(new(seed=9, max_deals=4, target_score=1000), 9)
    assert [d["deal"] for d in state.deal_results] == [0, 1, 2, 3] and "redealt" not in state.to_position()


# ---- 4. trump selection and doubling ----------------------------------------------------------------------------

def test_4_1_the_dealer_names_a_trump_botifarra_or_delegates() -> None:
    state = new(dealer=3)
    assert state.phase == "choice" and state.current_player == 3
    assert state.legal_actions() == ["delegate", "trump:C", "trump:D", "trump:H", "trump:S", "trump:none"]


def test_4_2_and_e2_the_partner_cannot_delegate_and_becomes_the_maker() -> None:
    state = new(dealer=0)
    state.apply("delegate")
    assert state.current_player == 2
    assert state.legal_actions() == ["trump:C", "trump:D", "trump:H", "trump:S", "trump:none"]
    state.apply("trump:none")
    assert state.maker == 2 and state.trump == NO_TRUMP and state.to_position()["trump"] is None  # 4.3, botifarra
    assert state.phase == "doubling" and state.current_player == 3  # E2: seat 3 asked first
    state.apply("pass")
    assert state.current_player == 1


def test_4_4_and_e3_contro_recontro_santvicenc() -> None:
    state = new(dealer=0)
    state.apply("trump:S")
    seen = []
    for word in ["pass", "contro", "pass", "recontro", "pass", "santvicenc"]:
        seen.append((state.current_player, sorted(state.legal_actions())))
        state.apply(word)
    assert seen == [(1, ["contro", "pass"]), (3, ["contro", "pass"]), (0, ["pass", "recontro"]),
                    (2, ["pass", "recontro"]), (3, ["pass", "santvicenc"]), (1, ["pass", "santvicenc"])]
    assert state.multiplier == 8 and state.phase == "play" and state.current_player == 1  # E3: doubling ends


def test_4_4_two_passes_end_the_doubling_at_each_level() -> None:
    state = new(dealer=1)
    state.apply("trump:D")  # maker 1: seats 2 then 0 asked
    assert state.current_player == 2
    state.apply("contro")
    assert state.current_player == 3  # the player on the right of the last speaker, a maker
    state.apply("pass")
    assert state.current_player == 1
    state.apply("pass")
    assert state.phase == "play" and state.level == 1 and state.multiplier == 2


def test_4_4_the_doubling_rounds_as_shared_machinery() -> None:
    rounds = DoublingRounds(tuple(DOUBLE), maker=2, sides=(0, 1, 0, 1))
    assert rounds.asked == (3, 1) and rounds.legal_words() == ["contro", "pass"]
    rounds.apply("pass")
    rounds.apply("pass")
    assert rounds.over and rounds.level == 0
    choice = TrumpChoice(chooser=1, partner=3, no_trump=False)
    assert "trump:none" not in choice.legal_words() and not choice.delegated


@pytest.mark.parametrize(("max_double", "words"), [("none", []), ("contro", ["contro"]),
                                                   ("recontro", ["contro", "recontro"]),
                                                   ("santvicenc", DOUBLE)])
def test_4_4_max_double_caps_the_chain(max_double: str, words: list[str]) -> None:
    state = new(max_double=max_double)
    state.apply("trump:H")
    said = []
    while state.phase == "doubling":
        word = next(a for a in state.legal_actions() if a != "pass")
        said.append(word)
        state.apply(word)
    assert said == words and state.phase == "play" and state.level == len(words)
    assert state.to_position()["doubling"] == ([] if max_double == "none" else
                                               [[s, w] for s, w in state.doubling.actions])


def test_4_5_botifarra_is_doubled_like_a_suit() -> None:
    state = new()
    state.apply("trump:none")
    state.apply("contro")
    assert state.legal_actions() == ["pass", "recontro"] and state.multiplier == 4


# ---- 5. play ----------------------------------------------------------------------------------------------------

def test_5_1_the_dealers_right_leads_and_the_winner_leads_next() -> None:
    state = first_trick({1: ["KC"], 2: ["9C"], 3: ["2H"], 0: ["AH"]}, avoid={3: "C", 0: "C"},
                        plays=("KC", "9C", "2H", "AH"))
    assert state.current_player == 0 and len(state.tricks) == 1


@pytest.mark.parametrize(("name", "hands", "avoid", "trump", "plays", "seat", "expected"), [
    ("E4", {1: ["5C"], 2: ["2C", "8C", "KC", "3D"]}, {2: "C"}, "H", ("5C",), 2, ["8C", "KC"]),
    ("E5", {1: ["AC"], 2: ["2C", "7C", "JC", "QC", "9D"]}, {2: "C"}, "H", ("AC",), 2, ["2C", "JC", "QC"]),
    ("E6", {1: ["8C"], 2: ["9C"], 3: ["2C", "7C", "AC", "4S"]}, {2: "C", 3: "C"}, "H", ("8C", "9C"), 3, ["2C"]),
    ("E7", {1: ["4S"], 2: ["KS"], 3: ["3C", "AD", "2H", "8H"]}, {2: "S", 3: "SH"}, "H", ("4S", "KS"), 3,
     ["2H", "8H"]),
    ("E8", {1: ["AS"], 2: ["3S"], 3: ["2S", "6S", "9S", "QS", "4D"]}, {2: "S", 3: "S"}, "H", ("AS", "3S"), 3,
     ["2S", "9S", "QS"]),
])
def test_5_5_worked_examples_e4_to_e8_in_a_deal(name, hands, avoid, trump, plays, seat, expected) -> None:
    state = first_trick(hands, avoid, trump, plays)
    assert state.current_player == seat and state.legal_actions() == sorted(expected), name


def test_5_5_e9_botifarra_void_second_hand_in_a_deal() -> None:
    # Seat 2's other cards are point cards of clubs and spades, which a second hand may load anyway.
    extra = ["JC", "KC", "AC", "9C", "JS", "QS", "KS"]
    state = first_trick({1: ["7D"], 2: ["3C", "8C", "QC", "2S", "AS", *extra]}, trump="none", plays=("7D",))
    assert state.legal_actions() == sorted(["3C", "QC", "2S", "AS", *extra])


@pytest.mark.parametrize(("name", "hand", "trick", "trump", "expected"), [
    ("E4", "2C 8C KC 3D", "5C", HEARTS, "8C KC"),
    ("E5", "2C 7C JC QC 9D", "AC", HEARTS, "2C JC QC"),
    ("E6", "2C 7C AC 4S", "8C 9C", HEARTS, "2C"),
    ("E7", "3C AD 2H 8H", "4S KS", HEARTS, "2H 8H"),
    ("E8", "2S 6S 9S QS 4D", "AS 3S", HEARTS, "2S 9S QS"),
    ("E9", "3C 8C QC 2S AS", "7D", NO_TRUMP, "3C QC 2S AS"),
])
def test_5_5_worked_examples_e4_to_e9_exact_hands(name, hand, trick, trump, expected) -> None:
    assert legal(hand, trick, trump) == sorted(expected.split(), key=CODES.index), name


def test_5_5_note_a_no_undertrumping_when_the_trumps_cannot_win() -> None:
    # Seat 3, void in spades: seat 2 trumped with 9H, so 2H cannot win; the lowest card of any suit is due.
    assert legal("3C 7C AD 2H 8H", "4S 9H", HEARTS) == ["3C", "AD", "2H"]


def test_5_5_a_void_third_hand_that_can_win_must_trump() -> None:
    assert legal("3C 7C AD 2H", "4S KS", HEARTS) == ["2H"]


def test_5_6_relaxed_rules_follow_suit_and_win_if_possible_else_anything() -> None:
    assert legal("2C 7C JC QC 9D", "AC", HEARTS, "relaxed") == ["2C", "7C", "JC", "QC"]
    assert legal("2C 8C KC 3D", "5C", HEARTS, "relaxed") == ["8C", "KC"]
    assert legal("2S 6S 9S QS 4D", "AS 3S", HEARTS, "relaxed") == ["2S", "6S", "9S", "QS"]  # partner winning
    state = first_trick({1: ["AC"], 2: ["2C", "7C", "JC", "QC"]}, {2: "C"}, plays=("AC",), play_rules="relaxed")
    assert state.legal_actions() == ["2C", "7C", "JC", "QC"]


def test_5_5_a_void_player_must_overtrump_an_opponents_trump_when_he_can() -> None:
    # Seat 2, void in spades, must trump the 4S (every trump wins it); seat 3, void too, must beat that 5H: 8H only.
    state = first_trick({1: ["4S"], 2: ["5H", "3C", "KD"], 3: ["2H", "8H", "3D", "AC"]}, avoid={2: "SH", 3: "SH"},
                        plays=("4S",))
    assert state.legal_actions() == ["5H"]
    state.apply("5H")
    assert state.current_player == 3 and state.legal_actions() == ["8H"]


def test_5_5_partner_winning_a_void_player_may_trump_or_play_a_lowest_or_a_point_card_of_any_suit() -> None:
    # Seat 0's partner (seat 2) wins with the manilla of spades; seat 0 has no spade: beaters (every trump), the
    # lowest card of each suit, and every point card are legal; 7C, 4C, 5D and 8D (neither) are not.
    hand = ["3C", "4C", "7C", "KC", "2D", "5D", "8D", "JD", "AD", "6H", "QH", "9H"]
    state = first_trick({1: ["4S"], 2: ["9S"], 3: ["5S"], 0: hand}, avoid={3: "S"}, plays=("4S", "9S", "5S"))
    assert state.current_player == 0
    assert state.legal_actions() == ["2D", "3C", "6H", "9H", "AD", "JD", "KC", "QH"]


def test_5_5_a_fourth_hand_that_cannot_win_plays_its_lowest_card_not_a_point_card() -> None:
    state = first_trick({1: ["9C"], 2: ["2C"], 3: ["3C"], 0: ["4C", "7C", "KC", "AC"]}, avoid={0: "C"},
                        plays=("9C", "2C", "3C"))
    assert state.current_player == 0 and state.legal_actions() == ["4C"]


def test_5_5_a_void_second_hand_that_can_trump_must_trump() -> None:
    state = first_trick({1: ["AS"], 2: ["2H", "JH", "KC", "3D"]}, avoid={2: "SH"}, plays=("AS",))
    assert state.legal_actions() == ["2H", "JH"]


def test_5_6_relaxed_rules_a_void_player_trumps_when_that_wins_else_plays_anything() -> None:
    hands = {1: ["4S"], 2: ["9H", "3C"], 3: ["2H", "8H", "3D", "AC"]}
    state = first_trick(hands, avoid={2: "SH", 3: "SH"}, plays=("4S",), play_rules="relaxed")
    assert state.legal_actions() == ["9H"]  # seat 2: trumping wins the trick
    state.apply("9H")
    assert len(state.legal_actions()) == 12  # seat 3 cannot beat the manilla: any card
    state = first_trick({1: ["4S"], 2: ["9S"], 3: ["5S"], 0: ["2H", "3C"]}, avoid={0: "S", 3: "S"},
                        plays=("4S", "9S", "5S"),
                        play_rules="relaxed")
    assert len(state.legal_actions()) == 12  # seat 0's partner wins: any card, trump or not


def _rules_text_legal(hand: list[str], trick: list[list], trump: str | None, seat: int, relaxed: bool) -> list[str]:
    """5.4 - 5.6 as the rules file writes them, on card codes (partners {0,2} and {1,3})."""
    order = "9AKQJ8765432"

    def power(card: str, led: str) -> int:
        return 200 - order.index(card[0]) if card[1] == trump else 100 - order.index(card[0]) if card[1] == led else 0

    if not trick:
        return sorted(hand)
    led = trick[0][1][1]
    best = max(trick, key=lambda pair: power(pair[1], led))
    partner_winning = best[0] == (seat + 2) % 4
    allowed = [c for c in hand if c[1] == led] or hand
    beaters = {c for c in allowed if power(c, led) > power(best[1], led)}
    if relaxed:
        return sorted(beaters if beaters and not partner_winning else allowed)
    lowest = {c for c in allowed if all(order.index(c[0]) >= order.index(x[0]) for x in hand if x[1] == c[1])}
    points = {c for c in allowed if c[0] in "9AKQJ"}
    if partner_winning:
        return sorted(beaters | lowest | points)
    if beaters:
        return sorted(beaters)
    return sorted(lowest | points if len(trick) == 1 else lowest)


@pytest.mark.parametrize("play_rules", ["seed", "relaxed"])
def test_4_and_5_every_move_of_random_deals_is_the_rules_texts(play_rules: str) -> None:
    def legal_actions(p: dict) -> list[str]:
        if p["phase"] == "choice":  # 4.1, 4.2: the dealer may delegate, his partner may not
            words = [f"trump:{s}" for s in ("C", "D", "H", "S", "none")]
            return sorted(words if p["choice"] else [*words, "delegate"])
        if p["phase"] == "doubling":  # 4.4: the next word or pass
            return sorted([DOUBLE[sum(1 for _s, word in p["doubling"] if word != "pass")], "pass"])
        seat = p["current_player"]
        return _rules_text_legal(p["hands"][seat], p["trick"], p["trump"], seat, play_rules == "relaxed")

    for seed in range(6):
        play_checked(new(seed=seed, max_deals=2, play_rules=play_rules), seed, legal_actions)


def test_5_2_twelve_tricks_of_four_cards_each_seat_in_turn() -> None:
    first = play_randomly(new(seed=6), 6, lambda s: s.phase == "play" and len(s.tricks) == 11 and len(s.trick) == 3)
    tricks = [*first.tricks, [*first.trick, (first.current_player, -1)]]
    assert len(tricks) == 12 and all(len(t) == 4 for t in tricks)
    assert all([s for s, _c in t] == [(t[0][0] + k) % 4 for k in range(4)] for t in tricks)


def test_5_3_and_e10_the_highest_trump_wins_and_the_trick_is_worth_13() -> None:
    state = first_trick({1: ["KC"], 2: ["9C"], 3: ["2H"], 0: ["AH"]}, avoid={3: "C", 0: "C"},
                        plays=("KC", "9C", "2H", "AH"))
    assert state.tricks_won == [1, 0] and state.card_points == [12, 0] and state.deal_points() == [13, 0]


# ---- 6. declarations --------------------------------------------------------------------------------------------

def test_6_the_only_words_are_the_trump_choice_and_the_doubling() -> None:
    words = {a for a in engine.game_class(GAME).ACTIONS.words}
    assert words == {"trump:C", "trump:D", "trump:H", "trump:S", "trump:none", "delegate", "pass", *DOUBLE}


# ---- 7. scoring and game end ------------------------------------------------------------------------------------

def test_e11_and_e12_deal_scores() -> None:
    assert over_half([45, 27], 36) == [9, 0]
    assert over_half([45, 27], 36, 2) == [18, 0]  # contro
    assert over_half([45, 27], 36, 2 * 4) == [72, 0]  # botifarra with recontro
    assert over_half([36, 36], 36, 8) == [0, 0]  # E12


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("options", [{}, {"double_values": "2-3-4", "botifarra_multiplier": 3}])
def test_7_2_and_7_3_the_team_over_36_scores_its_excess_times_the_multiplier(seed: int, options: dict) -> None:
    state = play_randomly(new(seed=seed, max_deals=6, **options), seed)
    values = {"2-4-8": [1, 2, 4, 8], "2-3-4": [1, 2, 3, 4]}[state.options["double_values"]]
    for deal in state.deal_results:
        level = 0 if deal["doubling"] == "none" else DOUBLE.index(deal["doubling"]) + 1
        m = (state.options["botifarra_multiplier"] if deal["trump"] == "none" else 1) * values[level]
        assert deal["multiplier"] == m
        assert deal["points"] == [max(p - 36, 0) * m for p in deal["deal_points"]]  # either team, made or not


def test_7_2_a_36_36_deal_scores_nothing() -> None:
    for seed in range(400):
        state = play_randomly(new(seed=seed, max_deals=1), seed)
        if state.deal_results[0]["deal_points"] == [36, 36]:
            assert state.deal_results[0]["points"] == [0, 0] and state.scores == [0, 0, 0, 0]
            return
    raise AssertionError("no 36-36 deal found")


def test_7_3_a_doubled_deal_the_defenders_win_scores_for_them_multiplied() -> None:
    for seed in range(400):
        state = play_randomly(new(seed=seed, max_deals=1), seed)
        deal = state.deal_results[0]
        if deal["doubling"] != "none" and not deal["made"] and max(deal["deal_points"]) > 36:
            defenders = 1 - state.side_of[deal["maker"]]
            assert deal["points"][defenders] == (deal["deal_points"][defenders] - 36) * deal["multiplier"] > 0
            return
    raise AssertionError("no doubled deal lost by the makers found")


def _scores_set(state: engine.State, team0: int, team1: int) -> engine.State:
    p = state.to_position()
    p["scores"] = [team0, team1, team0, team1]
    p["game_points_0"], p["game_points_1"] = team0, team1
    return engine.from_position(GAME, p)


def test_7_4_and_e13_a_team_reaching_the_target_wins() -> None:
    for seed in range(300):
        state = at_last_trick(seed)
        probe = state.clone()
        play_randomly(probe, seed, lambda s: s.deal_index == 1 or s.is_terminal)
        points = probe.deal_results[0]["points"]
        if points not in ([7, 0], [0, 7]):
            continue
        team = points.index(7)
        totals = [95, 80] if team == 0 else [80, 95]
        ended = play_randomly(_scores_set(state, *totals), seed, lambda s: s.deal_index == 1 or s.is_terminal)
        assert ended.is_terminal and ended.side_scores[team] == 102  # E13: 95 + 7 >= 101
        assert ended.winners == [s for s in range(4) if s % 2 == team]
        goes_on = play_randomly(_scores_set(state, *[t - 2 for t in totals]), seed,
                                lambda s: s.deal_index == 1 or s.is_terminal)
        assert not goes_on.is_terminal and goes_on.side_scores[team] == 100
        return
    raise AssertionError("no deal scoring 7 found")


def test_7_4_target_score_option() -> None:
    state = play_randomly(new(seed=21, target_score=20), 21)
    assert state.is_terminal and max(state.side_scores) >= 20 > min(state.side_scores)
    assert all(max(s) < 20 for s in _running_totals(state)[:-1])


def _running_totals(state: engine.State) -> list[list[int]]:
    totals, out = [0, 0], []
    for deal in state.deal_results:
        totals = [a + b for a, b in zip(totals, deal["points"], strict=True)]
        out.append(totals)
    return out


# ---- 8. options -------------------------------------------------------------------------------------------------

def test_8_options_are_declared_and_validated() -> None:
    names = [o.name for o in engine.game_info(GAME).options]
    assert names == ["target_score", "max_double", "double_values", "botifarra_multiplier", "play_rules",
                     "three_game_rotation"]
    for bad in ({"max_double": "sant"}, {"double_values": "2-4-6"}, {"play_rules": "strict"},
                {"target_score": 0}, {"botifarra_multiplier": 0}, {"three_game_rotation": 1}):
        with pytest.raises(ValueError):
            new(**bad)
    assert new(first_dealer=None, dealer=None, seed=5).dealer == engine.new_match(GAME, seed=5).dealer


def test_8_first_dealer_option() -> None:
    assert engine.new_match(GAME, seed=1, options={"first_dealer": 3}).dealer == 3


def test_8_three_game_rotation_repairs_the_seats_and_counts_games_won() -> None:
    state = new(seed=7, three_game_rotation=True, target_score=25)
    assert state.side_of == (0, 1, 2, 3)
    seen = {}
    rng = Rng(7)
    while not state.is_terminal:
        seen.setdefault(state.game, [state.partner_of(s) for s in range(4)])
        state.apply_id(rng.choice(state.legal_action_ids()))
    assert seen == {0: [2, 3, 0, 1], 1: [1, 0, 3, 2], 2: [3, 2, 1, 0]}
    games = [d for d in state.deal_results if 1 in d["points"]]
    assert len(games) == 3 and sum(state.scores) == 6
    for k, deal in enumerate(games):
        winners = [s for s in range(4) if deal["points"][s]]
        assert deal["game_index"] == k and PAIRINGS[k][winners[0]] == PAIRINGS[k][winners[1]]
    top = max(state.scores)
    assert state.winners == [s for s in range(4) if state.scores[s] == top]


def test_8_three_game_rotation_partners_change_in_play_and_doubling() -> None:
    state = new(seed=3, three_game_rotation=True, target_score=1)
    play_randomly(state, 3, lambda s: s.game == 1)
    dealer = state.dealer
    state.apply("delegate")
    assert state.current_player == state.partner_of(dealer) and PAIRINGS[1][dealer] == PAIRINGS[1][state.partner_of(
        dealer)]
    state.apply("trump:C")
    maker = state.maker
    asked = state.doubling.asked
    assert all(PAIRINGS[1][s] != PAIRINGS[1][maker] for s in asked)
    assert asked[0] == next(s for s in ((maker + k) % 4 for k in (1, 2, 3)) if PAIRINGS[1][s] != PAIRINGS[1][maker])



def test_8_three_game_rotation_a_second_hand_whose_partner_leads_plays_under_the_partner_rule() -> None:
    # Game 2 pairs {0,1}/{2,3}: with dealer 1, seat 2 leads and his partner seat 3 is second hand. 5.5 asks whether
    # the partner is winning before anything else, so seat 3 need not beat the lead (A1 binds only an opponent's
    # second hand): a beater, his lowest club or a point card.
    state = play_randomly(new(seed=3, three_game_rotation=True, target_score=1), 3, lambda s: s.game == 1)
    assert state.dealer == 1 and state.phase == "choice"
    p = state.to_position()
    p["deal_deck"] = deck_for({2: ["AC"], 3: ["2C", "7C", "9C", "QC", "3D"]}, avoid={3: "C"}, dealer=1)
    dealt = {(1 + 1 + k) % 4: [p["deal_deck"][16 * r + 4 * k + j] for r in range(3) for j in range(4)]
             for k in range(4)}
    p["hands"] = [sorted(dealt[s], key=CODES.index) for s in range(4)]
    state = engine.from_position(GAME, p)
    state.apply("trump:H")
    while state.phase == "doubling":
        state.apply("pass")
    state.apply("AC")
    assert state.current_player == 3 and state.partner_of(3) == 2
    assert state.legal_actions() == ["2C", "9C", "QC"]
    assert legal("2C 7C 9C QC 3D", "AC", HEARTS) == ["9C"]  # the same hand as an opponent's second hand (A1)

# ---- 9. ambiguities ---------------------------------------------------------------------------------------------

def test_a1_a_second_hand_that_can_win_must_win() -> None:
    assert legal("2C JC QC 9C", "AC", HEARTS) == ["9C"]


def test_a2_a_void_player_plays_the_lowest_of_any_suit() -> None:
    assert legal("3C 7C AD KD 5S", "7H 9H", NO_TRUMP) == ["3C", "KD", "5S"]


def test_a3_botifarra_with_santvicenc_is_16() -> None:
    state = new()
    state.apply("trump:none")
    for word in ["contro", "recontro", "santvicenc"]:
        state.apply(word)
    assert state.multiplier == 16 and state.phase == "play"


# ---- positions --------------------------------------------------------------------------------------------------

def test_the_documented_example_position() -> None:
    state = documented_example(GAME)
    assert state.legal_actions() == ["3H"] and state.multiplier == 4 and state.maker == 0


@pytest.mark.parametrize(("key", "value", "message"), [
    ("dealer", 1, "dealer must be"),
    ("game_index", 1, "game_index is 0"),
    ("game_points_0", 5, "game points are the scores"),
    ("choice", [[0, "delegate"], [2, "delegate"]], "not legal"),
    ("doubling", [[1, "pass"], [3, "contro"], [0, "recontro"], [2, "pass"], [1, "pass"]], "not legal"),
    ("doubling", [[1, "pass"]], "phase"),
    ("trump", "H", "trump must be 'S'"),
    ("phase", "doubling", "phase"),
])
def test_positions_are_checked(key: str, value: object, message: str) -> None:
    p = documented_example(GAME).to_position()
    p[key] = value
    with pytest.raises(engine.PositionError, match=message):
        engine.from_position(GAME, p)


def test_rotation_positions_check_the_games_won() -> None:
    state = play_randomly(new(seed=3, three_game_rotation=True, target_score=1), 3, lambda s: s.game == 2)
    p = state.to_position()
    assert engine.from_position(GAME, p).to_position() == p
    bad = dict(p, scores=[2, 0, 0, 2])  # games 0 and 1 cannot both be won by seats 0 and 3
    with pytest.raises(engine.PositionError, match="games each player's team won"):
        engine.from_position(GAME, bad)


def test_observations_hide_the_other_hands() -> None:
    state = first_trick({})
    obs = state.observation(2)
    assert obs["hand"] == state.to_position()["hands"][2] and "hands" not in obs
    assert obs["choice"] == [[0, "trump:H"]] and obs["partners"] == [2, 3, 0, 1] and obs["maker"] == 0
    assert {"deal_deck", "seed", "rng"}.isdisjoint(obs)


def test_same_seed_same_match() -> None:
    def run() -> tuple:
        state = play_randomly(new(seed=8, target_score=40), 8)
        return state.history, state.scores

    assert run() == run()


def test_every_move_listed_in_string_order() -> None:
    state = new(seed=2, max_deals=2)
    rng = Rng(2)
    while not state.is_terminal:
        assert state.legal_actions() == sorted(state.legal_actions())
        state.apply_id(rng.choice(state.legal_action_ids()))


# ---- greedy -----------------------------------------------------------------------------------------------------

def _greedy(obs: dict) -> str:
    return make_policy("greedy", GAME, seat=obs["seat"], seed=1)({"game": GAME, **obs})


CHOICES = ["delegate", "trump:C", "trump:D", "trump:H", "trump:S", "trump:none"]


def test_greedy_names_its_long_suit_botifarra_with_three_manillas_else_delegates() -> None:
    long = ["2C", "9C", "AC", "KC", "QC", "7C", "3D", "5D", "8H", "2H", "4S", "6S"]
    assert _greedy({"phase": "choice", "seat": 0, "legal_actions": CHOICES, "hand": long}) == "trump:C"
    manillas = ["9C", "2C", "9D", "3D", "9H", "4H", "AS", "2S", "5S", "6C", "7D", "8H"]
    assert _greedy({"phase": "choice", "seat": 0, "legal_actions": CHOICES, "hand": manillas}) == "trump:none"
    flat = ["2C", "3C", "4C", "2D", "3D", "4D", "2H", "3H", "4H", "2S", "3S", "4S"]
    assert _greedy({"phase": "choice", "seat": 0, "legal_actions": CHOICES, "hand": flat}) == "delegate"
    assert _greedy({"phase": "choice", "seat": 2, "legal_actions": CHOICES[1:], "hand": flat}) != "delegate"


def test_greedy_doubles_a_strong_trump_hand_only() -> None:
    strong = ["9H", "AH", "KH", "QH", "2H", "3H", "4C", "5C", "6D", "7D", "8S", "2S"]
    weak = ["2H", "3H", "4C", "5C", "6D", "7D", "8S", "2S", "JC", "QD", "KS", "AS"]
    obs = {"phase": "doubling", "seat": 1, "trump": "H", "legal_actions": ["contro", "pass"]}
    assert _greedy({**obs, "hand": strong}) == "contro" and _greedy({**obs, "hand": weak}) == "pass"


def test_greedy_loads_points_on_its_partners_trick_and_wins_cheaply_last() -> None:
    base = {"phase": "play", "seat": 3, "trump": "H", "partners": [2, 3, 0, 1], "tricks": []}
    loading = {**base, "trick": [[0, "5S"], [1, "9S"], [2, "3S"]], "hand": ["2S", "QS", "KS"],
               "legal_actions": ["2S", "KS", "QS"]}
    assert _greedy(loading) == "KS"
    winning = {**base, "seat": 0, "trick": [[1, "5S"], [2, "7S"], [3, "8S"]], "hand": ["JS", "AS", "9S"],
               "legal_actions": ["9S", "AS", "JS"]}
    assert _greedy(winning) == "JS"


# ---- determinization --------------------------------------------------------------------------------------------

def test_a_sample_keeps_what_the_lowest_card_rule_showed() -> None:
    # Seat 3 could not win and played 7C (5.5: his lowest club), so he holds no lower club in any sample seat 0
    # draws; seat 2 won with 9C as second hand, which shows nothing.
    hands = {1: ["8C", "2C", "4C"], 2: ["9C", "3C", "5C"], 3: ["7C", "AC"], 0: ["6C"]}
    state = first_trick(hands, avoid={0: "C", 3: "C"}, plays=("8C", "9C", "7C"))
    low = {"2C", "3C", "4C", "5C", "6C"}
    held = []
    for k in range(40):
        sample = engine.determinize(state, 0, Rng(k))
        hand = set(sample.to_position()["hands"][3])
        assert not hand & low
        held.append(frozenset(sample.to_position()["hands"][1]))
    assert len(set(held)) > 1  # the other hidden cards do move
