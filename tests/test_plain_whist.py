"""Whist (tests/plain_whist/), the game docs/adding_a_game.md builds from an empty folder: registered for these tests
only, by one line (the ``whist`` fixture), it passes every generic suite the registry's games pass (those that read
their games from the registry: round-trips, strict positions, hypothesis properties, hidden cards, clones, bots) and
the rule tests of its own below; the page shows its files as they are."""

from __future__ import annotations

import inspect
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_bots
from game_cases import GenericTest, generic_tests
from plain_whist import PlainWhist
from test_engine_shape import overridden_names

import engine
from engine.bots import make_policies, play_out
from engine.cards import SUIT, parse_card
from engine.registry import registered
from engine.rng import Rng
from engine.trickgame import TrickGame

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding_a_game.md"
PACKAGE = Path(__file__).parent / "plain_whist"

# The generic tests that do not apply to a game outside the product, and why.
NOT_RUN = {
    "test_positions.test_each_game_has_a_page_linked_from_the_index":
        "a product game's positions page (docs/positions/<game>.md); the example game has docs/adding_a_game.md",
    "test_positions.test_the_pages_examples_load_and_round_trip": "the same page",
    "test_positions.test_the_page_documents_every_key_of_the_games_positions": "the same page",
    "test_openspiel.test_openspiels_random_simulation_test_passes":
        "envs.openspiel registers with OpenSpiel the games registered when it is imported, and OpenSpiel cannot take "
        "a game out again",
}
GENERIC = generic_tests(TrickGame)
CHECKS = [
    pytest.param(test, call, id=f"{test.module}.{test.name}-{'-'.join(map(str, call.values()))}",
                 marks=[mark for mark in test.marks if mark.name in ("unit", "integration", "e2e")])
    for test in GENERIC if f"{test.module}.{test.name}" not in NOT_RUN
    for call in test.calls(PlainWhist.INFO) or ()
]


@pytest.fixture
def whist() -> Iterator[str]:
    with registered(PlainWhist) as game:  # the one line that makes it a game of the registry
        yield game


@pytest.mark.parametrize(("test", "call"), CHECKS)
def test_whist_passes_the_generic_suite(test: GenericTest, call: dict[str, Any], whist: str,
                                        request: pytest.FixtureRequest) -> None:
    fixtures = {name: request.getfixturevalue(name) for name in inspect.signature(test.function).parameters
                if name not in call}
    test.function(**call, **fixtures)


def test_every_generic_test_runs_for_whist_or_says_why() -> None:
    names = {f"{test.module}.{test.name}" for test in GENERIC}
    cannot = {f"{test.module}.{test.name}" for test in GENERIC if test.calls(PlainWhist.INFO) is None}
    assert not cannot - set(NOT_RUN), f"generic tests that take values of the registry's games only: {cannot}"
    assert set(NOT_RUN) <= names, f"NOT_RUN names tests that are gone: {set(NOT_RUN) - names}"
    # (the discovery itself: the suites' core tests are among those found)
    assert {"test_properties.test_positions_round_trip_at_every_step_and_play_on_identically",
            "test_properties.test_observations_are_json_ready_and_hide_other_seats_cards",
            "test_position_mutations.test_a_mutated_position_is_refused",
            "test_engine_contract.test_a_missing_key_is_a_position_error"} <= names


def test_it_is_a_game_of_the_registry_only_inside_the_block() -> None:
    before = engine.list_games()
    with registered(PlainWhist) as game:
        assert engine.list_games() == sorted([*before, game]) and engine.game_class(game) is PlainWhist
        assert engine.game_info(game).max_length[4].deals == 9  # filled in on registering
        with pytest.raises(ValueError, match="registered already"), registered(PlainWhist):
            pass
    assert engine.list_games() == before
    with pytest.raises(engine.UnknownGame):
        engine.new_match("plain_whist", seed=1)


def test_it_overrides_no_core_name_besides_its_phases_and_scoring() -> None:
    assert overridden_names(PlainWhist) == []


# ---- its rules (tests/plain_whist/__init__.py's numbered list) -----------------------------------------------------


def test_the_last_card_dealt_names_trump_and_is_known_in_the_dealers_hand_until_played(whist: str) -> None:
    for seed in range(10):
        state = engine.new_match(whist, seed=seed)
        turn_up = state.to_position()["deal_deck"][-1]  # 2.1
        assert state.to_position()["trump"] == turn_up[1]
        assert turn_up in state.observation(state.dealer)["hand"]
        sample = engine.determinize(state, (state.dealer + 1) % 4, Rng(seed))  # another seat's guess of the deal
        assert turn_up in sample.observation(state.dealer)["hand"] and sample.trump == state.trump
        choose = random.Random(seed)
        while turn_up in state.observation(state.dealer)["hand"]:
            for seat in range(4):
                observation = state.observation(seat)
                assert observation["turn_up"] == turn_up
                assert observation["known_cards"] == ([] if seat == state.dealer else [turn_up])  # another's card
            state.apply(choose.choice(state.legal_actions()))
        assert all(state.observation(seat)["known_cards"] == [] for seat in range(4))


def test_the_dealers_left_leads_each_must_follow_suit_and_the_best_trump_or_card_of_the_suit_led_wins(
        whist: str) -> None:
    for seed in range(20):
        state = engine.new_match(whist, seed=seed, options={"max_deals": 1})
        assert state.current_player == (state.dealer + 1) % 4  # 3
        choose = random.Random(seed)
        while not state.is_terminal:
            observation = state.observation(state.current_player)
            hand, trick = observation["hand"], observation["trick"]
            led = trick[0][1][1] if trick else None
            following = [card for card in hand if card[1] == led]
            assert sorted(state.legal_actions()) == sorted(following or hand)  # 3: follow suit, else any card
            state.apply(choose.choice(state.legal_actions()))
            if len(trick) == 3 and not state.is_terminal:
                played = [*trick, [observation["seat"], state.history[-1][1]]]
                assert state.current_player == _winner(played, state.to_position()["trump"])  # the winner leads
        tricks = state.to_position()["tricks"]
        assert [_winner(t, state.to_position()["trump"]) for t in tricks[:-1]] == [t[0][0] for t in tricks[1:]]


def _winner(trick: list[list[Any]], trump: str) -> int:
    """3, worked out from the codes: the highest trump, else the highest card of the suit led."""
    led = trick[0][1][1]
    order = "AKQJT98765432"
    best = max(trick, key=lambda play: (play[1][1] == trump, play[1][1] == led, -order.index(play[1][0])))
    return best[0]


def _all_trumps_to_the_dealer() -> list[str]:
    """A deck dealt by seat 3 (to seats 0, 1, 2, 3 in turn) that gives seat 0 the clubs, 1 the diamonds, 2 the
    spades and the dealer every heart, the 2 of hearts turned up: the dealer's side takes all 13 tricks, whatever
    is played (it trumps every lead and leads trumps nobody else holds), and holds the four honours."""
    hands = [[f"{rank}{suit}" for rank in "AKQJT98765432"] for suit in "CDSH"]
    return [hands[seat][k] for k in range(13) for seat in range(4)]


@pytest.mark.parametrize(("options", "points", "winners"), [
    ({}, [0, 7], [1, 3]),  # 4.1: 13 - 6 tricks; 4.4: game by tricks, so the honours do not count
    ({"target": 20}, [0, 11], None),  # 4.2: and 4 for the four honours
    ({"target": 20, "honours": False}, [0, 7], None),
])
def test_a_worked_deal_is_scored_as_the_rules_say(whist: str, options: dict, points: list[int],
                                                  winners: list[int] | None) -> None:
    deck = _all_trumps_to_the_dealer()
    assert deck[-1] == "2H"
    for seed in range(3):
        state = engine.new_match(whist, seed=seed, first_dealer=3, options=options, deck=deck)
        assert state.trump == SUIT[parse_card("2H")] and state.honours() == [0, 4]
        choose = random.Random(seed)
        for _ in range(52):
            state.apply(choose.choice(state.legal_actions()))
        assert state.deal_results[0]["tricks_won"] == [0, 13] and state.deal_results[0]["points"] == points
        assert state.scores == [0, points[1], 0, points[1]] and state.winners == winners


@pytest.mark.parametrize(("scores", "honours", "points"), [
    ([4, 0], [3, 1], [0, 2]),  # 4.3: side 0 at 4 scores no honours; side 1 takes 8 tricks
    ([3, 0], [3, 1], [2, 2]),  # one short of 4: side 0's three honours count
    ([3, 0], [2, 2], [0, 2]),  # honours divided: nobody scores them
    ([3, 3], [4, 0], [0, 2]),  # side 1 makes game (3 + 2): no honours are scored after it (4.4)
])
def test_honours_are_not_scored_at_four_nor_after_game(whist: str, scores: list[int], honours: list[int],
                                                       points: list[int]) -> None:
    state = engine.new_match(whist, seed=1, first_dealer=3)
    state.side_scores = list(scores)
    state.tricks_won = [5, 8]
    state.honours = lambda: honours  # type: ignore[method-assign]
    state._score_deal()
    assert state.deal_results[-1]["points"] == points


def test_greedy_beats_random(whist: str) -> None:
    test_bots._assert_greedy_wins_clearly(whist, 4, 600, sides=2)


def test_a_match_ends_when_a_side_reaches_the_target(whist: str) -> None:
    for seed in range(10):
        state = engine.new_match(whist, seed=seed, options={"target": 3})
        play_out(state, make_policies(["random"] * 4, whist, seed))
        finals = [score for score in state.scores if score >= 3]
        assert finals and len(set(state.scores) & set(finals)) == 1  # one side reached it (5)
        assert state.winners == [seat for seat in range(4) if state.scores[seat] >= 3]
        assert sum(sum(deal["points"]) for deal in state.deal_results) == state.scores[0] + state.scores[1]
        assert len(state.history) <= 52 * engine.game_info(whist).max_length[4].deals


# ---- the page ------------------------------------------------------------------------------------------------------

FILE_BLOCK = re.compile(r"<!-- file: (\S+) -->\n```python\n(.*?)```", re.DOTALL)


def test_the_page_shows_the_packages_files_as_they_are() -> None:
    shown = dict(FILE_BLOCK.findall(PAGE.read_text()))
    files = {f"tests/plain_whist/{path.name}": path.read_text() for path in sorted(PACKAGE.glob("*.py"))}
    assert shown == files, "docs/adding_a_game.md's code blocks differ from tests/plain_whist/: copy them again"


def test_the_package_is_about_150_lines() -> None:
    lines = sum(len(path.read_text().splitlines()) for path in PACKAGE.glob("*.py"))
    assert lines <= 170, lines


def test_the_page_names_what_it_uses_as_the_engine_has_it() -> None:
    """Every ``engine.<module>.<name>`` the page writes exists (a renamed hook or module fails here)."""
    text = PAGE.read_text()
    for dotted in sorted(set(re.findall(r"`(engine(?:\.\w+)+)`", text))):
        module, _, name = dotted.rpartition(".")
        try:
            __import__(dotted)
        except ImportError:
            assert hasattr(__import__(module, fromlist=[name]), name), f"the page names {dotted}, which is gone"
    for name in sorted(set(re.findall(r"`(_\w+)`", text))):
        assert hasattr(PlainWhist, name) or any(hasattr(phase, name) for phase in PlainWhist.DEAL_PHASES), name
