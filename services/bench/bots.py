"""``cardtable bench --bots``: decisions per second of every policy in every game, and the double-dummy solver's
nodes per second and time to solve the last 8 tricks of German Whist and Belote contrée (and the last 5 and 6 of
contrée), and on bridge endings of 4 hands of 8 cards beside Bo Haglund's DDS (the ``endplay`` package of the dev
extra) solving the same endings in the same run; colver's solver beside ours on the same contrée endings
(:mod:`services.bench.colver_dd`).

A policy's decisions are timed in single-deal matches where it plays seat 0 (the other seats random): every call with
two or more legal actions counts, for ``seconds`` per policy and game (at least one decision). The solver is timed on
positions reached by random play to the start of the trick that many tricks from the end, from ``positions`` seeds;
the bridge endings are 32 cards drawn at random from ``positions`` seeds and dealt 8 to each hand, North to lead,
solved without trumps and with spades trumps (each solve: the tricks North-South take with best play).

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
from engine.cards import BIT, RANKS, SUITS, cards_in
from engine.rng import Rng, derive_seed
from engine.search.dd_search import Search
from engine.search.double_dummy import DoubleDummy, cards_left
from engine.trickgame import TrickRules
from engine.tricks import NO_TRUMP, SPADES, Ranking

from .colver_dd import CASES as COLVER_CASES
from .colver_dd import colver_against_ours

POLICIES = ("random", "greedy", "pimc", "ismcts")
LAST_TRICKS = 8
# label: (game, options, tricks from the end)
DD_CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    "german_whist": ("german_whist", {}, LAST_TRICKS),
    "belote_contree": ("belote_contree", {"num_deals": 1}, LAST_TRICKS),
    "belote_contree:6": ("belote_contree", {"num_deals": 1}, 6),
    "belote_contree:5": ("belote_contree", {"num_deals": 1}, 5),
}
BRIDGE = TrickRules(Ranking("AKQJT98765432"), tricks=LAST_TRICKS)  # the last 8 tricks of a bridge deal
BRIDGE_TRUMPS = {"no_trump": NO_TRUMP, "spades": SPADES}
PARTNERS = (0, 1, 0, 1)  # North-South against East-West
OnStep = Callable[[str, int], None]  # (what the step times, steps done before it)


def bots_bench_steps(games: int, positions: int, policies: int = len(POLICIES)) -> int:
    """How many steps :func:`run_bots_bench` reports: a policy in a game, a position the solver solves, a bridge
    ending solved by both solvers, a contrée ending solved by ours and colver's."""
    return games * policies + (len(DD_CASES) + 1 + len(COLVER_CASES)) * positions


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
    solver = {label: solve_last_tricks(game, options, positions, seed, lambda k, label=label: report(
        f"double dummy, {label}: position {k + 1}", next(steps)), tricks=tricks)
        for label, (game, options, tricks) in DD_CASES.items()}
    bridge = bridge_against_dds(positions, seed, lambda k: report(f"double dummy, bridge: ending {k + 1}", next(steps)))
    colver = colver_against_ours(positions, seed, lambda label, k: report(
        f"double dummy against colver's, {label}: ending {k + 1}", next(steps)))
    return {
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "seconds_per_case": seconds,
        "policies": rates,
        "double_dummy": solver,
        "bridge": bridge,
        "colver_double_dummy": colver,
    }


def decision_rate(game: str, label: str, seconds: float, seed: int, deals: int = 0,
                  on_decision: Callable[[engine.State, float], None] | None = None) -> dict[str, Any]:
    """Decisions per second of ``label`` playing seat 0 of single-deal matches against random seats: for ``seconds``
    (at least one decision), or over ``deals`` deals whatever the time when given. ``on_decision(state, seconds)``
    is told of each decision timed, before its move is applied (tools/pimc_dd_cards.py)."""
    name, params = parse_policy(label)
    spent, decisions, played = 0.0, 0, 0
    while (played < deals) if deals else (spent < seconds or not decisions):
        state = engine.new_match(game, seed=derive_seed(seed, played), options={"max_deals": 1})
        bots = make_policies(["random"] * state.players, game, derive_seed(seed, played))
        policy = make_policy(name, game, 0, derive_seed(seed, played, 1), params)
        while not state.is_terminal:
            seat = state.current_player
            assert seat is not None
            legal = state.legal_action_ids()
            bot = policy if seat == 0 else bots[seat]
            observe: Observe = seat_observer(state, seat, bot)
            if seat == 0 and len(legal) > 1:
                started = time.perf_counter()
                action = bot.choose_id(legal, observe)
                took = time.perf_counter() - started
                spent += took
                decisions += 1
                if on_decision is not None:
                    on_decision(state, took)
            else:
                action = bot.choose_id(legal, observe)
            state.apply_id(action)
        played += 1
        if played > 10_000:
            break
    return {"decisions": decisions, "seconds": round(spent, 3), "decisions_per_s": round(decisions / spent, 2)
            if spent else None, "deals": played}


def solve_last_tricks(game: str, options: dict[str, Any], positions: int, seed: int,
                      on_position: Callable[[int], None] | None = None, tricks: int = LAST_TRICKS) -> dict[str, Any]:
    """Nodes per second and seconds per solve of the last ``tricks`` tricks from ``positions`` random deals
    (``on_position(k)`` told as the k-th starts)."""
    times, nodes = [], 0
    for k in range(positions):
        if on_position is not None:
            on_position(k)
        state = engine.new_match(game, seed=derive_seed(seed, 7, k), options=options)
        bots = make_policies(["random"] * state.players, game, derive_seed(seed, 7, k))
        target = tricks * state.players
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
    return {"positions": positions, "cards": tricks * engine.new_match(game, seed=0, options=options).players,
            "nodes": nodes, "nodes_per_s": round(nodes / total), "mean_seconds": round(total / positions, 4),
            "max_seconds": round(max(times), 4)}


def bridge_ending(seed: int) -> list[int]:
    """Four hands (masks) of 8 cards: 32 cards of the 52 drawn at random and dealt in turn."""
    deck = list(range(52))
    Rng(seed).shuffle(deck)
    hands = [0] * 4
    for k, card in enumerate(deck[:4 * LAST_TRICKS]):
        hands[k % 4] |= BIT[card]
    return hands


def bridge_pbn(hands: list[int]) -> str:
    """The hands as a PBN deal, North first (suits spades to clubs, ranks high to low)."""
    def holding(hand: int, suit: int) -> str:
        return "".join(RANKS[c % 13] for c in reversed(cards_in(hand)) if c // 13 == suit)

    return "N:" + " ".join(".".join(holding(hand, SUITS.index(s)) for s in "SHDC") for hand in hands)


def bridge_against_dds(positions: int, seed: int, on_position: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Seconds per solve of bridge endings (4 hands of 8 cards, North to lead) by this solver and by DDS, without
    trumps and with spades, on the same endings in the same run (DDS's figures None when ``endplay`` is missing). The
    two solvers' values must agree."""
    try:
        from endplay.dds.solve import SolveMode, solve_board  # the dev extra's wrapper of Bo Haglund's DDS
        from endplay.types import Deal, Denom, Player
        dds: str | None = "endplay (Bo Haglund's DDS)"
    except ImportError as exc:
        dds = None
        missing = f"endplay is not installed ({exc}): pip install -e '.[dev]'"
    else:
        solve_board(Deal(bridge_pbn(bridge_ending(seed)), trump=Denom.nt))  # DDS sets itself up on its first solve
    ours: dict[str, list[float]] = {name: [] for name in BRIDGE_TRUMPS}
    theirs: dict[str, list[float]] = {name: [] for name in BRIDGE_TRUMPS}
    for k in range(positions):
        if on_position is not None:
            on_position(k)
        hands = bridge_ending(derive_seed(seed, 11, k))
        for name, trump in BRIDGE_TRUMPS.items():
            search = Search(BRIDGE, trump, PARTNERS, 0, 0, hands, [], 0, [], [True] * LAST_TRICKS)
            started = time.perf_counter()
            value = search.solve()
            ours[name].append(time.perf_counter() - started)
            if dds is None:
                continue
            deal = Deal(bridge_pbn(hands), first=Player.north, trump=Denom.nt if trump == NO_TRUMP else Denom.spades)
            started = time.perf_counter()
            solved = solve_board(deal, SolveMode.OptimalOne)
            theirs[name].append(time.perf_counter() - started)
            best = max(tricks for _card, tricks in solved)
            if best != value:
                raise AssertionError(f"bridge ending {bridge_pbn(hands)} ({name}): DDS {best}, ours {value}")
    report: dict[str, Any] = {"positions": positions, "cards": 4 * LAST_TRICKS,
                              "dds": dds if dds is not None else missing}
    for name in BRIDGE_TRUMPS:
        mean = sum(ours[name]) / positions
        dds_mean = sum(theirs[name]) / positions if theirs[name] else None
        report[name] = {"mean_seconds": round(mean, 5), "dds_mean_seconds": round(dds_mean, 6) if dds_mean else None,
                        "times_dds": round(mean / dds_mean, 1) if dds_mean else None}
    return report
