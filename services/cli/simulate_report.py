"""How ``cardtable simulate`` shows a job's results: a table with confidence intervals (the plot is
:func:`services.app.results.plot_results`, which the web draws too).

>>> console.print(results_table(record.results, record.job_id))   # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workers.stats import counter_groups

from ..app.results import count_of, side_label

# A fact with more distinct values than this (a contract per level and suit, say) shows its most common ones.
MAX_VALUES_SHOWN = 8


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
