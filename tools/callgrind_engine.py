"""The engine's hot loop counted in instructions (callgrind), game by game: steadier than wall-clock timings on a
shared machine, and comparable across commits (``--root`` runs another checkout's engine with the same script).

    python tools/callgrind_engine.py [--mode rollout|apply|greedy|clone] [--deals N] [--root CHECKOUT] [GAME ...]

It runs itself under ``valgrind --tool=callgrind`` (PYTHONHASHSEED=0, CARDTABLE_ENGINE=python unless set) and
prints one JSON line per game: the instructions of its measured region only, N seeded one-deal matches played
between two ``os.getppid()`` calls (callgrind dumps its counts at each: ``--dump-before=os_getppid``), after a
warm-up match and a full garbage collection outside it. The modes:
``rollout``, random play through ``new_match`` and ``play_out`` (the engine's own loop); ``apply``, the same moves
one at a time through ``legal_action_ids`` and ``apply_id``; ``greedy``, ``play_out`` with greedy bots;
``clone``, N clones of each of ``CLONE_STATES`` mid-deal states (``cardtable bench --clone``'s, made before the
region; each clone dropped at once, so its freeing counts), reported per clone and in moves of the pure-Python floor
(``shared/bench/whist_floor.py``, whose ``FLOOR_DEALS`` deals are counted the same way in a region of their own).
``--keep DIR`` keeps the callgrind files (the k-th game's region: ``callgrind_annotate --inclusive=yes
DIR/MODE.out.2k``).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

GAMES = ("belote", "belote_contree", "boonaken", "botifarra", "german_whist", "tablanette", "tablic", "thunee",
         "trappola", "tres", "two_ten_jack")
MODES = ("rollout", "apply", "greedy", "clone")
CLONE_STATES = 20
FLOOR_DEALS = 100


def load_floor(root: Path) -> Any:
    """The floor script as a module (``cardtable bench --clone``'s, found from ``root``)."""
    from services.bench.engine import find_floor

    path = find_floor()
    assert path is not None, f"no shared/bench/whist_floor.py above {root}"
    spec = importlib.util.spec_from_file_location("whist_floor", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def floor_moves() -> int:
    """The moves of the floor's region: FLOOR_DEALS deals from ``random.Random(1)``."""
    floor = load_floor(Path.cwd())
    rng = random.Random(1)
    return sum(floor.deal(rng) for _ in range(FLOOR_DEALS))


def play(mode: str, games: list[str], deals: int) -> None:
    """The measured regions (in the child, under callgrind): ``deals`` one-deal matches of each game."""
    import engine
    from engine.bots import make_policies, play_out
    from engine.rng import Rng, derive_seed

    if mode == "clone":
        clones(games, deals)
        return
    options = {"max_deals": 1}
    label = "greedy" if mode == "greedy" else "random"
    for game in games:
        first = engine.new_match(game, seed=derive_seed(1, 0), options=options)
        play_out(first, make_policies([label] * first.players, game, 1))  # warm: caches and first-call costs
        bots = make_policies([label] * first.players, game, 1)
        rng = Rng(7)
        gc.collect()  # (the collections in the region are the region's own, not the count left by the imports)
        os.getppid()
        for k in range(1, deals + 1):
            state = engine.new_match(game, seed=derive_seed(1, k), options=options)
            if mode == "apply":
                while state.current_player is not None:
                    ids = state.legal_action_ids()
                    state.apply_id(ids[rng.below(len(ids))])
            else:
                play_out(state, bots)
        os.getppid()


def clones(games: list[str], count: int) -> None:
    """The clone regions: ``count`` clones of each of ``CLONE_STATES`` mid-deal states of each game."""
    from services.bench.engine import mid_deal_states

    floor = load_floor(Path.cwd())
    floor.deal(random.Random(0))  # warm
    rng = random.Random(1)
    gc.collect()
    os.getppid()
    for _ in range(FLOOR_DEALS):
        floor.deal(rng)
    os.getppid()
    for game in games:
        states = mid_deal_states(game, CLONE_STATES)
        for state in states:  # warm: the copy plans and first-call costs
            state.clone()
        gc.collect()
        os.getppid()
        for state in states:
            for _ in range(count):
                state.clone()
        os.getppid()


def measure(mode: str, games: list[str], deals: int, root: Path, keep: Path | None) -> list[int]:
    """The instructions of ``deals`` matches of each game in ``mode``, the engine imported from ``root``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(keep or tmp) / f"{mode}.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        env.setdefault("CARDTABLE_ENGINE", "python")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=os_getppid", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--child", mode, str(deals), *games],
                       env=env, cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts = []
        # dumps: .1 the start and the first warm-up, .2 the first region, .3 ... (clone: the floor's region first)
        for k in range(len(games) + (mode == "clone")):
            text = Path(f"{out}.{2 * k + 2}").read_text()
            found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            assert found, f"no totals in {out}.{2 * k + 2}"
            counts.append(int(found.group(1)))
        return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--mode", choices=MODES, default="rollout")
    ap.add_argument("--deals", type=int, default=40, help="matches per game; with --mode clone, clones per state")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        sys.path.insert(0, os.getcwd())
        mode, deals, *games = args.child
        play(mode, games, int(deals))
        return
    root = args.root.resolve()
    counts = measure(args.mode, args.games, args.deals, root, args.keep)
    if args.mode == "clone":
        os.chdir(root)
        sys.path.insert(0, str(root))
        per_move = counts.pop(0) / floor_moves()
        print(json.dumps({"floor": "whist_floor.py", "per_move": round(per_move)}))
    for game, count in zip(args.games, counts, strict=True):
        if args.mode == "clone":
            clones = CLONE_STATES * args.deals
            print(json.dumps({"game": game, "mode": args.mode, "clones": clones, "instructions": count,
                              "per_clone": round(count / clones), "floor_moves": round(count / clones / per_move, 2)}))
        else:
            print(json.dumps({"game": game, "mode": args.mode, "deals": args.deals, "instructions": count}))


if __name__ == "__main__":
    main()
