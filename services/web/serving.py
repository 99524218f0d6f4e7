"""The web app's work, stoppable: a request whose client hangs up is abandoned (:func:`while_connected`), and
uvicorn's server as ``cardtable web`` runs it stops within its grace and a few seconds on SIGTERM, whatever runs.

uvicorn waits for open connections for ever when it stops (an event stream never ends by itself): here they get
``GRACE_S``, then their tasks are cancelled (a bot's search with them: ``services.lifecycle.abandonable``), and
``STOP_MARGIN_S`` later the process exits whatever still runs (:func:`services.lifecycle.exit_after`).

    StoppingServer(uvicorn.Config(app, port=8080, timeout_graceful_shutdown=GRACE_S)).run()
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from types import FrameType
from typing import TypeVar

import uvicorn
from starlette.requests import Request

from services.app.errors import ServiceError
from services.lifecycle import STOP_MARGIN_S, exit_after

GRACE_S = 3.0  # what running requests and open event streams get to finish on SIGTERM (the last resort 4 s later)
LOOK_S = 0.25  # how often a long request looks whether its client is still there

T = TypeVar("T")


class ClientGone(ServiceError):
    """The client hung up before the answer (nobody reads it)."""

    status = "CANCELLED"


async def while_connected(request: Request, work: Awaitable[T]) -> T:
    """``work``, cancelled if the client hangs up first (a bot's search then stops: ``services.lifecycle.abandonable``);
    the web has no deadline of the client's to go by, as gRPC has."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=LOOK_S)
            if done:
                return task.result()
            if await request.is_disconnected():
                raise ClientGone("the client hung up: its request was abandoned")
    finally:
        task.cancel()


class StoppingServer(uvicorn.Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            exit_after(GRACE_S + STOP_MARGIN_S)
        super().handle_exit(sig, frame)
