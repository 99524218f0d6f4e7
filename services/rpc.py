"""What every servicer method shares: turning a ServiceError into its gRPC status, and never leaking a traceback.

    class GameServicer(game_service_pb2_grpc.GameServiceServicer):
        @unary
        async def GetGameInfo(self, request, context): ...
        @streaming
        async def WatchGame(self, request, context): ...
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from .errors import ServiceError

log = logging.getLogger("cardtable.rpc")


async def _abort_for(exc: Exception, method: str, context: grpc.aio.ServicerContext) -> None:
    if isinstance(exc, ServiceError):
        await context.abort(exc.code, exc.message)
    log.exception("unexpected error", extra={"rpc": method})
    await context.abort(grpc.StatusCode.INTERNAL, f"internal error in {method}; the server logged it")


def unary(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001  (every failure becomes a status, see _abort_for)
            await _abort_for(exc, method.__name__, context)

    return call


def streaming(method: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
    @functools.wraps(method)
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            async for item in method(self, request, context):
                yield item
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001
            await _abort_for(exc, method.__name__, context)

    return call
