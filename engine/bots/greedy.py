"""``greedy``: a one-move heuristic per game family, looked up in a per-game registry.

A game family contributes a *ranker*: a function of the observation that returns one sort key per legal action
(higher is better). The policy plays an action with the highest key and breaks ties with its own RNG. Fishing games
register theirs in :mod:`engine.bots.fishing`; trick-taking games add their own module the same way.

>>> from engine.bots.greedy import greedy_games
>>> "tablanette" in greedy_games()
True
"""

from __future__ import annotations

from collections.abc import Callable

from .policy import Policy

Ranker = Callable[[dict], list[tuple]]

_RANKERS: dict[str, Ranker] = {}


def register_greedy(*game_ids: str) -> Callable[[Ranker], Ranker]:
    """Decorator: ``@register_greedy("tablanette", "tablic")`` makes the ranker the greedy heuristic of those games."""

    def register(ranker: Ranker) -> Ranker:
        for game_id in game_ids:
            _RANKERS[game_id] = ranker
        return ranker

    return register


def greedy_games() -> list[str]:
    """The games that have a greedy heuristic."""
    return sorted(_RANKERS)


class GreedyPolicy(Policy):
    """Plays the legal action its game's ranker rates highest; ties go to its RNG."""

    name = "greedy"

    def __init__(self, game_id: str, seat: int, seed: int) -> None:
        super().__init__(game_id, seat, seed)
        try:
            self._rank = _RANKERS[game_id]
        except KeyError:
            raise ValueError(f"no greedy heuristic for {game_id!r} yet; greedy plays {greedy_games()}") from None

    def _choose_index(self, observation: dict) -> int:
        keys = self._rank(observation)
        best = max(keys)
        best_indexes = [i for i, key in enumerate(keys) if key == best]
        if len(best_indexes) == 1:
            return best_indexes[0]
        return best_indexes[self.rng.below(len(best_indexes))]
