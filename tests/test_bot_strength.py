"""Strength with statistical margins: over duplicate deals (fixed seeds, every deal from both seat arrangements, as
tournaments play them) the stronger policy's mean score difference per deal has the lower end of its 95% confidence
interval above zero: greedy beats random in German Whist, Belote contrée and Tablanette, pimc beats greedy in German
Whist, Belote contrée and Tablanette. Few deals and small searches, so that the file stays within about a minute.

In Belote contrée pimc bids as greedy does (``bids=greedy``), so both arrangements of a deal play the same contract
and the two policies differ in their card play only: there pimc with two samples makes contracts greedy fails and
fails greedy's (+27.9 points a duplicate deal, 95% CI [+7.3, +48.4], against a standard deviation of about 130 points
per duplicate deal), which takes 150 deals (about 25 s) to show; with fewer (120) the interval still reaches zero.

The two long cases (pimc against greedy over 40 Tablanette and 150 Belote contrée deals, most of this file's time)
measure play strength only, so they run in the integration tier (``make test``, ``make test-integration``), not in
the unit tier's minute. The unit tier keeps pimc's edge over greedy in German Whist here, and the search's unit
properties in tests/test_search_bots.py (a seed gives the same play; the decision depends on what the seat has seen
only) and tests/test_bot_budgets.py."""

from __future__ import annotations

import pytest

from workers.chunk import play_chunk
from workers.plan import Chunk
from workers.tournament import TournamentSpec, check_tournament, duplicate_margins, margin_stats, tournament_jobs

CASES = [  # game, stronger, weaker, duplicate deals
    ("german_whist", "greedy", "random", 16),
    ("belote_contree", "greedy", "random", 8),
    ("tablanette", "greedy", "random", 10),
    ("german_whist", "pimc:samples=2", "greedy", 10),
    pytest.param("belote_contree", "pimc:samples=2", "greedy", 150, marks=pytest.mark.integration),
    pytest.param("tablanette", "pimc:samples=2", "greedy", 40, marks=pytest.mark.integration),
]


@pytest.mark.parametrize(("game", "stronger", "weaker", "deals"), CASES)
def test_the_stronger_policy_wins_by_a_significant_margin(game: str, stronger: str, weaker: str, deals: int) -> None:
    spec = check_tournament(TournamentSpec(game, (stronger, weaker), deals=deals, seed=2026))
    scores = {arrangement: play_chunk(job, Chunk(0, 0, deals)).unit_scores
              for _pairing, arrangement, job in tournament_jobs(spec)}
    stats = margin_stats(duplicate_margins([scores[k] for k in sorted(scores)]))
    low, _high = stats["ci95"]
    assert low > 0, f"{stronger} vs {weaker} in {game}: {stats}"
