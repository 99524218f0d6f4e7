"""Belote: every worked example of shared/rules/belote.md (10.1-10.12), the rules and options, and properties."""

from __future__ import annotations

from collections import Counter

import pytest
from belote_text import DealerRotation, hands_played, leader, legal_cards, trick_points, with_belote
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_text import drawn_dealer, fresh_deck, play_checked
from trick_positions import deck_dealing, documented_example, fill_play, first_accepted, played_by

import engine
from engine.cards import CODES, make_deck, mask_of, parse_cards
from engine.declarations import Meld
from engine.games.belote import CARRE_VALUES, meld_key, three_player_points, two_side_points
from engine.games.belote.rules import melds
from engine.games.belote_family import NATURAL_ORDER
from engine.rng import Rng
from engine.tricks import HEARTS, cut

GAME = "belote"
DECK = [CODES[c] for c in make_deck("789TJQKA")]


def new(seed: int = 1, dealer: int = 0, players: int = 4, deck: list[str] | None = None, **options) -> engine.State:
    return engine.new_match(GAME, seed=seed, players=players, options=options, first_dealer=dealer, deck=deck)


def in_play(trump: str, hands: dict[int, list[str]], trick: list, current: int, declared=None, players: int = 4,
            **options) -> engine.State:
    """A position in play, dealer 0, seat 1 took ``trump`` in round 1 (turn-up the 7 of trump); short hands get other
    cards, the rest of the deck forms finished tricks won by the seat that leads now (none choosing declarations),
    and deal_deck deals it all."""
    base = new(players=players, **options).to_position()
    turn_up = "7" + trump
    set_aside = [] if players == 4 else [turn_up] + [c for c in reversed(DECK) if c != turn_up][:31 - 8 * players]

    def build(rng) -> dict:
        full, tricks = fill_play(rng, hands, trick, current, players, trump, 1, DECK, set_aside)
        played = played_by([*tricks, trick], players)
        start = [h + cards for h, cards in zip(full, played, strict=True)]
        fixed = {5 * players: turn_up, **dict(zip(range(32 - len(set_aside) + 1, 32), set_aside[1:], strict=True))}
        deck = deck_dealing(_taken_indices(players), start, 32, fixed)
        chosen = declared
        if chosen is None:
            chosen = ["nodeclare" if cards and melds(mask_of(parse_cards(h)), NATURAL_ORDER, CARRE_VALUES)
                      else None for h, cards in zip(start, played, strict=True)]
        p = dict(base)
        p.update(auction=[[1, "take"]], trump=trump, turn_up=None if players == 4 else turn_up, deal_deck=deck,
                 stock=set_aside[1:], phase="play", hands=full, trick=trick, tricks=tricks, current_player=current,
                 declared=chosen, belote=None)
        return p

    return first_accepted(GAME, build)


def _taken_indices(players: int) -> list[list[int]]:
    """The deck indices each seat holds once seat 1 took the turn-up (dealer 0), from a deal of the canonical deck."""
    state = new(players=players, deck=DECK)
    state.apply("take")
    return [[DECK.index(c) for c in hand] for hand in state.to_position()["hands"]]


def deck_with(cards: dict[int, str]) -> list[str]:
    rest = [c for c in DECK if c not in cards.values()]
    return [cards[i] if i in cards else rest.pop(0) for i in range(32)]


# ---- 10.1 dealing, 10.2 auction --------------------------------------------------------------------------------


def test_10_1_dealing_and_the_second_dealing():
    deck = deck_with({20: "9H"})
    state = new(dealer=2, deck=deck)
    p = state.to_position()
    assert sorted(p["hands"][3], key=DECK.index) == sorted(deck[0:3] + deck[12:14], key=DECK.index)
    assert sorted(p["hands"][2], key=DECK.index) == sorted(deck[9:12] + deck[18:20], key=DECK.index)
    assert p["turn_up"] == "9H" and state.current_player == 3
    state.apply("pass")
    state.apply("take")  # seat 0 takes
    hands = state.to_position()["hands"]
    expect = {3: deck[0:3] + deck[12:14] + deck[21:24], 0: deck[3:6] + deck[14:16] + deck[24:26] + ["9H"],
              1: deck[6:9] + deck[16:18] + deck[26:29], 2: deck[9:12] + deck[18:20] + deck[29:32]}
    for seat, cards in expect.items():
        assert sorted(hands[seat], key=DECK.index) == sorted(cards, key=DECK.index)
    assert state.to_position()["trump"] == "H" and state.current_player == 3


def test_10_2_second_round_names_another_suit():
    state = new(dealer=0, deck=deck_with({20: "9H"}))
    for _ in range(4):
        assert state.legal_actions() == ["pass", "take"]
        state.apply("pass")
    state.apply("pass")
    assert state.legal_actions() == ["pass", "take:C", "take:D", "take:S"]
    state.apply("take:S")
    p = state.to_position()
    assert p["trump"] == "S" and "9H" in p["hands"][2] and state.current_player == 1


def test_4_3_two_rounds_of_passes_throw_in_and_the_deal_passes():
    state = new(dealer=0)
    for _ in range(8):
        state.apply("pass")
    assert state.dealer == 1 and state.deal_results == [] and state.phase == "auction"


# ---- 10.3 - 10.5 legal cards and tricks ------------------------------------------------------------------------


def test_10_3_must_overtrump_an_opponent():
    state = in_play("S", {3: ["7C", "9S", "QS"]}, [[1, "AD"], [2, "8S"]], 3)
    assert state.legal_actions() == ["9S", "QS"]


def test_10_4_trump_led_must_overtrump():
    state = in_play("C", {2: ["JC", "8C", "AH"]}, [[0, "AC"], [1, "9C"]], 2)
    assert state.legal_actions() == ["JC"]


def test_10_5_trick_winner_and_points():
    state = in_play("D", {3: ["KS", "8C"], 0: ["AS", "9C"], 1: ["7D", "TC"], 2: ["TS", "JC"]}, [], 3)
    before = state.observation(0)["card_points"]
    for card in ["KS", "AS", "7D", "TS"]:
        state.apply(card)
    obs = state.observation(0)
    assert state.current_player == 1 and obs["card_points"] == [before[0], before[1] + 25]


def test_2_and_3_players_have_no_partner_exception():
    state = in_play("H", {2: ["KC", "8H"]}, [[0, "AD"], [1, "7D"]], 2, players=3)
    assert state.legal_actions() == ["8H"]


# ---- declarations: 10.6, 10.7, 10.12, section 6 ----------------------------------------------------------------


def _first_trick_declarations(trump: str, hands: dict[int, list[str]], declared: list) -> list[int]:
    """Play trick 1 from seat 1 (each seat's first legal card), each seat answering its declaration choice as given."""
    state = in_play(trump, hands, [], 1, declared=[None] * 4)
    while state.to_position()["tricks"] == []:
        legal = state.legal_actions()
        state.apply(declared[state.current_player] if legal == ["declare", "nodeclare"] else legal[0])
    return state.observation(0)["declaration_points"]


def _deal_rest(fixed: dict[int, list[str]]) -> dict[int, list[str]]:
    rest = [c for c in DECK if c not in {x for cards in fixed.values() for x in cards}]
    hands = dict(fixed)
    for seat in range(4):
        if seat not in hands:
            hands[seat], rest = rest[:8], rest[8:]
    return hands


def test_10_6_the_better_sequence_scores_for_its_side():
    hands = _deal_rest({1: ["QS", "JS", "TS", "9S", "7C", "8D", "AH", "7H"], 2: ["KC", "QC", "JC", "TC", "9D", "7S",
                                                                               "8H", "KH"]})
    assert _first_trick_declarations("H", hands, ["nodeclare", "declare", "declare", "nodeclare"]) == [50, 0]


def test_10_7_a_carre_beats_a_sequence():
    hands = _deal_rest({0: ["QC", "QD", "QH", "QS", "8D", "AD", "8H", "AS"],
                        3: ["JC", "TC", "9C", "8C", "7C", "7D", "9H", "7S"]})
    assert _first_trick_declarations("H", hands, ["declare", "nodeclare", "nodeclare", "declare"]) == [100, 0]


def test_6_2_a_player_with_a_combination_chooses_on_his_first_turn():
    hands = _deal_rest({1: ["QS", "JS", "TS", "9S", "7C", "8D", "AH", "7H"]})
    state = in_play("H", hands, [], 1, declared=[None] * 4)
    assert state.legal_actions() == ["declare", "nodeclare"]
    state.apply("declare")
    assert "declare" not in state.legal_actions()


def test_6_1_melds_sequences_and_carres():
    hand = mask_of(parse_cards(["AH", "KH", "QH", "JH", "TH", "9H", "JC", "JD"]))
    found = melds(hand, "AKQJT987", CARRE_VALUES)
    assert [(m.kind, m.length, m.top, m.value) for m in found] == [("sequence", 6, "A", 100)]
    four_eights = mask_of(parse_cards(["8C", "8D", "8H", "8S"]))
    assert melds(four_eights, "AKQJT987", CARRE_VALUES) == []


def test_10_12_carre_ranking():
    kings, tens = Meld("carre", "K", 4, None, 100), Meld("carre", "T", 4, None, 100)
    nines, aces = Meld("carre", "9", 4, None, 150), Meld("carre", "A", 4, None, 100)
    assert meld_key(kings, HEARTS) > meld_key(tens, HEARTS)
    assert meld_key(nines, HEARTS) > meld_key(aces, HEARTS)


def test_6_3_sequences_compare_by_length_top_then_trump():
    tierce_h = Meld("sequence", "K", 3, "H", 20)
    tierce_s = Meld("sequence", "K", 3, "S", 20)
    cinquante = Meld("sequence", "T", 4, "C", 50)
    assert meld_key(tierce_h, HEARTS) > meld_key(tierce_s, HEARTS)
    assert meld_key(cinquante, HEARTS) > meld_key(tierce_h, HEARTS)


# ---- scoring: 10.8 - 10.11 and section 7 -----------------------------------------------------------------------


def test_10_8_made():
    assert two_side_points(0, [100, 62], [20, 0], [20, 0]) == ([140, 62], "made", 0)


def test_10_9_dedans():
    assert two_side_points(1, [92, 70], [50, 0], [0, 20]) == ([212, 20], "dedans", 0)


def test_10_10_litige_holds_the_takers_points():
    assert two_side_points(0, [81, 81], [0, 0], [0, 0]) == ([0, 81], "litige", 81)
    assert two_side_points(0, [81, 81], [0, 0], [0, 0], litige=False) == ([0, 162], "dedans", 0)


def test_10_11_capot():
    assert two_side_points(0, [252, 0], [20, 0], [0, 0]) == ([272, 0], "made", 0)


def test_7_5_three_players():
    assert three_player_points(0, [80, 40, 42], [0, 0, 0], [1, 2, 0]) == ([80, 40, 42], "made")
    assert three_player_points(0, [61, 61, 50], [20, 0, 0], [1, 2, 0]) == ([20, 61 + 21, 50 + 20], "dedans")


def test_7_3_the_pot_goes_to_the_winner_of_the_next_played_deal():
    state = new(seed=6)
    p = state.to_position()
    p["pot"] = 81
    state = engine.from_position(GAME, p)
    rng = Rng(9)
    while not state.deal_results:
        state.apply(rng.choice(state.legal_actions()))
    result = state.deal_results[0]
    if result["outcome"] != "litige":
        taker_side = result["taker"] % 2
        winner = taker_side if result["outcome"] == "made" else 1 - taker_side
        assert result["points"][winner] >= 81 and state.to_position()["pot"] == 0


def test_a_whole_deal_totals_162_and_the_match_goes_to_the_target():
    state = new(seed=5, target_score=300)
    rng = Rng(5)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert all(sum(r["card_points"]) == 162 for r in state.deal_results)
    assert max(state.scores) >= 300 and len(state.winners) == 2


def test_3_6_two_and_three_player_deals():
    for players, unused in ((2, 15), (3, 7)):
        state = new(players=players, seed=3)
        state.apply("take")
        p = state.to_position()
        assert [len(h) for h in p["hands"]] == [8] * players and len(p["stock"]) == unused
        assert p["turn_up"] not in {c for h in p["hands"] for c in h}


@pytest.mark.parametrize(("players", "dealt", "turn_up", "second", "unused"), [
    # 3.6, 2 players: deck[0..2] -> L, deck[3..5] -> dealer, deck[6..7] -> L, deck[8..9] -> dealer, turn-up deck[10],
    # deck[11..13] -> L, deck[14..16] -> dealer; deck[17..31] unused
    (2, {1: [0, 1, 2, 6, 7], 0: [3, 4, 5, 8, 9]}, 10, {1: [11, 12, 13], 0: [14, 15, 16]}, 17),
    # 3 players: deck[0..8] three each, deck[9..14] two each, turn-up deck[15], deck[16..24] three each
    (3, {1: [0, 1, 2, 9, 10], 2: [3, 4, 5, 11, 12], 0: [6, 7, 8, 13, 14]}, 15,
     {1: [16, 17, 18], 2: [19, 20, 21], 0: [22, 23, 24]}, 25),
])
def test_3_6_two_and_three_player_deals_take_the_listed_deck_places(players, dealt, turn_up, second, unused):
    """Dealer 0; the dealer's left takes in round 2 (a named suit): he gets 3 more cards like everyone, never the
    turn-up, which is set aside with the rest of the stock."""
    deck = DECK[8:] + DECK[:8]  # any fixed order
    state = new(players=players, deck=deck)
    p = state.to_position()
    assert p["turn_up"] == deck[turn_up]
    for seat, places in dealt.items():
        assert sorted(p["hands"][seat], key=DECK.index) == sorted((deck[i] for i in places), key=DECK.index)
    for _ in range(players):
        state.apply("pass")
    state.apply(state.legal_actions()[1])  # take:<first other suit>
    p = state.to_position()
    for seat, places in dealt.items():
        cards = [deck[i] for i in places + second[seat]]
        assert sorted(p["hands"][seat], key=DECK.index) == sorted(cards, key=DECK.index)
    assert p["turn_up"] == deck[turn_up] and p["stock"] == deck[unused:]


@pytest.mark.parametrize("players", [3, 4])
def test_8_no_shuffle_a_thrown_in_deal_is_gathered_hands_turn_up_stock_then_cut(players: int) -> None:
    """8: the hands from the dealer's left in dealt order (3 then 2 cards), then the turn-up, then the stock; cut at
    3 + below(27) of the match's RNG, which first shuffled the first deck (3.3)."""
    for seed in range(5):
        rng = Rng(seed)
        pack = fresh_deck("789TJQKA")
        rng.shuffle(pack)
        state = new(seed=seed, dealer=0, players=players, no_shuffle=True)
        assert state.to_position()["deal_deck"] == pack
        for _ in range(2 * players):
            state.apply("pass")
        order = [(1 + k) % players for k in range(players)]
        places = {seat: [3 * k + i for i in range(3)] + [3 * players + 2 * k + i for i in range(2)]
                  for k, seat in enumerate(order)}
        gathered = [pack[i] for seat in order for i in places[seat]] + pack[5 * players:]
        c = 3 + rng.below(27)
        assert state.dealer == 1 and state.to_position()["deal_deck"] == gathered[c:] + gathered[:c]


def test_no_shuffle_gathers_the_tricks_and_the_unused_cards_then_cuts():
    state = new(players=2, seed=12, no_shuffle=True)
    rng = Rng(2)
    while state.deal_index == 0:
        last = state.to_position()
        before = len(state.history)
        state.apply(rng.choice(state.legal_actions()))
    final = state.history[before][1].split(":")[0]
    tricks = [*last["tricks"], [*last["trick"], [last["current_player"], final]]]
    pack = [c for t in tricks for _s, c in t] + [last["turn_up"], *last["stock"]]
    deck = [CODES[c] for c in state.deal_deck]
    assert any(cut(pack, c) == deck for c in range(3, 30))


def test_3_1_first_dealer_drawn_and_options_checked():
    assert {engine.new_match(GAME, seed=s).dealer for s in range(40)} == {0, 1, 2, 3}
    assert engine.new_match(GAME, seed=1, options={"num_players": 3}).players == 3
    with pytest.raises(ValueError):
        engine.new_match(GAME, seed=1, players=5)


def test_6_4_belote_scores_even_for_a_failing_side():
    assert two_side_points(1, [100, 62], [0, 0], [0, 20]) == ([162, 20], "dedans", 0)


def test_the_documented_example_position_round_trips():
    state = documented_example(GAME)
    assert state.legal_actions() == ["declare", "nodeclare"]


# ---- properties ------------------------------------------------------------------------------------------------

options = st.fixed_dictionaries({
    "litige": st.booleans(), "no_shuffle": st.booleans(), "target_score": st.sampled_from([200, 400]),
})


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32), choices=st.integers(0, 2**32), opts=options)
def test_random_play_ends_conserves_cards_and_round_trips(players, seed, choices, opts):
    state = engine.new_match(GAME, seed=seed, players=players, options=opts)
    rng = Rng(choices)
    for _ in range(20000):
        if state.is_terminal:
            break
        p = state.to_position()
        assert engine.from_position(GAME, p).to_position() == p
        held = Counter(c for h in p["hands"] for c in h) + Counter(p["stock"])
        held += Counter(c for t in [*p["tricks"], p["trick"]] for _s, c in t)
        if p["trump"] is None or players < 4:
            held[p["turn_up"]] += 1
        assert held == Counter(DECK), "the 32 cards are conserved"
        legal = state.legal_actions()
        assert legal and legal == sorted(legal)
        state.apply(rng.choice(legal))
    assert state.is_terminal
    if players == 4:
        assert all(sum(r["card_points"]) == 162 for r in state.deal_results)


@settings(max_examples=8, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_same_seed_same_match(players, seed):
    def run() -> tuple:
        state = engine.new_match(GAME, seed=seed, players=players, options={"target_score": 300})
        rng = Rng(seed)
        while not state.is_terminal:
            ids = state.legal_action_ids()
            state.apply_id(ids[rng.below(len(ids))])
        return state.history, state.scores

    assert run() == run()


# ---- the rules text restated: every move, deal score and match end of random matches ----------------------------

NATURAL = "789TJQKA"  # low -> high (2.4)
CARRE_POINTS = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}  # 6.1


def _combinations(hand: list[str], trump: str) -> list[tuple]:
    """6.1: carrés of 9 and higher and each suit's maximal runs of three or more, as comparison keys (6.3) led by
    their value: a carré (1, value, rank), a sequence (0, length up to 5, top card, in trump) and its points."""
    found = [(1, CARRE_POINTS[r], NATURAL.index(r), CARRE_POINTS[r]) for r in CARRE_POINTS
             if sum(1 for c in hand if c[0] == r) == 4]
    for suit in "CDHS":
        ranks = sorted(NATURAL.index(c[0]) for c in hand if c[1] == suit)
        runs: list[list[int]] = []
        for r in ranks:
            if runs and runs[-1][-1] == r - 1:
                runs[-1].append(r)
            else:
                runs.append([r])
        for run in runs:
            if len(run) >= 3:
                length = min(len(run), 5)
                found.append((0, length, run[-1], suit == trump, {3: 20, 4: 50, 5: 100}[length]))
    return found


def _declarations(hands: list[list[str]], declared: list, trump: str, dealer: int, teams: int) -> list[int]:
    """6.3: the side of the single best declared combination scores every combination its members declared; equal
    non-trump sequences go to the first seat clockwise from the dealer's left."""
    n = len(hands)
    best = None
    for k in range(n):
        seat = (dealer + 1 + k) % n
        if declared[seat] != "declare":
            continue
        for combo in _combinations(hands[seat], trump):
            if best is None or combo[:-1] > best[0][:-1]:
                best = (combo, seat)
    out = [0] * teams
    if best is not None:
        side = best[1] % teams
        out[side] = sum(combo[-1] for seat in range(n) if seat % teams == side and declared[seat] == "declare"
                        for combo in _combinations(hands[seat], trump))
    return out


def _rules_text_legal(p: dict) -> list[str]:
    n, seat = p["players"], p["current_player"]
    hand = p["hands"][seat]
    if p["phase"] == "auction":  # 4.1, 4.2, 4.5: two rounds from the dealer's left
        assert seat == (p["dealer"] + 1 + len(p["auction"])) % n
        if len(p["auction"]) < n:
            return ["pass", "take"]
        return ["pass", *(f"take:{s}" for s in "CDHS" if s != p["turn_up"][1])]
    assert seat == (leader(p["tricks"], p["dealer"], p["trump"], n) + len(p["trick"])) % n  # 5.1
    take = p["auction"][-1][1]  # 4.1, 4.2: the turn-up's suit, or the suit named in round 2
    assert p["trump"] == (p["deal_deck"][5 * n][1] if take == "take" else take[-1]) and take.startswith("take")
    assert len(hand) == 8 - len(p["tricks"]) - (1 if p["trick"] and any(s == seat for s, _a in p["trick"]) else 0)
    if not p["tricks"] and p["declared"][seat] is None and _combinations(hand, p["trump"]):  # 5.5, 6.2
        return ["declare", "nodeclare"]
    return with_belote(legal_cards(hand, p["trick"], p["trump"], seat, n), hand, p["trump"])


class _Deals:
    """7.1 - 7.5 deal by deal, with the litige pot (7.3) carried from deal to deal."""

    def __init__(self, state: engine.State) -> None:
        self.state, self.pot = state, 0

    def points(self, tricks: list, p: dict) -> list[int]:
        n, trump = p["players"], p["trump"]
        teams = 2 if n == 4 else n
        taker = p["auction"][-1][0]
        a = taker % teams
        cards, won, der = trick_points(tricks, trump, teams)
        hands = hands_played(tricks, n)
        decl = _declarations(hands, p["declared"], trump, p["dealer"], teams)
        bel = [0] * teams
        for seat, action in self.state.history[-len(p["auction"]) - 8 * n - sum(1 for d in p["declared"] if d):]:
            if action.endswith(":belote"):  # 6.4
                bel[seat % teams] = 20
        trick_total = [cards[x] + der[x] + (90 if won[x] == 8 else 0) for x in range(teams)]  # 7.2
        total = [trick_total[x] + decl[x] + bel[x] for x in range(teams)]
        if n == 3:
            return self._three(total, bel, a, p["dealer"])
        d = 1 - a
        pool = sum(trick_total)
        out = [0, 0]
        if total[a] > total[d]:
            out = total
            winner = a
        elif total[a] < total[d] or not p["options"]["litige"]:
            out[a], out[d] = bel[a], pool + sum(decl) + bel[d]
            winner = d
        else:  # litige: the takers' points wait for the next played deal
            out[a], out[d] = bel[a], total[d]
            self.pot += total[a] - bel[a]
            return out
        out[winner] += self.pot
        self.pot = 0
        return out

    @staticmethod
    def _three(total: list[int], bel: list[int], taker: int, dealer: int) -> list[int]:
        """7.5: the taker must beat each opponent, else they share his points, the odd one to the first clockwise."""
        if all(total[taker] > total[x] for x in range(3) if x != taker):
            return total
        out = [0, 0, 0]
        out[taker] = bel[taker]
        rest = total[taker] - bel[taker]
        others = [s for s in ((dealer + 1 + k) % 3 for k in range(3)) if s != taker]
        for k, seat in enumerate(others):
            out[seat] = total[seat] + rest // 2 + (rest % 2 if k == 0 else 0)
        return out


def _taking(state: engine.State, rng: Rng) -> int:
    """Random play that passes more often in the auction, so second rounds and throw-ins occur."""
    ids = state.legal_action_ids()
    if state.phase == "auction" and rng.below(3):
        return next(a for a in ids if state.action_string(a) == "pass")
    return rng.choice(ids)


@pytest.mark.parametrize(("players", "options"), [
    (4, {"target_score": 1000}), (4, {"target_score": 600, "litige": False, "no_shuffle": True}),
    (3, {"target_score": 700}), (3, {"target_score": 500, "no_shuffle": True}),
    (2, {"target_score": 700}), (2, {"target_score": 500, "litige": False, "no_shuffle": True}),
])
def test_4_to_7_random_matches_take_declare_play_and_score_as_the_rules_text_says(players: int, options: dict):
    for seed in range(10):
        _check_match(seed, players, options)


def _check_match(seed: int, players: int, options: dict) -> None:
    state = engine.new_match(GAME, seed=seed, players=players, options=options)
    deals, rotation = _Deals(state), DealerRotation()  # 3.2: after every deal, thrown in or played

    def legal(p: dict) -> list[str]:
        rotation(p)
        return _rules_text_legal(p)

    play_checked(state, seed, legal, deals.points, choose=_taking)
    teams = 2 if players == 4 else players
    totals = [0] * teams
    for k, result in enumerate(state.deal_results):  # 7.7: the first deal after which one side leads at the target
        totals = [t + x for t, x in zip(totals, result["points"], strict=True)]
        over = max(totals) >= options["target_score"] and totals.count(max(totals)) == 1
        assert over == (k == len(state.deal_results) - 1), (k, totals)
    assert state.scores == [totals[s % teams] for s in range(players)]
    assert state.winners == [s for s in range(players) if totals[s % teams] == max(totals)]


# ---- pointed cases of the rules text ------------------------------------------------------------------------------

# Seat 1 takes the turn-up 7 of trump (in_play), so it holds 7H and 7D here; no hand holds another combination.
TIERCE_C = ["KC", "QC", "JC", "7D", "9D", "8S", "TS", "7H"]  # a tierce to the K of clubs
TIERCE_D = ["KD", "QD", "JD", "7C", "9C", "7S", "9S", "AS"]  # a tierce to the K of diamonds
TIERCE_C3 = ["KC", "QC", "JC", "8D", "9D", "8S", "TS", "AH"]
NONE_1 = ["7H", "9H", "KH", "8C", "TC", "7D", "TD", "QS"]


@pytest.mark.parametrize(("hands", "declared", "points"), [
    ({1: TIERCE_C, 2: TIERCE_D}, ["nodeclare", "declare", "declare", "nodeclare"], [0, 20]),  # seat 1 comes first
    ({1: NONE_1, 2: TIERCE_D, 3: TIERCE_C3}, ["nodeclare", "nodeclare", "declare", "declare"], [20, 0]),  # 2, then 3
    ({1: TIERCE_C, 2: TIERCE_D}, ["nodeclare", "nodeclare", "declare", "nodeclare"], [20, 0]),  # 6.2: not declared
])
def test_6_3_6_equal_plain_sequences_go_to_the_first_seat_from_the_dealers_left(hands, declared, points):
    assert _first_trick_declarations("H", _deal_rest(hands), declared) == points


def test_6_3_5_a_trump_sequence_beats_an_equal_plain_one_whoever_comes_first():
    hands = _deal_rest({1: TIERCE_C, 2: TIERCE_D})
    assert _first_trick_declarations("D", hands, ["nodeclare", "declare", "declare", "nodeclare"]) == [20, 0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_3_1_3_3_the_rng_draws_the_dealer_then_shuffles_the_deck(players: int) -> None:
    for seed in range(20):
        rng = Rng(seed)
        dealer = drawn_dealer(rng, players, DECK, lambda c: "789TJQKA".index(c[0]), lowest=True, fresh_for_ties=True)
        pack = fresh_deck("789TJQKA")
        rng.shuffle(pack)
        state = engine.new_match(GAME, seed=seed, players=players)
        assert state.first_dealer == dealer and state.to_position()["deal_deck"] == pack
