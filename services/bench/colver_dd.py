"""``cardtable bench --bots``: colver's double-dummy solver (the ``colver`` package of the dev extra) against ours on
the same Belote contrée endings in the same run (``colver_double_dummy`` in the JSON, beside ``double_dummy``).

The endings are :func:`services.bench.bots.solve_last_tricks`'s: random play from the same seeds to the start of the
trick that many tricks from the end. Each is solved, in turn, by our :class:`engine.search.double_dummy.DoubleDummy`
(the points the side to play takes from the remaining tricks, last trick's 10 included), by colver's oracle
(``Env.action_oracle_dd``: its best card, which needs the root's value) and by colver's ``Env.solve_scores`` (the
value of every legal card: more work than one value). colver's values are North-South's card points at the deal's end
(capot counted as 252), so they agree with ours (plus the points already taken) except where a capot can still be won,
where colver's follow rule differs from ours (it lets a player undertrump a partner who wins with a trump), or where
the deal's score no longer depends on the cards (a failed capot contract: colver's card points are then not exact).
The JSON counts the endings where they agree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import engine
from engine.bots import make_policies, seat_observer
from engine.rng import derive_seed
from engine.search.double_dummy import DoubleDummy, cards_left

GAME = "belote_contree"
CASES = {"belote_contree": 8, "belote_contree:6": 6, "belote_contree:5": 5}  # label: tricks from the end
OPTIONS = {"num_deals": 1}


def ending(seed: int, k: int, tricks: int) -> engine.State:
    """The ``k``-th contrée ending of ``tricks`` tricks that ``solve_last_tricks`` solves for ``seed``."""
    state = engine.new_match(GAME, seed=derive_seed(seed, 7, k), options=OPTIONS)
    bots = make_policies(["random"] * state.players, GAME, derive_seed(seed, 7, k))
    while not (state.phase == "play" and cards_left(state) == tricks * state.players):
        seat = state.current_player
        assert seat is not None, "the deal ended before its last tricks"
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return state


def colver_env(state: engine.State) -> Any:
    """colver's ``Env`` at the same point of the same deal (every hand known: a double-dummy position)."""
    from envs.colver import card_index, colver_deal

    public = state.observation(0)
    moves = [(seat, card) for trick in [*public["tricks"], public["trick"]] for seat, card in trick]
    hands = [[card_index(code) for code in state.observation(seat)["hand"]] for seat in range(state.players)]
    for seat, card in moves:
        hands[seat].append(card_index(card))
    return colver_deal(public["dealer"], hands, public["contract"], [card for _seat, card in moves])


def colver_against_ours(positions: int, seed: int, on_position: Callable[[str, int], None] | None = None
                        ) -> dict[str, Any]:
    """Seconds per solve of each case's endings by our solver and colver's, in turn on each ending; None (with the
    reason) when colver is not installed."""
    try:
        import colver
    except ImportError as exc:
        return {"solver": None, "missing": f"colver is not installed ({exc}): pip install -e '.[dev]'"}
    report: dict[str, Any] = {"solver": f"colver {colver.__version__} (Env.action_oracle_dd, Env.solve_scores)"}
    for label, tricks in CASES.items():
        ours, oracle, all_cards, agree = [], [], [], 0
        for k in range(positions):
            if on_position is not None:
                on_position(label, k)
            state = ending(seed, k, tricks)
            started = time.perf_counter()
            value = DoubleDummy(state).solve()
            ours.append(time.perf_counter() - started)
            env = colver_env(state)
            started = time.perf_counter()
            env.action_oracle_dd()
            oracle.append(time.perf_counter() - started)
            started = time.perf_counter()
            scores = env.solve_scores()["scores"]
            all_cards.append(time.perf_counter() - started)
            side = state.current_player % 2  # seats 0 and 2 are colver's North-South
            taken = state.observation(0)["card_points"][side]
            north_south = [points for _card, points in scores]
            best = max(north_south) if side == 0 else 162 - min(north_south)
            agree += best == taken + value
        mean = sum(ours) / positions
        report[label] = {
            "positions": positions, "cards": tricks * 4, "mean_seconds": round(mean, 6),
            "colver_oracle_mean_seconds": round(sum(oracle) / positions, 6),
            "colver_solve_scores_mean_seconds": round(sum(all_cards) / positions, 6),
            "times_colver_oracle": round(mean / (sum(oracle) / positions), 1) if sum(oracle) else None,
            "values_agree": agree,
        }
    return report
