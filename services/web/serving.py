"""uvicorn's server as ``cardtable web`` runs it: stopped within its grace and a few seconds on SIGTERM, whatever runs.

uvicorn waits for open connections for ever when it stops (an event stream never ends by itself): here they get
``GRACE_S``, then their tasks are cancelled (a bot's search with them: ``services.live_games.off_loop``), and
``STOP_MARGIN_S`` later the process exits whatever still runs (:func:`services.lifecycle.exit_after`).

    StoppingServer(uvicorn.Config(app, port=8080, timeout_graceful_shutdown=GRACE_S)).run()
"""

from __future__ import annotations

from types import FrameType

import uvicorn

from services.lifecycle import STOP_MARGIN_S, exit_after

GRACE_S = 5.0  # what running requests and open event streams get to finish on SIGTERM


class StoppingServer(uvicorn.Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            exit_after(GRACE_S + STOP_MARGIN_S)
        super().handle_exit(sig, frame)
