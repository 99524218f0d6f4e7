"""Fixtures of the gRPC tests: a real server on a free loopback port (Redis: ``grpc_redis_url`` in tests/conftest.py)
and stubs to call it. The server lives while a module's tests run, and stops after them: no gRPC thread may be left
running when other tests fork processes (Ray's, for one). (Not package scope: tests/services is no Python package,
so pytest would keep the server for the whole session.)"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from services.protogen import ensure_generated

ensure_generated()  # a fresh clone has no stubs until the build makes them

from grpc_harness import ServerThread  # noqa: E402

from services.generated.cardtable.v1 import game_service_pb2_grpc  # noqa: E402
from services.server import ServerConfig  # noqa: E402


@pytest.fixture(scope="module")
def grpc_server(grpc_redis_url: str) -> Iterator[ServerThread]:
    """One real server for this module's tests, in a background thread, on a free port."""
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url)) as server:
        yield server


@pytest.fixture(scope="module")
def channel(grpc_server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(grpc_server.target) as ch:
        yield ch


@pytest.fixture(scope="module")
def games(channel: grpc.Channel) -> game_service_pb2_grpc.GameServiceStub:
    return game_service_pb2_grpc.GameServiceStub(channel)
