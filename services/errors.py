"""The errors a service call can end with: each carries its gRPC status code and a message for the client.

The game logic raises them; the servicers turn them into statuses (``await context.abort(err.code, err.message)``).
A message quotes what the client sent through :func:`quoted`, which keeps it short: a status's details travel in a
header, and gRPC drops a call whose headers pass 16 KiB ("Stream removed") instead of delivering its status.

>>> raise NotFound("no match 'x1'")
Traceback (most recent call last):
services.errors.NotFound: no match 'x1'
"""

from __future__ import annotations

import grpc

from engine.errors import quoted as quoted  # one home in the engine; the services quote through here

MAX_DETAILS = 4096  # characters of a status's details, whatever made them long (a long list of legal actions)


class ServiceError(Exception):
    """A request that cannot be served as asked; ``code`` is the gRPC status the client gets."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL

    @property
    def message(self) -> str:
        return str(self)


def bounded(details: str, limit: int = MAX_DETAILS) -> str:
    """A status's details cut to ``limit`` characters (the last line of defence for :func:`quoted`)."""
    return details if len(details) <= limit else f"{details[:limit]}... ({len(details)} characters in all)"


class InvalidArgument(ServiceError):
    """Malformed or illegal input: an unknown game or option, an illegal move (the message names the legal ones)."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(ServiceError):
    """No such game, match or replay."""

    code = grpc.StatusCode.NOT_FOUND


class PermissionDenied(ServiceError):
    """A wrong or missing seat token."""

    code = grpc.StatusCode.PERMISSION_DENIED


class FailedPrecondition(ServiceError):
    """The request is well formed but not possible now: not this seat's turn, the match is over."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(ServiceError):
    """The match moved on since the caller looked (a stale or retried move): read it again and retry."""

    code = grpc.StatusCode.ABORTED


class ResourceExhausted(ServiceError):
    """A server limit is reached (too many watchers): try again later or elsewhere."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class DataLoss(ServiceError):
    """A stored replay that does not decode."""

    code = grpc.StatusCode.DATA_LOSS


class Unavailable(ServiceError):
    """The server cannot serve the call now (it is stopping): try again, here later or elsewhere."""

    code = grpc.StatusCode.UNAVAILABLE
