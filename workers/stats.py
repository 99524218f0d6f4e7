"""Adding up chunk results and turning the totals into the statistics a person reads.

Means come with a 95% confidence interval (normal approximation, sample standard deviation), win rates with a 95%
Wilson score interval, which stays inside [0, 1] even for rates near 0 or 1.

>>> round(wilson_interval(50, 100)[0], 4)
0.4038
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

import engine

from .chunk import ChunkResult
from .counters import split_counter
from .spec import JobSpec

Z95 = 1.959963984540054
# Keys of the results that depend on the machine and the moment, not on the job.
TIMING_KEYS = ("seconds", "deals_per_s", "moves_per_s", "cpu_seconds")


def total(results: Iterable[ChunkResult], sides: int) -> ChunkResult:
    """The sum of chunk results (index -1); the same totals whatever the grouping or order of the chunks."""
    out = ChunkResult.empty(-1, 0, sides)
    for r in results:
        out.units += r.units
        out.deals += r.deals
        out.moves += r.moves
        out.replays += r.replays
        out.draws += r.draws
        out.seconds += r.seconds
        out.cpu_seconds += r.cpu_seconds
        for side in range(sides):
            out.score_sum[side] += r.score_sum[side]
            out.score_squares[side] += r.score_squares[side]
            out.wins[side] += r.wins[side]
            out.histograms[side].update(r.histograms[side])
        for point, sums in r.trace.items():
            into = out.trace.setdefault(point, [0] * len(sums))
            for i, value in enumerate(sums):
                into[i] += value
        out.counters.update(r.counters)
        out.unit_scores.extend(r.unit_scores)
        out.rows.extend(r.rows)
    return out


def mean_interval(n: int, total_sum: int, total_squares: int) -> tuple[float, float, float]:
    """Mean, sample standard deviation and the 95% half-width of the mean (inf with fewer than 2 values)."""
    mean = total_sum / n
    if n < 2:
        return mean, math.nan, math.inf
    variance = max(0, n * total_squares - total_sum * total_sum) / (n * (n - 1))  # exact integers until the divide
    stdev = math.sqrt(variance)
    return mean, stdev, Z95 * stdev / math.sqrt(n)


def wilson_interval(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def side_seats(spec: JobSpec) -> list[list[int]]:
    """The seats of each side (partners share one)."""
    side_of = engine.new_match(spec.game, seed=0, players=spec.players, options=spec.match_options()).side_of
    sides: list[list[int]] = [[] for _ in range(max(side_of) + 1)]
    for seat, side in enumerate(side_of):
        sides[side].append(seat)
    return sides


def summarize(spec: JobSpec, job_total: ChunkResult, seconds: float) -> dict[str, Any]:
    """The results of a job (or of the part of it played so far), JSON-ready."""
    n = job_total.units
    seats = side_seats(spec)
    sides = []
    for side, side_seat_list in enumerate(seats):
        mean, stdev, half = mean_interval(n, job_total.score_sum[side], job_total.score_squares[side])
        wins = job_total.wins[side]
        low, high = wilson_interval(wins, n)
        sides.append({
            "side": side, "seats": side_seat_list, "policies": [spec.policies[s] for s in side_seat_list],
            "mean": mean, "stdev": stdev, "ci95": [mean - half, mean + half], "wins": wins,
            "win_rate": wins / n, "win_rate_ci95": [low, high],
        })
    return {
        "game": spec.game, "unit": spec.unit, "units": n, "deals": job_total.deals, "moves": job_total.moves,
        "replays": job_total.replays, "sides": sides, "draws": job_total.draws, "draw_rate": job_total.draws / n,
        "counters": dict(sorted(job_total.counters.items())),
        "histograms": [{str(score): count for score, count in sorted(h.items())} for h in job_total.histograms],
        "running_mean": running_mean(job_total.trace),
        "seconds": seconds, "deals_per_s": job_total.deals / seconds if seconds > 0 else 0.0,
        "moves_per_s": job_total.moves / seconds if seconds > 0 else 0.0,
        "cpu_seconds": job_total.cpu_seconds,  # the workers' (see ChunkResult.cpu_seconds)
    }


def running_mean(trace: dict[int, list[int]]) -> list[list[float]]:
    """``[units played, mean of side 0, mean of side 1, ...]`` at the end of each stretch of the trace."""
    points = []
    sums: list[int] = []
    for point in sorted(trace):
        sums = [a + b for a, b in zip(sums, trace[point], strict=True)] if sums else list(trace[point])
        played = sums[0]
        points.append([played, *(s / played for s in sums[1:])])
    return points


def comparable(results: dict[str, Any]) -> dict[str, Any]:
    """The results without their timings: what must be identical between two runs of the same job."""
    return {key: value for key, value in results.items() if key not in TIMING_KEYS}


def counter_groups(counters: dict[str, int]) -> dict[str, Counter]:
    """Counters grouped by fact: ``{"outcome": Counter({"made": 185, ...}), "tablanettes": ...}``."""
    groups: dict[str, Counter] = {}
    for key, value in counters.items():
        name, label = split_counter(key)
        groups.setdefault(name, Counter())[label] += value
    return groups
