"""Compile the engine's own source into extension modules (``make install`` runs it): Cython in pure-Python mode,
the same ``engine/**/*.py`` files (and envs/encoding.py, ``engine/_native.py``'s ``ALSO_COMPILED``), no second copy
of the rules.

    python build_engine.py            # compile what changed since the last build (by source hash)
    python build_engine.py --force    # compile every module again
    python build_engine.py --clean    # remove the build: the engine runs from its source

The modules go to ``build/engine/<ABI>/`` with a manifest of each source file's SHA-256 (with its ``.pxd``, if any);
``engine/_native.py`` loads a compiled module only while its source still has that hash (see there). Without a C
compiler, Python's headers or Cython, it says what is missing and leaves the engine to run from its source (exit
status 0: that is a supported install, not a failure). A module the compiler refuses is listed in the manifest with
the reason and runs from source.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent


def _loader() -> Any:
    """engine/_native.py on its own (importing the package would import, and maybe load, the whole engine)."""
    spec = importlib.util.spec_from_file_location("_cardtable_engine_native", ROOT / "engine" / "_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_native = _loader()
MANIFEST, build_dir, source_hash = _native.MANIFEST, _native.build_dir, _native.source_hash

# The engine's modules that stay Python: the package's __init__ installs the loader, and the loader itself.
NOT_COMPILED = ("engine/__init__.py", "engine/_native.py")
# Cython directives: plain Python semantics (annotations are for mypy, never a C type or a runtime check here).
DIRECTIVES: dict[str, Any] = {"language_level": 3, "annotation_typing": False, "binding": True,
                              "embedsignature": False, "always_allow_keywords": True}


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def sources() -> list[Path]:
    """engine/'s modules, and those beside it the engine's loader also loads compiled (``_native.ALSO_COMPILED``)."""
    also = [_native.module_source(name, ROOT / "engine") for name in _native.ALSO_COMPILED]
    return sorted(p for p in [*(ROOT / "engine").rglob("*.py"), *also] if str(p.relative_to(ROOT)) not in NOT_COMPILED)


def missing_tools() -> str | None:
    """What this machine lacks to compile the engine, or None."""
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "Cython is not installed (it is a build requirement: pip install -e '.[dev]')"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.is_file():
        return f"Python's headers are missing ({include}; on Debian: apt-get install python3-dev)"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(os.environ.get("CC", compiler).split()[0]) is None:
        return f"no C compiler ({compiler}; on Debian: apt-get install gcc)"
    return None


def read_manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        return {"modules": dict(manifest["modules"]), "skipped": dict(manifest["skipped"])}
    except (OSError, ValueError, KeyError, TypeError):
        return {"modules": {}, "skipped": {}}


def cythonize(todo: list[tuple[str, Path]], folder: Path, workers: int) -> tuple[list[Any], dict[str, str]]:
    """Translate the modules to C: their setuptools Extensions, and the modules Cython refused with its reason."""
    from Cython.Build import cythonize as translate
    from Cython.Compiler.Errors import CompileError
    from setuptools import Extension

    def run(items: list[tuple[str, Path]], threads: int) -> list[Any]:
        # -w: the C that Cython writes warns of nothing a reader of the .py could act on
        extensions = [Extension(name, [str(path.relative_to(ROOT))], extra_compile_args=["-w"]) for name, path in items]
        return list(translate(extensions, compiler_directives=DIRECTIVES, build_dir=str(folder / "c"), force=True,
                              nthreads=threads, quiet=True))

    try:
        return run(todo, workers if len(todo) > 1 else 0), {}
    except CompileError:  # one by one, to keep every module Cython accepts
        pass
    built, refused = [], {}
    for item in todo:
        try:
            built += run([item], 0)
        except CompileError as exc:
            refused[item[0]] = f"Cython refused it ({exc}; its messages are above)"
    return built, refused


def compile_c(extensions: list[Any], folder: Path, workers: int) -> None:
    """Compile the C files into extension modules under ``folder``."""
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    command = build_ext(Distribution({"ext_modules": extensions}))
    command.build_lib = str(folder)
    command.build_temp = str(folder / "temp")
    command.parallel = workers
    command.ensure_finalized()
    command.run()


def build(force: bool, workers: int) -> int:
    folder = build_dir(ROOT)
    lacking = missing_tools()
    if lacking:
        print(f"build_engine: not compiling the engine: {lacking}. The engine runs from its Python source "
              "(the same rules, slower).")
        return 0
    old = {"modules": {}, "skipped": {}} if force else read_manifest(folder)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    manifest: dict[str, Any] = {"modules": {}, "skipped": {}}
    todo: list[tuple[str, Path, str, str]] = []
    for path in sources():
        name, digest = module_name(path), source_hash(path)
        file = str(Path(*name.split(".")[:-1], name.split(".")[-1] + suffix))
        entry = old["modules"].get(name)
        if entry and entry["sha256"] == digest and (folder / entry["file"]).is_file():
            manifest["modules"][name] = entry
        elif old["skipped"].get(name, {}).get("sha256") == digest:
            manifest["skipped"][name] = old["skipped"][name]
        else:
            todo.append((name, path, file, digest))
    if not todo:
        print(f"build_engine: the compiled engine in {folder.relative_to(ROOT)} is up to date "
              f"({len(manifest['modules'])} modules)")
        _write_manifest(folder, manifest)
        return 0
    started = time.monotonic()
    print(f"build_engine: compiling {len(todo)} engine modules with Cython into {folder.relative_to(ROOT)} ...",
          flush=True)
    extensions, refused = cythonize([(name, path) for name, path, _, _ in todo], folder, workers)
    for name, reason in refused.items():
        print(f"build_engine: {name} stays Python: {reason}")
    if extensions:
        compile_c(extensions, folder, workers)
    for name, _, file, digest in todo:  # the hashes read before translating: an edit since then counts as stale
        if name in refused:
            manifest["skipped"][name] = {"sha256": digest, "reason": refused[name]}
        else:
            manifest["modules"][name] = {"sha256": digest, "file": file}
    _write_manifest(folder, manifest)
    print(f"build_engine: {len(manifest['modules'])} modules compiled ({len(todo) - len(refused)} now, "
          f"{time.monotonic() - started:.0f} s); {len(manifest['skipped'])} run from source")
    return 0


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    tmp.replace(folder / MANIFEST)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="compile every module again")
    parser.add_argument("--clean", action="store_true", help="remove the compiled engine")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="C compilations at once")
    args = parser.parse_args()
    if args.clean:
        shutil.rmtree(build_dir(ROOT), ignore_errors=True)
        print(f"build_engine: removed {build_dir(ROOT).relative_to(ROOT)}; the engine runs from its source")
        return
    sys.exit(build(args.force, args.jobs))


if __name__ == "__main__":
    main()
