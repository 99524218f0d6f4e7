"""``cardtable play`` and ``watch`` as a person reads them: moves in hand order, captures typed in any order, tricks
one by one, sides labelled, lines broken only between items, Ctrl-C, --delay; and policy labels with parameters
wherever a policy is named (play, watch, bench)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from waiting import wait_until

import engine
from services.cli.main import cli
from services.cli.play import resolve_move

SHORT = ["--option", "max_deals=1"]
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


def _ok(result, code: int = 0) -> str:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.output


def _prompts(output: str) -> list[tuple[list[str], list[str]]]:
    """Each time the person is asked: the cards of ``Your hand`` and the moves as numbered."""
    asked = []
    hand: list[str] = []
    lines = output.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("Your hand"):
            hand = line.split()[2:]
        if line.startswith("1) "):
            block = [line]
            for more in lines[number + 1:]:
                if not re.match(r"\d+\) ", more):
                    break
                block.append(more)
            numbered = re.findall(r"(\d+)\) (\S+)", " ".join(block))
            assert [int(n) for n, _ in numbered] == list(range(1, len(numbered) + 1))
            asked.append((hand, [move for _, move in numbered]))
    return asked


# ---- play: moves, captures, tricks, sides ---------------------------------------------------------------------------

@pytest.mark.parametrize("game", engine.list_games())  # Thunee and Botifarra with calls before the cards
def test_moves_are_numbered_in_the_order_of_the_hand(cli_runner: CliRunner, game: str) -> None:
    output = _ok(cli_runner.invoke(cli, ["play", game, "--seed", "7", *SHORT], input="1\n" * 200))
    asked = [(hand, moves) for hand, moves in _prompts(output) if len(moves) > 1 and ":" not in "".join(hand)]
    card_moves = [(hand, moves) for hand, moves in asked if all(m.partition(":")[0] in hand for m in moves)]
    assert card_moves, output
    for hand, moves in card_moves:
        places = [hand.index(move.partition(":")[0]) for move in moves]
        assert places == sorted(places), (hand, moves)
    assert any(sorted(moves) != moves for _, moves in card_moves)  # not the engine's byte order by chance


def test_the_number_typed_is_the_number_shown() -> None:
    from services.cli.render import hand_order
    moves = hand_order(["3C", "9D:7H", "AD", "9D"], ["AD", "9D", "3C"])
    assert moves == ["AD", "9D:7H", "9D", "3C"]
    assert resolve_move("1", moves) == "AD" and resolve_move("4", moves) == "3C"


def test_a_capture_typed_with_its_cards_in_any_order_is_played(cli_runner: CliRunner) -> None:
    capture, reordered = "AD:7H,4S", "ad: 4s,7h"  # the README's example (seed 42), played as one whole turn
    result = cli_runner.invoke(cli, ["play", "tablanette", "--seed", "42", "--opponents", "random", *SHORT],
                               input=f"{reordered}\n" + "1\n" * 60)
    output = _ok(result)
    assert f"You play {capture}\n" in output
    assert "not a legal move" not in output.split(f"You play {capture}")[0]


@pytest.mark.parametrize(("game", "seed"), [("tablanette", 42), ("tablic", 3)])
def test_fishing_moves_are_whole_turns_with_their_cards(cli_runner: CliRunner, game: str, seed: int) -> None:
    """Issue 28: the menu listed a sum capture as ``3) AC:`` with no cards, then asked for its cards in one-option
    menus ("type a number from 1 to 1"). Every move listed is a whole turn, a capture with its cards."""
    output = _ok(cli_runner.invoke(cli, ["play", game, "--seed", str(seed), *SHORT], input="2\n" * 80))
    asked = _prompts(output)
    moves = [move for _, listed in asked for move in listed]
    assert any(re.fullmatch(r"[2-9TJQKA][CDHS]:[2-9TJQKA][CDHS](,[2-9TJQKA][CDHS])+", m) for m in moves), output
    assert not [m for m in moves if m.endswith(":") or m.startswith("+") or m in ("next", "done")], output
    assert all(len(listed) > 1 for _, listed in asked)
    assert "from 1 to 1" not in output and "phase: capture" not in output


def test_a_sum_capture_chosen_by_number_is_played_whole(cli_runner: CliRunner) -> None:
    result = cli_runner.invoke(cli, ["play", "tablanette", "--seed", "42", "--opponents", "random", *SHORT],
                               input="5\n" + "1\n" * 60)
    output = _ok(result)
    first = _prompts(output)[0][1]
    assert first[4] == "AD:7H,4S" and "AD:" not in first
    assert output.split("Your move > ", 1)[1].startswith("You play AD:7H,4S\n")


def test_a_capture_begun_by_its_card_is_finished_by_the_whole_turn(cli_runner: CliRunner) -> None:
    """A capture's first step typed alone (``4H:``, as the engine's steps write it) still works: the next menu lists
    the whole turns that finish it, and the whole turn typed then plays it."""
    result = cli_runner.invoke(cli, ["play", "tablic", "--seed", "4", "--opponents", "random", *SHORT],
                               input="4H:\n4h:4s,4d\n" + "1\n" * 80)
    output = _ok(result)
    first, again = (listed for _, listed in _prompts(output)[:2])
    assert {"4H:4D", "4H:4D,4S", "4H:4S"} <= set(first)
    assert again == ["4H:4D", "4H:4D,4S", "4H:4S"]
    assert "You play 4H:4D,4S\n" in output and "not a legal move" not in output.split("You play 4H:4D,4S")[0]


def test_the_only_legal_move_is_played_with_a_line_saying_so(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["play", "german_whist", "--seed", "2", *SHORT], input="1\n" * 60))
    assert "Your only legal move, played for you: " in output  # the last trick's card at least
    assert "from 1 to 1" not in output and all(len(listed) > 1 for _, listed in _prompts(output))


def test_watch_shows_whole_turns(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["watch", "tablic", "--seed", "3", *SHORT]))
    moves = re.findall(r"-> (\S+)", output)
    assert any(re.fullmatch(r"..:..(,..)+", m) for m in moves), output
    assert not [m for m in moves if m.endswith(":") or m.startswith("+") or m in ("next", "done")], output


def test_belote_contree_shows_the_tricks_one_by_one(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["play", "belote_contree", "--seed", "3", *SHORT], input="1\n" * 60))
    last = output.rsplit("\nTricks  ", 1)[1].splitlines()
    tricks = [line.split() for line in last[:7]]
    assert [words[0] for words in tricks] == [f"{n}:" for n in range(1, 8)], "\n".join(last[:8])
    for words in tricks:  # four plays a trick: "seat 1 QC," ... "you 8C"
        assert len(re.findall(r"\b[2-9TJQKA][CDHS]\b", " ".join(words))) == 4


def test_partnership_scores_are_shown_per_side_with_its_seats(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["play", "belote_contree", "--seed", "3", *SHORT], input="1\n" * 60))
    assert "scores: side A (you + seat 2) 0, side B (seat 1 + seat 3) 0" in " ".join(output.split())
    final = " ".join(output.split("Match over.")[1].split())
    assert re.search(r"Final scores: side A \(you \+ seat 2\) \d+, side B \(seat 1 \+ seat 3\) \d+\.", final)
    assert "Points: side A (you + seat 2)" in " ".join(output.split())
    assert "[" not in output and "False" not in output and "None" not in output


def test_no_target_row_without_a_target(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["play", "german_whist", "--seed", "5", *SHORT], input="1\n" * 60))
    assert "Your hand" in output
    assert "Target" not in output


def test_a_set_the_opponent_declares_by_its_size_shows_no_rank(cli_runner: CliRunner) -> None:
    # trappola.md 6.4: seat 1 (greedy) declares three kings with seed 1; the person sees "declare:three" only
    output = _ok(cli_runner.invoke(cli, ["play", "trappola", "--seed", "1"], input="1\n" * 60))
    assert "seat 1 plays declare:three\n" in output and "declare:three, 0" in output
    assert "seat 1 plays declare:three:" not in output and "Declarations: you 0, seat 1 6." in " ".join(output.split())


@pytest.mark.parametrize(("game", "players"), [("tablic", "2"), ("belote_contree", "4"), ("tablanette", "4")])
def test_lines_break_between_items_never_inside_one(game: str, players: str) -> None:
    width = 44
    runner = CliRunner(env={"COLUMNS": str(width)})
    output = _ok(runner.invoke(cli, ["play", game, "--seed", "11", "--players", players, *SHORT], input="1\n" * 200))
    watched = _ok(runner.invoke(cli, ["watch", game, "--seed", "11", "--players", players, *SHORT]))
    lines = [line for line in (output + watched).splitlines()
             if not line.startswith(("Tablić,", "Belote contrée,", "Tablanette,", "number or", "opponents:"))]
    for line, after in zip(lines, [*lines[1:], ""], strict=True):  # the opening sentence is prose: it wraps
        assert len(line) <= width, line
        assert not re.search(r"(\bseat|\bside [A-D]|\d\)|->|[a-z]:)$", line), f"{line}\n{after}"  # cut in an item
        cut_play = re.search(r"\bseat \d+$", line) and re.match(r"\s*[2-9TJQKA][CDHS]\b", after)
        assert not cut_play, f"{line}\n{after}"
    state = engine.new_match(game, seed=11, players=int(players))
    assert all(re.search(rf"\d+\) {re.escape(move)}(\s|$)", output) for move in state.legal_actions()
               if state.current_player == 0)


# ---- play and watch: Ctrl-C, --delay ------------------------------------------------------------------------------

def _state_of(pid: int) -> str:
    """The process's state letter in /proc (S: asleep in a blocking call)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _interrupt(args: list[str], ready: str) -> subprocess.CompletedProcess:
    """Start ``cardtable ARGS``, wait for ``ready`` on its output, send SIGINT; the finished process, with what it
    printed after ``ready``."""
    env = {**os.environ, "COLUMNS": "100", "PYTHONUNBUFFERED": "1"}
    # A terminal's Ctrl-C: the child hears SIGINT even when the suite runs in the background of a shell without job
    # control, which starts its commands with SIGINT ignored (and Python keeps an ignored SIGINT ignored).
    proc = subprocess.Popen([CARDTABLE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out = proc.stdout.fileno()
    seen = b""
    while ready.encode() not in seen:
        chunk = os.read(out, 1)
        assert chunk, f"the command ended before {ready!r}: {seen.decode()}"
        seen += chunk
    # Python runs a signal's handler between bytecodes: a SIGINT that came just before the blocking read (or sleep)
    # began would wait for the read to end
    wait_until(lambda: _state_of(proc.pid) == "S", 30, "the command did not block", interval=0.01)
    proc.send_signal(signal.SIGINT)
    rest = b""
    while chunk := os.read(out, 4096):
        rest += chunk
    err = proc.stderr.read()
    proc.wait(timeout=120)
    proc.stdin.close()
    return subprocess.CompletedProcess(args, proc.returncode, rest.decode(), err.decode())


@pytest.mark.parametrize(("args", "ready"), [
    (["play", "tablanette", "--seed", "5"], "Your move > "),
    (["watch", "tablanette", "--seed", "5", "--delay", "600"], "Deal 1, dealer seat 1\n"),
])
@pytest.mark.integration  # a cardtable process
def test_ctrl_c_ends_with_one_line_and_exit_code_130(args: list[str], ready: str) -> None:
    done = _interrupt(args, ready)
    assert done.returncode == 130, done
    assert done.stderr == ""
    said = [line for line in done.stdout.splitlines() if line.strip() and not line.startswith("  ")]  # not moves
    assert said == ["Interrupted: the match is left unfinished (play it again with --seed 5)."], done.stdout


def test_watch_delay_is_an_option(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["watch", "german_whist", "--seed", "2", "--delay", "0", *SHORT]))
    assert "Match over." in output
    bad = cli_runner.invoke(cli, ["watch", "german_whist", "--delay", "-1"])
    assert bad.exit_code == 2 and "--delay" in bad.output


# ---- policies with parameters everywhere ----------------------------------------------------------------------------

def test_play_opponents_take_parameters(cli_runner: CliRunner) -> None:
    args = ["play", "tablanette", "--seed", "5", "--opponents", "greedy:epsilon=0.30", *SHORT]
    output = _ok(cli_runner.invoke(cli, args, input="1\n" * 60))
    assert "opponents: greedy:epsilon=0.3." in output
    assert "Match over." in output


def test_watch_policies_take_parameters(cli_runner: CliRunner) -> None:
    args = ["watch", "tablanette", "--seed", "5", "--policy", "greedy:epsilon=1", "--policy", "greedy", *SHORT]
    output = _ok(cli_runner.invoke(cli, args))
    assert "seat 0 (greedy:epsilon=1.0), seat 1 (greedy)" in output
    random_like = _ok(cli_runner.invoke(cli, ["watch", "tablanette", "--seed", "5", "--policy", "random",
                                              "--policy", "greedy", *SHORT]))
    plain_greedy = _ok(cli_runner.invoke(cli, ["watch", "tablanette", "--seed", "5", *SHORT]))
    assert output.split("\n", 1)[1] != plain_greedy.split("\n", 1)[1]  # epsilon=1 is not plain greedy
    assert random_like  # the same labels as simulate: a policy name alone is still a label


def test_bench_policy_takes_parameters(cli_runner: CliRunner) -> None:
    args = ["bench", "--game", "tablanette", "--policy", "greedy:epsilon=0.3", "--seconds", "0.2", "--json"]
    report = json.loads(_ok(cli_runner.invoke(cli, args)))
    assert report["policy"] == "greedy:epsilon=0.3"


@pytest.mark.parametrize("args", [
    ["play", "tablanette", "--opponents", "greedy:epsilon=2"],
    ["watch", "tablanette", "--policy", "greedy:epsilon=2"],
    ["bench", "--game", "tablanette", "--policy", "greedy:epsilon=2"],
])
def test_a_bad_policy_parameter_is_a_usage_error(cli_runner: CliRunner, args: list[str]) -> None:
    output = _ok(cli_runner.invoke(cli, args, input="q\n"), 2)
    assert "epsilon" in output and "Invalid value" in output


@pytest.mark.parametrize("args", [
    ["play", "tablanette", "--opponents", "clever"],
    ["watch", "tablanette", "--policy", "clever:x=1"],
])
def test_an_unknown_policy_names_the_policies_in_words(cli_runner: CliRunner, args: list[str]) -> None:
    output = _ok(cli_runner.invoke(cli, args, input="q\n"), 2)
    assert "unknown policy 'clever'; policies are greedy, ismcts, pimc, random" in output


def test_games_says_the_default_player_count_in_words(cli_runner: CliRunner) -> None:
    output = _ok(cli_runner.invoke(cli, ["games"]))
    assert "bold" not in output  # a pipe or a file loses bold type, so no hint may rely on it
    assert "2, 3, 4 (default 4)" in output


def test_boonaken_moves_are_numbered_in_the_order_of_the_hand(cli_runner: CliRunner) -> None:
    test_moves_are_numbered_in_the_order_of_the_hand(cli_runner, "boonaken")


def test_a_boonaken_discard_by_another_seat_shows_no_cards(cli_runner: CliRunner) -> None:
    # boonaken.md 6.1: the person passes; a greedy seat that takes the contract discards face down
    output = _ok(cli_runner.invoke(cli, ["play", "boonaken", "--seed", "3", *SHORT], input="pass\n" * 10 + "1\n" * 60))
    declared = re.findall(r"seat (\d) plays discard(\S*)", output)
    assert declared and all(cards == "" for _seat, cards in declared), declared
