"""``cardtable bench --env pettingzoo``: steps per second through the PettingZoo environment against the engine's own
moves per second, measured in the same run (rounds of each in turn, so both see the same load).

The engine's figure is its step-by-step loop (``legal_action_ids``, a random choice, ``apply_id``: what an
environment's step has to do) and, for reference, its fused rollout (``play_out``, as ``cardtable bench``); the
environment's is PettingZoo's agent loop (``last()``, a random legal index from the mask, ``step()``). The wrapper's
cost is the environment's time per step beyond the engine's time per move, as a fraction of the latter.

The protocol's floor is the same agent loop with no environment behind it: the engine's step plus only what any numpy
AEC environment has to do around it (a generator of agents, ``last()``'s tuple and observation dict, an observation
vector and the mask copied out, the mask filled from the legal ids, the agent's ``nonzero`` and numpy index, the
index checked as an integer), with a fixed vector and no encoding, rewards or bookkeeping. Its cost, the same fraction,
is what no encoder can take away.

``cardtable bench --env vector`` plays the vector environment (``num_envs`` single-deal matches, random legal actions
from :meth:`~envs.vector.CardtableVectorEnv.sample_actions`, copies of the batch returned as by default) in rounds
with the engine's step loop and reports the steps of all matches per second beside the engine's moves per second,
and the share of each loop's time the garbage collector took (N matches in play keep N deals' objects alive across
its young collections, which then reach the old generation: its full collections walk every object the process
holds, the engine's loop with one deal in play rarely starts one).
"""

from __future__ import annotations

import gc
import operator
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import engine
from engine.bots import make_policies, play_out
from engine.rng import Rng, derive_seed
from envs.pettingzoo import CardtableEnv
from envs.vector import CardtableVectorEnv

DEAL = {"max_deals": 1}
ROUNDS = 3


def _timed(play_one: Callable[[int], int], seconds: float, first: int) -> tuple[int, float]:
    """Play deals ``first``, ``first + 1``, ... for ``seconds`` (at least one); moves made and time taken."""
    moves, number = 0, first
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        moves += play_one(number)
        number += 1
        if time.perf_counter() >= deadline:
            return moves, time.perf_counter() - started


def engine_steps(game: str, players: int | None, seed: int) -> Callable[[int], int]:
    def play_one(number: int) -> int:
        state = engine.new_match(game, seed=derive_seed(seed, number), players=players, options=DEAL)
        rng, moves = Rng(derive_seed(seed, number, 1)), 0
        while state.current_player is not None:
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.below(len(legal))])
            moves += 1
        return moves

    return play_one


def engine_rollouts(game: str, players: int | None, seed: int) -> Callable[[int], int]:
    def play_one(number: int) -> int:
        state = engine.new_match(game, seed=derive_seed(seed, number), players=players, options=DEAL)
        return play_out(state, make_policies(["random"] * state.players, game, derive_seed(seed, number, 1)))

    return play_one


def env_steps(game: str, players: int | None, seed: int) -> Callable[[int], int]:
    env = CardtableEnv(game, players, options=DEAL)

    def play_one(number: int) -> int:
        env.reset(seed=derive_seed(seed, number))
        rng, steps = Rng(derive_seed(seed, number, 1)), 0
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[rng.below(len(legal))]))
            steps += 1
        return steps

    return play_one


def protocol_steps(game: str, players: int | None, seed: int) -> Callable[[int], int]:
    probe = CardtableEnv(game, players, options=DEAL)
    vector = np.zeros(probe.encoder.size, dtype=np.float32)
    mask = np.zeros(probe.codec.size, dtype=np.int8)
    view, zeros, fishing = memoryview(mask).cast("B"), bytes(probe.codec.size), probe.codec.fishing
    reward, done, info = 0, False, {}

    def agents(state: engine.State) -> Iterator[int]:
        while state.current_player is not None:
            yield state.current_player

    def play_one(number: int) -> int:
        state = engine.new_match(game, seed=derive_seed(seed, number), players=players, options=DEAL)
        rng, steps = Rng(derive_seed(seed, number, 1)), 0
        for _agent in agents(state):
            legal = state.legal_action_ids()  # the mask of the seat to act (a fishing game's ids stand for indexes)
            view[:] = zeros
            for index in (range(len(legal)) if fishing else legal):
                view[index] = 1
            observation, _reward, _terminated, _truncated, _info = (
                {"observation": vector.copy(), "action_mask": mask.copy()}, reward, done, done, info)
            indexes = observation["action_mask"].nonzero()[0]
            index = operator.index(int(indexes[rng.below(len(indexes))]))
            state.apply_id(legal[index] if fishing else index)
            steps += 1
        return steps

    return play_one


def run_env_bench(game: str, players: int | None = None, seconds: float = 3.0, seed: int = 1) -> dict[str, Any]:
    """Rounds of the engine's step loop, its rollout and the environment's loop, ``seconds`` in all."""
    loops = {"engine_steps": engine_steps(game, players, seed), "engine_rollouts": engine_rollouts(game, players, seed),
             "env": env_steps(game, players, seed), "protocol": protocol_steps(game, players, seed)}
    totals = {name: [0, 0.0] for name in loops}
    share = seconds / (ROUNDS * len(loops))
    for round_number in range(ROUNDS):
        for name, loop in loops.items():
            moves, elapsed = _timed(loop, share, 10_000 * round_number)
            totals[name][0] += moves
            totals[name][1] += elapsed
    rates = {name: moves / elapsed for name, (moves, elapsed) in totals.items()}
    env_rate, engine_rate = rates["env"], rates["engine_steps"]
    return {
        "game": game,
        "players": engine.new_match(game, seed=0, players=players).players,
        "env": "pettingzoo",
        "env_steps_per_s": round(env_rate, 1),
        "engine_moves_per_s": round(engine_rate, 1),
        "engine_rollout_moves_per_s": round(rates["engine_rollouts"], 1),
        # The environment's time per step beyond the engine's per move, as a fraction of the engine's.
        "wrapper_cost": round(engine_rate / env_rate - 1, 3),
        "wrapper_cost_vs_rollout": round(rates["engine_rollouts"] / env_rate - 1, 3),
        # The same fraction for the AEC protocol's floor: the engine's step with only the protocol's work around it.
        "protocol_steps_per_s": round(rates["protocol"], 1),
        "protocol_cost": round(engine_rate / rates["protocol"] - 1, 3),
        "seconds": round(sum(elapsed for _, elapsed in totals.values()), 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


class CollectorClock:
    """The seconds the garbage collector has taken since this clock was made (a ``gc.callbacks`` entry until
    ``close``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started

    def close(self) -> None:
        gc.callbacks.remove(self._tick)


def run_vector_bench(game: str, players: int | None = None, seconds: float = 3.0, seed: int = 1,
                     num_envs: int = 64) -> dict[str, Any]:
    """Rounds of the engine's step loop, its rollout and the vector environment's steps, ``seconds`` in all."""
    venv = CardtableVectorEnv(game, num_envs, players, options=DEAL)
    venv.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def vector_steps(seconds: float) -> tuple[int, float]:
        steps, started = 0, time.perf_counter()
        deadline = started + seconds
        while True:
            venv.step(venv.sample_actions(rng))
            steps += num_envs
            if time.perf_counter() >= deadline:
                return steps, time.perf_counter() - started

    loops: dict[str, Callable[[float, int], tuple[int, float]]] = {
        "engine_steps": lambda share, first: _timed(engine_steps(game, players, seed), share, first),
        "engine_rollouts": lambda share, first: _timed(engine_rollouts(game, players, seed), share, first),
        "vector": lambda share, first: vector_steps(share)}
    totals = {name: [0, 0.0] for name in loops}
    collecting = {name: 0.0 for name in loops}
    share = seconds / (ROUNDS * len(loops))
    clock = CollectorClock()
    try:
        for round_number in range(ROUNDS):
            for name, loop in loops.items():
                before = clock.seconds
                moves, elapsed = loop(share, 10_000 * round_number)
                totals[name][0] += moves
                totals[name][1] += elapsed
                collecting[name] += clock.seconds - before
    finally:
        clock.close()
    rates = {name: moves / elapsed for name, (moves, elapsed) in totals.items()}
    return {
        "game": game,
        "players": venv.n,
        "env": "vector",
        "num_envs": num_envs,
        "env_steps_per_s": round(rates["vector"], 1),
        "engine_moves_per_s": round(rates["engine_steps"], 1),
        "engine_rollout_moves_per_s": round(rates["engine_rollouts"], 1),
        "env_to_engine": round(rates["vector"] / rates["engine_steps"], 3),
        "env_to_rollout": round(rates["vector"] / rates["engine_rollouts"], 3),
        # the share of each loop's time in garbage collections
        "env_gc_share": round(collecting["vector"] / totals["vector"][1], 3),
        "engine_gc_share": round(collecting["engine_steps"] / totals["engine_steps"][1], 3),
        "seconds": round(sum(elapsed for _, elapsed in totals.values()), 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
