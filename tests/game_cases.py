"""Shared helpers of the generic engine suites: every registered game and player count, random play, card lookups.

The suites (test_properties.py, test_engine_contract.py, test_positions.py) are written once against the engine
contract and parametrized over ``engine.list_games()``, so a newly registered game is tested without any change here.

>>> state = start("tablanette", 2, seed=7, options={"max_deals": 1})
>>> actions = play_randomly(state, Rng(1), max_steps=2000)
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark import ParameterSet
from hypothesis import HealthCheck, Phase, reject, settings
from hypothesis import strategies as st

import engine
from engine.options import Option
from engine.rng import Rng

# Hypothesis profiles, one per place: "ci" (when $CI is set, as .ci/run does) tries the same examples on every run
# (derandomized, no example database), so a red build stays red on a rerun and a green one is not luck; "dev" draws
# new examples each run. Loaded here, before any settings are made from it (tests/conftest.py imports this module
# first); pytest --hypothesis-profile NAME still overrides it. Both start from Hypothesis's defaults (which, when it
# sees $CI itself, are already its own "ci" profile).
settings.register_profile("ci", settings.get_profile("default"), derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", settings.get_profile("default"), print_blob=True)
PROFILE = "ci" if os.environ.get("CI", "") not in ("", "0", "false") else "dev"
settings.load_profile(PROFILE)

# No shrinking: a failing playout is reported with its seeds at once (shrinking whole matches takes minutes).
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
EXAMPLES = settings(max_examples=20, deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow])
FEW_EXAMPLES = settings(max_examples=5, deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow])
# For the tests that check every move of a two- or three-deal match (each example checks hundreds of positions, every
# seat's view of each): ten matches per game and player count, drawn anew on each run outside CI. Rules broken on
# purpose (a hidden card shown at some moves of the second deal; wrong scores in the positions of matches with two
# boolean options on; tricks_won shared by clones) failed the same games with ten examples as with twenty.
PLAYOUT_EXAMPLES = settings(max_examples=10, deadline=None, phases=PHASES,
                            suppress_health_check=[HealthCheck.too_slow])

GAMES = engine.list_games()
GAME_CASES = [
    pytest.param(game, players, id=f"{game}-{players}p")
    for game in GAMES
    for players in engine.game_info(game).player_counts
]

# No deal of any game takes more actions than this; a random playout that does has found a loop.
MAX_STEPS_PER_DEAL = 2000
# Position keys that hold cards: the architecture's common position format, plus "tricks" (a deal's finished tricks).
PER_SEAT_CARD_KEYS = ("hands", "captured")
SHARED_CARD_KEYS = ("table", "stock", "trick", "tricks")
# Keys an observation must never carry: they would let a seat rebuild the hidden deal.
SECRET_KEYS = frozenset({"seed", "rng", "deal_deck"})
CARD_CODE = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][CDHS](?![0-9A-Za-z])")

seeds = st.integers(min_value=0, max_value=2**64 - 1)


def start(game: str, players: int, seed: int, options: dict[str, Any] | None = None) -> engine.State:
    return engine.new_match(game, seed=seed, players=players, options=options)


def play_randomly(state: engine.State, rng: Rng, max_steps: int) -> list[str]:
    """Play random legal actions until the match ends or ``max_steps`` actions were played; the actions played."""
    played = []
    while not state.is_terminal and len(played) < max_steps:
        action = rng.choice(state.legal_actions())
        state.apply(action)
        played.append(action)
    return played


def random_steps(state: engine.State, rng: Rng, max_steps: int) -> Iterator[str]:
    """Like ``play_randomly``, but yield each action before playing it, so a test sees every state on the way
    (the caller must not apply the action itself)."""
    for _ in range(max_steps):
        if state.is_terminal:
            return
        action = rng.choice(state.legal_actions())
        yield action
        state.apply(action)


def variant_options(game: str, players: int) -> st.SearchStrategy[dict[str, Any]]:
    """Values for a game's choice-like options (bools and options with listed choices); the others keep defaults."""
    drawn = {}
    for option in engine.game_info(game).options:
        allowed = option.allowed(players)
        if allowed is not None:
            drawn[option.name] = st.sampled_from(allowed)
        elif option.type is bool:
            drawn[option.name] = st.booleans()
    return st.fixed_dictionaries(drawn)


def start_variant(game: str, players: int, seed: int, options: dict[str, Any]) -> engine.State:
    """A match with drawn option values; a combination a game's cross-option rules refuse is skipped by hypothesis."""
    try:
        return start(game, players, seed, options)
    except ValueError:
        reject()


def target_option(game: str) -> Option | None:
    """The game's match-target option (``target``, ``target_score``, ...), if it has one."""
    return next((o for o in engine.game_info(game).options if o.name.startswith("target") and o.type is int), None)


def small_target(option: Option, players: int) -> int:
    """A target a random match reaches within a few deals."""
    allowed = option.allowed(players)
    if allowed:
        return min(v for v in allowed if v is not None)
    target = max(option.minimum or 1, 10)
    return target if option.maximum is None else min(target, option.maximum)


# ---- cards in positions and observations -----------------------------------------------------------------------


def pile_cards(value: Any) -> list[str]:
    """The card codes of a pile: a list of codes, a comma-separated string, or a trick's [seat, card] pairs."""
    if isinstance(value, str):
        return CARD_CODE.findall(value)
    if isinstance(value, list | tuple):
        return [code for item in value for code in pile_cards(item)]
    if isinstance(value, dict):
        return [code for item in value.values() for code in pile_cards(item)]
    return []


def per_seat(value: Any, players: int) -> list[list[str]]:
    """A seat -> cards mapping (a list indexed by seat, or an object keyed by seat) as one card list per seat."""
    if isinstance(value, dict):
        return [pile_cards(value.get(str(seat), value.get(seat, []))) for seat in range(players)]
    return [pile_cards(cards) for cards in value]


def card_piles(game: str, position: dict) -> dict[str, list[str]]:
    """Every pile of cards a position holds: the common keys plus the piles a game class lists as
    ``POSITION_CARD_PILES`` (position keys of its own that hold cards)."""
    piles: dict[str, list[str]] = {}
    players = position["players"]
    for key in PER_SEAT_CARD_KEYS:
        if key in position:
            for seat, cards in enumerate(per_seat(position[key], players)):
                piles[f"{key}[{seat}]"] = cards
    extra = engine.game_class(game).POSITION_CARD_PILES
    for key in (*SHARED_CARD_KEYS, *extra):
        if key in position:
            piles[key] = pile_cards(position[key])
    return piles


def conserved_cards(game: str, position: dict) -> Counter:
    return Counter(code for cards in card_piles(game, position).values() for code in cards)


def hidden_from(position: dict, seat: int) -> set[str]:
    """The cards ``seat`` may not see: other seats' hands and the stock."""
    hands = per_seat(position.get("hands", []), position["players"])
    hidden = set(pile_cards(position.get("stock", [])))
    for other, cards in enumerate(hands):
        if other != seat:
            hidden.update(cards)
    return hidden


def codes_in(observation: Any) -> set[str]:
    """Every card code written anywhere in an observation: in strings, list items and dict keys, at any depth."""
    texts: set[str] = set()
    stack = [observation]
    pop, push, add = stack.pop, stack.extend, texts.add  # (called at every move of the generic suites: kept lean)
    while stack:
        item = pop()
        if isinstance(item, str):
            add(item)
        elif isinstance(item, dict):
            push(item)
            push(item.values())
        elif isinstance(item, (list, tuple)):
            push(item)
    # one search over the distinct strings, apart: a NUL is no card code's neighbour, as a string's ends are not
    return set(CARD_CODE.findall("\0".join(texts)))


def keys_in(observation: Any) -> set[str]:
    """Every dict key at any depth."""
    found: set[str] = set()
    stack = [observation]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        if isinstance(item, dict):
            found.update(map(str, item))
            push(item.values())
        elif isinstance(item, (list, tuple)):
            push(item)
    return found


# ---- the generic suites for a game outside the registry's lists (tests/test_plain_whist.py) ---------------------

# The modules whose tests may be parametrized over the registry: every test module of these folders that reads its
# games from it (the other folders' tests need servers, Redis or their own fixtures).
SUITE_FOLDERS = (Path(__file__).parent, Path(__file__).parent / "envs")
REGISTRY_READ = re.compile(r"\blist_games\(|\bGAME_CASES\b|\bGAMES\b")


@dataclass(frozen=True)
class GenericTest:
    """A test of the generic suites, parametrized over the registry's games (all of them, or all of a kind)."""

    module: str
    name: str
    function: Callable[..., Any]
    marks: tuple[Any, ...]  # its pytest marks, its module's included

    def calls(self, info: engine.GameInfo) -> list[dict[str, Any]] | None:
        """The arguments it takes for the game ``info`` describes: its game parametrization's players with that
        game's player counts, every value of its other parametrizations; None when its game parametrization carries
        values for the games it lists (options of theirs, an expected result) and none that suit any game (empty)."""
        game = info.id
        calls: list[dict[str, Any]] = [{}]
        for names, rows in _parametrizations(self.marks):
            if "game" in names:
                extra = [n for n in names if n not in ("game", "players")]
                kept = {json.dumps(v, sort_keys=True): v for v in ([row[names.index(n)] for n in extra] for row in rows)
                        if not any(v)}
                if extra and not kept:
                    return None
                counts = info.player_counts if "players" in names else (None,)
                new = [{"game": game, **({"players": n} if n is not None else {}), **dict(zip(extra, v, strict=True))}
                       for n in counts for v in (kept.values() if extra else [[]])]
            else:
                new = [dict(zip(names, row, strict=True)) for row in rows]
            calls = [{**call, **row} for call in calls for row in new]
        return calls


def _parametrizations(marks: tuple[Any, ...]) -> list[tuple[list[str], list[list[Any]]]]:
    """Each parametrize mark as (argument names, rows of values)."""
    found = []
    for mark in marks:
        if mark.name == "parametrize":
            names = mark.args[0]
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            rows = [list(row.values) if isinstance(row, ParameterSet) else list(row) if len(names) > 1 else [row]
                    for row in mark.args[1]]
            found.append((names, rows))
    return found


def generic_tests(kind: type) -> list[GenericTest]:
    """Every test of the ``SUITE_FOLDERS``' modules parametrized over all the registered games of ``kind`` (State, or
    TrickGame for the trick games' tests), or over all of them."""
    same_kind = {g for g in engine.list_games() if issubclass(engine.game_class(g), kind)}
    found = []
    for path in sorted(path for folder in SUITE_FOLDERS for path in folder.glob("test_*.py")):
        if not REGISTRY_READ.search(path.read_text()):
            continue
        if str(path.parent) not in sys.path:  # (as pytest's rootdir-relative imports put it)
            sys.path.insert(0, str(path.parent))
        try:
            module = importlib.import_module(path.stem)
        except pytest.skip.Exception:  # (an extra that is not installed: pettingzoo, OpenSpiel)
            continue
        module_marks = getattr(module, "pytestmark", [])
        module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
        for name, function in vars(module).items():
            if not (name.startswith("test_") and inspect.isfunction(function) and function.__module__ == path.stem):
                continue
            marks = (*getattr(function, "pytestmark", []), *module_marks)
            games = {row[names.index("game")] for names, rows in _parametrizations(marks) if "game" in names
                     for row in rows}
            if games and same_kind <= games:
                found.append(GenericTest(path.stem, name, function, marks))
    return found
