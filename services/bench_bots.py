"""``cardtable bench --bots``: decisions per second of every policy in every game, and the double-dummy solver's
nodes per second and time to solve the last 8 tricks of German Whist and Belote contrée.

A policy's decisions are timed in single-deal matches where it plays seat 0 (the other seats random): every call with
two or more legal actions counts, for ``seconds`` per policy and game (at least one decision). The solver is timed on
positions reached by random play to the start of the 8th trick from the end, from ``positions`` seeds.

>>> result = run_bots_bench(seconds=0.01, positions=1, policies=("random",), games=("german_whist",))
>>> result["policies"]["german_whist"]["random"]["decisions"] > 0
True
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import engine
from engine.bots import make_policies, make_policy, parse_policy, seat_observer
from engine.bots.policy import Observe
from engine.rng import derive_seed
from engine.search.double_dummy import DoubleDummy, cards_left

POLICIES = ("random", "greedy", "pimc", "ismcts")
DD_GAMES = {"german_whist": {}, "belote_contree": {"num_deals": 1}}
LAST_TRICKS = 8
OnStep = Callable[[str, int], None]  # (what the step times, steps done before it)


def bots_bench_steps(games: int, positions: int, policies: int = len(POLICIES)) -> int:
    """How many steps :func:`run_bots_bench` reports: a policy in a game, a position the solver solves."""
    return games * policies + len(DD_GAMES) * positions


def run_bots_bench(seconds: float = 3.0, positions: int = 5, policies: Sequence[str] = POLICIES,
                   games: Sequence[str] | None = None, seed: int = 1, on_step: OnStep | None = None) -> dict[str, Any]:
    """The figures; ``on_step(what, done)`` is told of each step as it starts (what it times, steps done)."""
    games = list(games or engine.list_games())
    steps = iter(range(bots_bench_steps(len(games), positions, len(policies))))
    report: OnStep = on_step or (lambda _what, _done: None)
    rates: dict[str, dict[str, Any]] = {}
    for game in games:
        rates[game] = {}
        for label in policies:
            report(f"{game}: {label}", next(steps))
            rates[game][label] = decision_rate(game, label, seconds, seed)
    solver = {game: solve_last_tricks(game, options, positions, seed, lambda k, game=game: report(
        f"double dummy, {game}: position {k + 1}", next(steps))) for game, options in DD_GAMES.items()}
    return {
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "seconds_per_case": seconds,
        "policies": rates,
        "double_dummy": solver,
    }


def decision_rate(game: str, label: str, seconds: float, seed: int) -> dict[str, Any]:
    """Decisions per second of ``label`` playing seat 0 of single-deal matches against random seats."""
    name, params = parse_policy(label)
    spent, decisions, deals = 0.0, 0, 0
    while spent < seconds or not decisions:
        state = engine.new_match(game, seed=derive_seed(seed, deals), options={"max_deals": 1})
        bots = make_policies(["random"] * state.players, game, derive_seed(seed, deals))
        policy = make_policy(name, game, 0, derive_seed(seed, deals, 1), params)
        while not state.is_terminal:
            seat = state.current_player
            assert seat is not None
            legal = state.legal_action_ids()
            bot = policy if seat == 0 else bots[seat]
            observe: Observe = seat_observer(state, seat, bot)
            if seat == 0 and len(legal) > 1:
                started = time.perf_counter()
                action = bot.choose_id(legal, observe)
                spent += time.perf_counter() - started
                decisions += 1
            else:
                action = bot.choose_id(legal, observe)
            state.apply_id(action)
        deals += 1
        if deals > 10_000:
            break
    return {"decisions": decisions, "seconds": round(spent, 3), "decisions_per_s": round(decisions / spent, 2)
            if spent else None, "deals": deals}


def solve_last_tricks(game: str, options: dict[str, Any], positions: int, seed: int,
                      on_position: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Nodes per second and seconds per solve of the last ``LAST_TRICKS`` tricks from ``positions`` random deals
    (``on_position(k)`` told as the k-th starts)."""
    times, nodes = [], 0
    for k in range(positions):
        if on_position is not None:
            on_position(k)
        state = engine.new_match(game, seed=derive_seed(seed, 7, k), options=options)
        bots = make_policies(["random"] * state.players, game, derive_seed(seed, 7, k))
        target = LAST_TRICKS * state.players
        while not (state.phase == "play" and cards_left(state) == target):
            seat = state.current_player
            assert seat is not None, "the deal ended before its last tricks"
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
        solver = DoubleDummy(state)
        started = time.perf_counter()
        solver.solve()
        times.append(time.perf_counter() - started)
        nodes += solver.nodes
    total = sum(times)
    return {"positions": positions, "cards": LAST_TRICKS * engine.new_match(game, seed=0, options=options).players,
            "nodes": nodes, "nodes_per_s": round(nodes / total), "mean_seconds": round(total / positions, 4),
            "max_seconds": round(max(times), 4)}


