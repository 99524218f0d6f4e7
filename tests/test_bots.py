"""Bots: the policy contract (observation only, own RNG, honest fast path), the greedy ranking, and greedy's edge
over random measured with a statistical margin."""

from __future__ import annotations

import math
import sys
from collections import Counter

import pytest

import engine
from engine.bots import (
    canonical_label,
    greedy_games,
    make_policies,
    make_policy,
    parse_policy,
    play_out,
    policy_infos,
    policy_label,
    policy_names,
)
from engine.bots import greedy as greedy_module
from engine.bots.fishing import rank_fishing_actions
from engine.cards import BIT, parse_card
from engine.fishing import FishingState, card_points
from engine.rng import Rng, derive_seed
from engine.trickgame import TrickGame

FISHING = [game for game in engine.list_games() if issubclass(engine.game_class(game), FishingState)]
TRICK_GAMES = [game for game in engine.list_games() if issubclass(engine.game_class(game), TrickGame)]


def _obs(game: str, table: list[str], legal: list[str], **options) -> dict:
    return {"game": game, "options": options, "table": table, "legal_actions": legal}


def _play_by_strings(state: engine.State, names: list[str], seed: int) -> list:
    """The edge path: each policy gets the observation of the seat to act and answers an action string."""
    policies = make_policies(names, state.game_id, seed)
    while not state.is_terminal:
        seat = state.current_player
        state.apply(policies[seat](state.observation(seat)))
    return [p.rng.state for p in policies]


# ---- the registry ---------------------------------------------------------------------------------------------------

def test_policy_names() -> None:
    assert policy_names() == ["greedy", "ismcts", "pimc", "random"]


def test_unknown_policy_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown policy 'clever'; policies are greedy, ismcts, pimc, random"):
        make_policy("clever", "tablanette", 0, 1)


def test_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown game 'snap'"):
        make_policy("random", "snap", 0, 1)


def test_greedy_without_heuristic_names_the_games_it_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(greedy_module._RANKERS, "tablic")
    with pytest.raises(ValueError, match=r"no greedy heuristic for 'tablic' yet; greedy plays \[.*'tablanette'"):
        make_policy("greedy", "tablic", 0, 1)


def test_fishing_games_have_greedy() -> None:
    assert FISHING and set(FISHING) <= set(greedy_games())


# ---- the contract: observation only, own RNG, the fast path gives the same play -----------------------------------

@pytest.mark.parametrize("game", engine.list_games())
@pytest.mark.parametrize("policy", ["random", "greedy", "greedy:epsilon=0.3"])
def test_fast_path_plays_exactly_like_the_string_path(game: str, policy: str) -> None:
    if policy.startswith("greedy") and game not in greedy_games():
        pytest.skip(f"no greedy for {game}")
    players = engine.game_info(game).default_players
    names = ([policy, "random"] * players)[:players]
    by_ids = engine.new_match(game, seed=11, options={"max_deals": 1})
    policies = make_policies(names, game, seed=5)
    moves = play_out(by_ids, policies)
    by_strings = engine.new_match(game, seed=11, options={"max_deals": 1})
    rng_states = _play_by_strings(by_strings, names, seed=5)
    assert moves == len(by_ids.history) > 0
    assert by_ids.history == by_strings.history
    assert by_ids.scores == by_strings.scores
    assert [p.rng.state for p in policies] == rng_states


def test_same_seed_same_choices_and_seats_draw_independently() -> None:
    legal = [f"{r}H" for r in "23456789"]
    obs = {"legal_actions": legal}
    seat0 = make_policy("random", "tablanette", 0, 9)
    choices = [seat0(obs) for _ in range(20)]
    again = make_policy("random", "tablanette", 0, 9)
    assert [again(obs) for _ in range(20)] == choices
    seat1 = make_policy("random", "tablanette", 1, 9)
    assert [seat1(obs) for _ in range(20)] != choices


def test_random_is_roughly_uniform() -> None:
    policy = make_policy("random", "tablic", 0, 3)
    counts = Counter(policy({"legal_actions": ["a", "b", "c"]}) for _ in range(3000))
    assert set(counts) == {"a", "b", "c"}
    assert all(850 < c < 1150 for c in counts.values()), counts  # each about 1000; sd about 26


def test_a_policy_refuses_an_observation_without_legal_actions() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        make_policy("random", "tablanette", 1, 3)({"legal_actions": []})


def test_a_single_legal_action_draws_nothing() -> None:
    policy = make_policy("random", "tablanette", 0, 3)
    before = policy.rng.state
    assert policy({"legal_actions": ["7H"]}) == "7H"
    assert policy.choose_id([42], lambda: pytest.fail("observation not needed")) == 42
    assert policy.rng.state == before


def test_random_fast_path_needs_no_observation() -> None:
    policy = make_policy("random", "tablanette", 0, 3)
    assert policy.choose_id([5, 6, 7], lambda: pytest.fail("random must not look")) in (5, 6, 7)


def test_play_out_needs_one_policy_per_seat() -> None:
    state = engine.new_match("tablanette", seed=1, players=3)
    with pytest.raises(ValueError, match="3 seats but 2 policies"):
        play_out(state, make_policies(["random", "random"], "tablanette", 1))


# ---- parameters: declared as data, checked, written in labels --------------------------------------------------------

def test_policies_and_their_parameters_are_listed_as_data() -> None:
    infos = {info["name"]: info for info in policy_infos()}
    assert sorted(infos) == policy_names()
    assert infos["random"]["params"] == []
    assert infos["random"]["games"] == engine.list_games()
    assert infos["greedy"]["games"] == greedy_games()
    (epsilon,) = infos["greedy"]["params"]
    assert epsilon["name"] == "epsilon" and epsilon["type"] == "float" and epsilon["default"] == 0.0
    assert epsilon["allowed"] == "0.0..1.0" and "random" in epsilon["doc"]
    assert all(info["doc"] for info in infos.values())


def test_a_policy_holds_its_checked_parameters() -> None:
    assert make_policy("greedy", "tablanette", 0, 1).params == {"epsilon": 0.0}
    tuned = make_policy("greedy", "tablanette", 0, 1, {"epsilon": 1})
    assert tuned.params == {"epsilon": 1.0} and type(tuned.params["epsilon"]) is float
    assert "epsilon=1.0" in repr(tuned)
    assert make_policy("random", "tablanette", 0, 1, {}).params == {}


@pytest.mark.parametrize(("name", "params", "message"), [
    ("greedy", {"epsilon": 1.5}, "policy 'greedy': parameter 'epsilon' = 1.5 is out of range; allowed: 0.0..1.0"),
    ("greedy", {"epsilon": -0.1}, "policy 'greedy': parameter 'epsilon' = -0.1 is out of range; allowed: 0.0..1.0"),
    ("greedy", {"epsilon": "0.2"}, "policy 'greedy': parameter 'epsilon' must be a float, got '0.2'"),
    ("greedy", {"epsilon": True}, "policy 'greedy': parameter 'epsilon' must be a float, got True"),
    ("greedy", {"epsilon": None}, "policy 'greedy': parameter 'epsilon' may not be null"),
    ("greedy", {"eps": 0.1}, "policy 'greedy' has no parameter 'eps'; it takes epsilon"),
    ("random", {"epsilon": 0.1}, "policy 'random' has no parameter 'epsilon'; it takes none"),
    ("greedy", [("epsilon", 0.1)], "policy 'greedy' parameters are a mapping of names to values"),
])
def test_bad_parameters_say_what_is_allowed(name: str, params: object, message: str) -> None:
    with pytest.raises(ValueError) as err:
        make_policy(name, "tablanette", 0, 1, params)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(("label", "parsed", "canonical"), [
    ("random", ("random", {}), "random"),
    ("greedy", ("greedy", {"epsilon": 0.0}), "greedy"),
    ("greedy:epsilon=0.2", ("greedy", {"epsilon": 0.2}), "greedy:epsilon=0.2"),
    (" greedy : epsilon = 1 ", ("greedy", {"epsilon": 1.0}), "greedy:epsilon=1.0"),
    ("greedy:epsilon=0", ("greedy", {"epsilon": 0.0}), "greedy"),
    ("greedy:epsilon=2.5e-1", ("greedy", {"epsilon": 0.25}), "greedy:epsilon=0.25"),
])
def test_labels_name_a_policy_and_its_parameters(label: str, parsed: tuple, canonical: str) -> None:
    assert parse_policy(label) == parsed
    assert canonical_label(label) == policy_label(*parsed) == canonical
    assert parse_policy(canonical) == parsed


@pytest.mark.parametrize(("label", "message"), [
    ("genius", "unknown policy 'genius'"),
    ("", "a policy label starts with the policy's name"),
    (":epsilon=0.1", "a policy label starts with the policy's name"),
    ("greedy:epsilon", "policy parameters are written greedy:param=value, got 'epsilon'"),
    ("greedy:=0.1", "policy parameters are written greedy:param=value, got '=0.1'"),
    ("greedy:epsilon=0.1:epsilon=0.2", "policy parameter 'epsilon' is given twice"),
    ("greedy:epsilon=lots", "policy 'greedy': parameter 'epsilon' is a number (0.0..1.0), not 'lots'"),
    ("greedy:epsilon=nan", "policy 'greedy': parameter 'epsilon' is a number (0.0..1.0), not 'nan'"),
    ("greedy:epsilon=2", "policy 'greedy': parameter 'epsilon' = 2.0 is out of range; allowed: 0.0..1.0"),
    ("random:depth=2", "policy 'random' has no parameter 'depth'; it takes none"),
])
def test_bad_labels_say_what_is_wrong(label: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_policy(label)
    assert message in str(err.value)


def test_make_policies_takes_labels() -> None:
    bots = make_policies(["greedy:epsilon=0.5", "random"], "tablanette", seed=3)
    assert [bot.params for bot in bots] == [{"epsilon": 0.5}, {}]
    with pytest.raises(ValueError, match="out of range"):
        make_policies(["greedy:epsilon=5"], "tablanette", seed=3)


# ---- epsilon: greedy with random moves ----------------------------------------------------------------------------

def _play_match(game: str, labels: list[str], seed: int = 4) -> tuple[list, list]:
    state = engine.new_match(game, seed=seed, options={"max_deals": 1})
    bots = make_policies(labels, game, seed=seed)
    play_out(state, bots)
    return state.history, [bot.rng.state for bot in bots]


@pytest.mark.parametrize("game", ["tablanette", "german_whist", "belote"])
def test_epsilon_zero_plays_exactly_like_plain_greedy(game: str) -> None:
    players = engine.game_info(game).default_players
    plain = _play_match(game, ["greedy"] * players)
    assert _play_match(game, ["greedy:epsilon=0"] * players) == plain
    assert _play_match(game, ["greedy:epsilon=0.5"] * players) != plain


@pytest.mark.parametrize("game", ["tablanette", "tablic", "german_whist", "belote_contree"])
def test_epsilon_one_plays_exactly_like_random(game: str) -> None:
    players = engine.game_info(game).default_players
    assert _play_match(game, ["greedy:epsilon=1"] * players) == _play_match(game, ["random"] * players)


def test_epsilon_one_chooses_uniformly_even_where_greedy_has_a_clear_best() -> None:
    obs = _obs("tablic", ["3C", "9D"], ["3H:3C", "KS", "7H"])
    assert _greedy(obs) == "3H:3C"
    policy = make_policy("greedy", "tablic", 0, 3, {"epsilon": 1.0})
    counts = Counter(policy(obs) for _ in range(3000))
    assert all(850 < c < 1150 for c in counts.values()) and len(counts) == 3, counts  # each about 1000; sd about 26


def test_epsilon_explores_that_often() -> None:
    obs = _obs("tablic", ["3C", "9D"], ["3H:3C", "KS", "7H", "AD"])
    policy = make_policy("greedy", "tablic", 0, 8, {"epsilon": 0.4})
    others = sum(policy(obs) != "3H:3C" for _ in range(4000))
    # a random move is another action 3/4 of the time: 4000 * 0.4 * 0.75 = 1200 expected, sd about 29
    assert 1055 < others < 1345, others


def test_the_epsilon_coin_is_a_53_bit_draw_then_a_bounded_one() -> None:
    """The documented draw, so another language can reproduce an epsilon-greedy seat from its seed."""
    legal = ["3H:3C", "KS", "7H", "AD"]
    epsilon, seed, seat = 0.3, 21, 1
    policy = make_policy("greedy", "tablic", seat, seed, {"epsilon": epsilon})
    rng = Rng(derive_seed(seed, seat))
    for _ in range(200):
        explores = rng.next_u64() >> 11 < epsilon * 2**53
        expected = legal[rng.below(len(legal))] if explores else "3H:3C"
        assert policy(_obs("tablic", ["3C", "9D"], legal)) == expected
    assert policy.rng.state == rng.state


def test_a_forced_move_tosses_no_coin_and_a_random_move_needs_no_observation() -> None:
    policy = make_policy("greedy", "tablic", 0, 3, {"epsilon": 0.5})
    before = policy.rng.state
    assert policy({"legal_actions": ["7H"]}) == "7H"
    assert policy.choose_id([42], lambda: pytest.fail("observation not needed")) == 42
    assert policy.rng.state == before
    explorer = make_policy("greedy", "tablic", 0, 3, {"epsilon": 1.0})
    assert explorer.choose_id([5, 6, 7], lambda: pytest.fail("a random move must not look")) in (5, 6, 7)


# ---- the greedy ranking (tablanette.md §2.2, §5.6-5.7; tablic.md §2.2) -------------------------------------------

def _greedy(obs: dict) -> str:
    return make_policy("greedy", obs["game"], 0, 1)(obs)


def test_card_points() -> None:
    codes = ("AS", "KH", "QD", "JC", "TS", "TD", "2C", "2D", "9H")
    assert [card_points(BIT[parse_card(c)]) for c in codes] == [1, 1, 1, 1, 1, 2, 1, 0, 0]


def test_sweep_beats_points_and_cards() -> None:
    obs = _obs("tablic", ["2H", "3D"], ["2C:2H", "5C:3D,2H"])
    assert _greedy(obs) == "5C:3D,2H"


@pytest.mark.parametrize(("game", "options", "expected"), [
    ("tablanette", {}, "5C:2H,3D"),                          # §5.6(a): a jack's take-all is never a tablanette
    ("tablanette", {"jack_mode": "value12"}, "JC:2H,3D"),    # §8: an ordinary jack sweeps like any card
    ("tablic", {}, "JC:2H,3D"),                              # tablic §2.1: the jack is an ordinary 12
])
def test_jack_sweeps_count_only_where_the_rules_say(game: str, options: dict, expected: str) -> None:
    obs = _obs(game, ["2H", "3D"], ["5C:2H,3D", "JC:2H,3D"], **options)
    assert _greedy(obs) == expected


def test_most_points_then_most_cards() -> None:
    table = ["3C", "4C", "TD", "KH"]
    assert _greedy(_obs("tablanette", table, ["7S:3C,4C", "TH:TD"])) == "TH:TD"
    assert _greedy(_obs("tablanette", table, ["3S:3C", "7S:3C,4C"])) == "7S:3C,4C"


def test_capture_beats_trail_when_trailing_is_allowed() -> None:
    assert _greedy(_obs("tablic", ["3C", "9D"], ["3H", "3H:3C", "KS"])) == "3H:3C"


def test_trail_the_least_valuable_card() -> None:
    assert _greedy(_obs("tablic", ["3C"], ["AS", "TD", "7H", "KS"])) == "7H"


def test_greedy_breaks_ties_with_its_rng() -> None:
    obs = _obs("tablic", ["3C"], ["7H", "8H", "9H"])
    chosen = {make_policy("greedy", "tablic", 0, seed)(obs) for seed in range(40)}
    assert chosen == {"7H", "8H", "9H"}


def test_ranker_keys_one_per_action() -> None:
    obs = _obs("tablic", ["5D", "7H"], ["QC", "JC:", "TS"])
    assert rank_fishing_actions(obs) == [(0, False, -1, 0), (1, True, 1, 3), (0, False, -1, 0)]


# ---- the trick games' greedy (german_whist.md 5.3-5.5, belote_contree.md / belote.md 4-6) ----------------------

def _whist(legal: list[str], trick: list | None = None, face_up: str | None = "AH") -> dict:
    return {"game": "german_whist", "legal_actions": legal, "trump": "H", "trick": trick or [], "face_up": face_up}


def test_german_whist_fights_for_a_good_face_up_card_and_ducks_a_poor_one() -> None:
    assert _greedy(_whist(["2C", "AC", "9S"])) == "AC"
    assert _greedy(_whist(["2C", "AC", "9S"], face_up="3D")) == "2C"


def test_german_whist_wins_with_the_cheapest_winner_and_discards_without_wasting_trumps() -> None:
    assert _greedy(_whist(["QS", "KS", "AS"], trick=[[1, "JS"]])) == "QS"
    assert _greedy(_whist(["2H", "3C", "9D"], trick=[[1, "JS"]], face_up="3D")) == "3C"
    assert _greedy(_whist(["3C", "down:0"], trick=[[1, "JS"]])) == "3C"


def _belote_play(legal: list[str], hand: list[str], trick: list, seat: int = 0, players: int = 4,
                 tricks: list | None = None, trump: str = "H") -> dict:
    return {"game": "belote", "phase": "play", "players": players, "seat": seat, "legal_actions": legal,
            "hand": hand, "trump": trump, "trick": trick, "tricks": tricks or []}


def test_belote_announces_the_belote() -> None:
    obs = _belote_play(["7C", "KH", "KH:belote"], ["7C", "KH", "QH"], [])
    assert _greedy(obs) == "KH:belote"


def test_belote_gives_points_to_a_winning_partner_and_keeps_trumps() -> None:
    obs = _belote_play(["AD", "7D", "9D"], ["AD", "7D", "9D"], [[2, "TD"], [3, "8D"]], seat=0)
    assert _greedy(obs) == "AD"


def test_belote_wins_against_an_opponent_with_the_cheapest_winner_or_throws_the_cheapest_card() -> None:
    assert _greedy(_belote_play(["AD", "TD", "7D"], ["AD", "TD", "7D"], [[3, "KD"]])) == "TD"
    assert _greedy(_belote_play(["7D", "QD", "8C"], ["7D", "QD", "8C"], [[3, "AD"]], players=2)) == "7D"


def test_belote_leads_a_master_card_else_a_cheap_one() -> None:
    hand = ["TD", "KS", "7S"]
    assert _greedy(_belote_play(hand, hand, [])) == "7S"  # the ace of diamonds is out: keep the ten
    played = [[[1, "AD"], [2, "8D"], [3, "9D"], [0, "7D"]]]
    assert _greedy(_belote_play(hand, hand, [], tricks=played)) == "TD"  # now the ten is master


def _taking(legal: list[str], hand: list[str], turn_up: str, players: int) -> dict:
    return {"game": "belote", "phase": "auction", "players": players, "seat": 0, "legal_actions": legal,
            "hand": hand, "turn_up": turn_up}


def test_belote_takes_a_strong_trump_and_passes_a_weak_one() -> None:
    assert _greedy(_taking(["pass", "take"], ["JH", "9H", "AH", "7C", "8D"], "TH", 4)) == "take"
    assert _greedy(_taking(["pass", "take"], ["7C", "8D", "9S", "QC", "KD"], "7H", 4)) == "pass"
    round2 = ["pass", "take:C", "take:D", "take:S"]
    assert _greedy(_taking(round2, ["JS", "9S", "AS", "TS", "8D"], "7H", 2)) == "take:S"


def _contree(legal: list[str], hand: list[str]) -> dict:
    return {"game": "belote_contree", "phase": "auction", "players": 4, "seat": 0, "legal_actions": legal,
            "hand": hand}


def test_belote_contree_bids_the_cheapest_contract_in_its_best_suit_or_passes() -> None:
    legal = ["bid:80:C", "bid:80:D", "bid:80:H", "bid:80:S", "bid:90:S", "bid:capot:S", "contre", "pass"]
    strong = ["JS", "9S", "AS", "TS", "KS", "AD", "AC", "7H"]
    assert _greedy(_contree(legal, strong)) == "bid:80:S"
    weak = ["7S", "8S", "7D", "8D", "7C", "8C", "7H", "9C"]
    assert _greedy(_contree(legal, weak)) == "pass"
    assert _greedy({"game": "belote_contree", "phase": "redeal", "legal_actions": ["keep", "redeal"]}) == "redeal"


# ---- greedy beats random clearly ----------------------------------------------------------------------------------

# The deals are played in batches; the test stops at the end of a batch where both of greedy's margins are already
# EARLY_Z standard errors clear (where a full run's 1.96 and 3 could still fail, that almost never happens: it stops
# early only when the edge is several times what the full run needs, and otherwise plays every deal and judges them
# all as before).
BATCH, EARLY_Z = 200, 5.0
# The matches themselves measure play strength, no unit property (greedy's choices have their unit tests above): they
# run in the integration tier (tests/tiers.py), as tests/test_bot_strength.py's long cases do; the early stop and the
# margins they are judged by are checked here, in the unit tier.
strength = pytest.mark.integration


def _greedy_against_random(game: str, players: int, deals: range) -> tuple[list[float], int]:
    """Single deals with greedy's side rotating over the sides: per deal greedy's lead (its score minus the mean of
    the random seats' scores), and how many deals greedy's side scored strictly the most."""
    leads, wins = [], 0
    for deal in deals:
        state = engine.new_match(game, seed=deal, players=players, options={"max_deals": 1})
        greedy_side = deal % (max(state.side_of) + 1)
        names = ["greedy" if state.side_of[seat] == greedy_side else "random" for seat in range(players)]
        play_out(state, make_policies(names, game, seed=10_000 + deal))
        greedy_score = state.scores[names.index("greedy")]
        others = [score for seat, score in enumerate(state.scores) if names[seat] == "random"]
        leads.append(greedy_score - sum(others) / len(others))
        wins += greedy_score > max(others)
    return leads, wins


def _margins(leads: list[float], wins: int, sides: int) -> tuple[float, float]:
    """Greedy's mean lead and its win count above a fair share 1/sides, each in standard errors."""
    n = len(leads)
    mean = sum(leads) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in leads) / (n - 1))
    fair = 1 / sides
    lead_z = mean / (sd / math.sqrt(n)) if sd else math.inf if mean > 0 else -math.inf if mean < 0 else 0.0
    return lead_z, (wins - n * fair) / math.sqrt(n * fair * (1 - fair))


def _assert_greedy_wins_clearly(game: str, players: int, deals: int, sides: int) -> None:
    """Over ``deals`` deals (fewer where the edge is overwhelming: ``EARLY_Z``), the 95% confidence interval of
    greedy's mean lead is above 0, and greedy's side scores the most in more deals than its fair share 1/sides by a
    one-sided binomial margin of 3 standard deviations."""
    leads, wins = [], 0
    for start in range(0, deals, BATCH):
        more_leads, more_wins = _greedy_against_random(game, players, range(start, min(start + BATCH, deals)))
        leads, wins = leads + more_leads, wins + more_wins
        if len(leads) < deals and min(_margins(leads, wins, sides)) >= EARLY_Z:
            return
    lead_z, wins_z = _margins(leads, wins, sides)
    assert lead_z > 1.96, f"greedy's mean lead {sum(leads) / len(leads):.2f}, {lead_z:.2f} standard errors"
    assert wins_z > 3, f"greedy won {wins} of {len(leads)}"


def test_a_clear_edge_stops_early_and_a_slight_one_is_judged_on_every_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[range] = []

    def scripted(game: str, players: int, deals: range) -> tuple[list[float], int]:
        batches.append(deals)
        lead = {"clear": 5.0, "slight": 0.2, "none": 0.0}[game]
        return [lead + (-1.0) ** deal for deal in deals], sum(deal % 2 == 0 or lead > 1 for deal in deals)

    monkeypatch.setattr(sys.modules[__name__], "_greedy_against_random", scripted)
    _assert_greedy_wins_clearly("clear", 2, 1000, sides=2)
    assert batches == [range(0, 200)]
    batches.clear()
    with pytest.raises(AssertionError, match="greedy won 500 of 1000"):
        _assert_greedy_wins_clearly("slight", 2, 1000, sides=2)  # its lead is clear over 1000 deals, its wins not
    assert batches == [range(start, start + 200) for start in range(0, 1000, 200)]
    with pytest.raises(AssertionError, match="mean lead 0.00"):
        _assert_greedy_wins_clearly("none", 2, 1000, sides=2)


@strength
@pytest.mark.parametrize("game", FISHING)
def test_greedy_beats_random_over_2000_deals(game: str) -> None:
    _assert_greedy_wins_clearly(game, 2, 2000, sides=2)


@strength
@pytest.mark.parametrize(("game", "players", "deals"), [
    ("german_whist", 2, 1000),
    ("belote_contree", 4, 300),  # random bids and doubles wildly: greedy wins about 99% of deals
    ("belote", 2, 1000),         # greedy wins about 68% of deals
    ("belote", 3, 1000),         # about 49% (a fair share is 33%)
    ("belote", 4, 1000),         # about 67%
    ("tres", 2, 1000),           # about 95%
    ("trappola", 2, 1000),       # about 74%
    ("two_ten_jack", 2, 1000),   # about 61%
    ("two_ten_jack", 3, 600),    # about 50% (a fair share is 33%)
    ("botifarra", 4, 600),       # about 66% (partners score together: the random side about 33%)
])
def test_greedy_beats_random_at_trick_games(game: str, players: int, deals: int) -> None:
    _assert_greedy_wins_clearly(game, players, deals, sides=2 if game == "belote_contree" else players)


@strength
@pytest.mark.parametrize("players", [3, 4, 5])
def test_greedy_beats_random_at_boonaken_matches(players: int) -> None:
    # boonaken.md 8.2: a single deal rarely gives anybody a mark but the declarer, so whole matches are compared:
    # greedy escapes being the loser (a match a loser ends has no winner) beyond its fair share (n - 1) / n, and
    # leads in net marks.
    matches, spared, leads = 150, 0, []
    for match in range(matches):
        state = engine.new_match("boonaken", seed=match, players=players)
        greedy = match % players
        names = ["greedy" if seat == greedy else "random" for seat in range(players)]
        play_out(state, make_policies(names, "boonaken", seed=20_000 + match))
        assert state.winners is not None and all(state.minus[seat] < 2 for seat in state.winners)
        spared += greedy in state.winners or state.minus[greedy] < 2
        others = [score for seat, score in enumerate(state.scores) if seat != greedy]
        leads.append(state.scores[greedy] - sum(others) / len(others))
    fair = (players - 1) / players
    assert spared > matches * fair + 3 * math.sqrt(matches * fair * (1 - fair)), \
        f"greedy lost {matches - spared} of {matches}"
    mean = sum(leads) / matches
    sd = math.sqrt(sum((x - mean) ** 2 for x in leads) / (matches - 1))
    assert mean - 1.96 * sd / math.sqrt(matches) > 0, f"greedy's mean lead {mean:.2f}"


@strength
@pytest.mark.parametrize("players", [4, 6])
def test_greedy_beats_random_at_thunee(players: int) -> None:
    # Two teams; random calls thunee and royals a third of the time each and loses them: greedy wins about 97% (4
    # players) and 95% (6 players) of deals.
    _assert_greedy_wins_clearly("thunee", players, 1000, sides=2)


def test_trick_games_have_greedy() -> None:
    assert {"german_whist", "belote_contree", "belote", "two_ten_jack"} <= set(TRICK_GAMES) <= set(greedy_games())


def test_play_out_shows_each_move_before_it_is_applied_and_can_stop_at_the_deal_end() -> None:
    state = engine.new_match("german_whist", seed=3, options={"target_score": 20})
    seen: list[tuple[int, int, int]] = []
    moves = play_out(state, make_policies(["random", "random"], "german_whist", seed=3), deal_only=True,
                     on_move=lambda seat, action: seen.append((seat, action, len(state.moves))))
    assert moves == len(seen) == len(state.moves) > 0 and not state.is_terminal and state.deal_index == 1
    assert [(seat, action) for seat, action, _ in seen] == state.moves
    assert [before for *_, before in seen] == list(range(moves))
