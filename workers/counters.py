"""Each game's own counters, read from ``state.deal_results`` the same way for every game.

A deal result is a dict of the deal's facts (rules files, section "Scoring"). Every fact becomes integer counters:
a scalar (an outcome, a contract, a capot flag, a taker's seat) counts deals per value as ``name=value``; a list of
numbers (tablanettes per side, tricks per seat) sums per position as ``name[i]``. ``deal``, ``dealer`` and the
``points`` (the scores, summarised elsewhere) are left out.

>>> counts = Counter()
>>> add_deal_counters(counts, {"deal": 0, "dealer": 1, "points": [8, 75], "tablanettes": [0, 2], "capot": False})
>>> sorted(counts.items())
[('capot=false', 1), ('tablanettes[0]', 0), ('tablanettes[1]', 2)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

SKIPPED = frozenset({"deal", "dealer", "points"})


def add_deal_counters(counts: Counter, result: Mapping[str, Any]) -> None:
    """Add one deal result's facts to ``counts``."""
    for name, value in result.items():
        if name in SKIPPED:
            continue
        if isinstance(value, list | tuple):
            for i, item in enumerate(value):
                if isinstance(item, int | float):
                    counts[f"{name}[{i}]"] += item
        elif not isinstance(value, dict):
            counts[f"{name}={_word(value)}"] += 1


def _word(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def split_counter(key: str) -> tuple[str, str]:
    """``"outcome=made"`` -> ``("outcome", "made")``; ``"tablanettes[1]"`` -> ``("tablanettes", "1")``.

    >>> split_counter("tablanettes[1]")
    ('tablanettes', '1')
    """
    if key.endswith("]") and "[" in key:
        name, _, index = key[:-1].partition("[")
        return name, index
    name, _, value = key.partition("=")
    return name, value
