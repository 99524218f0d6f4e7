"""The watchers of live matches in one server process: one Redis subscription for all of them, one feed per watched
match, and a limit on how many there are.

A blocking read per watcher (XREAD BLOCK) would hold a Redis connection each, so that a few hundred watchers starve
the ordinary calls of connections. Instead every commit publishes its new move number on the match's channel (see
:mod:`services.match_store`); this process subscribes, on one connection, to the channels of the matches it has
watchers of; and one feed per match reads each new move once (a short XRANGE) and hands it to all of that match's
watchers. A feed also reads every ``poll_s`` seconds, so a notification lost while the subscription reconnects
delays a watcher at most that long. Beyond ``limit`` watchers a watch is refused with RESOURCE_EXHAUSTED.

    async with watchers.watch(match_id) as feed:     # join first ...
        match = await load(match_id)                 # ... then read the snapshot: no move falls between the two
        while True:
            moves = await feed.moves_after(version)  # [(number, (seat, action int)), ...], waits for one at least
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from ..match_store import MatchStore, Move
from .errors import ResourceExhausted

log = logging.getLogger("cardtable.watchers")

DEFAULT_MAX_WATCHERS = 1000
POLL_S = 1.0

Numbered = list[tuple[int, Move]]


class _Feed:
    """The moves of one match as they are played, for every watcher of it in this process."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.version = 0
        self.ready = asyncio.Event()
        self.wake = asyncio.Event()
        self.queues: set[asyncio.Queue] = set()
        self.task: asyncio.Task | None = None


class Feed:
    """One watcher's view of a match's feed."""

    def __init__(self, store: MatchStore, match_id: str, queue: asyncio.Queue) -> None:
        self._store = store
        self._match_id = match_id
        self._queue = queue

    async def moves_after(self, version: int) -> Numbered:
        """The moves numbered above ``version``, in order; waits until there is one."""
        while True:
            batch = await self._queue.get()
            if isinstance(batch, Exception):
                raise batch
            fresh = [(number, move) for number, move in batch if number > version]
            if not fresh:
                continue
            if fresh[0][0] != version + 1:  # never expected (the feed starts before the snapshot): read the gap
                fresh = await self._store.moves_after(self._match_id, version)
            return fresh


class MatchWatchers:
    """Every watcher of this process; ``close()`` ends the feeds and the subscription."""

    def __init__(self, store: MatchStore, limit: int = DEFAULT_MAX_WATCHERS, poll_s: float = POLL_S) -> None:
        if limit < 1:
            raise ValueError(f"the watcher limit is at least 1, got {limit}")
        self.store = store
        self.limit = limit
        self.poll_s = poll_s
        self.count = 0
        self._feeds: dict[str, _Feed] = {}
        self._pubsub = store.client.pubsub()
        self._channels: dict[str, str] = {}  # subscribed channel -> match id
        self._subscribing: asyncio.Lock | None = None
        self._listener: asyncio.Task | None = None
        self._chores: set[asyncio.Task] = set()
        self._closed = False

    @contextlib.asynccontextmanager
    async def watch(self, match_id: str) -> AsyncIterator[Feed]:
        """Join the feed of ``match_id`` for the time of the ``async with``; ResourceExhausted beyond the limit."""
        if self.count >= self.limit:
            raise ResourceExhausted(f"this server already serves {self.limit} watchers, its limit; watch again later "
                                    "or through another server")
        self.count += 1
        queue: asyncio.Queue = asyncio.Queue()
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = _Feed(match_id)
            feed.task = asyncio.create_task(self._run(feed), name=f"feed-{match_id}")
        feed.queues.add(queue)
        try:
            await feed.ready.wait()
            yield Feed(self.store, match_id, queue)
        finally:
            self.count -= 1
            feed.queues.discard(queue)
            if not feed.queues:
                self._end(feed)

    def _end(self, feed: _Feed) -> None:
        if self._feeds.get(feed.match_id) is feed:
            del self._feeds[feed.match_id]
        feed.task.cancel()

    async def _run(self, feed: _Feed) -> None:
        """Subscribe, learn where the match is, then hand every new move to the feed's watchers."""
        try:
            await self._subscribe(feed.match_id)
            feed.version = await self.store.version(feed.match_id)
            feed.ready.set()
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(feed.wake.wait(), self.poll_s)
                feed.wake.clear()
                moves = await self.store.moves_after(feed.match_id, feed.version)
                if moves:
                    feed.version = moves[-1][0]
                    for queue in feed.queues:
                        queue.put_nowait(moves)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001  (Redis failed: every watcher of the feed ends with the error)
            log.warning("match feed failed", extra={"match_id": feed.match_id, "error": str(exc)})
            for queue in feed.queues:
                queue.put_nowait(exc)
            feed.ready.set()
            if self._feeds.get(feed.match_id) is feed:
                del self._feeds[feed.match_id]
        finally:
            if not self._closed:
                self._chore(self._unsubscribe(feed.match_id))

    # ---- the subscription ---------------------------------------------------------------------------------------

    async def _subscribe(self, match_id: str) -> None:
        async with self._lock():
            channel = self.store.channel(match_id)
            if channel in self._channels:
                return
            await self._pubsub.subscribe(channel)
            self._channels[channel] = match_id
            if self._listener is None:
                self._listener = asyncio.create_task(self._listen(), name="match-watchers")

    async def _unsubscribe(self, match_id: str) -> None:
        async with self._lock():
            channel = self.store.channel(match_id)
            if match_id in self._feeds or channel not in self._channels:
                return  # watched again meanwhile, or never subscribed
            del self._channels[channel]
            await self._pubsub.unsubscribe(channel)

    def _lock(self) -> asyncio.Lock:
        if self._subscribing is None:
            self._subscribing = asyncio.Lock()
        return self._subscribing

    async def _listen(self) -> None:
        """Wake the feed of each match whose channel says it moved."""
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001  (the connection dropped: it reconnects and resubscribes)
                log.warning("match subscription failed; feeds poll meanwhile", extra={"error": str(exc)})
                await asyncio.sleep(self.poll_s)
                continue
            if message is None or message.get("type") != "message":
                continue
            feed = self._feeds.get(self._channels.get(message["channel"], ""))
            if feed is not None:
                feed.wake.set()

    def _chore(self, work) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def close(self) -> None:
        self._closed = True
        tasks = [feed.task for feed in self._feeds.values()] + [t for t in [self._listener] if t is not None]
        self._feeds.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, *self._chores, return_exceptions=True)
        await self._pubsub.aclose()
