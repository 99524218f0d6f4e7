"""How a server process ends: SIGTERM stops it within its grace and a few seconds whatever runs, and its child
processes do not outlive it, however it dies (SIGKILL included).

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

import logging
import os
import threading
import time
from collections.abc import Callable

STOP_MARGIN_S = 4.0  # beyond the grace: closing Redis and Ray (about 2.5 s with a job running), with room to spare
FOLLOW_INTERVAL_S = 0.5

log = logging.getLogger("cardtable.server")


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
