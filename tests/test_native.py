"""The compiled engine (build_engine.py, engine/_native.py) plays exactly as its source does, and never runs a module
compiled from an older source.

- Same seeds, same matches: every game and player count, random and greedy seats, whole matches, played in two
  processes (``CARDTABLE_ENGINE=python`` and ``=compiled``): the same moves, scores, winners and final positions.
- A module edited after the build runs from its source, with a warning naming it; ``CARDTABLE_ENGINE=compiled``
  refuses it instead.

The engine tier under the compiled engine (the pinned transcripts among it) is ``make test-compiled``. Without a
built engine (no C compiler) these tests skip, saying so.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import engine
from engine import _native

ROOT = Path(__file__).resolve().parents[1]

# Plays every game and player count from a few seeds; prints the engine that ran and, per match, its moves
# (seat, action id), scores, winners and final position.
PLAY = """
import json, sys
import engine
from engine.bots import make_policies, play_out
out = {"engine": engine.engine_kind(), "matches": {}}
for game in engine.list_games():
    for players in engine.game_info(game).player_counts:
        for seed in range(int(sys.argv[1])):
            policy = "greedy" if seed % 2 else "random"
            state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 1 + seed % 3})
            play_out(state, make_policies([policy] * players, game, seed))
            out["matches"][f"{game}-{players}p-{seed}"] = [state.moves, state.scores, state.winners,
                                                           state.to_position()]
print(json.dumps(out))
"""


def _manifest() -> dict:
    try:
        return json.loads((_native.build_dir() / _native.MANIFEST).read_text())
    except OSError:
        pytest.skip("no compiled engine is built here (`make install` builds it where a C compiler is)")


def _play(kind: str, seeds: int) -> dict:
    env = {**os.environ, _native.ENV: kind}
    done = subprocess.run([sys.executable, "-c", PLAY, str(seeds)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.integration  # two engine processes
def test_the_compiled_engine_plays_the_same_matches_as_its_source() -> None:
    _manifest()
    compiled, source = _play("compiled", 4), _play("python", 4)
    assert (compiled["engine"], source["engine"]) == ("compiled", "python")
    assert compiled["matches"].keys() == source["matches"].keys()
    for name, match in source["matches"].items():
        assert compiled["matches"][name] == match, name


def _source_copy(tmp_path: Path) -> Path:
    """A copy of the engine's source tree, to edit (the build's manifest has the hashes of the real one)."""
    copy = tmp_path / "engine"
    shutil.copytree(_native.SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@pytest.mark.parametrize("module", ["engine.rng", "engine.games.german_whist"])
def test_a_module_edited_after_the_build_runs_from_its_source_with_a_warning(tmp_path: Path, module: str) -> None:
    manifest = _manifest()
    if module not in manifest["modules"]:
        pytest.skip(f"{module} is not compiled here")
    source = _source_copy(tmp_path)
    finder = _native.CompiledFinder(_native.build_dir(), manifest["modules"], manifest["skipped"], strict=False,
                                    source=source)
    spec = finder.find_spec(module, None)
    assert spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
    assert (spec.submodule_search_locations is not None) == module.endswith("german_whist")

    edited = _native.module_source(module, source)
    edited.write_text(edited.read_text() + "\nEDITED = True\n")
    with pytest.warns(RuntimeWarning, match=f"{module} was edited since the build: it runs from its source"):
        assert finder.find_spec(module, None) is None  # Python's own finder then loads the edited .py
    assert finder.from_source == [module]

    strict = _native.CompiledFinder(_native.build_dir(), manifest["modules"], manifest["skipped"], strict=True,
                                    source=source)
    with pytest.raises(ImportError, match=f"CARDTABLE_ENGINE=compiled, but {module} was edited since the build"):
        strict.find_spec(module, None)


def test_a_declarations_file_is_part_of_its_modules_and_of_those_that_cimport_it(tmp_path: Path) -> None:
    """A ``.pxd`` beside a module (Cython's C declarations) is hashed with it, and with every module whose own
    ``.pxd`` cimports it: editing engine/tricks.pxd, or engine/tricks.py, leaves engine.trickgame (which calls
    tricks' functions in C) stale as well, never compiled beside a changed or source-run engine.tricks."""
    inputs = [p.relative_to(ROOT).as_posix() for p in _native.build_inputs(_native.module_source("engine.trickgame"))]
    assert inputs[:2] == ["engine/trickgame.py", "engine/trickgame.pxd"]
    assert {"engine/tricks.py", "engine/tricks.pxd"} <= set(inputs)
    assert _native.build_inputs(_native.module_source("engine.cards")) == [_native.module_source("engine.cards")]
    manifest = _manifest()
    for edited in ("tricks.pxd", "tricks.py"):
        source = _source_copy(tmp_path / edited)
        finder = _native.CompiledFinder(_native.build_dir(), manifest["modules"], manifest["skipped"], strict=False,
                                        source=source)
        assert finder.find_spec("engine.trickgame", None) is not None
        (source / edited).write_text((source / edited).read_text() + "\n# edited\n")
        with pytest.warns(RuntimeWarning, match="was edited since the build"):
            assert finder.find_spec("engine.trickgame", None) is None
            assert finder.find_spec("engine.tricks", None) is None
        assert finder.find_spec("engine.rng", None) is not None


def test_a_module_new_since_the_build_runs_from_its_source_with_a_warning(tmp_path: Path) -> None:
    manifest = _manifest()
    source = _source_copy(tmp_path)
    (source / "added.py").write_text("X = 1\n")
    finder = _native.CompiledFinder(_native.build_dir(), manifest["modules"], manifest["skipped"], strict=False,
                                    source=source)
    with pytest.warns(RuntimeWarning, match="engine.added is new since the build"):
        assert finder.find_spec("engine.added", None) is None
    assert finder.find_spec("engine.not_a_module", None) is None  # not the engine's: Python's finders say so
    assert finder.find_spec("json", None) is None


def test_the_observation_encoder_is_compiled_with_the_engine() -> None:
    """envs/encoding.py (typed for Cython's pure-Python mode) is built and loaded as the engine's modules are."""
    assert _native.module_source("envs.encoding") == _native.SOURCE.parent / "envs" / "encoding.py"
    import envs.encoding

    if engine.engine_kind() == "compiled":
        assert isinstance(envs.encoding.__spec__.loader, importlib.machinery.ExtensionFileLoader)
        assert envs.encoding.__file__ == str(_native.SOURCE.parent / "envs" / "encoding.py")
    if os.environ.get(_native.ENV) == "python":
        assert not isinstance(envs.encoding.__spec__.loader, importlib.machinery.ExtensionFileLoader)


def test_the_engine_says_what_runs() -> None:
    report = engine.engine_report()
    assert report["engine"] == engine.engine_kind() in ("compiled", "python", "mixed")
    if os.environ.get(_native.ENV) == "python":
        assert report == {"engine": "python"}
        assert not any(isinstance(getattr(m, "__spec__", None) and m.__spec__.loader,
                                  importlib.machinery.ExtensionFileLoader)
                       for name, m in sys.modules.items() if name.startswith("engine."))
    if report["engine"] == "compiled":
        assert isinstance(engine.state.__spec__.loader, importlib.machinery.ExtensionFileLoader)
        assert engine.state.__spec__.origin.startswith(str(_native.build_dir()))
        assert engine.state.__file__ == str(_native.SOURCE / "state.py")  # what a reader, inspect and pytest read
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.new_match("german_whist", seed=1).clone()
