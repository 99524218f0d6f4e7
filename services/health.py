"""Health follows Redis: a server whose Redis does not answer cannot serve a call, so its health says NOT_SERVING
(a load balancer then sends the calls elsewhere) until Redis answers again.

    watcher = RedisHealth(health_servicer, ["", "cardtable.v1.GameService"], backends.redis)
    watcher.start()           # a ping every second, the status set when it changes
    await watcher.stop()

The web app asks the same :func:`services.app.backends.redis_answers` on each ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

import redis
import redis.asyncio
from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer

from .app.backends import redis_answers

log = logging.getLogger("cardtable.health")

CHECK_INTERVAL_S = 1.0  # between two pings of Redis

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class RedisHealth:
    """Sets the health status of ``services`` ("" is the server's) from whether Redis answers, checked every
    ``interval`` seconds by one task of the event loop."""

    def __init__(self, health: HealthServicer, services: Sequence[str], client: redis.asyncio.Redis,
                 interval: float = CHECK_INTERVAL_S) -> None:
        self.health = health
        self.services = list(services)
        self.client = client
        self.interval = interval
        self.serving = True  # the server starts once Redis answered
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="cardtable-redis-health")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            serving = await redis_answers(self.client)
            if serving != self.serving:
                await self._set(serving)

    async def _set(self, serving: bool) -> None:
        self.serving = serving
        if serving:
            log.info("Redis answers again: health SERVING")
        else:
            log.warning("Redis does not answer: health NOT_SERVING until it does")
        for name in self.services:
            await self.health.set(name, SERVING if serving else NOT_SERVING)
