"""Playing a move leaves no reference cycle behind: every object the engine makes for a move (legal actions, a view,
the whole turns a person chooses among, a bot's choice) is freed by its reference count, not by the garbage collector.

Cyclic garbage costs twice: the collector runs once per 700 net new containers, and a server's or a simulation's
heap is large. A recursive closure is the usual culprit (the function's cell refers to the function), which is how
the fishing games' capture enumeration left ~7 objects a move (a gRPC Act spent ~16 µs of ~190 in the collector).
The engine tier runs this from the source too."""

from __future__ import annotations

import gc
import random
from collections import Counter

import pytest

import engine
from engine.bots import make_policies

CASES = [(game, n) for game in engine.list_games() for n in engine.game_info(game).player_counts]


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_a_move_leaves_no_reference_cycle(game: str, players: int) -> None:
    state = engine.new_match(game, seed=3, players=players, options={"max_deals": 1})
    bots = make_policies(["greedy"] * players, game, 3)
    rng = random.Random(3)
    garbage: list[object] = []
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        moves = 0
        while not state.is_terminal and moves < 300:
            seat = state.current_player
            state.observation(seat, history=False)
            state.turn_choices()
            legal = state.legal_action_ids()
            if moves % 2:
                action = bots[seat].choose_id(legal, lambda seat=seat: state.observation(seat))
            else:
                action = rng.choice(legal)
            state.apply_id(action)
            moves += 1
        state.to_position()
    finally:
        gc.collect()
        garbage.extend(gc.garbage)
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    kinds = Counter(type(thing).__qualname__ for thing in garbage)
    assert not garbage, f"{len(garbage)} objects in reference cycles after {moves} moves: {kinds.most_common(5)}"
