"""The double-dummy solver on fixed endings, counted in nodes and instructions (callgrind): steadier than wall-clock
timings on a shared machine, and comparable across commits (``--root`` runs another checkout's engine).

    python tools/callgrind_dd.py [--root CHECKOUT] [--positions N] [--no-callgrind] [CASE ...]

The endings are ``cardtable bench --bots``'s (services/bench/bots.py ``solve_last_tricks``): random play from seed 1's
deals to the start of the trick that many tricks from the end; the bridge cases are the bench's endings that DDS
solves too (``bridge_against_dds``: 4 hands of 8 cards, North to lead, no trump or spades). Each case prints one JSON
line: the values solved (``DoubleDummy.solve()``, the side to play; North-South's tricks in bridge), the nodes, and the
instructions of the solves alone (between two ``os.getppid()`` calls, as tools/callgrind_engine.py measures; the
tables a trump needs are built inside, once).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# label: (game, options, tricks from the end, positions by default)
CASES: dict[str, tuple[str, dict[str, int], int, int]] = {
    "belote_contree:8": ("belote_contree", {"num_deals": 1}, 8, 1),
    "belote_contree:6": ("belote_contree", {"num_deals": 1}, 6, 3),
    "german_whist:8": ("german_whist", {}, 8, 5),
    "german_whist:6": ("german_whist", {}, 6, 5),
    "bridge:no_trump": ("bridge", {}, 8, 5),
    "bridge:spades": ("bridge", {}, 8, 5),
}


def solve(labels: list[str], positions: int, marks: bool) -> None:
    """Solve each case's endings, printing a JSON line per case (``marks``: call ``os.getppid()`` around the solves)."""
    import engine
    from engine.bots import make_policies, seat_observer
    from engine.rng import derive_seed
    from engine.search.double_dummy import DoubleDummy, cards_left

    for label in labels:
        game, options, tricks, default = CASES[label]
        if game == "bridge":
            solve_bridge(label, positions or default, marks)
            continue
        states = []
        for k in range(positions or default):
            state = engine.new_match(game, seed=derive_seed(1, 7, k), options=options)
            bots = make_policies(["random"] * state.players, game, derive_seed(1, 7, k))
            while not (state.phase == "play" and cards_left(state) == tricks * state.players):
                seat = state.current_player
                assert seat is not None
                state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
            states.append(state)
        _solve_timed(label, DoubleDummy, states, marks)


def solve_bridge(label: str, positions: int, marks: bool) -> None:
    """The bench's bridge endings of ``label``'s trump (``bridge:no_trump``, ``bridge:spades``), solved for North."""
    from engine.rng import derive_seed
    from engine.search.dd_search import Search
    from services.bench.bots import BRIDGE, BRIDGE_TRUMPS, LAST_TRICKS, PARTNERS, bridge_ending

    trump = BRIDGE_TRUMPS[label.split(":")[1]]
    deals = [bridge_ending(derive_seed(1, 11, k)) for k in range(positions)]
    _solve_timed(label, lambda hands: Search(BRIDGE, trump, PARTNERS, 0, 0, hands, [], 0, [], [True] * LAST_TRICKS),
                 deals, marks)


def _solve_timed(label: str, search: Callable[[Any], Any], positions: list[Any], marks: bool) -> None:
    """Make ``search(position)`` for each position and solve it (``marks``: ``os.getppid()`` around the solves, the
    searches made inside); print the case's JSON line: the values, nodes and seconds."""
    if marks:
        os.getppid()
    started = time.perf_counter()
    values, nodes = [], 0
    for position in positions:
        solver = search(position)
        values.append(solver.solve())
        nodes += solver.nodes
    seconds = time.perf_counter() - started
    if marks:
        os.getppid()
    print(json.dumps({"case": label, "values": values, "nodes": nodes, "seconds": round(seconds, 3)}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", metavar="CASE", help=f"some of {', '.join(CASES)} (default: all)")
    ap.add_argument("--positions", type=int, default=0, help="endings per case (0: the case's default)")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--no-callgrind", action="store_true", help="nodes and seconds only, no valgrind")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        ap.error(f"unknown cases {unknown}: the cases are {', '.join(CASES)}")
    args.cases = args.cases or list(CASES)
    if args.child or args.no_callgrind:
        sys.path.insert(0, os.getcwd() if args.child else str(args.root.resolve()))
        solve(args.cases, args.positions, args.child)
        return
    root = args.root.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dd.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        env.setdefault("CARDTABLE_ENGINE", "python")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=os_getppid", f"--callgrind-out-file={out}",
                              sys.executable, __file__, "--child", "--positions", str(args.positions), *args.cases],
                             env=env, cwd=root, check=True, capture_output=True, text=True)
        lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
        for k, line in enumerate(lines):  # dumps: .1 the set-up, .2 the first case's solves, .3 ...
            found = re.search(r"^(?:summary|totals): (\d+)", Path(f"{out}.{2 * k + 2}").read_text(), re.M)
            assert found, f"no totals in {out}.{2 * k + 2}"
            print(json.dumps({**line, "instructions": int(found.group(1))}))


if __name__ == "__main__":
    main()
