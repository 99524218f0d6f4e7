"""The optional API key: when the server is given one, every call must carry it in its metadata.

Clients send ``x-api-key: <key>`` (or ``authorization: Bearer <key>``). A missing or wrong key ends the call with
UNAUTHENTICATED before any servicer runs. The health service stays open so that load balancers and Kubernetes
probes, which send no metadata, can still ask whether the server is up.

    server = grpc.aio.server(interceptors=[ApiKeyInterceptor("s3cret")])
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

API_KEY_HEADER = "x-api-key"
OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def key_from_metadata(metadata: Any) -> str:
    """The API key a call carries, or "" (metadata keys arrive lower-cased)."""
    for key, value in metadata or ():
        if key == API_KEY_HEADER:
            return value
        if key == "authorization" and value.lower().startswith("bearer "):
            return value[len("bearer "):].strip()
    return ""


class ApiKeyInterceptor(grpc.aio.ServerInterceptor):
    """Refuses every call (but health checks) whose metadata does not carry the API key."""

    def __init__(self, api_key: str) -> None:
        if not api_key:
            raise ValueError("an API key must not be empty")
        self._key = api_key.encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith(OPEN_PREFIXES):
            return handler
        given = key_from_metadata(details.invocation_metadata).encode()
        if hmac.compare_digest(given, self._key):
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
