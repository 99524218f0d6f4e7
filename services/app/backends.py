"""What the use cases work with: the Redis connections, the match store and the replay store.

With no Redis URL the embedded Valkey of :mod:`replay.embedded` is used (started if no other process runs it), so a
new user needs no setup. Every client tries a command once more when its connection dropped (see
:func:`replay.connect.sync_client`). Matches go through an asyncio client; the replay store is synchronous, so its
calls run in worker threads (``await backends.replay(store.get, replay_id)``).

    backends = await open_backends("redis://127.0.0.1:6379")
    stored = await backends.matches.load("a1b2c3")
    await backends.close()
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import redis
import redis.asyncio

from engine.budget import Budget, Cancel
from replay.connect import async_client, sync_client
from replay.embedded import EmbeddedValkey
from replay.store import ReplayStore

from ..match_store import MatchStore, Retention
from .allowed_policies import PolicyAllowList
from .auth import ApiKeys
from .budgets import DEFAULT_BOT_BUDGET
from .limits import ClientLimits, Clients, Quotas
from .watchers import DEFAULT_MAX_WATCHERS, MatchWatchers

PING_TIMEOUT_S = 1.0  # a ping unanswered this long counts as Redis away (a dropped host answers nothing at all)
T = TypeVar("T")


@dataclass
class Backends:
    """The shared resources of one server process."""

    redis_url: str
    redis: redis.asyncio.Redis
    matches: MatchStore
    replays: ReplayStore
    watchers: MatchWatchers
    client_name: str
    embedded: EmbeddedValkey | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    policies: PolicyAllowList = field(default_factory=PolicyAllowList)  # what a client's bots and jobs may name
    clients: Clients = field(default_factory=Clients)  # who calls, and the per-client limits
    bot_budget: Budget = DEFAULT_BOT_BUDGET  # what a live bot's decision may spend (services.app.budgets)
    stopping: Cancel = field(default_factory=Cancel)  # raised on close: the bots' decisions under way stop

    def on_close(self, closer: Callable[[], None]) -> None:
        """Call ``closer`` (blocking, off the event loop) when the backends close, before Redis goes."""
        self.closers.append(closer)

    async def replay(self, call: Callable[..., T], *args: Any) -> T:
        """Run a (blocking) replay store call off the event loop."""
        return await asyncio.to_thread(call, *args)

    async def save_replay(self, data: bytes) -> str:
        """Store a finished live match's replay in the store's live collection; returns its id."""
        return await self.replay(self.replays.save, data)

    async def close(self) -> None:
        self.stopping.cancel("the server is stopping")
        while self.closers:
            await asyncio.to_thread(self.closers.pop())
        await self.watchers.close()
        await self.matches.close()
        await self.redis.aclose()
        self.replays.redis.close()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)
            self.embedded = None


async def open_backends(redis_url: str | None, data_dir: Path | None = None, retention: Retention | None = None,
                        max_watchers: int = DEFAULT_MAX_WATCHERS, limits: ClientLimits | None = None,
                        api_keys: ApiKeys | None = None, policies: PolicyAllowList | None = None,
                        bot_budget: Budget = DEFAULT_BOT_BUDGET) -> Backends:
    """Connect to ``redis_url`` (or the embedded Valkey, in ``data_dir`` or the user's data folder); matches expire
    as ``retention`` says, and at most ``max_watchers`` watch matches at once; each client (known by its key among
    ``api_keys``, else by its address) is held to ``limits`` and names the ``policies`` allowed (by default no import
    path); a live bot's decision spends at most ``bot_budget``."""
    embedded = None
    if redis_url is None:
        embedded = EmbeddedValkey(data_dir)
        redis_url = await asyncio.to_thread(embedded.start)
    # Named, so that CLIENT LIST tells which server process holds which connections.
    client_name = f"cardtable-server:{os.getpid()}:{secrets.token_hex(3)}"
    client = async_client(redis_url, decode_responses=True, client_name=client_name)
    try:
        await client.ping()
    except (redis.RedisError, OSError) as exc:
        await client.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        raise ConnectionError(f"cannot reach Redis at {redis_url}: {exc}") from None
    replays = ReplayStore(sync_client(redis_url))
    matches = MatchStore(client, retention=retention)
    quotas = Quotas(client, limits, matches_ttl_s=matches.retention.abandoned_after) if limits else None
    return Backends(redis_url, client, matches, replays, MatchWatchers(matches, max_watchers), client_name, embedded,
                    clients=Clients(api_keys, quotas), policies=policies or PolicyAllowList(), bot_budget=bot_budget)


async def redis_answers(client: redis.asyncio.Redis, timeout: float = PING_TIMEOUT_S) -> bool:
    """Redis answers a PING within ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            await client.ping()
    except (redis.RedisError, OSError, TimeoutError):
        return False
    return True
