"""One Redis connection that every request of a server process shares, its commands pipelined: a command is written
without waiting for the replies to the commands before it, and the commands asked for in one turn of the event loop
go out in one write. The replies come back in order (hiredis parses them) and each wakes its caller.

redis-py's asyncio client takes a pooled connection per command and waits for its reply before giving it back: about
60-90 µs of CPU per command on this machine against 5-20 µs here (a script call, 16 concurrent callers or one), which
was a fifth of an ``Act``'s server CPU. The match store sends its hot scripts (a move's compare-and-set, a match's load)
through this; everything else keeps the client it was given.

Only a plain TCP connection speaking RESP2 is pipelined this way (:meth:`PipelinedRedis.of` returns None for a Redis
Cluster, TLS, a Unix socket, RESP3 or a credential provider: their callers keep redis-py). Errors are redis-py's: a
connection that cannot be made or is lost is a ``redis.ConnectionError`` (the command is sent once more on a new
connection, as the clients of :mod:`replay.clients` do), an error reply a ``redis.ResponseError``
(``NoScriptError`` for NOSCRIPT).

    pipe = PipelinedRedis.of(client)            # None: use client itself
    version = await pipe.execute("HGET", "ct:match:{a1b2}", "version")
    await pipe.aclose()
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Any

import hiredis
import redis.asyncio
from redis.exceptions import NoScriptError

DEFAULT_CONNECT_TIMEOUT_S = 5.0


class _Protocol(asyncio.Protocol):
    """The connection: commands queued in one turn of the loop are written together; replies resolve in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop, encoding: str | None) -> None:
        self.loop = loop
        self.reader = hiredis.Reader(encoding=encoding) if encoding else hiredis.Reader()
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.outgoing: list[bytes] = []
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports are not asyncio's classes

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            future = self.waiting.popleft()
            if not future.done():  # its caller may have been cancelled meanwhile
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = redis.ConnectionError(f"connection to Redis lost: {exc or 'closed by the server'}")
        self.outgoing.clear()
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(self.lost)

    def send(self, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        if self.lost is not None:
            raise self.lost
        if not self.outgoing:
            self.loop.call_soon(self._flush)
        self.outgoing.append(hiredis.pack_command(args))
        future = self.loop.create_future()
        self.waiting.append(future)
        return future

    def _flush(self) -> None:
        if self.outgoing and self.transport is not None and self.lost is None:
            self.transport.write(b"".join(self.outgoing))
        self.outgoing = []


class PipelinedRedis:
    """A pipelined connection to the Redis of a redis-py asyncio client (see the module docstring)."""

    def __init__(self, host: str, port: int, db: int = 0, username: str | None = None, password: str | None = None,
                 connect_timeout: float | None = None, encoding: str | None = None,
                 client_name: str | None = None) -> None:
        self.host, self.port, self.db = host, port, db
        self.username, self.password = username, password
        self.connect_timeout = connect_timeout or DEFAULT_CONNECT_TIMEOUT_S
        self.encoding = encoding
        self.client_name = client_name
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None

    @classmethod
    def of(cls, client: Any) -> PipelinedRedis | None:
        """A pipelined connection to ``client``'s Redis, or None where ``client`` is not a plain TCP RESP2 one."""
        if type(client) is not redis.asyncio.Redis:
            return None
        pool = client.connection_pool
        options = pool.connection_kwargs
        if pool.connection_class is not redis.asyncio.Connection or options.get("credential_provider") \
                or str(options.get("protocol") or 2) != "2":
            return None
        return cls(options.get("host", "localhost"), int(options.get("port", 6379)), int(options.get("db") or 0),
                   options.get("username"), options.get("password"), options.get("socket_connect_timeout"),
                   options.get("encoding", "utf-8") if options.get("decode_responses") else None,
                   options.get("client_name"))

    async def execute(self, *args: Any) -> Any:
        """Send one command and return its reply; a lost connection is made again and the command sent once more."""
        for attempt in range(2):
            protocol = self._protocol
            if protocol is None or protocol.lost is not None or protocol.loop is not asyncio.get_running_loop():
                protocol = await self._connected()
            try:
                reply = await protocol.send(args)
            except redis.ConnectionError:
                if attempt:
                    raise
                continue
            if isinstance(reply, hiredis.ReplyError):
                message = str(reply)
                raise NoScriptError(message) if message.startswith("NOSCRIPT") else redis.ResponseError(message)
            return reply
        raise AssertionError("unreachable")

    async def evalsha(self, script: Any, keys: Sequence[str], args: list[Any]) -> Any:
        """Run a registered script (``client.register_script(...)``), loading it first if Redis lacks it."""
        try:
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.execute("SCRIPT", "LOAD", script.script)
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)

    async def _connected(self) -> _Protocol:
        """The current connection, made now if there is none (callers meanwhile wait for the same one)."""
        loop = asyncio.get_running_loop()
        if self._connecting is None or self._connecting.get_loop() is not loop:
            self._connecting = loop.create_task(self._connect(loop))
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        finally:
            if connecting.done() and self._connecting is connecting:
                self._connecting = None

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Protocol:
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, protocol = await loop.create_connection(lambda: _Protocol(loop, self.encoding), self.host,
                                                           self.port)
        except (OSError, TimeoutError) as exc:
            raise redis.ConnectionError(f"Error connecting to {self.host}:{self.port}: {exc or 'timed out'}") \
                from None
        handshake: list[tuple[Any, ...]] = []
        if self.password is not None:
            handshake.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
        if self.db:
            handshake.append(("SELECT", self.db))
        if self.client_name:
            handshake.append(("CLIENT", "SETNAME", self.client_name))
        for reply in [await future for future in [protocol.send(command) for command in handshake]]:
            if isinstance(reply, hiredis.ReplyError):
                assert protocol.transport is not None
                protocol.transport.close()
                raise redis.ConnectionError(f"Redis refused the connection: {reply}")
        self._protocol = protocol
        return protocol

    async def aclose(self) -> None:
        protocol, self._protocol = self._protocol, None
        if protocol is not None and protocol.transport is not None:
            protocol.transport.close()
