"""What every call shares: a ServiceError becomes its gRPC status, Redis out of reach becomes UNAVAILABLE (naming the
servicer's ``redis_address``, if it has one; one warning line in the log), a traceback never leaks, a text in a
request is at most ``MAX_TEXT`` characters, a status's details stay short (see :mod:`services.app.errors`), and a
request whose bytes do not parse is refused with INVALID_ARGUMENT (``MalformedRequestInterceptor``).

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
from google.protobuf.message import DecodeError, Message

from .app.auth import API_KEY_HEADER, ApiKeys, key_from_metadata
from .app.errors import MAX_TEXT, ServiceError, TextTooLong, bounded, refusal

log = logging.getLogger("cardtable.rpc")


def check_texts(request: Message, limit: int = MAX_TEXT) -> None:
    """InvalidArgument naming the first text field of ``request`` (map keys and nested messages included) that is
    longer than ``limit`` characters; its value is not quoted."""
    if request.ByteSize() <= limit:  # nearly every request: no text in it can be longer than the whole
        return
    found = _long_text(request, limit)
    if found is not None:
        field, length = found
        raise TextTooLong(field, length, limit)


def _long_text(message: Message, limit: int, path: str = "") -> tuple[str, int] | None:
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        items = value.items() if hasattr(value, "items") else None
        if items is not None:  # a map: its keys are texts too
            values = []
            for key, item in items:
                if isinstance(key, str) and len(key) > limit:
                    return f"a key of {name}", len(key)
                values.append(item)
        elif isinstance(value, (str, Message)):
            values = [value]
        else:
            values = value if hasattr(value, "__len__") and not isinstance(value, bytes) else []
        for item in values:
            if isinstance(item, str) and len(item) > limit:
                return name, len(item)
            if isinstance(item, Message) and (found := _long_text(item, limit, f"{name}.")) is not None:
                return found
    return None


async def _abort_for(exc: Exception, method: str, context: grpc.aio.ServicerContext, servicer: Any = None) -> None:
    refused = refusal(exc, getattr(servicer, "redis_address", ""))
    if refused is None:
        log.exception("unexpected error", extra={"rpc": method})
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error in {method}; the server logged it")
        return
    if refused.status == "UNAVAILABLE" and not isinstance(exc, ServiceError):  # Redis away: one line in the log
        log.warning("cannot reach Redis", extra={"rpc": method, "redis": getattr(servicer, "redis_address", ""),
                                                 "error": refused.message})
    await context.abort(grpc.StatusCode[refused.status], bounded(refused.message))


def unary(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            check_texts(request)
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001  (every failure becomes a status, see _abort_for)
            await _abort_for(exc, method.__name__, context, self)

    return call


def streaming(method: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
    @functools.wraps(method)
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            check_texts(request)
            async for item in method(self, request, context):
                yield item
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001
            await _abort_for(exc, method.__name__, context, self)

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

    if inspect.iscoroutinefunction(behavior):
        # A streaming handler that writes with context.write (the health service's Watch) is a coroutine.
        async def writing_call(request: Any, context: grpc.aio.ServicerContext) -> None:
            if isinstance(request, _Malformed):
                return await refuse(request, context)
            return await behavior(request, context)

        return grpc.unary_stream_rpc_method_handler(writing_call, **kwargs)

    async def stream_call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        if isinstance(request, _Malformed):
            await refuse(request, context)
        async for item in behavior(request, context):
            yield item

    return grpc.unary_stream_rpc_method_handler(stream_call, **kwargs)


# The calls that need no API key: load balancers' and Kubernetes' probes send no metadata.
OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


class ApiKeyInterceptor(grpc.aio.ServerInterceptor):
    """Refuses every call (but health checks) whose metadata does not carry one of the API keys."""

    def __init__(self, api_keys: str | ApiKeys) -> None:
        keys = ApiKeys.of(api_keys)
        if keys is None:
            raise ValueError("an API key must not be empty")
        self._keys = keys

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith(OPEN_PREFIXES):
            return handler
        given = key_from_metadata(details.invocation_metadata)
        if self._keys.name_of(given) is not None:
            return handler
        reason = "wrong API key" if given else f"missing API key: send it in the {API_KEY_HEADER!r} metadata"
        return _refusal(handler, reason)


def _refusal(handler: grpc.RpcMethodHandler, reason: str) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that ends the call with UNAUTHENTICATED."""

    async def deny(request: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)

    async def deny_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)
        yield  # unreachable: makes this an async generator, as a streaming handler must be

    kwargs = {"request_deserializer": handler.request_deserializer,
              "response_serializer": handler.response_serializer}
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(deny, **kwargs)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(deny_stream, **kwargs)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(deny, **kwargs)
    return grpc.stream_stream_rpc_method_handler(deny_stream, **kwargs)
