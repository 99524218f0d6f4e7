"""The viewer's move-by-move analysis of a trick-game replay: :func:`services.app.replays.analysis_of` (so
:mod:`replay.analysis`, as ``cardtable replay analyze`` and ``ReplayService.Analyze`` run it) with the web server's node
budget per position, computed off the event loop and kept per replay.

The page asks for it after the replay shows (``GET /api/replays/{id}/analysis``), so a replay's first load never
waits for a search. One analysis runs at a time, in a thread of its own (the replays' frames and the live matches keep
the default worker threads); a second request for a replay being analysed waits for the same result; the last
``CACHED`` reports are kept, keyed by the replay's bytes (a stored replay never changes, but a digest also holds if a
collection is removed and its ids reused).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine.budget import Cancel

from ..app.replays import analysis_of

NODES = 50_000  # the web server's double-dummy budget per position: at most a second or two per replay
CACHED = 256  # reports kept


class Analyses:
    """Analysis reports per replay: computed once, one at a time, in a thread of their own."""

    def __init__(self, max_nodes: int = NODES, cached: int = CACHED) -> None:
        if max_nodes < 1:
            raise ValueError(f"the analysis' node budget is at least 1, got {max_nodes}")
        self.max_nodes = max_nodes
        self.cached = cached
        self.computed = 0  # analyses run (not answered from the cache)
        self._reports: OrderedDict[tuple[bytes, int], asyncio.Future[dict[str, Any]]] = OrderedDict()
        self._thread: ThreadPoolExecutor | None = None  # started by the first analysis
        self._stopping = Cancel()  # raised by close(): an analysis under way stops there

    async def report(self, replay_id: str, data: bytes, from_trick: int = 1) -> dict[str, Any]:
        """The analysis of the replay ``data`` from ``from_trick`` on (ServiceError as :func:`analysis_of` raises
        it; a refusal is not kept)."""
        key = (hashlib.blake2b(data, digest_size=16).digest(), from_trick)
        found = self._reports.get(key)
        if found is None:
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="cardtable-analysis")
            loop = asyncio.get_running_loop()
            found = asyncio.ensure_future(loop.run_in_executor(self._thread, analysis_of, data, replay_id,
                                                               from_trick, self.max_nodes, self._stopping))
            self.computed += 1
            self._reports[key] = found
            while len(self._reports) > self.cached:
                self._reports.popitem(last=False)
        else:
            self._reports.move_to_end(key)
        try:
            return {"replay_id": replay_id, **await asyncio.shield(found)}
        except BaseException:
            if found.done() and self._reports.get(key) is found:
                del self._reports[key]
            raise

    def close(self) -> None:
        """Stop the analysis thread (an analysis under way is abandoned) and forget the reports."""
        self._stopping.cancel("the server is stopping")
        self._stopping = Cancel()  # for the analyses of a next start (the one under way has the old flag)
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)
            self._thread = None
        self._reports.clear()
