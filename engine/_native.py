"""Which engine runs: the compiled modules that ``make install`` built from engine/'s own source, or that source.

``build_engine.py`` compiles every module of ``engine/`` (Cython, pure-Python mode: the same ``.py`` files), and the
few typed modules beside it that :data:`ALSO_COMPILED` names (the environments' observation encoder), into
``build/engine/<ABI>/``, outside the source tree, and writes a manifest there with the SHA-256 of each source
file it compiled (with its ``.pxd``, if it has one, and what that cimports: :func:`source_hash`). ``install()`` (run
as ``engine/__init__.py`` imports this module, before the rest of the engine) puts a finder in front of Python's own
that loads a module's compiled form only while its source still has the hash it was compiled from. An edited module
runs from its source with a warning naming it (``make install`` compiles it again), so a stale build never runs old
rules.

``CARDTABLE_ENGINE`` chooses: ``python`` runs the source alone; ``compiled`` requires every compiled module (an
ImportError names the missing or stale ones); unset or ``auto`` loads what is built and current.
:func:`engine_kind` says what runs: ``"compiled"`` (every module compiled), ``"python"`` (none) or ``"mixed"``.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import re
import sys
import sysconfig
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ENV = "CARDTABLE_ENGINE"
CHOICES = ("auto", "python", "compiled")
PACKAGE = "engine"
# Modules outside ``engine/`` compiled with it (written for Cython's pure-Python mode like ``engine/search/dd_search``),
# loaded as the engine's are: the PettingZoo environment's observation encoder, whose per-step work is Python otherwise.
ALSO_COMPILED = ("envs.encoding",)
SOURCE = Path(__file__).resolve().parent
MANIFEST = "manifest.json"


def build_dir(root: Path | None = None) -> Path:
    """Where the compiled modules of this interpreter's ABI live, beside ``engine/``:
    ``build/engine/cpython-311-x86_64-linux-gnu`` (an extension module's suffix names the ABI)."""
    abi = str(sysconfig.get_config_var("EXT_SUFFIX") or sys.implementation.cache_tag).strip(".").removesuffix(".so")
    return (root or SOURCE.parent) / "build" / "engine" / abi


def source_hash(path: Path, source: Path = SOURCE) -> str:
    """The SHA-256 of what a module's compiled form was built from: its ``.py`` file alone, or, when a ``.pxd`` file
    beside it declares C types for Cython, also that ``.pxd`` and the ``.py`` and ``.pxd`` files of every engine
    module it cimports (transitively): the compiled module calls theirs at C level, so it is stale, and runs from
    source, whenever one of them changed (a compiled module never loads beside a cimported one running from source)."""
    files = build_inputs(path, source)
    if len(files) == 1:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for file in files:
        data = file.read_bytes()
        digest.update(f"{file.relative_to(source.parent)}:{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


_CIMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+cimport\b|cimport\s+([\w.]+))", re.MULTILINE)


def build_inputs(path: Path, source: Path = SOURCE) -> list[Path]:
    """The files a module's compiled form depends on (see :func:`source_hash`): its ``.py``, then its ``.pxd`` and
    the ``.py`` and ``.pxd`` of the engine modules that ``.pxd`` cimports, and of those they cimport."""
    files, todo = [path], [path]
    while todo:
        pxd = todo.pop().with_suffix(".pxd")
        if not pxd.is_file() or pxd in files:
            continue
        files.append(pxd)
        package = pxd.parent  # a relative cimport's first dot
        for relative, absolute in _CIMPORT.findall(pxd.read_text()):
            name = absolute or relative
            if name.startswith("."):
                dots = len(name) - len(name.lstrip("."))
                base = package.parents[dots - 2] if dots > 1 else package
                parts = (*base.relative_to(source.parent).parts, *filter(None, name[dots:].split(".")))
                name = ".".join(parts)
            if name.split(".")[0] != PACKAGE and name not in ALSO_COMPILED:
                continue  # Cython's own declarations (libc, cpython, cython)
            module = module_source(name, source)
            if module.is_file() and module not in files:
                files.append(module)
                todo.append(module)
    return files


def module_source(name: str, source: Path = SOURCE) -> Path:
    """The ``.py`` file of an engine module in the engine's folder ``source``: ``engine.games.belote`` ->
    ``engine/games/belote/__init__.py`` (and of a module of :data:`ALSO_COMPILED`, beside that folder)."""
    top, *parts = name.split(".")
    base = source if top == PACKAGE else source.parent / top
    folder = base.joinpath(*parts)
    return folder / "__init__.py" if folder.is_dir() else base.joinpath(*parts[:-1], parts[-1] + ".py")


class CompiledFinder(importlib.abc.MetaPathFinder):
    """Finds ``engine.*`` modules in the build while their source is unchanged since it was compiled."""

    def __init__(self, folder: Path, modules: dict[str, dict[str, str]], skipped: dict[str, str],
                 strict: bool, source: Path = SOURCE) -> None:
        self.folder = folder
        self.source = source
        self.modules = modules
        self.skipped = skipped  # modules the compiler refused, with its reason: they run from source by design
        self.strict = strict
        self.compiled: list[str] = []
        self.from_source: list[str] = []  # built modules edited since, and modules added since the build

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PACKAGE + ".") and fullname not in ALSO_COMPILED or fullname in self.skipped \
                or fullname == __name__:
            return None
        source = module_source(fullname, self.source)
        if not source.is_file():
            return None  # not a module of the engine's source: Python's own finders say what it is
        entry = self.modules.get(fullname)
        if entry is None or source_hash(source, self.source) != entry["sha256"]:
            self._from_source(fullname, "is new since the build" if entry is None else "was edited since the build")
            return None
        binary = self.folder / entry["file"]
        loader = CompiledLoader(fullname, str(binary), str(source))
        package = source.name == "__init__.py"
        spec = importlib.machinery.ModuleSpec(fullname, loader, origin=str(binary), is_package=package)
        spec.has_location = True
        if package:
            spec.submodule_search_locations = [str(source.parent)]
        self.compiled.append(fullname)
        return spec

    def _from_source(self, fullname: str, why: str) -> None:
        message = f"{fullname} {why}: it runs from its source, not compiled (`make install` compiles it again)"
        if self.strict:
            raise ImportError(f"{ENV}=compiled, but {message}")
        self.from_source.append(fullname)
        warnings.warn(message, RuntimeWarning, stacklevel=2)


class CompiledLoader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled module, whose ``__file__`` then names its source: the rules a reader, a traceback, ``inspect``
    and pytest's doctest collection look for are in the ``.py`` (``__spec__.origin`` names the compiled file)."""

    def __init__(self, name: str, path: str, source: str) -> None:
        super().__init__(name, path)
        self.source = source

    def exec_module(self, module: ModuleType) -> None:
        super().exec_module(module)
        module.__file__ = self.source


_finder: CompiledFinder | None = None


def install() -> None:
    """Load the engine's compiled modules from here on, as ``CARDTABLE_ENGINE`` says (see the module docstring)."""
    global _finder
    choice = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ImportError(f"{ENV} must be one of {', '.join(CHOICES)}, got {os.environ[ENV]!r}")
    if choice == "python" or _finder is not None:
        return
    folder = build_dir()
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        modules, skipped = manifest["modules"], manifest["skipped"]
    except (OSError, ValueError, KeyError, TypeError):
        if choice == "compiled":
            raise ImportError(f"{ENV}=compiled, but no compiled engine is built in {folder}: run `make install` "
                              "(it needs a C compiler)") from None
        return
    _finder = CompiledFinder(folder, modules, skipped, strict=choice == "compiled")
    sys.meta_path.insert(0, _finder)


def engine_kind() -> str:
    """``"compiled"`` when the engine runs compiled (every module the build compiled), ``"python"`` when it runs
    from source, ``"mixed"`` when some modules edited since the build run from source until ``make install``."""
    if _finder is None or not _finder.compiled:
        return "python"
    return "mixed" if _finder.from_source else "compiled"


def engine_report() -> dict[str, object]:
    """What runs, for ``cardtable bench --json`` and ``cardtable games --json``: the kind, and the modules that run
    from source although the engine is compiled (edited or new since the build, or refused by the compiler)."""
    report: dict[str, object] = {"engine": engine_kind()}
    if _finder is not None and _finder.compiled:
        report["engine_from_source"] = sorted({*_finder.from_source, *_finder.skipped})
    return report


def _is_compiled(module: ModuleType | None) -> bool:
    spec = getattr(module, "__spec__", None)
    return isinstance(getattr(spec, "loader", None), importlib.machinery.ExtensionFileLoader)


if __name__ == f"{PACKAGE}._native":  # (build_engine.py reads this file for its paths alone)
    install()
