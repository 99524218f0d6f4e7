"""How ``cardtable simulate`` shows a job's results: a table with confidence intervals, and an optional plot.

>>> console.print(results_table(record.results, record.job_id))   # doctest: +SKIP
>>> plot_results(record.results, Path("scores.png"))                 # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workers.stats import counter_groups

from .render import count_of, plural

# A fact with more distinct values than this (a contract per level and suit, say) shows its most common ones.
MAX_VALUES_SHOWN = 8


def side_label(side: dict[str, Any]) -> str:
    seats = "+".join(str(s) for s in side["seats"])
    names = sorted(set(side["policies"]))
    return f"seat{'s' if len(side['seats']) > 1 else ''} {seats} ({'/'.join(names)})"


def results_table(results: dict[str, Any], job_id: str) -> Group:
    """The per-side table (mean score with its 95% CI, win rate with its 95% CI) and the game's counters."""
    unit = results["unit"]
    played = count_of(results["units"], unit) + (f" ({count_of(results['deals'], 'deal')})" if unit != "deal" else "")
    title = (f"{results['game']}: {played}, {results['deals_per_s']:,.0f} deals/s over {results['seconds']:.1f} s")
    sides = Table(title=title, title_justify="left")
    for header in ("side", f"mean score per {unit} ± 95% CI", "win rate [95% CI]"):
        sides.add_column(header, justify="left" if header == "side" else "right")
    for side in results["sides"]:
        low, high = side["ci95"]
        wlow, whigh = side["win_rate_ci95"]
        sides.add_row(side_label(side), f"{side['mean']:.3f} ± {(high - low) / 2:.3f}",
                      f"{side['win_rate']:.2%} [{wlow:.2%}, {whigh:.2%}]")
    if results["draws"]:
        sides.caption = f"draws (a tie at the top): {results['draws']:,} ({results['draw_rate']:.2%})"
    parts: list[Any] = [sides]
    counters = counters_table(results["counters"], results["deals"])
    if counters is not None:
        parts.append(counters)
    replays = (f"{count_of(results['replays'], 'replay')}: cardtable replay list {job_id}" if results["replays"]
               else "no replays logged")
    parts.append(Text(f"job {job_id}: {replays}", style="dim"))
    return Group(*parts)


def counters_table(counters: dict[str, int], deals: int) -> Table | None:
    """The game's own counters: a sum per side or seat, or a count per value with its share of the deals."""
    groups = counter_groups(counters)
    if not groups:
        return None
    table = Table(title="game counters", title_justify="left")
    table.add_column("fact")
    table.add_column("values", justify="left")
    for name, values in groups.items():
        if all(label.isdigit() for label in values) and _is_positional(name, counters):
            shown = ", ".join(f"[{label}] {value:,}" for label, value in sorted(values.items(), key=_by_index))
        else:
            common = values.most_common(MAX_VALUES_SHOWN)
            shown = ", ".join(f"{label} {value:,} ({value / deals:.1%})" for label, value in common)
            if len(values) > MAX_VALUES_SHOWN:
                shown += f", ... {len(values) - MAX_VALUES_SHOWN} more"
        table.add_row(name, shown)
    return table


def _is_positional(name: str, counters: dict[str, int]) -> bool:
    return any(key.startswith(f"{name}[") for key in counters)


def _by_index(item: tuple[str, int]) -> int:
    return int(item[0])


def plot_results(results: dict[str, Any], path: Path | BinaryIO, file_format: str | None = None) -> None:
    """Two panels: each side's score distribution, and each side's running mean score as the job went on; written to
    ``path`` (a file or a binary stream) as ``file_format`` says (default: by the file's suffix, else PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (distribution, running) = plt.subplots(1, 2, figsize=(12, 4.5))
    for side, histogram in zip(results["sides"], results["histograms"], strict=True):
        scores = sorted(int(score) for score in histogram)
        distribution.bar(scores, [histogram[str(s)] for s in scores], alpha=0.5, label=side_label(side),
                         width=max(1.0, (scores[-1] - scores[0]) / 80) if scores else 1.0)
    distribution.set(title=f"score per {results['unit']}", xlabel="score", ylabel=plural(results["unit"]))
    distribution.legend()
    points = results["running_mean"]
    played = [p[0] for p in points]
    for index, side in enumerate(results["sides"]):
        running.plot(played, [p[index + 1] for p in points], label=side_label(side))
    running.set(title="running mean score", xlabel=f"{plural(results['unit'])} played", ylabel="mean score")
    running.legend()
    figure.suptitle(f"{results['game']}: {count_of(results['units'], results['unit'])}")
    figure.tight_layout()
    figure.savefig(path, dpi=100, format=file_format)
    plt.close(figure)
