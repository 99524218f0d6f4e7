"""Every module's docstring examples run with the suite: collected by pytest itself, never listed by hand."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "replay", "workers", "services")


def test_pytest_collects_the_examples_of_every_package() -> None:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in ini["addopts"].split()
    assert set(PACKAGES) <= set(ini["testpaths"])


def test_only_the_generated_stubs_are_left_out() -> None:
    namespace: dict[str, object] = {"__file__": str(ROOT / "conftest.py")}
    exec((ROOT / "conftest.py").read_text(), namespace)
    assert namespace["collect_ignore"] == ["services/generated"]
