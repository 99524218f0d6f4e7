"""What a search may spend on one decision, and how its caller abandons one.

The searching policies (``pimc``, ``ismcts``) count their work in *work units*: a move played in a searched world (a
play-out's or a tree's), ``NODE_WORK`` nodes of the double-dummy search (:class:`NodeMeter`), and ``SAMPLE_WORK`` for
each world sampled (dealing the unseen cards of a trick game costs about as much as a hundred moves). A :class:`Budget`
bounds one decision: ``work`` units and ``seconds`` of wall-clock time (0: no bound). A search that reaches its budget
stops and plays the best it has found so far; one that found nothing yet plays as its rollout policy would.

A work budget keeps a bot's play a function of its seed: the search stops at the same unit, so the same seed plays
the same moves on any machine. A time budget does not: where it stops depends on the machine's speed and load.

A :class:`Cancel` abandons a decision from another thread (its caller gave up: a deadline passed, the server stops):
the search raises :class:`Cancelled` at its next look, which comes every ``LOOK_EVERY`` units at most. A
:class:`Meter` keeps one decision's account.

>>> meter = Meter(Budget(work=250))
>>> meter.charge(SAMPLE_WORK); meter.charge(SAMPLE_WORK); meter.spent
200
>>> meter.charge(SAMPLE_WORK)
Traceback (most recent call last):
engine.budget.BudgetSpent: 300 work units spent of a budget of 250
"""

from __future__ import annotations

import time
from dataclasses import dataclass

SAMPLE_WORK = 100  # a sampled world, in moves: up to ~1.5 ms in the trick games, a move ~10 us
# Double-dummy nodes a work unit: compiled, a node costs 0.15-0.5 us (5-10 million a second since the s39 solver), a
# play-out move 10-15 us (s40, pimc decisions of Belote contree and German Whist, `engine.bots.pimc`). Until s40 a node
# was a unit, when a node cost about what a move does: a budget then bought 30 times less search than play-outs.
NODE_WORK = 32
LOOK_EVERY = 1000  # units between two looks at the clock and the cancel flag (a few ms to a few tens of ms)


class BudgetSpent(Exception):
    """A decision's budget is spent: its search stops and plays what it has."""


class Cancelled(Exception):
    """A decision abandoned before it was made: its caller cancelled it."""


@dataclass(frozen=True)
class Budget:
    """What one decision may spend: ``work`` units and ``seconds`` of wall-clock time (0: no bound on that).

    >>> Budget(work=100_000, seconds=2).describe()
    '100,000 work units and 2 s a decision'
    """

    work: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.work, int) or isinstance(self.work, bool) or self.work < 0:
            raise ValueError(f"a bot budget's work is a whole number of units, 0 or more (0: no bound), got "
                             f"{self.work!r}")
        if not self.seconds >= 0:
            raise ValueError(f"a bot budget's time is 0 or more seconds (0: no bound), got {self.seconds!r}")

    @property
    def bounded(self) -> bool:
        return bool(self.work or self.seconds)

    def describe(self) -> str:
        parts = [f"{self.work:,} work units"] if self.work else []
        if self.seconds:
            parts.append(f"{self.seconds:g} s")
        return f"{' and '.join(parts)} a decision" if parts else "no bound"


NO_BUDGET = Budget()


class Cancel:
    """A flag another thread raises to abandon the decisions that look at it (or at a child of it: a request's own
    flag under its server's, so that stopping the server abandons every decision at once)."""

    __slots__ = ("parent", "reason")

    def __init__(self, parent: Cancel | None = None) -> None:
        self.parent = parent
        self.reason = ""

    def cancel(self, reason: str) -> None:
        """Abandon the decisions that look at this flag; ``reason`` says why (it is :class:`Cancelled`'s message)."""
        self.reason = reason or "cancelled"

    @property
    def why(self) -> str:
        """Why this flag (or a parent's) was raised; "" while it is not."""
        flag: Cancel | None = self
        while flag is not None:
            if flag.reason:
                return flag.reason
            flag = flag.parent
        return ""


@dataclass(frozen=True)
class Cost:
    """What a policy's parameters ask of a decision at most, in work units, estimated from nominal figures (the
    parameters' ``reckoning``), and the parameters that lower it (``knobs``)."""

    work: int
    reckoning: str
    knobs: str


class Meter:
    """One decision's account: the units spent, against a :class:`Budget` and a :class:`Cancel`."""

    __slots__ = ("cancel", "deadline", "limit", "spent", "_look_at")

    def __init__(self, budget: Budget = NO_BUDGET, cancel: Cancel | None = None) -> None:
        self.limit = budget.work
        self.deadline = time.monotonic() + budget.seconds if budget.seconds else 0.0
        self.cancel = cancel
        self.spent = 0
        self._look_at = LOOK_EVERY

    def charge(self, units: int) -> None:
        """Count ``units`` more: BudgetSpent once past the budget's work (or, at a look, its time), Cancelled when
        the decision is abandoned."""
        self.spent += units
        if self.limit and self.spent > self.limit:
            raise BudgetSpent(f"{self.spent:,} work units spent of a budget of {self.limit:,}")
        if self.spent >= self._look_at:
            self._look_at = self.spent + LOOK_EVERY
            self.look()

    def look(self) -> None:
        """Cancelled if the decision is abandoned; BudgetSpent if its time is up."""
        # Let the process's other threads run (the one that cancels, a server's event loop): compiled, a search never
        # enters the interpreter's loop, where the GIL is handed over every few milliseconds.
        time.sleep(0)
        if self.cancel is not None and (why := self.cancel.why):
            raise Cancelled(why)
        if self.deadline and time.monotonic() >= self.deadline:
            raise BudgetSpent(f"the decision's time is up ({self.spent:,} work units spent)")


class NodeMeter(Meter):
    """A double-dummy search's account on a decision's meter ``of``: every ``NODE_WORK`` nodes charged here charge
    ``of`` a work unit (``spent`` counts those units, ``nodes`` the nodes). It looks at ``of``'s clock and cancel flag
    every ``LOOK_EVERY`` nodes, as often as when a node was a unit.

    >>> meter = Meter(); nodes = NodeMeter(meter)
    >>> nodes.charge(100); nodes.charge(100); (nodes.nodes, nodes.spent, meter.spent)
    (200, 6, 6)
    """

    __slots__ = ("of", "nodes")

    def __init__(self, of: Meter) -> None:
        super().__init__()
        self.of = of
        self.nodes = 0

    def charge(self, units: int) -> None:
        """Count ``units`` more nodes."""
        self.nodes += units
        work = self.nodes // NODE_WORK - self.spent
        self.spent += work
        self.of.charge(work)
        if self.nodes >= self._look_at:
            self._look_at = self.nodes + LOOK_EVERY
            self.of.look()
