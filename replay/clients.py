"""Redis clients: the one factory that every part of cardtable opens Redis with.

``redis://``, ``rediss://`` and ``unix://`` URLs give a plain client (``redis.Redis``); ``redis+cluster://host:port``
(any one node of the cluster; ``rediss+cluster://`` with TLS) gives a Redis Cluster client
(``redis.cluster.RedisCluster``) that finds the other nodes itself. Both try a command again when its connection
dropped. A cluster client also rides out a failover: while a primary is down and its replica not yet promoted, a
command (a pipeline: all of it) that meets a connection error, ``CLUSTERDOWN``, ``TRYAGAIN`` or a redirection it
could not follow is tried again after a pause that doubles from 50 ms up to 1 s, for up to
:data:`FAILOVER_PATIENCE_S` seconds.

>>> sync_client("redis://127.0.0.1:6379")                # doctest: +SKIP
>>> sync_client("redis+cluster://127.0.0.1:7000")        # doctest: +SKIP
>>> cluster_node_url("rediss+cluster://10.0.0.5:7000/0")
'rediss://10.0.0.5:7000/0'
>>> cluster_node_url("redis://127.0.0.1:6379") is None
True
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar, cast

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.asyncio.retry
import redis.cluster
from redis.backoff import ExponentialBackoff
from redis.commands.core import AsyncScript, Script
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MasterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.retry import Retry

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

# A plain client tries a dropped connection's command again once, after a short pause (the pool opens a new one).
RETRIES = 1
RETRY_BACKOFF_S = (0.05, 0.5)  # first pause, longest pause
_RETRY_ON = [redis.ConnectionError, redis.TimeoutError]

# A cluster client waits this long for a failover (cluster-node-timeout, then the replica's election) to end.
FAILOVER_PATIENCE_S = 20.0
FAILOVER_BACKOFF_S = (0.05, 1.0)
FAILOVER_ERRORS: tuple[type[Exception], ...] = (
    redis.ConnectionError, redis.TimeoutError, ClusterDownError, MasterDownError, TryAgainError, MovedError, AskError,
    SlotNotCoveredError)
# How long a write that must not be lost waits for a replica to acknowledge it (see confirm_replicated).
REPLICA_WAIT_MS = 1000

Client = redis.Redis | redis.cluster.RedisCluster
AsyncClient = redis.asyncio.Redis | redis.asyncio.cluster.RedisCluster
T = TypeVar("T")


def is_failover(error: BaseException) -> bool:
    """``error`` is one that Redis (a cluster failing over, a restart) gives while it is out of reach: a connection
    error, a cluster one of :data:`FAILOVER_ERRORS`, or the client's own "cannot be connected" when it looked for the
    cluster's nodes anew and met connection errors alone."""
    if isinstance(error, FAILOVER_ERRORS):
        return True
    return isinstance(error, RedisClusterException) and isinstance(error.__cause__, FAILOVER_ERRORS)


def cluster_node_url(url: str) -> str | None:
    """The plain URL of the node a ``redis+cluster://`` (``rediss+cluster://``) URL names; None for any other URL."""
    scheme, sep, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower()) if sep else None
    return None if plain is None else f"{plain}://{rest}"


def sync_client(url: str, patience: float = FAILOVER_PATIENCE_S, **options: Any) -> Client:
    """A client for ``url`` (``options``: ``from_url``'s, such as ``decode_responses``); a cluster client waits up to
    ``patience`` seconds for a failover."""
    node = cluster_node_url(url)
    if node is None:
        return redis.Redis.from_url(url, retry=Retry(_backoff(), RETRIES), retry_on_error=list(_RETRY_ON), **options)
    try:
        client = cast(PatientCluster, PatientCluster.from_url(node, **options))
    except RedisClusterException as exc:  # no node answered: the library's error is no RedisError
        raise redis.ConnectionError(f"cannot reach the Redis Cluster at {node}: {exc}") from None
    client.patience = patience
    client.origin = (url, options)
    return client


def bytes_client(client: Client) -> Client:
    """``client`` if it answers bytes, else a twin that does (same server or cluster, same options)."""
    if isinstance(client, PatientCluster):
        url, options = client.origin
        return client if not options.get("decode_responses") else sync_client(
            url, client.patience, **{**options, "decode_responses": False})
    if isinstance(client, redis.cluster.RedisCluster):
        raise TypeError("a Redis Cluster client for cardtable comes from replay.clients.sync_client")
    pool = client.connection_pool
    if not pool.connection_kwargs.get("decode_responses"):
        return client
    kwargs = {**pool.connection_kwargs, "decode_responses": False}
    return redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs))


def async_client(url: str, patience: float = FAILOVER_PATIENCE_S, **options: Any) -> AsyncClient:
    """:func:`sync_client` for asyncio."""
    node = cluster_node_url(url)
    if node is None:
        return redis.asyncio.Redis.from_url(url, retry=redis.asyncio.retry.Retry(_backoff(), RETRIES),
                                            retry_on_error=list(_RETRY_ON), **options)
    client = cast(AsyncPatientCluster, AsyncPatientCluster.from_url(node, **options))
    client.patience = patience
    return client


def is_cluster(client: Any) -> bool:
    """``client`` speaks to a Redis Cluster (sync or asyncio)."""
    return isinstance(client, (redis.cluster.RedisCluster, redis.asyncio.cluster.RedisCluster))


def confirm_replicated(pipe: Any, keys: Iterable[str]) -> None:
    """Make a cluster pipeline end, on each primary holding one of ``keys``, with ``WAIT 1`` (up to
    :data:`REPLICA_WAIT_MS`): its writes are answered once a replica has them too, so that a failover right after
    cannot lose them (Redis replicates asynchronously). Should the primary fail meanwhile, the pipeline is sent again
    to the replica that took over. Nothing changes for a plain client's pipeline, or for a primary with no replica.
    """
    if isinstance(pipe, PatientClusterPipeline):
        pipe.replicated.extend(keys)


def queued_commands(pipe: Any) -> list[tuple[Any, ...]]:
    """The commands queued in a pipeline (plain or cluster), as argument tuples, before it is executed."""
    if isinstance(pipe, redis.cluster.ClusterPipeline):
        return [command.args for command in pipe._execution_strategy.command_queue]
    return [args for args, _options in pipe.command_stack]


def _backoff() -> ExponentialBackoff:
    return ExponentialBackoff(base=RETRY_BACKOFF_S[0], cap=RETRY_BACKOFF_S[1])


def _pauses(patience: float) -> Iterable[float]:
    """The pauses between tries: doubling from the first to the longest, until ``patience`` seconds have passed."""
    deadline = time.monotonic() + patience
    pause = FAILOVER_BACKOFF_S[0]
    while time.monotonic() + pause <= deadline:
        yield pause
        pause = min(2 * pause, FAILOVER_BACKOFF_S[1])


def _failed(results: Sequence[Any]) -> Exception | None:
    """The first error among a pipeline's results that a failover explains (or a script the node does not know)."""
    return next((r for r in results if isinstance(r, (*FAILOVER_ERRORS, NoScriptError))), None)  # type: ignore[return-value]


class PatientCluster(redis.cluster.RedisCluster):
    """A cluster client whose commands and pipelines are tried again through a failover (see the module)."""

    patience: float = FAILOVER_PATIENCE_S
    origin: tuple[str, dict[str, Any]] = ("", {})  # the URL and options it was made from (see bytes_client)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scripts: dict[str, Script] = {}  # sha -> script: loaded again on a node that lacks one (a new primary)

    def register_script(self, script: Any) -> Script:
        registered = super().register_script(script)
        self.scripts[registered.sha] = registered
        return registered

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if "target_nodes" in kwargs:
            return super().execute_command(*args, **kwargs)  # type: ignore[no-untyped-call]
        return self._patiently(lambda: super(PatientCluster, self).execute_command(*args, **kwargs))  # type: ignore[no-untyped-call]

    def _patiently(self, call: Callable[[], T]) -> T:
        for pause in _pauses(self.patience):
            try:
                return call()
            except Exception as exc:
                if not is_failover(exc):
                    raise
                time.sleep(pause)
        return call()

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction, shard_hint)  # type: ignore[no-untyped-call]
        # The library builds its ClusterPipeline from the client's internals; ours only adds a patient execute().
        pipe.__class__ = PatientClusterPipeline
        pipe.owner, pipe.replicated = self, []
        return pipe


class PatientClusterPipeline(redis.cluster.ClusterPipeline):
    """A cluster pipeline whose execute() sends the whole stack again through a failover."""

    owner: PatientCluster
    replicated: list[str]  # keys whose primaries get a WAIT after the stack (see confirm_replicated)

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        """A script in the pipeline (redis-py refuses it in a cluster pipeline, though its keys are checked to lie in
        one slot like any command's): a node that lacks the script gets every registered one, and the stack again."""
        return self.pipeline_execute_command("EVALSHA", sha, numkeys, *keys_and_args)  # type: ignore[no-untyped-call]

    def _get_command_keys(self, *args: Any) -> Any:
        # A script's keys are its KEYS: redis-py would ask the default node (COMMAND GETKEYS) for each script it
        # queues, one round trip each, and fail while that node is down.
        if str(args[0]).upper() in ("EVALSHA", "EVAL"):
            return list(args[3:3 + int(args[2])])
        return super()._get_command_keys(*args)  # type: ignore[no-untyped-call]

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        stack = [(command.args, dict(command.options)) for command in self._execution_strategy.command_queue]
        self.reset()  # type: ignore[no-untyped-call]  # each try queues the stack again
        if not stack:
            return []
        for pause in _pauses(self.owner.patience):
            try:
                results = self._send(stack, raise_on_error=False)
            except Exception as exc:
                if not is_failover(exc):
                    raise
                self.owner.replace_default_node()  # keyless commands go to the default node: it may be the dead one
                time.sleep(pause)
                continue
            error = _failed(results)
            if error is None:
                break
            if isinstance(error, NoScriptError):
                for script in self.owner.scripts.values():
                    self.owner.script_load(script.script)
            else:
                time.sleep(pause)
        else:
            results = self._send(stack, raise_on_error=False)
        self.replicated = []
        if raise_on_error:
            first = next((r for r in results if isinstance(r, Exception)), None)
            if first is not None:
                raise first
        return results

    def _send(self, stack: list[tuple[Any, Any]], raise_on_error: bool) -> list[Any]:
        for args, options in stack:
            self.pipeline_execute_command(*args, **options)  # type: ignore[no-untyped-call]
        # Each try finds the primaries anew: after a failover the stack and its WAIT go to the promoted replica.
        primaries = {}
        for key in self.replicated:
            holders = self.owner.nodes_manager.slots_cache.get(self.owner.keyslot(key), [])  # type: ignore[no-untyped-call]
            if len(holders) > 1:
                primaries[holders[0].name] = holders[0]
        if isinstance(self._execution_strategy, redis.cluster.TransactionStrategy):
            # A WAIT inside MULTI/EXEC does not wait: it follows the EXEC, on the transaction's node.
            results = list(super().execute(raise_on_error=raise_on_error))
            for node in primaries.values():
                self.owner.execute_command("WAIT", 1, REPLICA_WAIT_MS, target_nodes=node)
            return results
        for node in primaries.values():
            self.pipeline_execute_command("WAIT", 1, REPLICA_WAIT_MS, target_nodes=node)  # type: ignore[no-untyped-call]
        return list(super().execute(raise_on_error=raise_on_error))[:len(stack)]


class AsyncPatientCluster(redis.asyncio.cluster.RedisCluster):
    """:class:`PatientCluster` for asyncio."""

    patience: float = FAILOVER_PATIENCE_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scripts: dict[str, AsyncScript] = {}  # sha -> script: loaded again on a node that lacks one

    def register_script(self, script: Any) -> AsyncScript:  # type: ignore[override]
        registered = super().register_script(script)
        self.scripts[registered.sha] = registered
        return registered

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if "target_nodes" in kwargs:
            return await super().execute_command(*args, **kwargs)
        return await self._patiently(lambda: super(AsyncPatientCluster, self).execute_command(*args, **kwargs))

    async def _patiently(self, call: Callable[[], Awaitable[T]]) -> T:
        for pause in _pauses(self.patience):
            try:
                return await call()
            except Exception as exc:
                if not is_failover(exc):
                    raise
                await asyncio.sleep(pause)
        return await call()

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> AsyncPatientClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is not supported in cluster mode")
        pipeline: Any = AsyncPatientClusterPipeline  # (redis-py's stubs call it abstract; it is not)
        return cast(AsyncPatientClusterPipeline, pipeline(self, transaction))


class AsyncPatientClusterPipeline(redis.asyncio.cluster.ClusterPipeline):
    """:class:`PatientClusterPipeline` for asyncio."""

    cluster_client: AsyncPatientCluster

    async def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        """A script in the pipeline, awaited as a registered script's call awaits it (redis-py refuses it in a
        cluster pipeline, though the client finds the slot of its keys as any command's): a node that lacks the
        script gets every registered one, and the stack again. (Not the pipeline's own awaitable: awaiting that
        empties the stack.)"""
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        strategy: Any = self._execution_strategy
        stack = [(command.args, command.kwargs) for command in strategy._command_queue]
        await self.reset()  # type: ignore[no-untyped-call]  # each try queues the stack again
        if not stack:
            return []
        for pause in _pauses(self.cluster_client.patience):
            try:
                results = await self._send(stack)
            except Exception as exc:
                if not is_failover(exc):
                    raise
                await asyncio.sleep(pause)
                continue
            error = _failed(results)
            if error is None:
                break
            if isinstance(error, NoScriptError):
                for script in self.cluster_client.scripts.values():
                    await self.cluster_client.script_load(script.script)
            else:
                await asyncio.sleep(pause)
        else:
            results = await self._send(stack)
        if raise_on_error:
            first = next((r for r in results if isinstance(r, Exception)), None)
            if first is not None:
                raise first
        return results

    async def _send(self, stack: list[tuple[Any, Any]]) -> list[Any]:
        for args, kwargs in stack:
            self.execute_command(*args, **kwargs)
        return list(await super().execute(raise_on_error=False))
