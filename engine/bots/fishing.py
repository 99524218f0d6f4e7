"""Greedy for the fishing games (Tablanette, Tablić): grab sweeps, then points, then cards; trail cheaply.

Each legal action is rated by the best whole turn it leads to. A capture is decided step by step (``7H:``, then
``+3C``..., ``next``, ``done``; see :mod:`engine.fishing`), so the turns through a step are found by a search over the
steps that follow it, bounded to ``SEARCH_NODES`` steps (on a table grown very large it rates by the best turn found
within that bound). Whole turns (``QC:5D,7H``, a trail ``7H``) are rated directly. Ranking, best first (rules:
tablanette.md §2.2, §5.6-5.7; tablic.md §2.2):

1. a capture beats a trail (in Tablić trailing is allowed even when a capture exists);
2. among captures: one that empties the table (a tablanette / tabla) — in Tablanette with special jacks a jack's
   take-all is never a tablanette; then the most card points taken (the played card included); then the most cards;
3. among trails: the card worth the fewest card points.

>>> obs = {"game": "tablic", "options": {}, "table": ["5D", "7H"], "legal_actions": ["QC", "JC:", "TS"]}
>>> rank_fishing_actions(obs)
[(0, False, -1, 0), (1, True, 1, 3), (0, False, -1, 0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cards import BIT, CARD_OF_CODE, RANK, mask_of, parse_cards
from ..fishing import (
    CARD_POINTS,
    DONE,
    JACK,
    JACKS_MASK,
    NEXT,
    TAKE,
    CaptureRules,
    FishingState,
    Turn,
    card_points,
    start_turn,
    turn_options,
    turn_step,
    turn_values,
)
from ..registry import game_class
from .greedy import SortKey
from .policy import Observation
from .seen import Seen, SeenInObservation

SEARCH_NODES = 400  # steps searched per legal action: enough for every turn on a table of ordinary size


def _rules(observation: Observation) -> CaptureRules:
    cls = game_class(observation["game"])
    assert issubclass(cls, FishingState)  # this ranker is registered for the fishing games only
    players = observation.get("players", cls.INFO.default_players)
    options: dict[str, Any] = {o.name: o.default_for(players) for o in cls.INFO.all_options()}
    options.update(observation.get("options") or {})
    return cls.capture_rules_for(options)


def _mask(codes: list[str]) -> int:
    return mask_of(parse_cards(codes))


class _Rater:
    """Sort keys of whole turns on one table."""

    def __init__(self, observation: Observation) -> None:
        self.rules = _rules(observation)
        self.table = _mask(observation["table"])
        self.capturable = self.table & ~JACKS_MASK if self.rules.jack_takes_all else self.table

    def turn_key(self, played: int, captured: int) -> SortKey:
        if not captured:
            return (0, False, -CARD_POINTS[played], 0)
        special_jack = self.rules.jack_takes_all and RANK[played] == JACK
        sweep = captured == self.table and not special_jack
        points = card_points(captured | BIT[played])
        return (1, sweep, points, captured.bit_count() + 1)

    def best_after(self, turn: Turn, decision: int) -> SortKey:
        """The best whole turn that ``decision`` leads to from ``turn`` (within the search bound)."""
        best: SortKey | None = None
        budget = SEARCH_NODES
        stack = [(turn, decision)]
        while stack and budget:
            budget -= 1
            now, step = stack.pop()
            after, ended = turn_step(now, step, self.capturable, self.rules)
            if ended:
                key = self.turn_key(after[0], after[2])
                best = key if best is None or key > best else best
            else:
                stack.extend((after, d) for d in turn_options(after, self.capturable, self.rules))
        assert best is not None  # every step leads to a turn's end within 2 x 52 steps
        return best


def _key(rater: _Rater, action: str, turn: Mapping[str, Any] | None) -> SortKey:
    played, colon, taken = action.partition(":")
    if action in ("next", "done") or action.startswith("+"):
        assert turn is not None
        card = CARD_OF_CODE[turn["card"]]
        closed = _mask(turn["taken"])
        now = (card, turn_values(card, closed, rater.rules), closed, _mask(turn["group"]))
        decision = NEXT if action == "next" else DONE if action == "done" else TAKE | CARD_OF_CODE[action[1:]]
        return rater.best_after(now, decision)
    card = CARD_OF_CODE[played]
    if colon and not taken:
        begun = start_turn(card)
        return max(rater.best_after(begun, d) for d in turn_options(begun, rater.capturable, rater.rules))
    return rater.turn_key(card, _mask(taken.split(",")) if taken else 0)


def rank_fishing(seen: Seen) -> list[SortKey]:
    """The fishing games' ranker: :func:`rank_fishing_actions` of the seat's observation."""
    observation = seen.obs
    rater = _Rater(observation)
    turn = observation.get("turn")
    return [_key(rater, action, turn) for action in observation["legal_actions"]]


def rank_fishing_actions(observation: Observation) -> list[SortKey]:
    """:func:`rank_fishing` of an observation."""
    return rank_fishing(SeenInObservation(observation))
