"""Many watchers: they share one Redis subscription per server process, hold no connection of the ordinary calls, are
limited per server (RESOURCE_EXHAUSTED beyond), and each still sees every move."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from grpc_harness import ServerThread
from matchplay import PERSON, act, create, observe

from replay.clients import sync_client
from services.generated.cardtable.v1 import game_service_pb2, game_service_pb2_grpc
from services.server import ServerConfig

pytestmark = pytest.mark.cluster_too

LIMIT = 150  # above the 100 connections of a Redis client's pool: a connection per watcher would run out
MATCHES = 10


@pytest.fixture(scope="module")
def server(grpc_redis_url):
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, max_watchers=LIMIT)) as running:
        yield running


def _connections(server: ServerThread, redis_url: str) -> list[dict]:
    """The server's Redis connections, as Redis lists them."""
    client = sync_client(redis_url, decode_responses=True)
    try:
        return [c for c in client.client_list() if c.get("name") == server.server.backends.client_name]
    finally:
        client.close()


def _watch(games, match_id: str):
    return games.WatchGame(game_service_pb2.WatchGameRequest(match_id=match_id))


def test_many_watchers_share_one_subscription_and_ordinary_calls_go_on(server, grpc_redis_url):
    with grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        matches = [create(games, [PERSON, PERSON], seed=seed) for seed in range(MATCHES)]
        streams = []
        for n in range(LIMIT):
            created, _ = matches[n % MATCHES]
            stream = _watch(games, created.match_id)
            assert next(stream).kind == game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT
            streams.append((n % MATCHES, stream))
        with pytest.raises(grpc.RpcError) as caught:
            next(_watch(games, matches[0][0].match_id))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and str(LIMIT) in caught.value.details()

        # The snapshots' reads may open a few pooled connections at once on a loaded machine (12 were seen), but the
        # count must not grow with the watchers: one connection per watcher would be 150.
        connections = _connections(server, grpc_redis_url)
        assert len(connections) <= LIMIT // 5, [c["cmd"] for c in connections]
        assert not [c for c in connections if c["cmd"] in ("xread", "blpop")], "a watcher holds a connection"

        def ordinary(n: int) -> int:
            created, tokens = matches[n % MATCHES]
            return observe(games, created.match_id, 0, tokens[0]).move_number

        with ThreadPoolExecutor(40) as pool:  # 40 calls at once while every watcher waits: none fails
            assert list(pool.map(ordinary, range(200))) == [0] * 200

        played = {}
        for k, (created, tokens) in enumerate(matches):
            seat = observe(games, created.match_id, 0, tokens[0]).current_player
            view = observe(games, created.match_id, seat, tokens[seat])
            played[k] = act(games, created.match_id, seat, tokens[seat], view.legal_actions[0], 0).moves[0]
        for k, stream in streams:
            event = next(stream)
            assert event.kind == game_service_pb2.WATCH_EVENT_KIND_MOVE and event.move == played[k]
        for _, stream in streams:
            stream.cancel()

        watchers = server.server.backends.watchers
        deadline = time.monotonic() + 10
        while watchers.count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watchers.count == 0  # the streams that ended gave their places back
        assert next(_watch(games, matches[0][0].match_id)).kind == game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT


def test_a_watcher_joining_mid_match_sees_every_later_move_once(server):
    """Watchers come and go while a match is played; each sees the moves after its snapshot, in order, once."""
    with grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        created, tokens = create(games, [PERSON, PERSON], seed=3)
        watches = []
        view = observe(games, created.match_id, 0, tokens[0])
        while not view.game_over:
            stream = _watch(games, created.match_id)
            watches.append((next(stream).view.move_number, stream))
            seat = view.current_player
            view = observe(games, created.match_id, seat, tokens[seat])
            view = act(games, created.match_id, seat, tokens[seat], view.legal_actions[0], view.move_number).view
        for start, stream in watches:
            numbers = [event.move.number for event in stream]
            assert numbers == list(range(start + 1, view.move_number + 1))
