"""Fair shares of task slots between the jobs of one process (workers.slots), without Ray: what each job may take."""

from __future__ import annotations

import threading
import time

from workers.slots import FairSlots


def test_one_job_alone_takes_two_slots_per_cpu():
    slots = FairSlots(2)
    job = slots.join()
    assert job.take(3) == 3
    assert job.take(5) == 1
    job.give_back(2)
    assert job.take(5) == 2


def test_a_job_that_arrives_gets_each_freed_slot_until_it_holds_an_equal_share():
    slots = FairSlots(4)
    big = slots.join()
    assert big.take(8) == 8
    small = slots.join()
    assert slots.capacity == 4  # one slot per CPU while two jobs run
    assert small.take(8) == 0  # nothing free: it waits for a slot
    big.give_back(4)
    assert small.take(8) == 0  # the big job's other tasks still hold every CPU
    taken = []
    for _ in range(4):  # the big job's tasks end one by one; each driver asks again
        big.give_back(1)
        taken.append((big.take(8), small.take(8)))
    assert taken == [(0, 1), (0, 1), (1, 0), (1, 0)]  # two slots each, then the big job refills its own


def test_slots_a_job_does_not_want_go_to_the_others():
    slots = FairSlots(4)
    big, small = slots.join(), slots.join()
    assert small.take(1) == 1  # the small job has one chunk left
    assert big.take(8) == 3
    small.give_back(1)
    small.leave()
    assert big.take(8) == 5  # alone again: two slots per CPU


def test_more_jobs_than_slots_each_get_one_in_turn():
    slots = FairSlots(2)
    jobs = [slots.join() for _ in range(3)]
    assert [job.take(4) for job in jobs] == [2, 0, 0]
    jobs[0].give_back(1)
    assert [job.take(4) for job in jobs] == [0, 1, 0]
    jobs[0].give_back(1)
    assert [job.take(4) for job in jobs] == [0, 0, 1]


def test_the_capacity_is_read_when_a_job_joins():
    cpus = [2]
    slots = FairSlots(lambda: cpus[0])
    slots.join().leave()
    assert slots.capacity == 4
    cpus[0] = 3
    assert slots.join().take(10) == 6


def test_a_waiting_driver_wakes_when_a_slot_frees():
    slots = FairSlots(1)
    first, second = slots.join(), slots.join()  # one slot in all
    assert first.take(1) == 1
    woke = threading.Event()

    def wait_for_slot() -> None:
        while second.take(1) == 0:
            second.wait(30.0)
        woke.set()

    waiter = threading.Thread(target=wait_for_slot)
    waiter.start()
    started = time.monotonic()
    first.give_back(1)
    assert woke.wait(10.0)
    waiter.join()
    assert time.monotonic() - started < 10.0


def test_with_jobs_in_other_processes_a_process_holds_its_jobs_part_of_the_cpus():
    told = []
    elsewhere = [3]

    def neighbours(mine: int) -> int:
        told.append(mine)
        return elsewhere[0]

    slots = FairSlots(4, neighbours)
    job = slots.join()
    assert job.take(8) == 1  # 4 CPUs, 1 job of 4 runs here
    assert told == [1]
    second = slots.join()
    assert second.take(8) == 0  # looked up again within a second: not yet asked
    slots._looked = float("-inf")  # a second later
    elsewhere[0] = 1
    assert second.take(8) == 1 and told[-1] == 2  # 2 of 3 jobs here: 2 of the 4 CPUs
    job.leave()
    second.leave()
    assert told[-1] == 0  # the last job gone: said at once
