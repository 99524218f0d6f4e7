"""A searching policy's decisions from fixed states, counted in instructions (callgrind): steadier than wall-clock
timings on a shared machine, and comparable across commits (``--root`` runs another checkout's engine).

    python tools/callgrind_bots.py [--policy LABEL] [--states N] [--root CHECKOUT] [--no-callgrind] [GAME ...]

The states are ``cardtable bench --bots``'s (services/bench/bots.py ``decision_rate``): single-deal matches from seed
1's deals, random seats, stopped where seat 0 has two or more legal moves in the play of the cards, the k-th state of
a game taken from the k-th deal at its k-th such decision (modulo the deal's decisions). Each decision is made by a
fresh policy (``--policy``, ``ismcts:iters=100`` by default) seeded by its state's number, so that the moves it
chooses are a property of the engine and the policy alone: the same on every engine. Each game prints one JSON line:
the chosen actions, the instructions of the decisions alone (between two ``os.getppid()`` calls, as
tools/callgrind_engine.py measures, after a warm-up decision and a full garbage collection outside the region) and
their mean per decision. ``--keep DIR`` keeps the callgrind files (``callgrind_annotate --inclusive=yes
DIR/bots.out.2``, the first game's region).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GAMES = ("german_whist", "belote_contree")
PLAY_PHASES = ("play", "capture")


def states(game: str, count: int) -> list[Any]:
    """``count`` states where seat 0 decides among two or more moves in the play of the cards."""
    import engine
    from engine.bots import make_policies, seat_observer
    from engine.rng import derive_seed

    found = []
    k = 0
    while len(found) < count:
        state = engine.new_match(game, seed=derive_seed(1, k), options={"max_deals": 1})
        bots = make_policies(["random"] * state.players, game, derive_seed(1, k))
        seen = []
        while not state.is_terminal:
            seat = state.current_player
            assert seat is not None
            legal = state.legal_action_ids()
            if seat == 0 and len(legal) > 1 and state.phase in PLAY_PHASES:
                seen.append(state.clone())
            state.apply_id(bots[seat].choose_id(legal, seat_observer(state, seat, bots[seat])))
        if seen:
            found.append(seen[k % len(seen)])
        k += 1
    return found


def decide(label: str, games: list[str], count: int, marks: bool) -> None:
    """Each game's decisions, a JSON line per game (``marks``: call ``os.getppid()`` around them)."""
    from engine.bots import make_policy, parse_policy, seat_observer
    from engine.rng import derive_seed

    name, params = parse_policy(label)

    def choose(state: Any, k: int) -> int:
        policy = make_policy(name, state.game_id, 0, derive_seed(5, k), params)
        return int(policy.choose_id(state.legal_action_ids(), seat_observer(state.clone(), 0, policy)))

    for game in games:
        positions = states(game, count)
        choose(positions[0], 0)  # warm: caches and first-call costs
        gc.collect()
        if marks:
            os.getppid()
        started = time.perf_counter()
        chosen = [choose(state, k) for k, state in enumerate(positions)]
        seconds = time.perf_counter() - started
        if marks:
            os.getppid()
        print(json.dumps({"game": game, "policy": label, "decisions": count, "chosen": chosen,
                          "seconds": round(seconds, 3)}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="*", metavar="GAME", help=f"games (default: {', '.join(GAMES)})")
    ap.add_argument("--policy", default="ismcts:iters=100", help="the deciding policy's label")
    ap.add_argument("--states", type=int, default=10, help="decisions (fixed states) per game")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--keep", type=Path, help="keep the callgrind files in this folder")
    ap.add_argument("--no-callgrind", action="store_true", help="chosen moves and seconds only, no valgrind")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.games = args.games or list(GAMES)
    if args.child or args.no_callgrind:
        sys.path.insert(0, os.getcwd() if args.child else str(args.root.resolve()))
        decide(args.policy, args.games, args.states, args.child)
        return
    root = args.root.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        out = Path(args.keep or tmp) / "bots.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        env.setdefault("CARDTABLE_ENGINE", "python")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=os_getppid", f"--callgrind-out-file={out}",
                              sys.executable, __file__, "--child", "--policy", args.policy, "--states",
                              str(args.states), *args.games],
                             env=env, cwd=root, check=True, capture_output=True, text=True)
        lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
        for k, line in enumerate(lines):  # dumps: .1 the set-up, .2 the first game's decisions, .3 ...
            found = re.search(r"^(?:summary|totals): (\d+)", Path(f"{out}.{2 * k + 2}").read_text(), re.M)
            assert found, f"no totals in {out}.{2 * k + 2}"
            instructions = int(found.group(1))
            print(json.dumps({**line, "engine": env["CARDTABLE_ENGINE"], "instructions": instructions,
                              "per_decision": round(instructions / line["decisions"])}))


if __name__ == "__main__":
    main()
