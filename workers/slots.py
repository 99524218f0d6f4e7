"""Fair shares of the Ray cluster between the jobs one process drives at once (a server's job drivers).

Each job's driver keeps a window of chunk tasks in flight. Left alone, the first job's window fills every CPU and a
second job's tasks queue behind it. :class:`FairSlots` hands out task slots (a slot: one task in flight) so that the
running jobs share them max-min fairly: a job gets what it asks for if that is less than an equal share, and the
slots it leaves go to the jobs that want more. A job that holds more than its share takes no new slot until it is
back under it, so a job that arrives gets a slot as soon as one frees, and among the jobs that wait the one holding
fewest, then the one served least recently, goes first (round robin); no slot stays idle while some job wants one.

There is one slot per CPU while several jobs run: Ray starts queued tasks in the order they came, so a task queued
behind another job's would wait for it. A job alone gets two per CPU (one queued, so that no CPU idles between two of
its tasks). Since tasks are played in slices of bounded time (see :data:`workers.runner.SLICE_SECONDS`), a slot
frees every few seconds whatever the jobs play.

Several processes that drive jobs on one cluster (server processes sharing a Redis and a Ray) each hold the part of
the CPUs that their jobs are of all the jobs running (``neighbours``: told how many this process runs, it answers how
many the others run; see :meth:`workers.jobstore.JobStore.jobs_elsewhere`), looked up again every ``LOOK_S``.

>>> slots = FairSlots(4)
>>> big = slots.join()
>>> big.take(10)                     # alone: two slots per CPU
8
>>> small = slots.join()
>>> small.take(8)                    # every slot is taken: it waits
0
>>> for _ in range(5): big.give_back(1)
>>> big.take(8), small.take(8)       # back to one per CPU: the freed one goes to the job under its share
(0, 1)
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

LOOK_S = 1.0  # how often a process asks how many jobs the other processes on its cluster run


class FairSlots:
    """Task slots for ``cpus`` CPUs (a number, or a function read each time a job joins: the cluster's CPUs may
    change) shared by the jobs that :meth:`join`, and with the jobs of other processes through ``neighbours``."""

    def __init__(self, cpus: int | Callable[[], int], neighbours: Callable[[int], int] | None = None) -> None:
        self._cpus = cpus
        self._neighbours = neighbours
        self._elsewhere = 0  # jobs the other processes run, as last looked up
        self._looked = float("-inf")
        self._size = 0
        self._changed = threading.Condition()
        self._held: dict[int, int] = {}
        self._wanted: dict[int, int] = {}
        self._served: dict[int, int] = {}  # job -> the turn it last got a slot (-1: never)
        self._numbers = itertools.count()
        self._turns = itertools.count()

    @property
    def capacity(self) -> int:
        """The slots there are now: one per CPU, two for a job alone; with jobs elsewhere, our jobs' part of them."""
        mine = len(self._held)
        everywhere = mine + self._elsewhere
        if everywhere <= 1:
            return 2 * self._size
        return max(1, self._size * mine // everywhere)

    def _look_around(self) -> None:
        """Ask the neighbours again (at most every LOOK_S); meanwhile tell them how many jobs run here."""
        if self._neighbours is None or time.monotonic() - self._looked < LOOK_S:
            return
        self._looked = time.monotonic()
        self._elsewhere = self._neighbours(len(self._held))

    def join(self) -> Share:
        """A job's share, for as long as it runs (then :meth:`Share.leave`)."""
        size = self._cpus() if callable(self._cpus) else self._cpus
        with self._changed:
            self._size = max(1, size)
            number = next(self._numbers)
            self._held[number] = 0
            self._wanted[number] = 0
            self._served[number] = -1
        return Share(self, number)

    def allowance(self) -> dict[int, int]:
        """Each job's fair number of slots: max-min fair over what each holds and wants, rounded up, and at least one
        for a job that wants one (so that it may take the next slot that frees, even with more jobs than slots)."""
        demands = sorted((self._held[job] + self._wanted[job], job) for job in self._held)
        left, out = self.capacity, {}
        for position, (demand, job) in enumerate(demands):
            fair = -(-left // (len(demands) - position))
            out[job] = min(demand, max(1, fair))
            left = max(0, left - out[job])
        return out

    def _take(self, job: int, wanted: int) -> int:
        self._look_around()
        with self._changed:
            self._wanted[job] = wanted
            allowed = self.allowance()
            free = self.capacity - sum(self._held.values())
            if free <= 0 or self._held[job] >= allowed[job] or self._someone_first(job, allowed):
                return 0
            granted = min(wanted, free, allowed[job] - self._held[job])
            self._held[job] += granted
            self._wanted[job] = wanted - granted
            self._served[job] = next(self._turns)
            return granted

    def _someone_first(self, job: int, allowed: dict[int, int]) -> bool:
        """Another job under its share wants a slot and goes first: it holds fewer, or as many and was served
        less recently (round robin)."""
        def turn(other: int) -> tuple[int, int, int]:
            return self._held[other], self._served[other], other

        return any(turn(other) < turn(job) for other in self._held
                   if other != job and self._wanted[other] and self._held[other] < allowed[other])

    def _give_back(self, job: int, slots: int) -> None:
        with self._changed:
            self._held[job] = max(0, self._held[job] - slots)
            self._changed.notify_all()

    def _leave(self, job: int) -> None:
        with self._changed:
            self._held.pop(job, None)
            self._wanted.pop(job, None)
            self._served.pop(job, None)
            self._changed.notify_all()
        if self._neighbours is not None and not self._held:  # tell them at once that this process runs none
            self._looked = float("-inf")
            self._look_around()

    def wait(self, timeout: float) -> None:
        """Until a slot frees (or a job leaves), at most ``timeout`` seconds."""
        with self._changed:
            self._changed.wait(timeout)


class Share:
    """One job's use of :class:`FairSlots`."""

    def __init__(self, slots: FairSlots, job: int) -> None:
        self.slots = slots
        self.job = job

    def take(self, wanted: int) -> int:
        """How many of ``wanted`` more slots the job may fill now (0 when it holds its share, or none is free)."""
        return self.slots._take(self.job, wanted)

    def give_back(self, slots: int) -> None:
        """``slots`` tasks of the job are over."""
        self.slots._give_back(self.job, slots)

    def leave(self) -> None:
        self.slots._leave(self.job)

    def wait(self, timeout: float) -> None:
        self.slots.wait(timeout)
