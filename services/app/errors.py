"""The refusals a use case can end with, each with its status: the name of a gRPC status code, which every edge maps
to what it answers (the gRPC servicers to the status, the web to an HTTP status, the CLI to an exit code), one table
per edge, never rewording the message.

The use cases raise a :class:`ServiceError`; the typed errors of the engine, the workers and the replays (an unknown
game or option, a job spec that cannot run) reach the edges as they are, their status given by :data:`STATUS_OF`.
:func:`refusal` is what an edge asks of any exception. A message quotes what the client sent through :func:`quoted`,
which keeps it short: a status's details travel in a header, and gRPC drops a call whose headers pass 16 KiB ("Stream
removed") instead of delivering its status.

>>> refusal(NotFound("no match 'x1'"))
Refusal(status='NOT_FOUND', message="no match 'x1'")
>>> refusal(UnknownGame("snap", ["belote"]))
Refusal(status='INVALID_ARGUMENT', message="unknown game 'snap'; games are belote")
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.errors import ActionLimitExceeded, UnknownGame, UnknownOption, UnknownPolicy, UnsupportedPlayers
from engine.errors import quoted as quoted  # one home in the engine; the services quote through here
from workers.spec import JobSpecError

# Every text a request carries is an id, a token, a name, an action or a page token: none comes near this.
MAX_TEXT = 256
MAX_DETAILS = 4096  # characters of a status's details, whatever made them long (a long list of legal actions)


class ServiceError(Exception):
    """A request that cannot be served as asked; ``status`` names the gRPC status code the client gets."""

    status = "INTERNAL"

    @property
    def message(self) -> str:
        return str(self)


def bounded(details: str, limit: int = MAX_DETAILS) -> str:
    """A status's details cut to ``limit`` characters (the last line of defence for :func:`quoted`)."""
    return details if len(details) <= limit else f"{details[:limit]}... ({len(details)} characters in all)"


class InvalidArgument(ServiceError):
    """Malformed or illegal input: an unknown game or option, an illegal move (the message names the legal ones)."""

    status = "INVALID_ARGUMENT"


class TextTooLong(InvalidArgument):
    """A text of a request longer than an id, a token, a name or an action can be (its value is not quoted).

    >>> TextTooLong("match_id", 300).message
    'match_id is 300 characters long; at most 256 are accepted'
    """

    def __init__(self, name: str, length: int, limit: int = MAX_TEXT) -> None:
        super().__init__(f"{name} is {length} characters long; at most {limit} are accepted")


class NotFound(ServiceError):
    """No such game, match or replay."""

    status = "NOT_FOUND"


class PermissionDenied(ServiceError):
    """A wrong or missing seat token."""

    status = "PERMISSION_DENIED"


class FailedPrecondition(ServiceError):
    """The request is well formed but not possible now: not this seat's turn, the match is over."""

    status = "FAILED_PRECONDITION"


class Aborted(ServiceError):
    """The match moved on since the caller looked (a stale or retried move): read it again and retry."""

    status = "ABORTED"


class ResourceExhausted(ServiceError):
    """A server limit is reached (too many watchers): try again later or elsewhere."""

    status = "RESOURCE_EXHAUSTED"


class DataLoss(ServiceError):
    """A stored replay that does not decode."""

    status = "DATA_LOSS"


class Unavailable(ServiceError):
    """The server cannot serve the call now (it is stopping): try again, here later or elsewhere."""

    status = "UNAVAILABLE"


# The typed errors of engine/, workers/ and replay/ that refuse a request, and their status.
STATUS_OF: dict[type[Exception], str] = {
    UnknownGame: "INVALID_ARGUMENT", UnknownOption: "INVALID_ARGUMENT", UnknownPolicy: "INVALID_ARGUMENT",
    UnsupportedPlayers: "INVALID_ARGUMENT",
    JobSpecError: "INVALID_ARGUMENT",
    ActionLimitExceeded: "RESOURCE_EXHAUSTED",
}


@dataclass(frozen=True)
class Refusal:
    """What a client is told: the status's name (``INVALID_ARGUMENT``) and the message."""

    status: str
    message: str


def refusal(exc: BaseException, redis_url: str = "") -> Refusal | None:
    """The refusal ``exc`` makes (Redis out of reach: UNAVAILABLE, naming ``redis_url`` without its credentials), or
    None for an error of the server's own (the edge logs it and says only that it happened)."""
    if isinstance(exc, ServiceError):
        return Refusal(exc.status, exc.message)
    for kind, status in STATUS_OF.items():
        if isinstance(exc, kind):
            return Refusal(status, str(exc))
    from replay.clients import is_failover  # Redis's client: not for the commands that never reach it (cardtable games)

    if isinstance(exc, Exception) and is_failover(exc):
        # Redis is away (down, restarting, unreachable, a cluster failing over for longer than its client waits)
        return Refusal("UNAVAILABLE", redis_unreachable(exc, redis_address(redis_url) if redis_url else ""))
    return None


def redis_address(url: str) -> str:
    """``url`` as it may be shown to a client or written to the log: without its user name and password."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return parts._replace(netloc=netloc).geturl()


def redis_unreachable(exc: Exception, address: str = "") -> str:
    """The one line that says Redis could not be reached (``address``: its URL without credentials, if known)."""
    where = f" at {address}" if address else ""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    return f"cannot reach Redis{where}: {detail}"
