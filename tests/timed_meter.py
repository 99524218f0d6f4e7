"""Each searching decision's own account, kept for a test to read: :func:`timed_meters` makes every
:class:`engine.budget.Meter` a searching policy opens (``engine.bots.search``: ``pimc``, ``ismcts``) a
:class:`TimedMeter`, which keeps its time limit and how far past its deadline the look that stopped it came. A bot
time limit is checked by that account (the limit each decision was given, and that the cuts came at the deadline),
not by timing the decisions from outside."""

from __future__ import annotations

import time
from typing import ClassVar

import pytest

from engine.budget import NO_BUDGET, Budget, BudgetSpent, Cancel, Meter


class TimedMeter(Meter):
    """A searching decision's own account, kept: its limit, and how far past its deadline the look that stopped it
    came (-1: it was not cut by its deadline)."""

    made: ClassVar[list[TimedMeter]] = []

    def __init__(self, budget: Budget = NO_BUDGET, cancel: Cancel | None = None) -> None:
        super().__init__(budget, cancel)
        self.seconds, self.late = budget.seconds, -1.0
        TimedMeter.made.append(self)

    def look(self) -> None:
        try:
            super().look()
        except BudgetSpent:
            if self.deadline:
                self.late = time.monotonic() - self.deadline
            raise


def timed_meters(monkeypatch: pytest.MonkeyPatch) -> list[TimedMeter]:
    """The accounts of the searching decisions made in this process from now on to the end of the test."""
    import engine.bots.search

    made: list[TimedMeter] = []
    monkeypatch.setattr(engine.bots.search, "Meter", TimedMeter)
    monkeypatch.setattr(TimedMeter, "made", made)
    return made
