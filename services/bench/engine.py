"""The engine's benches: rollouts through the public engine API (``cardtable bench --game``), and the cost of a
mid-deal clone of every game against a pure-Python floor (``cardtable bench --clone``).

Each rollout is a single-deal match (``max_deals=1``), so deals/s is deals per second. A rollout uses
``engine.new_match`` and ``play_out``: the engine's rollout loop (``State.play_to_end``: the legal action ids, the
policy's hot-loop path ``choose_id``, the chosen id checked and applied), the same moves as ``legal_action_ids`` and
``apply_id`` one at a time.

    result = run_bench("tablanette", None, "random", seconds=3.0, seed=1, options={})
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import engine
from engine.bots import make_policies, play_out
from engine.rng import Rng, derive_seed


def run_bench(game: str, players: int | None, policy: str, seconds: float, seed: int,
              options: dict[str, Any]) -> dict[str, Any]:
    """Play single-deal matches for ``seconds`` (at least one); return the counts and rates. A ValueError names a
    player count, an option or a policy that the game does not take."""
    options = {**options, "max_deals": 1}
    first = engine.new_match(game, seed=derive_seed(seed, 0), players=players, options=options)
    bots = make_policies([policy] * first.players, game, seed)
    deals = moves = 0
    started = time.perf_counter()
    deadline = started + seconds
    state = first
    while True:
        moves += play_out(state, bots)
        deals += 1
        now = time.perf_counter()
        if now >= deadline:
            break
        state = engine.new_match(game, seed=derive_seed(seed, deals), players=players, options=options)
    elapsed = now - started
    return {
        "game": game,
        "players": first.players,
        "policy": policy,
        "options": options,
        "moves_per_s": round(moves / elapsed, 1),
        "deals_per_s": round(deals / elapsed, 1),
        "us_per_move": round(elapsed / moves * 1e6, 3) if moves else None,
        "deals": deals,
        "moves": moves,
        "seconds": round(elapsed, 3),
        "single_deal_matches": True,
    }


FLOOR_SCRIPT = Path("shared", "bench", "whist_floor.py")
CLONE_STATES = 20  # mid-deal states per game, from as many seeds
CLONES_PER_STATE = 500
CLONE_ROUNDS = 5  # rounds of a game's clones, the median reported


def find_floor() -> Path | None:
    """The pure-Python floor (``shared/bench/whist_floor.py``) in the current directory or a parent of it or of
    this checkout."""
    for start in (Path.cwd(), Path(__file__).resolve()):
        for folder in (start, *start.parents):
            if (folder / FLOOR_SCRIPT).is_file():
                return folder / FLOOR_SCRIPT
    return None


def floor_moves_per_s(script: Path, seconds: float) -> float:
    out = subprocess.check_output([sys.executable, str(script), str(seconds)], text=True)
    return float(json.loads(out)["moves_per_s"])


def mid_deal_states(game: str, count: int) -> list[engine.State]:
    """``count`` single-deal matches, each played at random to the middle of its deal."""
    states = []
    for seed in range(count):
        probe = engine.new_match(game, seed=seed, options={"max_deals": 1})
        moves = play_out(probe, make_policies(["random"] * probe.players, game, seed))
        state = engine.new_match(game, seed=seed, options={"max_deals": 1})
        rng = Rng(seed)
        for _ in range(moves // 2):
            state.apply_id(rng.choice(state.legal_action_ids()))
        states.append(state)
    return states


def us_per_clone(states: list[engine.State], clones_per_state: int, rounds: int = CLONE_ROUNDS) -> float:
    """Microseconds a clone, each dropped at once: the median of ``rounds`` rounds of ``clones_per_state / rounds``
    clones of each state, each round timed as ``timeit`` times, with the collector off (one timing of a game's
    70 ms, or a full collection falling inside it, gave that game 1.5 times another run's figure)."""
    per_round = max(1, clones_per_state // rounds)
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        timings = []
        for _ in range(rounds):
            started = time.perf_counter()
            for state in states:
                for _ in range(per_round):
                    state.clone()
            timings.append((time.perf_counter() - started) / (len(states) * per_round) * 1e6)
        return statistics.median(timings)
    finally:
        if collecting:
            gc.enable()


def run_clone_bench(floor: Path, floor_seconds: float = 2.0) -> dict[str, Any]:
    """Microseconds per clone of a mid-deal state of every game (default player count), and the floor's moves/s
    measured before and after in the same run; a clone's cost is also given in floor moves."""
    before = floor_moves_per_s(floor, floor_seconds)
    timings = {game: us_per_clone(mid_deal_states(game, CLONE_STATES), CLONES_PER_STATE)
               for game in engine.list_games()}
    after = floor_moves_per_s(floor, floor_seconds)
    floor_rate = (before + after) / 2
    return {
        "floor_moves_per_s": round(floor_rate),
        "floor": str(floor),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "games": {game: {"players": engine.game_info(game).default_players, "us_per_clone": round(us, 3),
                         "floor_moves_per_clone": round(us * floor_rate / 1e6, 2)}
                  for game, us in timings.items()},
    }
