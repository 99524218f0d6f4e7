"""Bots: the policy contract (observation only, own RNG, honest fast path), the greedy ranking, and greedy's edge
over random measured with a statistical margin."""

from __future__ import annotations

import doctest
import importlib
import math
from collections import Counter

import pytest

import engine
from engine.bots import greedy_games, make_policies, make_policy, play_out, policy_names
from engine.bots.fishing import card_points, rank_fishing_actions

FISHING = ["tablanette", "tablic"]


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
    assert policy_names() == ["greedy", "random"]


def test_unknown_policy_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown policy 'clever'; policies are \['greedy', 'random'\]"):
        make_policy("clever", "tablanette", 0, 1)


def test_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown game 'snap'"):
        make_policy("random", "snap", 0, 1)


def test_greedy_without_heuristic_names_the_games_it_plays() -> None:
    others = [g for g in engine.list_games() if g not in greedy_games()]
    if not others:
        pytest.skip("every registered game has a greedy heuristic")
    with pytest.raises(ValueError, match="no greedy heuristic"):
        make_policy("greedy", others[0], 0, 1)


def test_fishing_games_have_greedy() -> None:
    assert set(FISHING) <= set(greedy_games())


# ---- the contract: observation only, own RNG, the fast path gives the same play -----------------------------------

@pytest.mark.parametrize("game", engine.list_games())
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_fast_path_plays_exactly_like_the_string_path(game: str, policy: str) -> None:
    if policy == "greedy" and game not in greedy_games():
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


# ---- the greedy ranking (tablanette.md §2.2, §5.6-5.7; tablic.md §2.2) -------------------------------------------

def _greedy(obs: dict) -> str:
    return make_policy("greedy", obs["game"], 0, 1)(obs)


def test_card_points() -> None:
    codes = ("AS", "KH", "QD", "JC", "TS", "TD", "2C", "2D", "9H")
    assert [card_points(c) for c in codes] == [1, 1, 1, 1, 1, 2, 1, 0, 0]


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
    obs = _obs("tablic", ["5D", "7H"], ["QC", "QC:5D,7H", "TS"])
    assert rank_fishing_actions(obs) == [(0, False, -1, 0), (1, True, 1, 3), (0, False, -1, 0)]


# ---- greedy beats random clearly ----------------------------------------------------------------------------------

@pytest.mark.parametrize("game", FISHING)
def test_greedy_beats_random_over_2000_deals(game: str) -> None:
    """2,000 single deals, seats alternating; the 95% confidence interval of greedy's mean point lead is above 0."""
    leads = []
    for deal in range(2000):
        names = ["greedy", "random"] if deal % 2 == 0 else ["random", "greedy"]
        state = engine.new_match(game, seed=deal, options={"max_deals": 1})
        play_out(state, make_policies(names, game, seed=10_000 + deal))
        greedy_seat = names.index("greedy")
        leads.append(state.scores[greedy_seat] - state.scores[1 - greedy_seat])
    n = len(leads)
    mean = sum(leads) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in leads) / (n - 1))
    low = mean - 1.96 * sd / math.sqrt(n)
    assert low > 0, f"greedy's mean lead {mean:.2f}, 95% CI low {low:.2f}"
    # And by wins: greedy wins far more than half the deals (a one-sided binomial margin of 3 sd).
    wins = sum(lead > 0 for lead in leads)
    assert wins > n / 2 + 3 * math.sqrt(n) / 2, f"greedy won {wins} of {n}"


@pytest.mark.parametrize("module", ["engine.bots", "engine.bots.policy", "engine.bots.greedy", "engine.bots.fishing",
                                    "engine.bots.rollout"])
def test_docstring_examples(module: str) -> None:
    results = doctest.testmod(importlib.import_module(module))
    assert results.attempted > 0 and results.failed == 0
