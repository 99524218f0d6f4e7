"""The engine contract every game keeps, checked generically for every registered game and player count.

Creating a match (clear errors naming what is allowed), the two action forms, illegal actions, malformed positions
(hypothesis mutations must give engine.PositionError and nothing else). Independent clones: tests/test_clone.py (a clone
taken every few moves and played out to the end, for every game, player count and option variant).
"""

from __future__ import annotations

import copy
import json
import multiprocessing
from collections.abc import Iterator
from typing import Any

import pytest
from game_cases import (
    EXAMPLES,
    GAME_CASES,
    GAMES,
    MAX_STEPS_PER_DEAL,
    PER_SEAT_CARD_KEYS,
    SHARED_CARD_KEYS,
    card_piles,
    play_randomly,
    random_steps,
    seeds,
    start,
)
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.cards import CODES, parse_card
from engine.rng import Rng

case = pytest.mark.parametrize(("game", "players"), GAME_CASES)
each_game = pytest.mark.parametrize("game", GAMES)


def _playout(game: str, players: int, seed: int, play_seed: int, max_deals: int = 2) -> tuple[engine.State, Iterator]:
    state = start(game, players, seed, {"max_deals": max_deals})
    return state, random_steps(state, Rng(play_seed), max_deals * MAX_STEPS_PER_DEAL)


# ---- creating a match -------------------------------------------------------------------------------------------


def test_an_unknown_game_names_the_games() -> None:
    for call in (lambda: engine.new_match("no_such_game", seed=1), lambda: engine.game_info("no_such_game"),
                 lambda: engine.from_position("no_such_game", {})):
        with pytest.raises(ValueError) as err:
            call()
        assert "'no_such_game'" in str(err.value) and ", ".join(GAMES) in str(err.value) and "[" not in str(err.value)


def test_list_games_is_sorted_and_each_game_describes_itself() -> None:
    assert sorted(GAMES) == GAMES and GAMES, "at least one game is registered"
    for game in GAMES:
        info = engine.game_info(game)
        assert info.id == game and info.name and info.summary
        assert info.player_counts and info.default_players in info.player_counts
        assert engine.new_match(game, seed=1).players == info.default_players


@each_game
@pytest.mark.parametrize("players", [0, 1, 7, 2.0, "2", True])
def test_an_unsupported_player_count_names_the_supported_ones(game: str, players: object) -> None:
    counts = engine.game_info(game).player_counts
    if players in counts and type(players) is int:
        pytest.skip("supported")
    with pytest.raises(ValueError) as err:
        engine.new_match(game, seed=1, players=players)  # type: ignore[arg-type]
    assert ", ".join(map(str, counts)) in str(err.value) and repr(players) in str(err.value)


@each_game
@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, [1]])
def test_a_bad_seed_is_refused(game: str, seed: object) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        engine.new_match(game, seed=seed)  # type: ignore[arg-type]


@case
def test_a_bad_first_dealer_names_the_seats(game: str, players: int) -> None:
    for dealer in (-1, players, True, "0", 1.0):
        with pytest.raises(ValueError, match=rf"first_dealer must be a seat 0\.\.{players - 1}"):
            engine.new_match(game, seed=1, players=players, first_dealer=dealer)  # type: ignore[arg-type]
    for dealer in range(players):
        assert engine.new_match(game, seed=1, players=players, first_dealer=dealer).to_position()["first_dealer"] == \
            dealer


def _game_deck(game: str, players: int) -> list[str]:
    return sorted(start(game, players, 1).to_position()["deal_deck"], key=parse_card)


@case
def test_a_given_deck_fixes_the_first_deal(game: str, players: int) -> None:
    deck = _game_deck(game, players)
    Rng(players).shuffle(deck)
    one = engine.new_match(game, seed=1, players=players, first_dealer=0, deck=deck).to_position()
    other = engine.new_match(game, seed=2, players=players, first_dealer=0, deck=deck).to_position()
    assert one["deal_deck"] == deck
    ignore = {"seed", "rng"}
    assert {k: v for k, v in one.items() if k not in ignore} == {k: v for k, v in other.items() if k not in ignore}


@case
def test_a_bad_deck_names_what_is_wrong(game: str, players: int) -> None:
    deck = _game_deck(game, players)
    foreign = next((code for code in CODES if code not in deck), "ZZ")
    bad_decks = {
        "missing": (deck[1:], f"missing ['{deck[0]}']"),
        "repeated": ([deck[1], *deck[1:]], f"repeated ['{deck[1]}']"),
        "foreign": ([*deck[1:], foreign], foreign),
        "too many": ([*deck, deck[0]], f"repeated ['{deck[0]}']"),
    }
    for what, (bad, named) in bad_decks.items():
        with pytest.raises(ValueError) as err:
            engine.new_match(game, seed=1, players=players, deck=bad)
        assert named in str(err.value), what
    with pytest.raises(ValueError, match="not a card code"):
        engine.new_match(game, seed=1, players=players, deck=[*deck[1:], "1H"])


@case
def test_observation_of_a_bad_seat_is_refused(game: str, players: int) -> None:
    state = start(game, players, 1)
    for seat in (-1, players, "0", None):
        with pytest.raises(ValueError, match=rf"seat must be 0\.\.{players - 1}"):
            state.observation(seat)  # type: ignore[arg-type]


# ---- actions ----------------------------------------------------------------------------------------------------


@case
@EXAMPLES
@given(seed=seeds, play_seed=seeds)
def test_string_and_integer_actions_agree(game: str, players: int, seed: int, play_seed: int) -> None:
    state, steps = _playout(game, players, seed, play_seed)
    fresh = start(game, players, 0)
    for step, action in enumerate(steps):
        strings, ids = state.legal_actions(), state.legal_action_ids()
        assert strings, "a player to act always has a legal action"
        assert strings == [state.action_string(a) for a in ids]
        assert strings == [fresh.action_string(a) for a in ids], "action_string is a pure function of the int"
        assert [s.encode() for s in strings] == sorted(s.encode() for s in strings), "byte order"
        assert len(set(strings)) == len(strings) and len(set(ids)) == len(ids), "no duplicates"
        assert all(state.action_id(s) == a for s, a in zip(strings, ids, strict=True))
        if step % 3 == 0:  # cloning at every step would triple the cost; every third step covers all phases
            by_string, by_id = state.clone(), state.clone()
            by_string.apply(action)
            by_id.apply_id(state.action_id(action))
            assert by_string.to_position() == by_id.to_position()
            assert by_string.history == by_id.history


@case
@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_an_illegal_action_is_refused_and_changes_nothing(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    state = start(game, players, seed, {"max_deals": 2})
    play_randomly(state, Rng(play_seed), data.draw(st.integers(0, 80), label="steps first"))
    before, history = state.to_position(), state.history
    legal, ids = state.legal_actions(), state.legal_action_ids()
    other_codes = [code for code in CODES if code not in legal]
    candidates = [
        "", "ZZ", "pass:", " " + (legal[0] if legal else "QS"), (legal[0] + ",") if legal else "QS",
        data.draw(st.sampled_from(other_codes), label="other card"),
        data.draw(st.text(max_size=12), label="text"),
        max(ids, default=0) + 1, data.draw(st.integers(0, 2**70), label="int"),
        None, 1.5, True, [legal[0]] if legal else ["QS"],
    ]
    for action in candidates:
        if action in legal or (type(action) is int and action in ids):
            continue
        with pytest.raises(engine.IllegalAction) as err:
            state.apply(action)
        message = str(err.value)
        assert message.startswith("illegal action ")
        if type(action) is not int:
            assert repr(action) in message
        shown = legal if len(legal) <= 60 else legal[:60]
        assert f"legal actions: [{', '.join(shown)}" in message
        if state.is_terminal:
            assert "over" in message
        assert state.to_position() == before, f"{action!r} changed the state"
        assert state.history == history and state.legal_actions() == legal


def _apply_in_child(game: str, players: int, action: object, answers: multiprocessing.Queue) -> None:
    state = start(game, players, 1)
    try:
        state.apply(action)
        answers.put("accepted")
    except Exception as exc:  # the parent reports whatever it was
        answers.put(type(exc).__name__)


@case
@pytest.mark.parametrize("action", [-1, -64])
@pytest.mark.integration  # a child process (tests/tiers.py)
def test_a_negative_action_id_is_refused_in_time(game: str, players: int, action: int) -> None:
    # In a child process, so that a hang fails this test instead of stalling the suite.
    answers = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_apply_in_child, args=(game, players, action, answers))
    child.start()
    child.join(5)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"{game}: apply({action}) did not return within 5 s")
    assert answers.get(timeout=5) == "IllegalAction"


@case
def test_a_finished_match_refuses_every_action(game: str, players: int) -> None:
    state = start(game, players, 3, {"max_deals": 1})
    play_randomly(state, Rng(3), MAX_STEPS_PER_DEAL)
    assert state.is_terminal
    with pytest.raises(engine.IllegalAction, match=r"the match is over\); legal actions: \[\]$"):
        state.apply("pass")


# ---- malformed positions ----------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**64 + 5) | st.floats(allow_nan=False) | st.text(max_size=6)
    | st.sampled_from(CODES),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _position_at(game: str, players: int, seed: int, play_seed: int, steps: int) -> dict:
    state = start(game, players, seed, {"max_deals": 2})
    play_randomly(state, Rng(play_seed), steps)
    return state.to_position()


def _load(game: str, position: Any) -> engine.State | None:
    """from_position; None when it raises PositionError (any other exception fails the test)."""
    try:
        return engine.from_position(game, position)
    except engine.PositionError:
        return None


def _usable(state: engine.State) -> None:
    """An accepted position must give a state that works: no exception from the contract's calls."""
    json.dumps(state.to_position())
    legal = state.legal_actions()
    for seat in range(state.players):
        json.dumps(state.observation(seat))
    if legal:
        state.clone().apply(legal[0])


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON document (dict keys and list indices), the document itself excluded."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        found.append((*path, key))
        found.extend(_paths(item, (*path, key)))
    return found


def _replace(document: dict, path: tuple, value: Any) -> dict:
    mutated = copy.deepcopy(document)
    target = mutated
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return mutated


@case
def test_a_missing_key_is_a_position_error(game: str, players: int) -> None:
    # Every key, at any depth, of positions at the start, in the middle and at the end of a two-deal match.
    state = start(game, players, 11, {"max_deals": 2})
    positions = [state.to_position()]
    for steps in (7, 30, 2 * MAX_STEPS_PER_DEAL):
        play_randomly(state, Rng(steps), steps)
        positions.append(state.to_position())
    assert state.is_terminal
    for position in positions:
        # Options are exempt: an option left out of a position takes its default, as in new_match.
        for path in (p for p in _paths(position) if isinstance(p[-1], str) and p[0] != "options"):
            mutated = copy.deepcopy(position)
            del _value_at(mutated, path[:-1])[path[-1]]
            rebuilt = _load(game, mutated)
            # Accepted only if the key was redundant: the rebuilt state is the very same state.
            assert rebuilt is None or rebuilt.to_position() == position, (
                f"position without {path} accepted, giving another state:"
                f" {_differences(rebuilt.to_position(), position)}"
            )


@case
@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_a_value_of_the_wrong_type_is_a_position_error(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    position = _position_at(game, players, seed, play_seed, data.draw(st.integers(0, 80), label="steps"))
    # null <-> value is not a type error (e.g. no last capturer yet), so only non-null values are changed.
    path = data.draw(st.sampled_from([p for p in _paths(position) if _value_at(position, p) is not None]), label="path")
    old = _value_at(position, path)
    value = data.draw(JSON_VALUES.filter(lambda v: v is not None and _json_type(v) != _json_type(old)), label="value")
    rebuilt = _load(game, _replace(position, path, value))
    assert rebuilt is None or rebuilt.to_position() == position, (
        f"{path} = {value!r} (was {old!r}) accepted: {_differences(rebuilt.to_position(), position)}"
    )


@case
@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_a_duplicated_card_is_a_position_error(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    position = _position_at(game, players, seed, play_seed, data.draw(st.integers(0, 80), label="steps"))
    pile_keys = {*PER_SEAT_CARD_KEYS, *SHARED_CARD_KEYS, *engine.game_class(game).POSITION_CARD_PILES}
    card_lists = [p for p in _paths(position) if p[0] in pile_keys and _is_card_list(_value_at(position, p))]
    held = sorted(code for cards in card_piles(game, position).values() for code in cards)
    if not held or not card_lists:
        pytest.skip(f"{game} positions hold no card lists")
    card = data.draw(st.sampled_from(held), label="card")
    path = data.draw(st.sampled_from(card_lists), label="into")
    mutated = _replace(position, path, [*_value_at(position, path), card])
    assert _load(game, mutated) is None, f"{card} added to {path} accepted"


@case
@EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_any_mutation_gives_a_position_error_or_a_working_state(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    position = _position_at(game, players, seed, play_seed, data.draw(st.integers(0, 80), label="steps"))
    mutated = position
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        path = data.draw(st.sampled_from(_paths(mutated)), label="path")
        mutated = _replace(mutated, path, data.draw(JSON_VALUES, label="value"))
    rebuilt = _load(game, mutated)
    if rebuilt is not None:
        _usable(rebuilt)


@case
def test_a_position_for_another_game_or_not_an_object_is_a_position_error(game: str, players: int) -> None:
    position = start(game, players, 5).to_position()
    for other in GAMES:
        if other != game:
            with pytest.raises(engine.PositionError):
                engine.from_position(other, position)
    with pytest.raises(engine.PositionError, match="no_such_game"):
        engine.from_position(game, {**position, "game": "no_such_game"})
    for not_a_position in (None, [], "position", 7, json.dumps(position)):
        with pytest.raises(engine.PositionError, match="JSON object"):
            engine.from_position(game, not_a_position)


def _differences(got: dict, want: dict) -> str:
    keys = sorted(k for k in {*got, *want} if got.get(k, "<absent>") != want.get(k, "<absent>"))
    return "; ".join(f"{k}: {got.get(k, '<absent>')!r} instead of {want.get(k, '<absent>')!r}" for k in keys)


def _value_at(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return type(value).__name__


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v in CODES for v in value)
