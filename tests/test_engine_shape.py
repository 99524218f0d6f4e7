"""The engine's shape (issue 29): the core (``engine/*.py``, ``engine/bots/*.py``) holds only what two or more games
use; what serves a single game lives in that game's package, ``engine/games/<game>/``.

A core definition's users are found with ``ast``: the modules that import it (or read it off its module), and, through
the core definitions that use it, theirs. A game package counts as one user; a family module shared by games
(``engine/games/belote_family/``) counts as the games that import it; anything outside the engine (envs, services,
workers, replay) and the core's generic parts make a definition shared.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

import engine
from engine.clone import fields_of
from engine.registry import game_package
from engine.trickgame import TrickGame

ROOT = Path(engine.__file__).resolve().parent.parent
OUTSIDE = ("envs", "services", "workers", "replay")
Key = tuple[str, str]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_core(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "engine" and (
        (len(parts) == 2 and parts[1] not in ("games", "bots", "search")) or (len(parts) == 3 and parts[1] == "bots"))


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - level + 1]
    return ".".join([*base, *([name] if name else [])])



@cache
def _parsed(source: str, filename: str) -> ast.Module:
    """A module's tree, parsed once per text (the tests below read the engine twice, once with two files edited)."""
    return ast.parse(source, filename)


def _users() -> tuple[set[Key], dict[Key, set[tuple[str, object]]], dict[str, set[str]]]:
    """The core's definitions, who uses each (("def", key), ("entry", games/<entry>) or ("outside", module)), and
    which modules each engine/games entry imports."""
    paths = [p for folder in ("engine", *OUTSIDE) for p in (ROOT / folder).rglob("*.py") if "_pb2" not in p.name]
    modules = {_module_name(p): p for p in paths}
    trees = {m: _parsed(p.read_text(), str(p)) for m, p in modules.items()}
    defs = {(m, name) for m in modules if _is_core(m) for node in trees[m].body for name in _targets(node)}
    users: dict[Key, set[tuple[str, object]]] = defaultdict(set)
    imports: dict[str, set[str]] = defaultdict(set)
    for module, tree in trees.items():
        is_package = modules[module].name == "__init__.py"
        names: dict[str, Key] = {}
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node.level, node.module)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if (source, alias.name) in defs:
                        names[local] = (source, alias.name)
                    if f"{source}.{alias.name}" in modules:
                        aliases[local] = f"{source}.{alias.name}"
                    if module.startswith("engine.games."):
                        imports[module.split(".")[2]].add(source)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    aliases[alias.asname or alias.name] = alias.name
        if _is_core(module):
            names.update({name: (module, name) for node in tree.body for name in _targets(node)})
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if _is_core(module):
                who = [("def", (module, name)) for name in _targets(node)] or [("def", (module, "<module>"))]
            elif module.startswith("engine.games."):
                who = [("entry", module.split(".")[2])]
            else:
                who = [("outside", module)]
            for sub in ast.walk(node):
                used = None
                if isinstance(sub, ast.Name) and sub.id in names:
                    used = names[sub.id]
                elif (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in aliases
                      and (aliases[sub.value.id], sub.attr) in defs):
                    used = (aliases[sub.value.id], sub.attr)
                if used is not None:
                    users[used].update(user for user in who if user != ("def", used))
    return defs, users, imports


def single_game_definitions() -> dict[str, str]:
    """Each core definition whose only users are one game's package, with that game's package name."""
    defs, users, imports = _users()
    games = {game_package(g).split(".")[2] for g in engine.list_games()}

    def entry_games(entry: str) -> set[str]:  # a family module counts as the games that import it
        if entry in games:
            return {entry}
        return {g for g in games if f"engine.games.{entry}" in imports[g]}

    def served(key: Key) -> set[str]:
        """What the definitions reached from ``key`` through their users serve: each reached once (the users it
        reaches, not every path to them, which grows exponentially with shared helpers such as the Cython names)."""
        out: set[str] = set()
        todo, seen = [key], {key}
        while todo:
            for kind, value in users.get(todo.pop(), ()):
                if kind == "entry":
                    out |= entry_games(str(value))
                elif kind == "outside" or (kind == "def" and value[1] == "<module>"):  # type: ignore[index]
                    out |= {"*shared*"}
                elif value not in seen:
                    seen.add(value)  # type: ignore[arg-type]
                    todo.append(value)  # type: ignore[arg-type]
        return out

    single = {}
    for key in sorted(defs):
        serves = served(key)
        if len(serves) == 1 and "*shared*" not in serves:
            single[f"{key[0]}.{key[1]}"] = next(iter(serves))
    return single


@cache
def _single() -> dict[str, str]:
    return single_game_definitions()


def test_every_core_definition_serves_two_or_more_games() -> None:
    single = _single()
    assert not single, f"core definitions used by one game only; move each into engine/games/<game>/: {single}"


def test_a_core_definition_used_by_one_game_is_found(monkeypatch) -> None:
    """The check itself: a function added to engine/tricks.py and used by Thunee's package alone is named."""
    assert "engine.games.thunee.rules.tiered_ranking" not in _single()  # game packages are not the core
    fake = ROOT / "engine" / "tricks.py"
    moved = fake.read_text() + "\n\ndef only_thunee() -> int:\n    return 1\n"
    thunee = ROOT / "engine" / "games" / "thunee" / "rules.py"
    thunee_source = thunee.read_text()
    real_read = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        if self == fake:
            return moved
        if self == thunee:
            return thunee_source + "\n\nfrom ...tricks import only_thunee\nX = only_thunee()\n"
        return real_read(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", read_text)
    assert single_game_definitions().get("engine.tricks.only_thunee") == "thunee"


@pytest.mark.parametrize("game", engine.list_games())
def test_a_new_match_and_its_position_reloaded_hold_the_same_attributes(game: str) -> None:
    """One construction path: ``create`` and ``from_position`` set every attribute the State base declares."""
    declared = {name for name, kind in engine.State.__annotations__.items()
                if not name.isupper() and not str(kind).startswith("ClassVar")}
    state = engine.new_match(game, seed=3)
    again = engine.from_position(game, state.to_position())
    assert declared <= set(fields_of(state)) and declared <= set(fields_of(again))
    assert again.to_position() == state.to_position()


# ---- a game's phases and the names it overrides ------------------------------------------------------------------

# The position keys State itself writes for every game (ARCHITECTURE.md's common keys and the match's bookkeeping);
# every other key of a position belongs to exactly one of the game's declared phases (engine/phases.py).
COMMON_KEYS = {"game", "players", "options", "seed", "rng", "first_dealer", "dealer", "deal_index", "phase",
               "current_player", "scores", "deal_deck", "winners", "redealt"}


@pytest.mark.parametrize("game", engine.list_games())
def test_a_positions_own_keys_are_its_phases_keys(game: str) -> None:
    state = engine.new_match(game, seed=5)
    owners: dict[str, str] = {}
    for phase in state.DEAL_PHASES:
        for key in phase.keys(state):
            assert key not in owners, f"{game}: {key!r} is declared by {owners[key]} and {type(phase).__name__}"
            owners[key] = type(phase).__name__
    for phase in state.DEAL_PHASES:
        assert set(getattr(phase, "NAMES", ())) <= set(state.PHASES), f"{game}: {phase!r} acts in an unknown phase"
    for step in range(40):
        if state.is_terminal:
            break
        for phase in state.DEAL_PHASES:
            saved = set(phase.save(state))
            assert saved <= set(phase.keys(state)), f"{game}: {type(phase).__name__} writes {saved} undeclared"
        own = set(state.to_position()) - COMMON_KEYS
        assert own <= set(owners), f"{game}: position keys no phase declares: {sorted(own - set(owners))}"
        ids = state.legal_action_ids()
        state.apply_id(ids[(step * 7) % len(ids)])


# Names the game packages' classes may set without counting as overrides: class data (UPPER_CASE: rules, actions,
# phases as data), scoring, and what Python or the base sets on every class (ABC, the trick loop's hook table).
SCORING = {"_score_deal", "_match_winners"}
MACHINERY = {"_abc_impl", "_own_hooks", "_deciding", "_hiding", "_seeing", "_dealing", "_loop_class",
             "_observing", "_showing", "_leading", "_playing"}
# What TrickGame sets on each of its classes, never a game's own (it refuses a class that defines them): the move path.
TRICK_MACHINERY = {"_legal_ids", "_apply"}
# The most core names a game's own classes override (issue 29: 5 besides its phases and scoring), and each game's
# count as the engine reached it (a game may not climb back). Thunee's 4: besides its deck and its refusal, its own
# `shown_cards` and `trump_seen` (its trump and known cards change at any move), which spare the encoders building an
# observation a step (PettingZoo env step 227k -> 136k instructions).
MOST_OVERRIDES = 5
OVERRIDES = {"belote": 3, "belote_contree": 4, "boonaken": 3, "botifarra": 3, "german_whist": 1, "tablanette": 2,
             "tablic": 2, "thunee": 4, "trappola": 0, "tres": 2, "two_ten_jack": 4}


def overridden_names(cls: type) -> list[str]:
    """The names of the core (engine/*.py: State, TrickGame, FishingState and their layers) that a game's own classes
    (its package's and a family package's, engine/games/, or those of a game outside the engine) define again, besides
    class data and scoring."""
    own = [c for c in cls.__mro__ if c.__module__.startswith("engine.games.")
           or not c.__module__.startswith(("engine.", "builtins", "abc", "typing"))]  # (or a test's own game)
    core = [c for c in cls.__mro__ if c.__module__.startswith("engine.") and c not in own]
    core_names = {name for c in core for name in vars(c)}
    set_by_base = MACHINERY | (TRICK_MACHINERY if issubclass(cls, TrickGame) else set())
    return sorted({name for c in own for name in vars(c) if name in core_names and not name.startswith("__")
                   and name.upper() != name and name not in SCORING | set_by_base and not _strings_lookup(c, name)})


def _strings_lookup(cls: type, name: str) -> bool:
    """Whether ``name`` is the ``action_string`` TrickGame sets on each of its classes (its strings' look-up)."""
    return name == "action_string" and issubclass(cls, TrickGame) and "ACTIONS" in dir(cls) \
        and vars(cls)[name] == cls.ACTIONS.strings.__getitem__


def test_each_game_overrides_few_core_names() -> None:
    counts = {game: overridden_names(engine.game_class(game)) for game in engine.list_games()}
    report = "\n".join(f"{game}: {len(names)} {' '.join(names)}" for game, names in counts.items())
    print(report)  # (pytest -s shows where each game stands)
    worst = max(len(names) for names in counts.values())
    assert worst <= MOST_OVERRIDES, f"a game overrides more than {MOST_OVERRIDES} core names:\n{report}"
    assert max(OVERRIDES.values()) <= MOST_OVERRIDES


@pytest.mark.parametrize("game", engine.list_games())
def test_a_game_overrides_no_more_core_names_than_it_reached(game: str) -> None:
    """Each game's count, reported by its own test id: at most its entry in OVERRIDES (a new game: MOST_OVERRIDES)."""
    names = overridden_names(engine.game_class(game))
    most = OVERRIDES.get(game, MOST_OVERRIDES)
    assert len(names) <= most, f"{game} overrides {len(names)} core names (at most {most}): {' '.join(names)}"


def test_the_override_count_sees_an_override() -> None:
    class Probe(engine.game_class("tres")):  # type: ignore[misc]
        def _first_leader(self) -> int:
            return 0

    Probe.__module__ = "engine.games.probe"
    assert "_first_leader" in overridden_names(Probe)
    assert "_first_leader" not in overridden_names(engine.game_class("tres"))


def test_a_trick_game_takes_its_move_path_from_the_base() -> None:
    """TrickGame picks ``_legal_ids`` and ``_apply`` for each class (the trick loop's own for a game without decision
    phases) and refuses a class that defines its own."""
    tres = engine.game_class("tres")
    assert tres._legal_ids is tres._card_ids and tres._apply is TrickGame._play_action
    assert engine.game_class("belote")._legal_ids is TrickGame._legal_ids
    with pytest.raises(TypeError, match="_legal_ids"):
        class Own(tres):  # type: ignore[misc,valid-type]
            def _legal_ids(self) -> list[int]:
                return []
