"""The ``cardtable`` command line, run in-process with click's CliRunner (piped input, exit codes, JSON)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import engine
from engine.bots import greedy as greedy_module
from services.cli.main import cli
from services.cli.matchargs import parse_option_pairs
from services.cli.play import MoveError, resolve_move

SHORT = ["--option", "max_deals=1"]


def _clean_exit(result, code: int) -> None:
    """The command ended with ``code`` through click (no traceback from inside)."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


# ---- games ------------------------------------------------------------------------------------------------------

def test_games_json_lists_every_game_and_option(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["games", "--json"])
    _clean_exit(result, 0)
    infos = json.loads(result.output)
    assert [info["id"] for info in infos] == engine.list_games()
    for info in infos:
        expected = json.loads(json.dumps(engine.game_info(info["id"]).to_dict()))
        assert info == {**expected, "engine": engine.engine_kind()}
        assert info["engine"] in ("compiled", "python", "mixed")  # mixed: modules edited since `make install`
        assert {"max_deals"} <= {o["name"] for o in info["options"]}
        assert all({"name", "default", "allowed", "doc"} <= set(o) for o in info["options"])


def test_games_table_shows_games_and_options(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["games"])
    _clean_exit(result, 0)
    for game_id in engine.list_games():
        info = engine.game_info(game_id)
        assert game_id in result.output
        assert f"{game_id} options" in result.output
        for option in info.all_options():
            assert option.name in result.output
    # values as they are typed after --option NAME= (JSON), never Python's reprs
    assert "True" not in result.output and "None" not in result.output and "'per_trick'" not in result.output
    assert "per_trick, difference" in result.output or "per_trick," in result.output
    assert "2-7 (default 2)" in result.output  # two_ten_jack's player counts, as a range


# ---- play -------------------------------------------------------------------------------------------------------

def test_play_a_whole_match_through_piped_input_with_a_bad_move(cli_runner: CliRunner) -> None:
    moves = "ZZ\n99\n" + "1\n" * 60
    result = cli_runner.invoke(cli, ["play", "tablanette", "--seed", "5", "--opponents", "random", *SHORT],
                               input=moves)
    _clean_exit(result, 0)
    out = result.output
    assert "'ZZ' is not a legal move here" in out
    assert "there is no move number 99" in out
    assert "Your hand" in out and "Table" in out
    assert "seat 1 plays " in out
    assert out.count("You play ") == 24  # 2 players: 48 cards played per deal, half by the person (rules §3.4, §3.7)
    assert "Deal 1 over." in out
    assert "Match over." in out


@pytest.mark.parametrize("game", engine.list_games())
def test_play_renders_every_game(cli_runner: CliRunner, game: str) -> None:
    result = cli_runner.invoke(cli, ["play", game, "--seed", "3", "--seat", "1", *SHORT], input="1\n" * 400)
    _clean_exit(result, 0)
    assert "Match over." in result.output


def test_watch_says_when_a_match_has_no_winner(cli_runner: CliRunner) -> None:
    # boonaken.md 8.2: a seat's two - marks end the match and there is no winner
    result = cli_runner.invoke(cli, ["watch", "boonaken", "--seed", "2", "--policy", "random"])
    _clean_exit(result, 0)
    assert "Match over." in result.output and "No winner." in result.output and "Winner:" not in result.output


def test_play_same_seed_same_match(cli_runner: CliRunner) -> None:
    args = ["play", "tablic", "--seed", "8", *SHORT]
    first = cli_runner.invoke(cli, args, input="2\n1\n" * 40)
    second = cli_runner.invoke(cli, args, input="2\n1\n" * 40)
    _clean_exit(first, 0)
    assert first.output == second.output


def test_play_end_of_input_leaves_cleanly(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["play", "tablanette", "--seed", "5", *SHORT], input="1\n")
    _clean_exit(result, 1)
    assert "No more input: leaving the match unfinished." in result.output
    assert "--seed 5" in result.output


def test_play_quit(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["play", "tablanette", "--seed", "5"], input="q\n")
    _clean_exit(result, 0)
    assert "You left the match." in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["play", "tablanette", "--option", "foo=1"], "unknown option 'foo' for tablanette"),
    (["play", "tablanette", "--option", "target=many"], "option 'target' is an integer"),
    (["play", "tablanette", "--option", "target"], "options are written name=value"),
    (["play", "tablanette", "--option", "partnerships=maybe"], "option 'partnerships' is true or false"),
    (["play", "tablanette", "--option", "target=0"], "out of range"),
    (["play", "tablanette", "--option", "jack_mode=wild"], "is not allowed"),
    (["play", "tablanette", "--players", "7"], "tablanette is played by 2, 3, 4 players, not 7"),
    (["play", "tablanette", "--seat", "2"], "tablanette has seats 0..1"),
    (["play", "snap"], "unknown game 'snap'"),
    (["bench", "--game", "tablic", "--option", "max_deals=2"], "single-deal matches"),
    (["watch", "tablic", "--option", "foo=1"], "unknown option 'foo' for tablic"),
])
def test_bad_arguments_are_usage_errors(cli_runner: CliRunner, args: list[str], message: str) -> None:
    result = cli_runner.invoke(cli, args, input="q\n")
    _clean_exit(result, 2)
    assert message in result.output


def test_greedy_opponents_for_a_game_without_greedy_is_a_usage_error(
    cli_runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(greedy_module._RANKERS, "tablic")
    result = cli_runner.invoke(cli, ["play", "tablic", "--opponents", "greedy"], input="q\n")
    _clean_exit(result, 2)
    assert "no greedy heuristic" in result.output


def test_resolve_move_by_number_text_case_and_card() -> None:
    legal = ["7H", "KC:2C,3D,9S", "KC:5H,9S", "QS:3C,TD"]
    assert resolve_move("1", legal) == "7H"
    assert resolve_move(" qs:3c,td ", legal) == "QS:3C,TD"
    assert resolve_move("QS", legal) == "QS:3C,TD"  # the card alone, when it has one legal action
    with pytest.raises(MoveError, match="'KC' can be played in 2 ways; choose one: KC:2C,3D,9S, KC:5H,9S"):
        resolve_move("KC", legal)
    with pytest.raises(MoveError, match="no move number 0"):
        resolve_move("0", legal)
    with pytest.raises(MoveError, match="'AS' is not a legal move here"):
        resolve_move("AS", legal)


def test_parse_option_pairs_types_values() -> None:
    assert parse_option_pairs("tablanette", ["target=null", "partnerships=yes", "jack_mode=value12"]) == {
        "target": None, "partnerships": True, "jack_mode": "value12"}


# ---- watch ------------------------------------------------------------------------------------------------------

def test_watch_plays_a_whole_match(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["watch", "tablanette", "--seed", "7", "--policy", "greedy", "--policy", "random"])
    _clean_exit(result, 0)
    assert "seat 0 (greedy)" in result.output and "seat 1 (random)" in result.output
    assert "Deal 1 over." in result.output
    assert "Match over." in result.output


# ---- bench ------------------------------------------------------------------------------------------------------

def test_bench_json(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["bench", "--game", "tablanette", "--players", "2", "--seconds", "0.5", "--json"])
    _clean_exit(result, 0)
    report = json.loads(result.output)
    assert report["moves_per_s"] > 0
    assert report["deals"] >= 1 and report["moves"] >= report["deals"]
    assert report["options"] == {"max_deals": 1}
    assert report["seconds"] >= 0.5
    assert report["moves_per_s"] == pytest.approx(report["moves"] / report["seconds"], rel=0.01)
    assert report["us_per_move"] == pytest.approx(1e6 / report["moves_per_s"], rel=0.01)


def test_bench_text_says_single_deal(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["bench", "--game", "tablic", "--policy", "greedy", "--seconds", "0.2"])
    _clean_exit(result, 0)
    assert "single-deal matches (max_deals=1)" in result.output
    assert "deals/s" in result.output and "moves/s" in result.output and "µs/move" in result.output


def test_help_of_every_command(cli_runner: CliRunner) -> None:
    for command in ([], ["games"], ["play"], ["watch"], ["bench"]):
        result = cli_runner.invoke(cli, [*command, "--help"])
        _clean_exit(result, 0)
        assert "Usage:" in result.output


@pytest.mark.integration  # a process of its own
def test_python_m_runs_the_cli() -> None:
    """`python -m services.cli.main` is the `cardtable` command (from a checkout, as the speed commands run it)."""
    ran = subprocess.run([sys.executable, "-m", "services.cli.main", "games", "--json"], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    assert {game["id"] for game in json.loads(ran.stdout)} == set(engine.list_games())


@pytest.mark.integration  # a fresh interpreter: nothing imported yet
def test_the_commands_are_listed_without_importing_them(cli_runner: CliRunner) -> None:
    """`cardtable --help` lists every command from services.cli.main.COMMANDS, importing none of their modules, as
    click lists the commands themselves: each entry's paragraph is its command's own."""
    from services.cli.main import COMMANDS

    script = ("import sys\nfrom click.testing import CliRunner\nfrom services.cli.main import cli\n"
              "print(CliRunner().invoke(cli, ['--help']).output, end='')\n"
              "heavy = ('engine', 'replay', 'workers', 'numpy', 'redis', 'grpc', 'ray', 'rich')\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m.startswith('services.cli.')),"
              " file=sys.stderr)\n")
    fresh = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[1], env={**os.environ, "COLUMNS": "80"})
    assert fresh.stderr.strip() == "['services.cli.main', 'services.cli.refusals']"
    assert sorted(cli.commands) == sorted(COMMANDS)
    for name, (where, paragraph) in COMMANDS.items():
        command = cli.commands[name]
        assert f"{command.callback.__module__}:{command.name}" == where
        assert (command.help or "").split("\n\n")[0].split() == paragraph.split()
    with_commands = cli_runner.invoke(cli, ["--help"], env={"COLUMNS": "80"})
    _clean_exit(with_commands, 0)
    assert fresh.stdout == with_commands.output



# ---- policies of one's own: local commands and servers ---------------------------------------------------------------

def test_a_local_command_finds_a_policy_in_the_current_folder(cli_runner: CliRunner, tmp_path, monkeypatch) -> None:
    from planted import evil_module

    marker = tmp_path / "evil-ran"
    (tmp_path / "localbot.py").write_text(evil_module(marker))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [*sys.path])  # the command adds the current folder: not for the other tests
    result = cli_runner.invoke(cli, ["bench", "--game", "tablanette", "--policy", "localbot:Bot", "--seconds", "0",
                                     "--json"])
    _clean_exit(result, 0)
    assert json.loads(result.output)["policy"] == "localbot:Bot" and marker.read_text() == "evil ran"


@pytest.mark.parametrize("command", ["serve", "web"])
def test_the_servers_take_the_allowed_policy_modules_and_folders(cli_runner: CliRunner, command: str) -> None:
    result = cli_runner.invoke(cli, [command, "--help"])
    _clean_exit(result, 0)
    text = " ".join(result.output.split())
    assert "--allow-policies MODULES Let clients name policies by import path (module:Class)" in text
    assert "$CARDTABLE_ALLOW_POLICIES, else none: only the built-in policies and the installed entry points" in text
    assert "--policy-path DIR A folder the allowed modules are imported from" in text
    assert "$CARDTABLE_POLICY_PATH" in text
    bad = cli_runner.invoke(cli, [command, "--allow-policies", "mybots,../evil"])
    _clean_exit(bad, 2)
    assert "Invalid value for '--allow-policies': '../evil' is not a module name (such as mybots or " \
           "mybots.cautious)" in bad.output
    from_env = cli_runner.invoke(cli, [command], env={"CARDTABLE_ALLOW_POLICIES": "mybots,my-bots"})
    _clean_exit(from_env, 2)
    assert "'my-bots' is not a module name" in from_env.output


# ---- --redis-url ----------------------------------------------------------------------------------------------------

BAD_REDIS_URLS = ["127.0.0.1:6379", "redis://127.0.0.1:notaport", "http://127.0.0.1:6379"]
REDIS_COMMANDS = [
    ["simulate", "german_whist", "--deals", "5", "--policies", "random"],
    ["tournament", "german_whist", "--policies", "random,greedy", "--deals", "2"],
    ["play", "tablanette", "--save"],
    ["watch", "tablanette", "--save"],
    ["serve"],
    ["web"],
]


@pytest.mark.parametrize("url", BAD_REDIS_URLS)
@pytest.mark.parametrize("command", REDIS_COMMANDS, ids=lambda c: c[0])
def test_a_malformed_redis_url_is_a_usage_error_before_anything_runs(cli_runner: CliRunner, command: list[str],
                                                                     url: str) -> None:
    result = cli_runner.invoke(cli, [*command, "--redis-url", url], input="")
    _clean_exit(result, 2)
    assert f"{url!r} is not a Redis URL" in result.output


@pytest.mark.parametrize("group", [["jobs", "list"], ["replay", "list"]], ids=lambda g: g[0])
def test_a_malformed_redis_url_from_the_environment_is_a_usage_error(cli_runner: CliRunner, group: list[str]) -> None:
    result = cli_runner.invoke(cli, group, env={"REDIS_URL": "127.0.0.1:6379"})
    _clean_exit(result, 2)
    assert "'127.0.0.1:6379' is not a Redis URL" in result.output


@pytest.mark.integration  # a socket, to find a port nothing answers on
def test_web_with_a_redis_that_does_not_answer_is_one_line(cli_runner: CliRunner, monkeypatch) -> None:
    import socket

    monkeypatch.setattr(sys, "path", [*sys.path])  # a server takes its working folder off the path: not for the suite

    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = cli_runner.invoke(cli, ["web", "--port", "0", "--redis-url", f"redis://127.0.0.1:{port}"])
    _clean_exit(result, 1)
    assert result.output.startswith(f"Error: cannot reach Redis at redis://127.0.0.1:{port}")
    assert "cardtable web:" not in result.output  # nothing was served


def test_ctrl_c_in_a_command_with_nothing_to_record_is_one_line_and_exit_code_130(
        cli_runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("services.cli.bench.run_bench", interrupted)
    result = cli_runner.invoke(cli, ["bench", "--game", "german_whist", "--seconds", "1"])
    _clean_exit(result, 130)
    assert result.output == "interrupted\n"


@pytest.mark.integration  # a socket, to find a port nothing answers on
@pytest.mark.parametrize("command", [["play", "tablanette"], ["watch", "tablanette"]], ids=lambda c: c[0])
def test_save_to_a_redis_that_does_not_answer_fails_before_the_match(cli_runner: CliRunner, command: list[str]) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = cli_runner.invoke(cli, [*command, "--seed", "3", "--save", "--redis-url", f"redis://127.0.0.1:{port}"],
                               input="1\n" * 200)
    _clean_exit(result, 1)
    assert result.output.startswith(f"Error: --save: cannot reach Redis at redis://127.0.0.1:{port}"), result.output
