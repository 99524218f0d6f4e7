"""Waiting in a test for something to happen, with a deadline: never a fixed sleep before a check (on a slow machine a
sleep can end before the thing it waits for, and the check then passes without checking anything).

    job = wait_until(lambda: finished(job_id), 60, "the job did not finish")
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float, message: str, interval: float = 0.05) -> T:
    """Calls ``condition`` until it returns something true, and returns that; AssertionError with ``message`` if it
    has not within ``timeout`` seconds (it is called once more at the deadline).

    >>> calls = []
    >>> wait_until(lambda: calls.append(1) or len(calls) >= 3 and len(calls), 5, "never", interval=0)
    3
    >>> wait_until(lambda: False, 0, "the flag never rose")
    Traceback (most recent call last):
    AssertionError: the flag never rose (waited 0 s)
    """
    deadline = time.monotonic() + timeout
    while True:
        last = time.monotonic() >= deadline
        value = condition()
        if value:
            return value
        if last:
            raise AssertionError(f"{message} (waited {timeout:g} s)")
        time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
