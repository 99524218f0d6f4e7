"""An unknown game, option or policy and a player count the game is not played by are refused by every command that
takes them with the typed error's own message (engine/errors.py) and the exit code of its status
(services/cli/refusals.py's EXIT_CODE, the CLI's one table), never reworded: click adds only its usage lines and the
name of the parameter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import CliRunner

import engine
from engine.bots import canonical_label
from services.app.errors import refusal
from services.cli import refusals
from services.cli.main import cli

pytestmark = pytest.mark.unit


def _raised(call: Callable[[], object]) -> Exception:
    try:
        call()
    except ValueError as exc:
        return exc
    raise AssertionError("no error")


def _unknown_game() -> object:
    return engine.game_info("snap")


def _unknown_option() -> object:
    return engine.check_options("tablanette", ["foo"])


def _too_many_players() -> object:
    return engine.check_players("tablanette", 7)


def _unknown_policy() -> object:
    return canonical_label("clever")


RUN = ["--deals", "3"]

CASES = [
    (["play", "snap"], _unknown_game),
    (["watch", "snap"], _unknown_game),
    (["simulate", "snap", *RUN, "--policies", "random"], _unknown_game),
    (["tournament", "snap", *RUN, "--policies", "random,greedy"], _unknown_game),
    (["bench", "--game", "snap"], _unknown_game),
    (["play", "tablanette", "--option", "foo=1"], _unknown_option),
    (["watch", "tablanette", "--option", "foo=1"], _unknown_option),
    (["simulate", "tablanette", *RUN, "--policies", "random", "--option", "foo=1"], _unknown_option),
    (["tournament", "tablanette", *RUN, "--policies", "random,greedy", "--option", "foo=1"], _unknown_option),
    (["bench", "--game", "tablanette", "--option", "foo=1"], _unknown_option),
    (["play", "tablanette", "--players", "7"], _too_many_players),
    (["simulate", "tablanette", *RUN, "--policies", "random", "--players", "7"], _too_many_players),
    (["tournament", "tablanette", *RUN, "--policies", "random,greedy", "--players", "7"], _too_many_players),
    (["bench", "--game", "tablanette", "--players", "7"], _too_many_players),
    (["play", "tablanette", "--opponents", "clever"], _unknown_policy),
    (["simulate", "tablanette", *RUN, "--policies", "clever"], _unknown_policy),
    (["tournament", "tablanette", *RUN, "--policies", "random,clever"], _unknown_policy),
    (["bench", "--game", "tablanette", "--policy", "clever"], _unknown_policy),
]


@pytest.mark.parametrize(("args", "typed"), CASES, ids=[" ".join(args) for args, _ in CASES])
def test_a_refused_argument_says_the_typed_error_with_its_exit_code(args: list[str], typed: Callable[[], object],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    error = _raised(typed)
    refused = refusal(error)
    assert refused is not None and refused.status == "INVALID_ARGUMENT"
    # the exit code is read from the table (a code of its own here, so that click's default 2 cannot pass for it)
    monkeypatch.setitem(refusals.EXIT_CODE, "INVALID_ARGUMENT", 3)
    result = CliRunner().invoke(cli, args, input="q\n")
    assert result.exit_code == 3, result.output
    last = result.output.rstrip("\n").splitlines()[-1]
    assert last.startswith("Error: ") and last.endswith(str(error)), last
