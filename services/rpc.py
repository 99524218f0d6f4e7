"""What every call shares: a ServiceError becomes its gRPC status, a traceback never leaks, and a request whose bytes
do not parse is refused with INVALID_ARGUMENT (``MalformedRequestInterceptor``).

    class GameServicer(game_service_pb2_grpc.GameServiceServicer):
        @unary
        async def GetGameInfo(self, request, context): ...
        @streaming
        async def WatchGame(self, request, context): ...
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from engine import ActionLimitExceeded

from .errors import ServiceError

log = logging.getLogger("cardtable.rpc")


async def _abort_for(exc: Exception, method: str, context: grpc.aio.ServicerContext) -> None:
    if isinstance(exc, ServiceError):
        await context.abort(exc.code, exc.message)
    if isinstance(exc, ActionLimitExceeded):
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
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


class _Malformed:
    """Stands in for a request whose bytes do not parse, so the handler can refuse it with a clear status."""

    def __init__(self, error: str) -> None:
        self.error = error


class MalformedRequestInterceptor(grpc.aio.ServerInterceptor):
    """Answers a request whose bytes are not a valid message with INVALID_ARGUMENT (gRPC alone answers UNKNOWN and
    logs a traceback). Applies to the async unary-request handlers, which is every cardtable call."""

    def __init__(self) -> None:
        self._wrapped: dict[str, grpc.RpcMethodHandler] = {}  # a method's handler never changes: wrap it once

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        wrapped = self._wrapped.get(details.method)
        if wrapped is not None:
            return wrapped
        handler = await continuation(details)
        if handler is None:
            return handler
        wrapped = self._wrapped[details.method] = _tolerant(handler, details.method)
        return wrapped


def _tolerant(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    """``handler``, or a copy whose request parsing failures end the call with INVALID_ARGUMENT."""
    if handler.request_deserializer is None or handler.request_streaming:
        return handler
    behavior = handler.unary_unary or handler.unary_stream
    if not (inspect.iscoroutinefunction(behavior) or inspect.isasyncgenfunction(behavior)):
        return handler
    parse = handler.request_deserializer

    def tolerant_parse(data: bytes) -> Any:
        try:
            return parse(data)
        except DecodeError as exc:
            return _Malformed(str(exc))

    async def refuse(request: _Malformed, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{method}: malformed request ({request.error})")

    kwargs = {"request_deserializer": tolerant_parse, "response_serializer": handler.response_serializer}
    if handler.unary_unary:
        async def unary_call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if isinstance(request, _Malformed):
                return await refuse(request, context)
            return await behavior(request, context)

        return grpc.unary_unary_rpc_method_handler(unary_call, **kwargs)

    async def stream_call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        if isinstance(request, _Malformed):
            await refuse(request, context)
        async for item in behavior(request, context):
            yield item

    return grpc.unary_stream_rpc_method_handler(stream_call, **kwargs)
