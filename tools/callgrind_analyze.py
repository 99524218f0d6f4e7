"""``cardtable replay analyze`` of whole 4-player Belote contrée deals (issue 31: under 1 s a deal), counted in
nodes, CPU seconds and instructions (callgrind): steadier than wall-clock timings on a shared machine, and comparable
across commits (``--root`` runs another checkout's analysis and engine).

    python tools/callgrind_analyze.py [--root CHECKOUT] [--seeds 1,2,3] [--no-callgrind]

Each deal is one deal of greedy play (``replay.record_deal("belote_contree", SEED, ["greedy"] * 4,
options={"num_deals": 1})``), analysed from its first trick with the default budget (``replay.analysis.MAX_NODES``).
Each prints one JSON line: the cards analysed exactly (of 32), the nodes of the exact rows, the CPU seconds of the
analysis (``time.process_time``) and, under callgrind, the instructions of the analysis alone (between two
``os.getppid()`` calls, as tools/callgrind_dd.py measures). The engine is the checkout's compiled one when it is
built (``CARDTABLE_ENGINE``: ``auto`` unless set; the callgrind run sets ``python`` unless set, as the other tools do).
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
from pathlib import Path

DEFAULT_SEEDS = "1,2,3"


def analyse(seeds: list[int], marks: bool) -> None:
    """Record and analyse each seed's deal, printing a JSON line per deal (``marks``: ``os.getppid()`` around it)."""
    import engine
    import replay
    from replay.analysis import EXACT, analyze

    for seed in seeds:
        data = replay.record_deal("belote_contree", seed, ["greedy"] * 4, options={"num_deals": 1})
        if marks:
            os.getppid()
        started = time.process_time()
        report = analyze(data)
        seconds = time.process_time() - started
        if marks:
            os.getppid()
        rows = report["moves"]
        print(json.dumps({"seed": seed, "engine": engine.engine_kind(),
                          "exact": sum(row["status"] == EXACT for row in rows), "cards": len(rows),
                          "nodes": sum(row.get("nodes", 0) for row in rows), "cpu_seconds": round(seconds, 3)}),
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default=DEFAULT_SEEDS,
                    help=f"the deals' seeds, comma-separated (default {DEFAULT_SEEDS})")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--no-callgrind", action="store_true", help="nodes and CPU seconds only, no valgrind")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",") if seed.strip()]
    if args.child or args.no_callgrind:
        sys.path.insert(0, os.getcwd() if args.child else str(args.root.resolve()))
        analyse(seeds, args.child)
        return
    root = args.root.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "analyze.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        env.setdefault("CARDTABLE_ENGINE", "python")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=os_getppid", f"--callgrind-out-file={out}",
                              sys.executable, __file__, "--child", "--seeds", args.seeds],
                             env=env, cwd=root, check=True, capture_output=True, text=True)
        lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
        for k, line in enumerate(lines):  # dumps: .1 the set-up, .2 the first deal's analysis, .3 ...
            found = re.search(r"^(?:summary|totals): (\d+)", Path(f"{out}.{2 * k + 2}").read_text(), re.M)
            assert found, f"no totals in {out}.{2 * k + 2}"
            print(json.dumps({**line, "instructions": int(found.group(1))}))


if __name__ == "__main__":
    main()
