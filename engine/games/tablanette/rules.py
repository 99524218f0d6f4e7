"""Tablanette's own rule: what a sweep (a tablanette) is worth (tablanette.md 5.6-5.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...cards import RANK
from ...fishing import ACE, JACK, JACKS_MASK, CaptureRules, Groups, capture_value, turn_groups

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython


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
    for i, v in enumerate(capture_value(RANK[played], rules.jack_value)):
        total = _best_partition(captured_mask, found, 52 + i, v, RANK[played] == ACE)
        if total >= 0:
            best = max(best, v + total)
    return best


@cython.cfunc
@cython.exceptval(-2)
@cython.returns(cython.int)
@cython.locals(mask=cython.ulonglong, flag=cython.int, v=cython.int, ace=cython.bint, lowest=cython.ulonglong,
               g=cython.ulonglong, kept=cython.ulonglong, best=cython.int, rest=cython.int, worth=cython.int)
def _best_partition(mask: int, groups: Groups, flag: int, v: int, ace: bool) -> int:
    """The largest total worth of groups for value ``v`` (those of ``groups``, ``turn_groups``', with bit ``flag``)
    that partition ``mask`` exactly, or -1 if none does: a group is worth ``v``, a single card (a rank match) 11 when
    an ace takes it. Compiled, C integers."""
    if not mask:
        return 0
    lowest = mask & (~mask + 1)
    best = -1
    for kept in groups:
        g = kept & 0xFFFFFFFFFFFFF  # its cards (bits 0-51)
        if kept >> flag & 1 and g & lowest and g & mask == g:
            rest = _best_partition(mask & ~g, groups, flag, v, ace)
            if rest >= 0:
                worth = 11 if ace and not g & (g - 1) else v
                if worth + rest > best:
                    best = worth + rest
    return best
