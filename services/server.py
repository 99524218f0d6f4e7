"""The cardtable gRPC server: GameService and ReplayService (and every service listed in ``SERVICES``), with health
checking (grpc.health.v1: NOT_SERVING while Redis does not answer), server reflection, an optional API key, optional
TLS and a graceful stop on SIGTERM.

The server keeps no state of its own: matches and replays live in Redis, so several processes can share one Redis.

    config = ServerConfig(port=0, redis_url="redis://127.0.0.1:6379")
    run(config)                                # until SIGTERM or SIGINT, on uvloop

    server = CardtableServer(config)            # or drive it yourself (tests do)
    port = await server.start()
    await server.stop()

A new service is one function ``install(server, backends) -> full service name`` added to ``SERVICES``.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import uvloop
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

import engine
from engine.bots import make_policies, play_out
from engine.budget import Budget

from . import game_service, replay_service, simulation_service
from .app.allowed_policies import PolicyAllowList
from .app.auth import ApiKeys
from .app.backends import Backends, open_backends
from .app.budgets import DEFAULT_BOT_BUDGET
from .app.limits import ClientLimits
from .app.watchers import DEFAULT_MAX_WATCHERS
from .health import RedisHealth
from .lifecycle import STOP_MARGIN_S, exit_after
from .match_store import Retention
from .rpc import ApiKeyInterceptor, MalformedRequestInterceptor

log = logging.getLogger("cardtable.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

ServiceInstaller = Callable[[grpc.aio.Server, Backends], str]

SERVICES: tuple[ServiceInstaller, ...] = (
    lambda server, b: game_service.install(server, b.matches, b.save_replay, b.watchers, b.redis_url, b.clients,
                                           b.policies, b.bot_budget, b.stopping),
    replay_service.install,
    simulation_service.install,
)


@dataclass
class ServerConfig:
    """How to run the server: ``redis_url=None`` starts an embedded Valkey with its data under ``data_dir``."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    redis_url: str | None = None
    api_key: str | ApiKeys | None = None  # one key, or several (each client its own, named: see services.app.auth)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    grace_s: float = 5.0
    data_dir: Path | None = None
    reuse_port: bool = False  # let several worker processes bind the same port (the kernel spreads connections)
    retention: Retention = field(default_factory=Retention)  # how long Redis keeps finished and abandoned matches
    max_watchers: int = DEFAULT_MAX_WATCHERS  # WatchGame streams served at once (RESOURCE_EXHAUSTED beyond)
    services: tuple[ServiceInstaller, ...] = field(default=SERVICES)
    # The import paths a client may name a policy by (built-ins and installed entry points always): by default none.
    allow_policies: PolicyAllowList = field(default_factory=PolicyAllowList)
    limits: ClientLimits = field(default_factory=ClientLimits)  # per client (API key, else address); none by default
    bot_budget: Budget = DEFAULT_BOT_BUDGET  # what a bot's decision may spend (services.app.budgets)

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and its key (--tls-cert and --tls-key)")


class CardtableServer:
    """One server process: its gRPC server, its health service and its Redis connections."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.port: int | None = None
        self.backends: Backends | None = None
        self.health = HealthServicer()
        self._server: grpc.aio.Server | None = None
        self._redis_health: RedisHealth | None = None

    async def start(self) -> int:
        """Connect to Redis, bind, start serving; returns the bound port (useful with ``port=0``)."""
        config = self.config
        if config.allow_policies.modules:
            log.info("policies allowed by import path", extra={"modules": list(config.allow_policies.modules)})
        keys = ApiKeys.of(config.api_key)
        self.backends = await open_backends(config.redis_url, config.data_dir, config.retention, config.max_watchers,
                                            config.limits, keys, policies=config.allow_policies,
                                            bot_budget=config.bot_budget)
        interceptors = [ApiKeyInterceptor(keys)] if keys else []
        interceptors.append(MalformedRequestInterceptor())
        server = grpc.aio.server(
            migration_thread_pool=ThreadPoolExecutor(max_workers=8, thread_name_prefix="cardtable-rpc"),
            interceptors=interceptors,
            options=[("grpc.so_reuseport", int(config.reuse_port)),
                     ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)])
        names = [install(server, self.backends) for install in config.services]
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        for name in ["", *names]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._redis_health = RedisHealth(self.health, ["", *names], self.backends.redis)
        self._redis_health.start()
        reflection.enable_server_reflection([*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                                             reflection.SERVICE_NAME], server)
        self.port = self._bind(server)
        await server.start()
        self._server = server
        log.info("serving", extra={"host": config.host, "port": self.port, "tls": config.tls_cert is not None,
                                   "api_key": bool(config.api_key), "redis": self.backends.redis_url,
                                   "services": names})
        return self.port

    def _bind(self, server: grpc.aio.Server) -> int:
        config = self.config
        address = f"{config.host}:{config.port}"
        try:
            if config.tls_cert is None:
                port = server.add_insecure_port(address)
            else:
                credentials = grpc.ssl_server_credentials([(Path(config.tls_key).read_bytes(),
                                                             Path(config.tls_cert).read_bytes())])
                port = server.add_secure_port(address, credentials)
        except RuntimeError:  # grpcio's "Failed to bind to address" (older versions return 0)
            port = 0
        if port == 0:
            raise OSError(f"cannot bind {address} (is the port in use?)")
        return port

    async def stop(self, grace: float | None = None) -> None:
        """Stop taking calls, give running ones ``grace`` seconds, then close the Redis connections."""
        grace = self.config.grace_s if grace is None else grace
        if self._redis_health is not None:
            await self._redis_health.stop()
            self._redis_health = None
        if self._server is not None:
            await self.health.enter_graceful_shutdown()
            await self._server.stop(grace)
            self._server = None
        if self.backends is not None:
            await self.backends.close()
            self.backends = None
        log.info("stopped", extra={"port": self.port})

    async def wait(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()


def settle_heap() -> None:
    """Build what the engine builds on first use (the trick games' id tables: 131k lists, the first deal's caches),
    then put everything loaded so far out of the garbage collector's sight (``gc.freeze``): it lives as long as the
    process, and a collection that walked it took ~20 ms (a full one) while every call waited."""
    for game_id in engine.list_games():
        for players in engine.game_info(game_id).player_counts:
            state = engine.new_match(game_id, seed=0, players=players, options={"max_deals": 1})
            state.observation(state.current_player or 0, history=False)
            state.turn_choices()
            play_out(state, make_policies(["random"] * players, game_id, 0))
    gc.collect()
    gc.freeze()


async def serve(config: ServerConfig, ready: Callable[[int], None] | None = None) -> None:
    """Run a server until SIGTERM or SIGINT, then stop gracefully; ``ready(port)`` is called once it serves."""
    server = CardtableServer(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        port = await server.start()
        settle_heap()
        if ready is not None:
            ready(port)
        await stop.wait()
        log.info("shutting down", extra={"grace_s": config.grace_s})
        exit_after(config.grace_s + STOP_MARGIN_S)  # the last resort: see services.lifecycle
    finally:
        await server.stop()


def run(config: ServerConfig, ready: Callable[[int], None] | None = None) -> None:
    """:func:`serve` on uvloop: the event loop's share of every call (asyncio scheduling, the Redis socket) costs
    about a tenth fewer instructions per Act than on the standard loop."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(serve(config, ready))
