"""Option value types agree everywhere: a game option is a bool, an int or a str (or null where it is nullable), and
each type is declared, validated, recorded in replays, carried by the API's messages and listed by ``cardtable games``
alike; a float game option is refused when its game registers (a policy's float parameters travel as text).

The same cases go through a real gRPC server in tests/services/test_grpc_option_types.py."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import engine
import replay
from engine.bots import policy_class, policy_label, policy_names
from engine.options import GAME_OPTION_TYPES, TYPE_NAMES, Option, check_game_options
from engine.registry import register
from replay.codec import Header, decode_frame, encode
from services.app.convert import OPTION_TYPES, option_spec, option_value, python_value
from services.cli.main import cli

# (option of tablanette, a value other than its default, the text a person writes for it, the type)
CASES = [
    ("last_play_tablanette", False, "false", bool),
    ("max_sum_cards", 2, "2", int),
    ("jack_mode", "value12", "value12", str),
    ("target", 151, "151", int),  # a nullable int
]
WRONG = {bool: 1, int: "2", str: 3}  # a value of another type, for each type


def _option(name: str) -> Option:
    return next(o for o in engine.game_info("tablanette").all_options() if o.name == name)


def test_the_cases_cover_every_game_option_type() -> None:
    assert {kind for *_, kind in CASES} == set(GAME_OPTION_TYPES) == set(OPTION_TYPES)


def test_every_game_declares_only_types_that_replays_and_the_api_carry() -> None:
    for game in engine.list_games():
        for option in engine.game_info(game).all_options():
            assert option.type in GAME_OPTION_TYPES, (game, option.name)


@pytest.mark.parametrize("name, value, text, kind", CASES)
def test_an_option_type_from_declaration_to_replay_api_and_listing(name, value, text, kind, cli_runner) -> None:
    option = _option(name)
    assert option.type is kind and option.check(value, 2) == value
    with pytest.raises(ValueError, match=name):
        engine.new_match("tablanette", options={name: WRONG[kind]})
    assert option.from_text(text) == value  # the CLI's --option NAME=TEXT
    header = replay.decode(replay.record_deal("tablanette", seed=3, options={name: value})).header
    assert header.options == {name: value} and type(header.options[name]) is kind
    sent = python_value(option_value(value))
    assert sent == value and type(sent) is kind
    assert option_spec(option, 2).type == OPTION_TYPES[kind]
    listed = json.loads(cli_runner.invoke(cli, ["games", "--json"]).output)
    tablanette = next(game for game in listed if game["id"] == "tablanette")
    assert next(o for o in tablanette["options"] if o["name"] == name)["type"] == TYPE_NAMES[kind]


def test_null_is_recorded_and_carried_as_null() -> None:
    header = Header(game="tablanette", players=2, seed=1, options={"target": None}, policies=("", ""))
    assert decode_frame(encode(header, [], 0)).header.options == {"target": None}
    assert python_value(option_value(None)) is None


def test_a_float_is_carried_by_neither_replays_nor_the_api() -> None:
    header = Header(game="tablanette", players=2, seed=1, options={"target": 151.0}, policies=("", ""))
    with pytest.raises(ValueError, match="null, a bool, an int or a string"):
        encode(header, [], 0)
    with pytest.raises(TypeError, match="None, a bool, an int or a str"):
        option_value(0.5)


def test_a_game_with_a_float_option_is_refused_when_it_registers() -> None:
    base = engine.game_class("tablic")

    info = replace(base.INFO, id="float_tablic", options=(*base.INFO.options, Option("bonus", float, 0.5, "a bonus")))
    game = type("FloatTablic", (base,), {"INFO": info})
    with pytest.raises(TypeError, match="option 'bonus' is a float, but a game option is a bool, an int or a str"):
        register(game)
    assert "float_tablic" not in engine.list_games()


def test_a_game_option_bound_is_an_int() -> None:
    with pytest.raises(TypeError, match="bound 0.5"):
        check_game_options("demo", [Option("target", int, 1, "a target", minimum=0.5)])


def test_a_policy_parameter_may_be_a_float_it_travels_as_text() -> None:
    epsilon = next(o for o in policy_class("greedy").param_spec if o.name == "epsilon")
    assert epsilon.type is float
    assert policy_label("greedy", {"epsilon": 0.25}) == "greedy:epsilon=0.25"


def test_every_option_and_parameter_value_reads_back_from_its_text() -> None:
    """Option.to_text is the one text form of a value (policy labels, the CLI): from_text reads it back exactly."""
    options = [(o, n) for g in engine.list_games() for n in engine.game_info(g).player_counts
               for o in engine.game_info(g).all_options()]
    options += [(o, None) for p in policy_names() for o in policy_class(p).param_spec]
    for option, players in options:
        values = [option.default_for(players), *(option.allowed(players) or ())]
        values += [v for v in (option.minimum, option.maximum) if v is not None]
        for value in values:
            back = option.from_text(option.to_text(value))
            assert back == value and type(back) is type(value), (option.name, value)
    epsilon = next(o for o in policy_class("greedy").param_spec if o.name == "epsilon")
    assert [epsilon.from_text(epsilon.to_text(x)) for x in (0.1, 1 / 3, 0.3)] == [0.1, 1 / 3, 0.3]
