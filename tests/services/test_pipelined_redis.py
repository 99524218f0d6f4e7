"""The pipelined Redis connection of the match store: many callers share one connection and each gets its own reply,
a script Redis lacks is loaded, a dropped connection is made again, and Redis out of reach is redis-py's
ConnectionError (UNAVAILABLE at the edges)."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Awaitable, Callable

import pytest
import redis
import redis.asyncio

from services.app.errors import refusal
from services.pipelined_redis import PipelinedRedis


def _run(redis_url: str, body: Callable[[PipelinedRedis, redis.asyncio.Redis, str], Awaitable[None]]) -> None:
    async def main() -> None:
        prefix = f"test:pipelined:{secrets.token_hex(4)}:"
        async with redis.asyncio.Redis.from_url(redis_url, decode_responses=True) as client:
            pipe = PipelinedRedis.of(client)
            assert pipe is not None
            try:
                await body(pipe, client, prefix)
            finally:
                await pipe.aclose()
                if keys := await client.keys(f"{prefix}*"):
                    await client.delete(*keys)

    asyncio.run(main())


def test_concurrent_callers_each_get_their_own_reply_in_order(redis_server_url):
    async def body(pipe: PipelinedRedis, client: redis.asyncio.Redis, prefix: str) -> None:
        counter = f"{prefix}n"
        replies = await asyncio.gather(*(pipe.execute("INCR", counter) for _ in range(50)))
        assert replies == list(range(1, 51))  # sent in one write, answered in order
        await pipe.execute("SET", f"{prefix}s", "é")
        assert await pipe.execute("GET", f"{prefix}s") == "é" == await client.get(f"{prefix}s")
        with pytest.raises(redis.ResponseError):
            await pipe.execute("INCR", f"{prefix}s")  # not a number: the error reply is raised, the rest goes on
        assert await pipe.execute("GET", counter) == "50"

    _run(redis_server_url, body)


def test_a_script_redis_lacks_is_loaded_and_run(redis_server_url):
    async def body(pipe: PipelinedRedis, client: redis.asyncio.Redis, prefix: str) -> None:
        # A script no Redis has seen: the first EVALSHA gets NOSCRIPT.
        script = client.register_script(f"-- {secrets.token_hex(8)}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])")
        assert await client.script_exists(script.sha) == [False]
        assert await pipe.evalsha(script, [f"{prefix}k"], ["5"]) == 5
        assert await pipe.evalsha(script, [f"{prefix}k"], ["2"]) == 7

    _run(redis_server_url, body)


def test_a_dropped_connection_is_made_again(redis_server_url):
    async def body(pipe: PipelinedRedis, client: redis.asyncio.Redis, prefix: str) -> None:
        first = await pipe.execute("CLIENT", "ID")
        await client.client_kill_filter(_id=first)
        assert await pipe.execute("SET", f"{prefix}k", "1") == "OK"  # sent once more, on a new connection
        assert await pipe.execute("CLIENT", "ID") != first

    _run(redis_server_url, body)


def test_redis_out_of_reach_is_a_connection_error_and_unavailable():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def main() -> None:
        pipe = PipelinedRedis.of(redis.asyncio.Redis(host="127.0.0.1", port=port))
        assert pipe is not None
        with pytest.raises(redis.ConnectionError) as raised:
            await pipe.execute("PING")
        found = refusal(raised.value, f"redis://127.0.0.1:{port}")
        assert found is not None and found.status == "UNAVAILABLE"

    asyncio.run(main())


def test_only_a_plain_tcp_client_is_pipelined():
    assert PipelinedRedis.of(redis.asyncio.Redis(unix_socket_path="/tmp/none.sock")) is None
    assert PipelinedRedis.of(redis.asyncio.Redis(protocol=3)) is None
    assert PipelinedRedis.of(redis.Redis()) is None  # not asyncio
    pipe = PipelinedRedis.of(redis.asyncio.Redis(host="h", port=7, db=3, password="p", client_name="c"))
    assert pipe is not None
    assert (pipe.host, pipe.port, pipe.db, pipe.password, pipe.client_name) == ("h", 7, 3, "p", "c")
