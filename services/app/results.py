"""A job's results as people read them: the words (``count_of``), a side's label, and the plot of its scores, which
``cardtable simulate --plot`` writes and the web page shows.

>>> count_of(1, "replay"), count_of(200, "match"), count_of(12_000, "deal"), count_of(0, "retry")
('1 replay', '200 matches', '12,000 deals', '0 retries')
>>> plot_results(record.results, Path("scores.png"))                 # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO


def plural(noun: str) -> str:
    """``deal`` -> ``deals``, ``match`` -> ``matches``, ``retry`` -> ``retries``."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{noun}es"
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return f"{noun[:-1]}ies"
    return f"{noun}s"


def count_of(number: int, noun: str) -> str:
    """A number and its noun, singular or plural: ``1 replay``, ``200 matches``."""
    return f"{number:,} {noun if number == 1 else plural(noun)}"


def side_label(side: dict[str, Any]) -> str:
    seats = "+".join(str(s) for s in side["seats"])
    names = sorted(set(side["policies"]))
    return f"seat{'s' if len(side['seats']) > 1 else ''} {seats} ({'/'.join(names)})"



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
