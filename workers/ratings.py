"""Ratings from a tournament's duplicate pairings: a least-squares fit of the pairings' margins, with intervals, and
an order that never goes against a head-to-head result.

The model: in a deal a pairing of policies ``a`` and ``b`` plays, ``a``'s duplicate margin over ``b`` (its sides'
mean score less ``b``'s, averaged over the seat arrangements) is ``r[a] - r[b]`` plus noise. The ratings ``r`` are
the least-squares fit to the pairings' mean margins, the one with ratings summing to 0 (``numpy.linalg.pinv``): in
a full round robin of ``n`` policies, a policy's rating is its margin against the whole field, itself included at 0,
over ``n``. A rating is in the game's points per deal: ``r[a] - r[b]`` is the margin ``a`` is expected to win by
against ``b``, as the other pairings also tell it.

The fit is linear in the pairings' margins deal by deal, so each deal gives one vector of ratings and the ratings are
their mean: the 95% interval of a rating comes from the spread of those per-deal ratings, which keeps the correlation
of the pairings that played the same deals (every pairing of a tournament plays the same deals).

The order: with three policies or more the fit can rate ``a`` above ``b`` though ``b`` beat ``a`` head to head (say
``a`` beat a weak third policy by far more than ``b`` did). The standings never rank a policy above one that beat it
head to head with a 95% interval of the margin excluding 0, directly or through a chain of such results: among the
policies no remaining one beats that way, the best rated comes next. Only a cycle of such results (``a`` beats
``b`` beats ``c`` beats ``a``) cannot be respected; its policies are then ranked by rating, and said to be in a
cycle. A policy that has to stay above another goes up with it: among the free ones, the next is the one with the
best rating among itself and the policies below it, then the best rated. A policy ranked below worse-rated ones that
beat it (directly or through a chain) carries a note naming them, with the direct results' margins.

>>> rated = rate_pairings(["a", "b", "c"], {("a", "b"): [-1.0, -2.0, -1.5, -2.5], ("a", "c"): [9.0, 11.0, 10.0, 10.0],
...                                        ("b", "c"): [5.0, 4.0, 6.0, 5.0]})
>>> [(row["policy"], row["rating"]) for row in rated]  # a is rated above b, yet b beat a head to head
[('b', 2.25), ('a', 2.75), ('c', -5.0)]
>>> rated[1]["note"]
'ranked below b (lost to it head to head: -1.75 [-2.38, -1.12] a deal)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .stats import Z95


def margin_stats(margins: Sequence[float]) -> dict[str, Any]:
    """A pairing's mean margin per deal with its 95% interval, and the first policy's win rate (a draw half)."""
    n = len(margins)
    mean = sum(margins) / n if n else 0.0
    var = sum((m - mean) ** 2 for m in margins) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n) if n > 1 else 0.0
    wins = sum(1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins)
    return {"mean_difference": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)],
            "win_rate": round(wins / n, 4) if n else 0.0}


def beats(stats: Mapping[str, Any]) -> int:
    """1 when a pairing's first policy beat the second (its margin's 95% interval above 0), -1 when it lost (below
    0), 0 when the interval holds 0."""
    low, high = stats["ci95"]
    return 1 if low > 0 else -1 if high < 0 else 0


def fit_ratings(policies: Sequence[str], margins: Mapping[tuple[str, str], Sequence[float]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares ratings (summing to 0) of ``policies`` from each pairing's per-deal margins (every pairing
    over the same number of deals, two or more) and each rating's 95% half-interval."""
    index = {label: i for i, label in enumerate(policies)}
    pairs = list(margins)
    design = np.zeros((len(pairs), len(policies)))
    for row, (a, b) in enumerate(pairs):
        design[row, index[a]], design[row, index[b]] = 1.0, -1.0
    per_deal = np.array([margins[pair] for pair in pairs], dtype=float).T @ np.linalg.pinv(design).T  # deals x policies
    deals = per_deal.shape[0]
    half = Z95 * per_deal.std(axis=0, ddof=1) / math.sqrt(deals) if deals > 1 else np.zeros(len(policies))
    return per_deal.mean(axis=0), half


def rate_pairings(policies: Sequence[str], margins: Mapping[tuple[str, str], Sequence[float]]) -> list[dict[str, Any]]:
    """The standings: per policy its rating with a 95% interval and a note, in the order the module docstring sets
    out (best first)."""
    ratings, half = fit_ratings(policies, margins)
    rating = {label: float(r) for label, r in zip(policies, ratings, strict=True)}
    results = {pair: margin_stats(values) for pair, values in margins.items()}
    winner_over: dict[tuple[str, str], Mapping[str, Any]] = {}  # (winner, loser) -> the pairing's stats
    for (a, b), stats in results.items():
        if beats(stats) > 0:
            winner_over[a, b] = stats
        elif beats(stats) < 0:
            winner_over[b, a] = _reversed(stats)
    above = _reach(policies, set(winner_over))
    # A policy that must stay above another goes up with it: it comes next as soon as the best rated one below it
    # would.
    reach = {u: max([rating[u]] + [rating[x] for x in policies if u in above[x]]) for u in policies}
    order: list[str] = []
    remaining = list(policies)
    while remaining:
        free = [u for u in remaining if not any(v in above[u] and u not in above[v] for v in remaining if v != u)]
        best = min(free, key=lambda u: (-reach[u], -rating[u], u))
        order.append(best)
        remaining.remove(best)
    rows = []
    for place, label in enumerate(order):
        cycle = sorted(v for v in above[label] if label in above[v] and v != label)
        lower_rated_above = [v for v in order[:place] if rating[v] < rating[label] and v in above[label]]
        note = ""
        if cycle:
            note = f"in a cycle of head-to-head results with {', '.join(cycle)}: ranked by rating"
        elif lower_rated_above:
            note = _note(label, lower_rated_above, winner_over)
        width = float(half[policies.index(label)])
        low, high = rating[label] - width, rating[label] + width
        rows.append({"policy": label, "rating": round(rating[label], 4), "ci95": [round(low, 4), round(high, 4)],
                     "note": note})
    return rows


def _reversed(stats: Mapping[str, Any]) -> dict[str, Any]:
    low, high = stats["ci95"]
    return {"mean_difference": -stats["mean_difference"], "ci95": [-high, -low], "win_rate": 1 - stats["win_rate"]}


def _reach(policies: Sequence[str], wins: set[tuple[str, str]]) -> dict[str, set[str]]:
    """For each policy, the policies above it: those that beat it head to head, directly or through a chain."""
    above = {label: {w for w, loser in wins if loser == label} for label in policies}
    changed = True
    while changed:
        changed = False
        for label in policies:
            more = set().union(*(above[v] for v in above[label])) - above[label] if above[label] else set()
            if more:
                above[label] |= more
                changed = True
    return above


def _note(label: str, lower_rated_above: list[str], winner_over: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """Why ``label`` is ranked below policies rated lower: the head-to-head results, direct ones with their margin."""
    parts = []
    for v in lower_rated_above:
        stats = winner_over.get((v, label))
        if stats is None:
            parts.append(f"{v} (through a chain of head-to-head results)")
            continue
        low, high = stats["ci95"]
        parts.append(f"{v} (lost to it head to head: {-stats['mean_difference']:+.2f} [{-high:+.2f}, {-low:+.2f}] "
                     "a deal)")
    return "ranked below " + ", ".join(parts)
