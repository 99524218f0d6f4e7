"""Greedy for the fishing games (Tablanette, Tablić): grab sweeps, then points, then cards; trail cheaply.

Ranking, best first (rules: tablanette.md §2.2, §5.6-5.7; tablic.md §2.2):

1. a capture beats a trail (in Tablić trailing is allowed even when a capture exists);
2. among captures: one that empties the table (a tablanette / tabla) — in Tablanette with special jacks a jack's
   take-all is never a tablanette; then the most card points taken (the played card included); then the most cards;
3. among trails: the card worth the fewest card points.

>>> obs = {"game": "tablic", "options": {}, "table": ["5D", "7H"], "legal_actions": ["QC", "QC:5D,7H", "TS"]}
>>> rank_fishing_actions(obs)
[(0, False, -1, 0), (1, True, 1, 3), (0, False, -1, 0)]
"""

from __future__ import annotations

from ..cards import CARD_OF_CODE
from ..fishing import CARD_POINTS
from .greedy import register_greedy


def card_points(code: str) -> int:
    """``card_points("TD") == 2``, ``card_points("2C") == 1``, ``card_points("9S") == 0``."""
    return CARD_POINTS[CARD_OF_CODE[code]]


def _jack_sweeps_score(observation: dict) -> bool:
    """Whether emptying the table with a jack counts as a sweep in this game."""
    if observation["game"] != "tablanette":
        return True
    return observation["options"].get("jack_mode", "special") != "special"


@register_greedy("tablanette", "tablic")
def rank_fishing_actions(observation: dict) -> list[tuple]:
    table = frozenset(observation["table"])
    jack_sweeps = _jack_sweeps_score(observation)
    keys = []
    for action in observation["legal_actions"]:
        played, _, taken = action.partition(":")
        if not taken:
            keys.append((0, False, -card_points(played), 0))
            continue
        captured = taken.split(",")
        sweep = frozenset(captured) == table and (jack_sweeps or played[0] != "J")
        points = card_points(played) + sum(card_points(code) for code in captured)
        keys.append((1, sweep, points, len(captured) + 1))
    return keys
