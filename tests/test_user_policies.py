"""Policies of one's own (issue 16): by import path and by entry point, wherever a policy is named, and the clear
errors of a bad path, a policy that raises and one that answers an illegal action."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine
from engine.bots import (
    IllegalPolicyAction,
    Policy,
    canonical_label,
    make_policies,
    make_policy,
    play_out,
    policy_infos,
    policy_names,
)
from engine.bots.plugins import refresh_entry_points
from services.app.allowed_policies import PolicyAllowList
from services.app.convert import policy_label_of
from services.app.errors import InvalidArgument
from services.cli.main import cli
from workers.chunk import DealFailed, play_chunk
from workers.cluster import policy_code
from workers.plan import Chunk, bot_seed, match_seed
from workers.spec import JobSpec, JobSpecError, validate

pytestmark = pytest.mark.usefixtures("user_policies")
ROOT = Path(__file__).resolve().parents[1]
CAUTIOUS = "mybots.cautious:Cautious"
ALLOWED = PolicyAllowList(("mybots", "ctpolicies", "nosuchbots"))  # as a server started with --allow-policies


def _winners(labels: list[str], seeds: range) -> list[int]:
    wins = [0, 0]
    for seed in seeds:
        state = engine.new_match("tablanette", seed=seed, options={"max_deals": 1})
        play_out(state, make_policies(labels, "tablanette", seed))
        for seat in state.winners:
            wins[seat] += 1
    return wins


def test_a_policy_by_import_path_plays_and_repeats() -> None:
    first, again = _winners([CAUTIOUS, "random"], range(60)), _winners([CAUTIOUS, "random"], range(60))
    assert first == again and first[0] > first[1]  # it captures whenever it can: far better than random


def test_an_import_path_label_takes_parameters() -> None:
    assert canonical_label(f"{CAUTIOUS}:risk=0.50") == f"{CAUTIOUS}:risk=0.5"
    assert canonical_label(f"{CAUTIOUS}:risk=0") == CAUTIOUS
    assert make_policy(CAUTIOUS, "tablic", 1, 7, {"risk": 0.25}).params == {"risk": 0.25}
    with pytest.raises(ValueError, match=r"policy 'mybots.cautious:Cautious' has no parameter 'depth'; it takes risk"):
        canonical_label(f"{CAUTIOUS}:depth=2")


def test_the_documented_interface_names_and_summarizes_the_class() -> None:
    cls = type(make_policy(CAUTIOUS, "tablanette", 0, 1))
    assert cls.name == CAUTIOUS and cls.summary.startswith("Captures whenever it can")
    assert issubclass(cls, Policy)


@pytest.mark.parametrize(("label", "message"), [
    ("nosuchbots.clever:Clever", r"policy 'nosuchbots.clever:Clever': cannot import 'nosuchbots.clever' \(No module "
                                 r"named 'nosuchbots'\); is its folder the current directory or on PYTHONPATH\?"),
    ("mybots.cautious:Reckless", r"policy 'mybots.cautious:Reckless': 'mybots.cautious' has no 'Reckless'"),
    ("ctpolicies:NOT_A_POLICY", r"policy 'ctpolicies:NOT_A_POLICY' is 42, not a subclass of engine.bots.Policy"),
    ("ctpolicies:Stubborn", r"policy 'ctpolicies:Stubborn' could not be built for tablanette seat 0: RuntimeError: "
                            r"no table for me"),
    ("ctpolicies:", r"policy label starts with|import path is MODULE:CLASS"),
])
def test_a_bad_policy_is_a_clear_error_everywhere_a_policy_is_named(label: str, message: str, cli_runner) -> None:
    with pytest.raises(ValueError, match=message):
        make_policies([label, "random"], "tablanette", 1)
    with pytest.raises(JobSpecError, match=message):
        validate(JobSpec(game="tablanette", policies=(label, "random"), count=10, seed=1))
    if label != "ctpolicies:Stubborn":  # built when a seat is set up, not when its label is read
        with pytest.raises(InvalidArgument, match=message):
            policy_label_of(label, {}, ALLOWED)
    result = cli_runner.invoke(cli, ["simulate", "tablanette", "--deals", "10", "--policies", f"{label},random"])
    assert result.exit_code == 2 and re.search(message, " ".join(result.output.split())), result.output


def test_a_policy_of_ones_own_refuses_a_game_it_cannot_play() -> None:
    with pytest.raises(ValueError, match="Cautious plays tablanette, tablic, not belote"):
        make_policy(CAUTIOUS, "belote", 0, 1)


def test_grpc_names_a_policy_by_import_path_with_parameters() -> None:
    assert policy_label_of(CAUTIOUS, {"risk": "0.5"}, ALLOWED) == f"{CAUTIOUS}:risk=0.5"
    with pytest.raises(InvalidArgument, match="unknown policy 'clever'"):
        policy_label_of("clever", {}, ALLOWED)


def test_an_illegal_answer_names_the_policy_the_answer_and_the_legal_actions() -> None:
    cheater = make_policy("ctpolicies:Cheater", "tablanette", 1, 3)
    with pytest.raises(IllegalPolicyAction, match=r"policy 'ctpolicies:Cheater' \(seat 1\) chose 'ZZ', which is not "
                                                  r"one of its legal actions: 7H, QS:3C,TD"):
        cheater({"legal_actions": ["7H", "QS:3C,TD"]})


def _chunk_error(policies: tuple[str, ...], count: int = 12) -> tuple[JobSpec, str]:
    spec = validate(JobSpec(game="german_whist", policies=policies, count=count, seed=5))
    with pytest.raises(DealFailed) as failure:
        play_chunk(spec, Chunk(0, 0, count))
    return spec, str(failure.value)


def test_a_policy_that_raises_is_named_with_the_deal_its_seeds_and_the_move() -> None:
    _, message = _chunk_error(("random", "ctpolicies:Faulty"))
    number = next(n for n in range(12) if bot_seed(5, n) % 4 == 0)
    assert message.startswith("policy 'ctpolicies:Faulty' (seat 1) failed at move ")
    # deals counted from 1 for people: the job's deal number N (from 0, its replay's number) is "deal N + 1"
    assert f"of deal {number + 1} of the job (match seed {match_seed(5, number)}, bot seed {bot_seed(5, number)}; " \
           "german_whist deal 1, phase play, legal actions " in message
    assert "ZeroDivisionError: integer division or modulo by zero at " in message
    assert message.endswith(str(ROOT / "tests" / "fixtures" / "ctpolicies" / "__init__.py") + ":25")


def test_a_policy_that_answers_an_illegal_action_fails_its_deal_clearly() -> None:
    _, message = _chunk_error(("ctpolicies:Cheater", "random"))
    assert message.startswith("policy 'ctpolicies:Cheater' (seat ") and "of deal 1 of the job (match seed " in message
    assert "IllegalPolicyAction: policy 'ctpolicies:Cheater' (seat " in message and "chose 'ZZ'" in message


def test_the_workers_get_the_code_of_policies_of_ones_own_only() -> None:
    assert policy_code([CAUTIOUS, "greedy", "random"]) == [str(ROOT / "examples" / "mybots")]
    assert policy_code(["ctpolicies:Faulty", f"{CAUTIOUS}:risk=0.1", CAUTIOUS]) == [
        str(ROOT / "tests" / "fixtures" / "ctpolicies"), str(ROOT / "examples" / "mybots")]
    assert policy_code(["greedy", "engine.bots.policy:RandomPolicy"]) == []


@pytest.fixture
def installed_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A package installed here that registers two policies under cardtable.policies, one of which is broken."""
    dist = tmp_path / "fancybots-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fancybots\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[cardtable.policies]\ncautious = {CAUTIOUS}\n"
                                           "broken = nosuchbots:Thing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_entry_points()
    yield
    monkeypatch.undo()
    refresh_entry_points()


@pytest.mark.usefixtures("installed_bots")
def test_an_entry_point_names_a_policy_and_the_policies_command_lists_it(cli_runner) -> None:
    assert {"broken", "cautious", "greedy", "random"} <= set(policy_names())
    assert canonical_label("cautious:risk=0.3") == "cautious:risk=0.3"
    assert _winners(["cautious", "random"], range(20)) == _winners([CAUTIOUS, "random"], range(20))
    infos = {info["name"]: info for info in policy_infos()}
    assert infos["cautious"]["source"] == f"entry point {CAUTIOUS} (fancybots)"
    assert infos["cautious"]["games"] == ["tablanette", "tablic"] and infos["cautious"]["params"][0]["name"] == "risk"
    assert infos["broken"]["doc"].startswith("policy 'broken' (entry point nosuchbots:Thing (fancybots)) cannot be "
                                             "loaded: ModuleNotFoundError")
    assert infos["random"]["source"] == "built in"
    listed = json.loads(cli_runner.invoke(cli, ["policies", "--json"]).stdout)
    assert [info["name"] for info in listed] == sorted(infos)
    table = cli_runner.invoke(cli, ["policies"])
    assert table.exit_code == 0 and "cautious" in table.output and "(fancybots)" in table.output
    assert "built in" in table.output
    with pytest.raises(ValueError, match="policy 'broken'"):
        make_policy("broken", "tablanette", 0, 1)


def _doc_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (ROOT / "docs" / "bots.md").read_text(), re.S)


def test_the_guide_shows_the_example_as_it_is_and_its_snippet_runs(capsys) -> None:
    module, snippet = _doc_blocks("python")[1:3]
    assert module == (ROOT / "examples" / "mybots" / "cautious.py").read_text()
    exec(compile(snippet, "docs/bots.md", "exec"), {})
    scores = json.loads(capsys.readouterr().out)
    assert len(scores) == 2 and sum(scores) > 0
