"""Tablanette's own rule: what a sweep (a tablanette) is worth (tablanette.md 5.6-5.7)."""

from __future__ import annotations

from collections.abc import Mapping

from ...cards import RANK, cards_in
from ...fishing import ACE, JACK, JACKS_MASK, CaptureRules, capture_value, turn_groups


def tablanette_value(played: int, captured_mask: int, rules: CaptureRules) -> int:
    """What a sweep by ``played`` scores (tablanette.md §5.6 (a), §5.7): a special jack's is never a tablanette, any
    other is worth ``sweep_value``."""
    if rules.jack_takes_all and RANK[played] == JACK:
        return 0
    return sweep_value(played, captured_mask, rules)


def sweep_value(played: int, captured_mask: int, rules: CaptureRules) -> int:
    """Tablanette's score for a capture that empties the table (tablanette.md §5.7, §9.2).

    The played card's value plus each captured group's value (a rank-matched ace counts 11), maximised over the
    played card's values for which the captured cards split into groups.
    """
    valued = captured_mask & ~JACKS_MASK if rules.jack_takes_all else captured_mask  # §5.6 (c): no special jacks
    found = turn_groups(valued, played, rules.max_sum_cards)
    best = 0
    for v in capture_value(RANK[played], rules.jack_value):
        groups = [g for g, values in found if values >> v & 1]
        worth = {g: (11 if RANK[played] == ACE else v) if g.bit_count() == 1 and RANK[cards_in(g)[0]] == RANK[played]
                 else v for g in groups}
        total = _best_partition(captured_mask, groups, worth)
        if total is not None:
            best = max(best, v + total)
    return best


def _best_partition(mask: int, groups: list[int], worth: Mapping[int, int]) -> int | None:
    """The largest total worth of groups that partition ``mask`` exactly, or None if none does."""
    if not mask:
        return 0
    lowest = mask & -mask
    best = None
    for g in groups:
        if g & lowest and g & mask == g:
            rest = _best_partition(mask & ~g, groups, worth)
            if rest is not None and (best is None or worth[g] + rest > best):
                best = worth[g] + rest
    return best


