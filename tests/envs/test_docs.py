"""docs/environments.md's examples run as written, and its size formula is the encoder's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")

import engine  # noqa: E402
from envs.encoding import ObservationEncoder  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "environments.md"


def test_the_examples_run(capsys) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert capsys.readouterr().out.startswith("belote, deal 1, dealer seat ")
    assert namespace["game"].num_players() == 2 and namespace["bot"] is not None
    assert namespace["observations"]["observation"].shape == (64, 379) and namespace["rewards"].shape == (64, 2)


def test_the_documented_size_is_the_encoders() -> None:
    assert ("`52 * (n + 5) + 2 * n + 9 + p`, p the game's phases: 379 for two players of German Whist, 488 for four "
            "of Belote") in DOC.read_text()
    assert [ObservationEncoder(2, "german_whist").size, ObservationEncoder(4, "belote").size] == [379, 488]
    for game in engine.list_games():
        phases = len(engine.game_info(game).phases)
        assert all(ObservationEncoder(n, game).size == 52 * (n + 5) + 2 * n + 9 + phases for n in range(2, 8))
