"""The server itself: health (its Redis watcher; the outage itself: test_redis_outage.py), reflection, the API key,
TLS, SIGTERM, and matches shared by server processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading

import grpc
import pytest
from grpc_harness import ServerProcess, ServerThread
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from matchplay import PERSON, act, bot, create, observe, play_to_end

import replay
from services.generated.cardtable.v1 import (
    game_service_pb2,
    game_service_pb2_grpc,
    replay_service_pb2,
    replay_service_pb2_grpc,
)
from services.server import CardtableServer, ServerConfig

Code = grpc.StatusCode


def test_health_and_reflection(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "cardtable.v1.GameService", "cardtable.v1.ReplayService"]:
        answer = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {"cardtable.v1.GameService", "cardtable.v1.ReplayService", "grpc.health.v1.Health"} <= services


def test_the_redis_health_watcher_lives_as_long_as_the_server(grpc_redis_url):
    async def start_and_stop() -> tuple[list[str], list[str]]:
        server = CardtableServer(ServerConfig(port=0, redis_url=grpc_redis_url))
        await server.start()
        running = [task.get_name() for task in asyncio.all_tasks()]
        await server.stop(grace=0)
        return running, [task.get_name() for task in asyncio.all_tasks()]

    running, after = asyncio.run(start_and_stop())
    assert "cardtable-redis-health" in running and "cardtable-redis-health" not in after


def test_tls_needs_a_certificate_and_its_key(tmp_path):
    with pytest.raises(ValueError, match="both"):
        ServerConfig(tls_cert=tmp_path / "cert.pem")


# ---- the API key ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def keyed_server(grpc_redis_url):
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, api_key="s3cret")) as server:
        yield server


def test_the_api_key_guards_every_call_but_health(keyed_server):
    with grpc.insecure_channel(keyed_server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        for metadata in [(), (("x-api-key", "wrong"),), (("authorization", "Bearer nope"),)]:
            with pytest.raises(grpc.RpcError) as caught:
                games.ListGames(game_service_pb2.ListGamesRequest(), metadata=metadata)
            assert caught.value.code() == Code.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as caught:
            next(games.WatchGame(game_service_pb2.WatchGameRequest(match_id="x")))
        assert caught.value.code() == Code.UNAUTHENTICATED and "x-api-key" in caught.value.details()
        for metadata in [(("x-api-key", "s3cret"),), (("authorization", "Bearer s3cret"),)]:
            assert games.ListGames(game_service_pb2.ListGamesRequest(), metadata=metadata).games
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING


# ---- TLS -----------------------------------------------------------------------------------------------------------

def test_tls_is_one_flag_away(grpc_redis_url, certificate):
    cert, key = certificate
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, tls_cert=cert, tls_key=key)) as server:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(server.target, credentials) as channel:
            assert game_service_pb2_grpc.GameServiceStub(channel).ListGames(game_service_pb2.ListGamesRequest()).games
        with grpc.insecure_channel(server.target) as channel:
            with pytest.raises(grpc.RpcError) as caught:
                game_service_pb2_grpc.GameServiceStub(channel).ListGames(game_service_pb2.ListGamesRequest(),
                                                                         timeout=2)
            assert caught.value.code() == Code.UNAVAILABLE


# ---- server processes ------------------------------------------------------------------------------------------------

def _stub(server: ServerProcess) -> tuple[grpc.Channel, game_service_pb2_grpc.GameServiceStub]:
    channel = grpc.insecure_channel(server.target)
    return channel, game_service_pb2_grpc.GameServiceStub(channel)


def test_two_server_processes_serve_one_match(grpc_redis_url):
    with ServerProcess("--redis-url", grpc_redis_url) as a, ServerProcess("--redis-url", grpc_redis_url) as b:
        assert a.log_lines[-1]["host"] == "127.0.0.1" and a.port != b.port
        (channel_a, on_a), (channel_b, on_b) = _stub(a), _stub(b)
        created, tokens = create(on_a, [PERSON, PERSON], seed=8)
        watch = on_b.WatchGame(game_service_pb2.WatchGameRequest(match_id=created.match_id))
        assert next(watch).kind == game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT
        stubs = [on_a, on_b]
        played = 0
        view = observe(on_b, created.match_id, 0, tokens[0])
        while not view.game_over:
            seat = view.current_player
            view = observe(stubs[played % 2], created.match_id, seat, tokens[seat])
            # Alternate processes move by move; each sees the other's moves at once.
            view = act(stubs[(played + 1) % 2], created.match_id, seat, tokens[seat], view.legal_actions[0],
                       view.move_number).view
            played += 1
        events = list(watch)
        assert [e.move.number for e in events] == list(range(1, played + 1))
        assert events[-1].view.game_over and events[-1].replay_id.startswith("live/")
        channel_a.close()
        channel_b.close()


def test_a_restarted_server_carries_on_every_match(grpc_redis_url):
    first = ServerProcess("--redis-url", grpc_redis_url).start()
    channel, games = _stub(first)
    created, tokens = create(games, [PERSON, bot("greedy")], seed=13)
    view = observe(games, created.match_id, 0, tokens[0])
    for _ in range(3):
        view = act(games, created.match_id, 0, tokens[0], view.legal_actions[-1], view.move_number).view
    channel.close()
    assert first.terminate() == 0 and first.log_lines[-1]["msg"] == "stopped"
    with ServerProcess("--redis-url", grpc_redis_url) as second:
        channel, games = _stub(second)
        resumed = observe(games, created.match_id, 0, tokens[0])
        assert resumed.move_number == view.move_number and list(resumed.legal_actions) == list(view.legal_actions)
        responses = play_to_end(games, created.match_id, tokens)
        replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
        data = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=responses[-1].replay_id)).data
        history = json.loads(observe(games, created.match_id, 0, tokens[0]).json)["history"]
        assert [[s, a] for s, a in replay.decode(data).moves] == history
        channel.close()


def test_sigterm_ends_open_streams_and_stops_gracefully(grpc_redis_url):
    server = ServerProcess("--redis-url", grpc_redis_url, "--grace", "1").start()
    channel, games = _stub(server)
    created, _ = create(games, [PERSON, PERSON], seed=1)
    watch = games.WatchGame(game_service_pb2.WatchGameRequest(match_id=created.match_id))
    next(watch)
    ended = threading.Event()

    def drain() -> None:
        with contextlib.suppress(grpc.RpcError):
            list(watch)
        ended.set()

    threading.Thread(target=drain, daemon=True).start()
    assert server.terminate(timeout=15) == 0
    assert ended.wait(10)
    assert [line.get("msg") for line in server.log_lines][-2:] == ["shutting down", "stopped"]
    channel.close()


@pytest.mark.parametrize("retry", ["the same move", "an illegal move"])
def test_a_process_never_moves_on_its_cached_copy_of_a_match(grpc_server, grpc_redis_url, retry):
    """Process A keeps the match it saved last; after process B moves the match on, a request that A's copy would
    accept (the same move again) or refuse (an illegal one) is judged on the stored match: ABORTED, nothing played."""
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url)) as other, \
            grpc.insecure_channel(grpc_server.target) as channel_a, grpc.insecure_channel(other.target) as channel_b:
        on_a, on_b = game_service_pb2_grpc.GameServiceStub(channel_a), game_service_pb2_grpc.GameServiceStub(channel_b)
        created, tokens = create(on_a, [PERSON, PERSON], seed=23)  # A caches the match it just saved
        seat = observe(on_a, created.match_id, 0, tokens[0]).current_player
        view = observe(on_a, created.match_id, seat, tokens[seat])
        moved = act(on_b, created.match_id, seat, tokens[seat], view.legal_actions[0], view.move_number)
        action = view.legal_actions[0] if retry == "the same move" else "ZZ"
        with pytest.raises(grpc.RpcError) as caught:
            act(on_a, created.match_id, seat, tokens[seat], action, view.move_number)
        assert caught.value.code() == Code.ABORTED
        after = observe(on_a, created.match_id, seat, tokens[seat])
        assert after.move_number == moved.view.move_number == view.move_number + 1
