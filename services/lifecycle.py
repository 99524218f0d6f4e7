"""How a server's work ends: a call's work in a worker thread is abandoned with the call (:func:`abandonable`); SIGTERM
stops the process within its grace and a few seconds whatever runs, and its child processes do not outlive it,
however it dies (SIGKILL included).

- :func:`abandonable` runs a long call (the bots' moves, a replay's analysis) in a worker thread with a
  :class:`engine.budget.Cancel` flag: a thread cannot be stopped from outside, so when the awaiting call is cancelled
  (gRPC cancels it when the client's deadline passes or the client hangs up; the web when its client hangs up) or the
  server stops, the flag is raised and the search in the thread stops at its next look (milliseconds) instead of
  burning the CPU for nobody.

- :func:`exit_after`, armed when the stop begins: the last resort. The bots' searches stop when the server stops
  (``engine.budget.Cancel``), but a thread that never returns (a policy of one's own stuck in a loop, a call that
  hangs) would keep the interpreter alive for ever, since Python waits for its worker threads at exit; past the
  grace and ``STOP_MARGIN_S``, the process exits anyway.
- :func:`follow_parent`, called in a child process (the replay builder; each server process of ``cardtable serve
  --workers``, which stops in order): the child exits once its parent is gone.
  Its parent's death is seen by the parent pid changing (the orphan is handed to init or a subreaper), which holds
  whichever thread started the child, unlike ``PR_SET_PDEATHSIG``, and needs no ``preexec_fn`` (unsafe while gRPC's
  threads run).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from engine.budget import Cancel, Cancelled

from .app.errors import Unavailable

STOP_MARGIN_S = 4.0  # beyond the grace: closing Redis and Ray (about 2.5 s with a job running), with room to spare
FOLLOW_INTERVAL_S = 0.5

log = logging.getLogger("cardtable.server")

T = TypeVar("T")


async def abandonable(call: Callable[..., T], *args: Any, stopping: Cancel, what: str = "the call") -> T:
    """``call(*args, cancel)`` in a worker thread, ``cancel`` a flag under ``stopping`` (the server's) that is raised
    when the awaiting call is cancelled; UNAVAILABLE naming ``what`` when the server stops under it."""
    cancel = Cancel(parent=stopping)
    try:
        return await asyncio.to_thread(call, *args, cancel)
    except asyncio.CancelledError:
        cancel.cancel("the call was cancelled (its deadline passed, or its client left)")
        raise
    except Cancelled as exc:
        raise Unavailable(f"{what} was abandoned: {exc}") from None


def exit_after(seconds: float) -> threading.Timer:
    """Exit this process (status 1) in ``seconds`` unless it has ended by then: what still runs is abandoned."""

    def overrun() -> None:
        log.error("stop overran: exiting now", extra={"after_s": seconds})
        logging.shutdown()
        os._exit(1)

    timer = threading.Timer(seconds, overrun)
    timer.name = "cardtable-stop-deadline"
    timer.daemon = True
    timer.start()
    return timer


def follow_parent(parent: int, interval: float = FOLLOW_INTERVAL_S, then: Callable[[], object] | None = None) -> None:
    """In a child process of ``parent``: once ``parent`` is gone (looked at every ``interval`` seconds), exit at once,
    or call ``then`` (a server stops itself in order: ``os.kill(os.getpid(), signal.SIGTERM)``)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        if then is None:
            os._exit(0)
        then()

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()
