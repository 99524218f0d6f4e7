"""engine.options: declared options are validated with clear errors; and every registered game's options behave so."""

from __future__ import annotations

import json

import pytest

import engine
from engine.options import Option, resolve_options

TARGET = Option("target", int, 101, "points to win", minimum=1, maximum=1000)
PARTNERS = Option(
    "partnerships", bool, False, "play in teams", choices_for=lambda n: (False, True) if n == 4 else (False,)
)
MODE = Option("jack_mode", str, "special", "what a jack does", choices=("special", "value12"))
HAND = Option("hand_size", int, lambda n: 6 if n == 2 else 4, "cards per hand", choices=(4, 6, 8))
DEALER = Option("first_dealer", int, None, "fixed first dealer", minimum=0, nullable=True)
SPEC = [TARGET, PARTNERS, MODE, HAND, DEALER]


def test_defaults_fill_every_option_and_may_depend_on_the_player_count() -> None:
    assert resolve_options(SPEC, None, 2) == {
        "target": 101, "partnerships": False, "jack_mode": "special", "hand_size": 6, "first_dealer": None,
    }
    assert resolve_options(SPEC, {}, 4)["hand_size"] == 4


def test_given_values_are_kept() -> None:
    given = {"target": 151, "partnerships": True, "jack_mode": "value12", "hand_size": 8, "first_dealer": 3}
    assert resolve_options(SPEC, given, 4) == given


def test_an_unknown_option_names_the_known_ones() -> None:
    with pytest.raises(ValueError) as err:
        resolve_options(SPEC, {"targte": 10, "zzz": 1}, 2)
    message = str(err.value)
    assert "unknown options 'targte', 'zzz';" in message and "[" not in message
    assert all(repr(o.name) in message for o in SPEC)


@pytest.mark.parametrize(
    ("option", "value", "wanted"),
    [
        (TARGET, "101", "int"),
        (TARGET, 101.0, "int"),
        (TARGET, True, "int"),  # bool is a subclass of int, but not an int option's value
        (PARTNERS, 1, "bool"),
        (PARTNERS, "true", "bool"),
        (MODE, 12, "str"),
        (MODE, ["special"], "str"),
    ],
)
def test_a_wrong_type_names_the_type_and_what_is_allowed(option: Option, value: object, wanted: str) -> None:
    with pytest.raises(ValueError) as err:
        resolve_options(SPEC, {option.name: value}, 4)
    message = str(err.value)
    assert f"option {option.name!r} must be a {wanted}, got {value!r}" in message
    assert f"allowed: {option.describe_allowed(4)}" in message


@pytest.mark.parametrize(("value", "allowed"), [(0, "1..1000"), (1001, "1..1000"), (-5, "1..1000")])
def test_out_of_range_names_the_range(value: int, allowed: str) -> None:
    with pytest.raises(ValueError, match=f"option 'target' = {value} is out of range; allowed: {allowed}"):
        resolve_options(SPEC, {"target": value}, 2)


def test_range_ends_are_allowed() -> None:
    assert resolve_options(SPEC, {"target": 1}, 2)["target"] == 1
    assert resolve_options(SPEC, {"target": 1000}, 2)["target"] == 1000


def test_open_ended_ranges_are_described() -> None:
    assert DEALER.describe_allowed(4) == "0..inf or null"
    assert Option("x", int, 0, "doc").describe_allowed(2) == "any int"


def test_a_value_outside_the_choices_names_the_choices() -> None:
    # (the player count is named only where the choices depend on it, below)
    with pytest.raises(ValueError, match="option 'jack_mode' = 'joker' is not allowed; allowed: one of "
                                         "'special', 'value12'"):
        resolve_options(SPEC, {"jack_mode": "joker"}, 2)


def test_choices_depend_on_the_player_count() -> None:
    assert resolve_options(SPEC, {"partnerships": True}, 4)["partnerships"] is True
    with pytest.raises(ValueError, match="'partnerships' = True is not allowed with 2 players; allowed: one of False$"):
        resolve_options(SPEC, {"partnerships": True}, 2)


def test_null_only_where_nullable() -> None:
    assert resolve_options(SPEC, {"first_dealer": None}, 2)["first_dealer"] is None
    with pytest.raises(ValueError, match="option 'target' may not be null; allowed: 1..1000"):
        resolve_options(SPEC, {"target": None}, 2)


def test_to_dict_describes_an_option_for_a_player_count_and_in_general() -> None:
    assert HAND.to_dict(2) == {
        "name": "hand_size", "type": "int", "default": 6, "allowed": "one of 4, 6, 8",
        "choices": [4, 6, 8], "nullable": False, "doc": "cards per hand",
    }
    assert HAND.to_dict()["default"] == {2: 6, 3: 4, 4: 4, 5: 4, 6: 4}
    assert PARTNERS.to_dict(4)["choices"] == [False, True]
    assert TARGET.to_dict()["choices"] is None


# ---- float options and text ----------------------------------------------------------------------------------------

EPSILON = Option("epsilon", float, 0.0, "exploration rate", minimum=0.0, maximum=1.0, noun="parameter")


@pytest.mark.parametrize(("value", "kept"), [(0.25, 0.25), (0, 0.0), (1, 1.0), (1.0, 1.0)])
def test_a_float_option_takes_floats_and_ints_as_floats(value: object, kept: float) -> None:
    checked = resolve_options([EPSILON], {"epsilon": value}, None)["epsilon"]
    assert checked == kept and type(checked) is float


@pytest.mark.parametrize("value", [True, "0.5", float("nan"), float("inf"), [0.5]])
def test_a_float_option_refuses_bools_text_and_non_finite_numbers(value: object) -> None:
    with pytest.raises(ValueError, match=r"parameter 'epsilon' must be a float, got .* \(allowed: 0.0..1.0\)"):
        EPSILON.check(value)


@pytest.mark.parametrize("value", [-0.01, 1.5])
def test_a_float_range_names_the_range_and_the_noun(value: float) -> None:
    with pytest.raises(ValueError, match=f"^parameter 'epsilon' = {value} is out of range; allowed: 0.0..1.0$"):
        EPSILON.check(value)


def test_without_a_player_count_choices_are_the_declared_ones_and_defaults_plain() -> None:
    assert resolve_options([MODE, TARGET], None, None) == {"jack_mode": "special", "target": 101}
    with pytest.raises(ValueError, match="^option 'jack_mode' = 'joker' is not allowed; allowed: one of "):
        MODE.check("joker")


@pytest.mark.parametrize(("option", "text", "value"), [
    (EPSILON, "0.2", 0.2), (EPSILON, " 1 ", 1.0), (EPSILON, "1e-3", 0.001),
    (TARGET, "151", 151), (PARTNERS, "Yes", True), (PARTNERS, "off", False),
    (MODE, "value12", "value12"), (DEALER, "null", None), (DEALER, "2", 2),
])
def test_from_text_types_what_a_person_wrote(option: Option, text: str, value: object) -> None:
    parsed = option.from_text(text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(("option", "text", "message"), [
    (EPSILON, "much", "parameter 'epsilon' is a number (0.0..1.0), not 'much'"),
    (EPSILON, "nan", "parameter 'epsilon' is a number (0.0..1.0), not 'nan'"),
    (EPSILON, "-inf", "parameter 'epsilon' is a number (0.0..1.0), not '-inf'"),
    (TARGET, "1.5", "option 'target' is an integer (1..1000), not '1.5'"),
    (PARTNERS, "maybe", "option 'partnerships' is true or false, not 'maybe'"),
    (TARGET, "null", "option 'target' is an integer (1..1000), not 'null'"),
])
def test_from_text_says_what_it_wanted(option: Option, text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        option.from_text(text)
    assert str(err.value) == message


def test_a_float_option_is_described_as_data() -> None:
    assert EPSILON.to_dict() == {
        "name": "epsilon", "type": "float", "default": 0.0, "allowed": "0.0..1.0", "choices": None,
        "nullable": False, "doc": "exploration rate",
    }


# ---- every registered game --------------------------------------------------------------------------------------

GAMES = engine.list_games()
OPTION_CASES = [
    (game, option, players)
    for game in GAMES
    for option in engine.game_info(game).all_options()
    for players in engine.game_info(game).player_counts
]


def _case_id(case: tuple) -> str:
    game, option, players = case
    return f"{game}-{option.name}-{players}p"


def _wrong_type_values(option: Option) -> list:
    by_type = {int: ["1", 1.0, True], bool: [1, 0, "true"], str: [1, True, ["x"]]}
    return by_type[option.type]


def _value_outside(option: Option, allowed: tuple) -> object:
    if option.type is bool:
        return next((b for b in (False, True) if b not in allowed), None)
    if option.type is int:
        return max([0, *allowed]) + 1000
    return "no-such-value"


@pytest.mark.parametrize("game", GAMES)
def test_game_info_is_json_ready_and_lists_the_common_max_deals_option(game: str) -> None:
    info = engine.game_info(game)
    described = json.loads(json.dumps(info.to_dict()))
    assert described["id"] == game
    assert described["player_counts"] == list(info.player_counts)
    assert info.default_players in info.player_counts
    assert "max_deals" in [o["name"] for o in described["options"]]
    assert all(o["doc"] for o in described["options"]), "every option has a doc"


@pytest.mark.parametrize("case", OPTION_CASES, ids=_case_id)
def test_every_allowed_choice_starts_a_match(case: tuple) -> None:
    game, option, players = case
    allowed = option.allowed(players)
    values = list(allowed) if allowed is not None else [option.default_for(players)]
    for value in values:
        state = engine.new_match(game, seed=1, players=players, options={option.name: value})
        assert state.options[option.name] == value


@pytest.mark.parametrize("case", OPTION_CASES, ids=_case_id)
def test_a_wrong_type_is_a_clear_error(case: tuple) -> None:
    game, option, players = case
    for value in _wrong_type_values(option):
        with pytest.raises(ValueError) as err:
            engine.new_match(game, seed=1, players=players, options={option.name: value})
        assert repr(option.name) in str(err.value) and "allowed" in str(err.value)


@pytest.mark.parametrize("case", OPTION_CASES, ids=_case_id)
def test_values_outside_the_declared_ones_are_clear_errors(case: tuple) -> None:
    game, option, players = case
    bad = []
    allowed = option.allowed(players)
    if allowed is not None:
        bad.append(_value_outside(option, allowed))
    if option.minimum is not None:
        bad.append(option.minimum - 1)
    if option.maximum is not None:
        bad.append(option.maximum + 1)
    for value in (v for v in bad if v is not None):
        with pytest.raises(ValueError) as err:
            engine.new_match(game, seed=1, players=players, options={option.name: value})
        assert repr(option.name) in str(err.value) and "allowed" in str(err.value)


@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_option_names_the_games_options(game: str) -> None:
    with pytest.raises(ValueError) as err:
        engine.new_match(game, seed=1, options={"no_such_option": 1})
    message = str(err.value)
    assert "no_such_option" in message
    assert all(repr(o.name) in message for o in engine.game_info(game).all_options())
