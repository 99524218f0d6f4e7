"""pimc's time a decision and double-dummy nodes by ``dd_cards``: what its default was chosen from (docs/ratings.md).

    python tools/pimc_dd_cards.py GAME [--dd-cards 16,20,24,28,32] [--deals N] [--label-extra :samples=16]

For each ``dd_cards``, pimc plays seat 0 of single-deal matches against random seats, as ``cardtable bench --bots``
times a policy (services/bench/bots.py ``decision_rate``: every decision with two or more legal actions, the same
deal seeds), over ``--deals`` deals. One JSON line each: decisions, mean, 90th percentile and slowest seconds a
decision (and the cards left at the slowest), decisions a second, and the double-dummy nodes a decision (mean, most).
Times are wall-clock (say the load); nodes do not depend on it. Say which engine ran (``engine`` in each line).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import engine
from engine._native import engine_kind
from engine.bots import pimc as pimc_module
from engine.search.double_dummy import cards_left
from services.bench.bots import decision_rate


def measure(game: str, dd_cards: int, deals: int, extra: str = "", seed: int = 1) -> dict[str, object]:
    nodes = [0]
    solver_class = pimc_module.DoubleDummy

    class Counting(solver_class):  # type: ignore[misc, valid-type]
        def action_values(self) -> dict[int, int]:
            values: dict[int, int] = super().action_values()
            nodes[0] += self.nodes
            return values

    pimc_module.DoubleDummy = Counting  # type: ignore[misc]
    times: list[float] = []
    counts: list[int] = []
    slowest = (0.0, -1)

    def decided(state: engine.State, seconds: float) -> None:
        nonlocal slowest
        times.append(seconds)
        counts.append(nodes[0])
        nodes[0] = 0
        slowest = max(slowest, (seconds, cards_left(state) if state.phase == "play" else -1))

    try:
        decision_rate(game, f"pimc:dd_cards={dd_cards}{extra}", 0.0, seed, deals=deals, on_decision=decided)
    finally:
        pimc_module.DoubleDummy = solver_class  # type: ignore[misc]
    return {"game": game, "dd_cards": dd_cards, "engine": engine_kind(), "deals": deals, "decisions": len(times),
            "mean_ms": round(1000 * statistics.mean(times), 1),
            "p90_ms": round(1000 * statistics.quantiles(times, n=10)[-1], 1),
            "max_ms": round(1000 * slowest[0], 1), "max_at_cards": slowest[1],
            "decisions_per_s": round(len(times) / sum(times), 1),
            "nodes_mean": round(statistics.mean(counts)), "nodes_max": max(counts),
            "load_average_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--dd-cards", default="16,20,24,28,32")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--label-extra", default="", help="more parameters, e.g. ':samples=8'")
    args = parser.parse_args()
    for dd_cards in (int(x) for x in args.dd_cards.split(",")):
        print(json.dumps(measure(args.game, dd_cards, args.deals, args.label_extra)), flush=True)


if __name__ == "__main__":
    main()
