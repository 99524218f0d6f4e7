"""Matches do not stay in Redis forever: a finished one expires after the retention time (its replay stays in the
replay store), one in play after the idle time with no move; real Redis TTLs, made short."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
import redis
import redis.asyncio
from grpc_harness import ServerProcess, ServerThread
from matchplay import PERSON, act, bot, create, observe, play_to_end
from waiting import wait_until

from replay.clients import async_client, sync_client
from replay.namespace import namespaced
from services.generated.cardtable.v1 import game_service_pb2_grpc, replay_service_pb2, replay_service_pb2_grpc
from services.match_store import KEY_PREFIX, MatchStore, Retention
from services.server import ServerConfig

FINISHED_S, ABANDONED_S = 1.5, 3.0


@pytest.fixture(scope="module")
def server(grpc_redis_url):
    config = ServerConfig(port=0, redis_url=grpc_redis_url, retention=Retention(FINISHED_S, ABANDONED_S))
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def client(grpc_redis_url):
    with sync_client(grpc_redis_url, decode_responses=True) as connection:
        yield connection


def _ttls_ms(client: redis.Redis, prefix: str, match_id: str) -> list[int]:
    record = f"{prefix}{{{match_id}}}"
    return [client.pttl(key) for key in (record, f"{record}:log", f"{record}:moves")]


def _expiring(ttls: list[int], low_s: float, high_s: float) -> bool:
    """The match's record expires between ``low_s`` and ``high_s`` from now, and so do its log and moves where they
    exist (-2: no key, before the first move)."""
    return low_s * 1000 < ttls[0] <= high_s * 1000 and all(t == -2 or low_s * 1000 < t <= high_s * 1000
                                                           for t in ttls[1:])


def _gone(call, within_s: float) -> grpc.StatusCode:
    deadline = time.monotonic() + within_s
    while True:
        try:
            call()
        except grpc.RpcError as exc:
            return exc.code()
        if time.monotonic() > deadline:
            return grpc.StatusCode.OK
        time.sleep(0.1)


def test_by_default_finished_matches_stay_a_week_and_abandoned_ones_six_hours():
    assert (ServerConfig().retention.finished, ServerConfig().retention.abandoned_after) == (7 * 86_400, 6 * 3600)


@pytest.mark.cluster_too
def test_a_finished_match_expires_and_its_replay_stays(server, client):
    prefix = server.server.backends.matches.prefix
    with grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        created, tokens = create(games, [PERSON, bot("greedy")], seed=41)
        assert _expiring(_ttls_ms(client, prefix, created.match_id), 0, ABANDONED_S)
        final = play_to_end(games, created.match_id, tokens)[-1]
        assert final.view.game_over and final.replay_id
        assert _expiring(_ttls_ms(client, prefix, created.match_id), 0, FINISHED_S)
        code = _gone(lambda: observe(games, created.match_id, 0, tokens[0]), within_s=FINISHED_S + 2)
        assert code == grpc.StatusCode.NOT_FOUND
        assert _ttls_ms(client, prefix, created.match_id) == [-2, -2, -2]  # no key left
        replays = replay_service_pb2_grpc.ReplayServiceStub(channel)
        kept = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=final.replay_id))
        assert kept.replay.seed == 41 and len(kept.moves) == final.view.move_number


@pytest.mark.cluster_too
def test_the_replay_id_of_a_match_that_expired_meanwhile_stores_nothing(grpc_redis_url, client):
    """A finished match's replay is built off the event loop; if the match expired by then (a short retention), noting
    its replay id must not bring it back as a record that never expires."""
    async def note_replay_of_expired_match() -> None:
        async with async_client(grpc_redis_url, decode_responses=True) as connection:
            await MatchStore(connection).set_replay_id("expired0match", "live/1")

    asyncio.run(note_replay_of_expired_match())
    assert _ttls_ms(client, namespaced(KEY_PREFIX), "expired0match") == [-2, -2, -2]


@pytest.mark.cluster_too
def test_a_match_nobody_moves_in_expires_and_each_move_renews_it(server, client):
    prefix = server.server.backends.matches.prefix
    with grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        moving, moving_tokens = create(games, [PERSON, PERSON], seed=42)
        idle, idle_tokens = create(games, [PERSON, PERSON], seed=43)
        # half its idle time gone, so that the move's renewal shows in the TTL
        wait_until(lambda: 0 < _ttls_ms(client, prefix, moving.match_id)[0] <= ABANDONED_S * 1000 / 2, ABANDONED_S,
                   "the match's TTL did not run down")
        seat = observe(games, moving.match_id, 0, moving_tokens[0]).current_player
        view = observe(games, moving.match_id, seat, moving_tokens[seat])
        act(games, moving.match_id, seat, moving_tokens[seat], view.legal_actions[0], view.move_number)
        # renewed: above the half it had run down to (not a timing bound: any pause before this read keeps it true
        # for ABANDONED_S / 2 seconds)
        assert _expiring(_ttls_ms(client, prefix, moving.match_id), ABANDONED_S / 2, ABANDONED_S)
        code = _gone(lambda: observe(games, idle.match_id, 0, idle_tokens[0]), within_s=ABANDONED_S)
        assert code == grpc.StatusCode.NOT_FOUND
        assert observe(games, moving.match_id, 0, moving_tokens[0]).move_number == 1  # moved: still there


@pytest.mark.parametrize(("args", "env", "finished_s", "abandoned_s"), [
    (["--retention", "90s", "--abandon-after", "2h"], {}, 90, 7200),
    ([], {"CARDTABLE_RETENTION": "1d", "CARDTABLE_ABANDON_AFTER": "600"}, 86_400, 600),
    ([], {"CARDTABLE_RETENTION": None, "CARDTABLE_ABANDON_AFTER": None}, 7 * 86_400, 6 * 3600),  # the defaults
])
def test_cardtable_serve_sets_the_retention(grpc_redis_url, client, args, env, finished_s, abandoned_s):
    prefix = namespaced(KEY_PREFIX)  # the server's, in the namespace it inherits
    with ServerProcess("--redis-url", grpc_redis_url, "--grace", "0.2", *args, env=env) as server, \
            grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        created, tokens = create(games, [PERSON, bot("random")], seed=44)
        assert _expiring(_ttls_ms(client, prefix, created.match_id), abandoned_s - 60, abandoned_s)
        play_to_end(games, created.match_id, tokens)
        assert _expiring(_ttls_ms(client, prefix, created.match_id), finished_s - 60, finished_s)
        client.delete(*(f"{prefix}{{{created.match_id}}}{tail}" for tail in ("", ":log", ":moves")))
