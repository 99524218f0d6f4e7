"""The learning environments are optional extras (issue 16): pinned in pyproject.toml, installed by `make install`
(so `make test` runs their tests), and never imported by the engine, which stays on the standard library."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = {"pettingzoo": {"pettingzoo", "gymnasium"}, "openspiel": {"open-spiel"}}
THIRD_PARTY = ("numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel", "envs")


def test_the_extras_are_pinned_and_make_install_installs_them() -> None:
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, packages in EXTRAS.items():
        pins = dict(requirement.split("==") for requirement in optional[extra])
        assert set(pins) == packages and all(pins.values())
    assert "-e '.[dev,pettingzoo,openspiel]'" in (ROOT / "Makefile").read_text()


def test_the_engine_and_its_bots_import_no_third_party_module() -> None:
    code = ("import sys, engine, engine.bots; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {THIRD_PARTY!r}))")
    assert subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True).strip() == "[]"
