"""Hypothesis tries the same examples on every CI run and new ones on a workstation (the profiles of game_cases)."""

from __future__ import annotations

from pathlib import Path

from game_cases import EXAMPLES, PROFILE
from hypothesis import given, settings
from hypothesis import strategies as st

CI_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"


def test_ci_tries_fixed_examples_and_a_workstation_new_ones():
    ci, dev = settings.get_profile("ci"), settings.get_profile("dev")
    assert ci.derandomize and ci.database is None
    assert not dev.derandomize
    assert "export CI=1" in CI_SCRIPT.read_text()


def test_the_settings_of_the_suites_follow_the_loaded_profile():
    @settings(max_examples=3)
    @given(st.integers())
    def made_in_a_test_module(number: int) -> None:
        pass

    derandomized = PROFILE == "ci"
    assert settings.default.derandomize == EXAMPLES.derandomize == derandomized
    assert made_in_a_test_module._hypothesis_internal_use_settings.derandomize == derandomized
