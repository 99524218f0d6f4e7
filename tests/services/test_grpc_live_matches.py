"""GameService.ListMatches lists the matches in play, newest first, in pages, as anyone may see them: no hand, no seat
token, no seed; a match leaves the list when it is over or abandoned (its keys expired). Real server, real Redis,
under a key namespace of this module's own, so that only its matches are listed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import grpc
import pytest
import redis
import redis.asyncio
from grpc_harness import ServerThread
from keyspace import NAMESPACE
from matchplay import PERSON, act, bot, create, observe, play_to_end

from replay.clients import async_client, sync_client
from replay.namespace import KEY_PREFIX_ENV
from services.generated.cardtable.v1 import common_pb2, game_service_pb2, game_service_pb2_grpc
from services.match_store import KEY_PREFIX, MatchStore, Retention
from services.server import ServerConfig

pytestmark = pytest.mark.cluster_too

ABANDONED_S = 2.0
SEED = 987654321987654321  # long enough that its digits cannot turn up by chance


@pytest.fixture(scope="module")
def namespace() -> Iterator[str]:
    """This module's key namespace (inside the run's, so the run's wipe removes it)."""
    prefix = f"{NAMESPACE}live-list-{time.monotonic_ns()}:"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_PREFIX_ENV, prefix)
        yield prefix


@pytest.fixture(scope="module")
def stub(namespace, grpc_redis_url) -> Iterator[game_service_pb2_grpc.GameServiceStub]:
    config = ServerConfig(port=0, redis_url=grpc_redis_url, retention=Retention(abandoned_after=ABANDONED_S * 30))
    with ServerThread(config) as server, grpc.insecure_channel(server.target) as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


@pytest.fixture(scope="module")
def client(grpc_redis_url) -> Iterator[redis.Redis]:
    with sync_client(grpc_redis_url, decode_responses=True) as connection:
        yield connection


def listed(stub, page_size: int = 0) -> list[game_service_pb2.MatchSummary]:
    """Every match the list gives, page after page; checks each page's size."""
    out, token = [], ""
    while True:
        page = stub.ListMatches(game_service_pb2.ListMatchesRequest(page_size=page_size, page_token=token))
        assert len(page.matches) <= (page_size or 20)
        out += page.matches
        token = page.next_page_token
        if not token:
            return out
        assert len(page.matches) == page_size or page_size == 0


def new_match(stub, game_id: str = "tablanette", seats=None):
    return create(stub, seats or [PERSON, bot("greedy")], game_id=game_id, seed=SEED, options={})


def test_pages_walk_every_match_in_play_newest_first_once(stub):
    before = [m.match_id for m in listed(stub)]
    made = [new_match(stub)[0].match_id for _ in range(5)]
    walked = [m.match_id for m in listed(stub, page_size=2)]
    assert walked[:5] == made[::-1] and walked[5:] == before
    assert len(set(walked)) == len(walked)
    first = stub.ListMatches(game_service_pb2.ListMatchesRequest(page_size=2))
    assert [m.match_id for m in first.matches] == made[:-3:-1] and first.next_page_token
    again = stub.ListMatches(game_service_pb2.ListMatchesRequest(page_size=2, page_token=first.next_page_token))
    assert [m.match_id for m in again.matches] == made[-3:-5:-1]


def test_a_summary_is_the_public_view_only(stub):
    created, tokens = new_match(stub, "belote_contree", [PERSON, bot("greedy"), PERSON, bot("random")])
    (summary,) = [m for m in listed(stub) if m.match_id == created.match_id]
    assert summary.game_id == "belote_contree"
    assert [(s.kind, s.policy) for s in summary.seats] == [
        (game_service_pb2.SEAT_KIND_PERSON, ""), (game_service_pb2.SEAT_KIND_BOT, "greedy"),
        (game_service_pb2.SEAT_KIND_PERSON, ""), (game_service_pb2.SEAT_KIND_BOT, "random")]
    view = summary.view
    assert view.perspective == common_pb2.PERSPECTIVE_PUBLIC and not view.legal_actions and not view.game_over
    assert view.move_number == len(created.moves) and view.current_player in (0, 2)
    shown = json.loads(view.json)
    assert not {"hand", "hands", "history", "legal_actions", "seed"} & set(shown)
    wire = summary.SerializeToString()
    assert all(token.encode() not in wire for token in tokens.values()) and str(SEED).encode() not in wire
    hidden = {card for seat, token in tokens.items() for card in json.loads(observe(stub, created.match_id, seat,
                                                                                      token).json)["hand"]}
    assert hidden and not hidden & set(_strings(shown))


def _strings(value) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_a_finished_match_leaves_the_list_and_a_bots_only_one_never_joins(stub):
    created, tokens = new_match(stub)
    assert created.match_id in {m.match_id for m in listed(stub)}
    play_to_end(stub, created.match_id, tokens)
    bots_only, _ = create(stub, [bot(), bot()], seed=SEED, options={})
    assert bots_only.view.game_over
    ids = {m.match_id for m in listed(stub)}
    assert created.match_id not in ids and bots_only.match_id not in ids


def test_an_index_entry_whose_match_is_gone_or_over_is_dropped_when_listed(stub, client, namespace):
    """Two processes' moves can cross (a move's deadline update after the final move's removal): the list checks each
    match's record, and the index heals."""
    created, tokens = new_match(stub)
    play_to_end(stub, created.match_id, tokens)
    order = f"{namespace}{KEY_PREFIX}{{live}}:order"
    client.zadd(order, {created.match_id: 10**9, "0123456789abcdef": 10**9 + 1})  # over, and never was
    assert not {created.match_id, "0123456789abcdef"} & {m.match_id for m in listed(stub, page_size=1)}
    assert client.zscore(order, created.match_id) is None and client.zscore(order, "0123456789abcdef") is None


def test_an_abandoned_match_leaves_the_list_and_one_still_moving_stays(namespace, grpc_redis_url, client):
    config = ServerConfig(port=0, redis_url=grpc_redis_url, retention=Retention(abandoned_after=ABANDONED_S))
    with ServerThread(config) as server, grpc.insecure_channel(server.target) as channel:
        short = game_service_pb2_grpc.GameServiceStub(channel)
        idle, _ = new_match(short)
        moving, tokens = new_match(short)
        view = observe(short, moving.match_id, 0, tokens[0])
        assert {idle.match_id, moving.match_id} <= {m.match_id for m in listed(short)}
        deadline = time.monotonic() + ABANDONED_S + 10
        while idle.match_id in (ids := {m.match_id for m in listed(short)}):
            assert time.monotonic() < deadline, "an abandoned match is still listed"
            assert moving.match_id in ids  # past its first deadline, but it moved since
            view = act(short, moving.match_id, 0, tokens[0], view.legal_actions[0], view.move_number).view
            time.sleep(0.2)
        assert moving.match_id in {m.match_id for m in listed(short)}
        until = f"{namespace}{KEY_PREFIX}{{live}}:until"
        assert client.zscore(until, idle.match_id) is None and client.zscore(until, moving.match_id) is not None
        assert not client.exists(f"{namespace}{KEY_PREFIX}{{{idle.match_id}}}")


@pytest.mark.parametrize("token", ["abc", "-1", "1" * 19])
def test_a_bad_page_token_is_invalid_argument(stub, token):
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListMatches(game_service_pb2.ListMatchesRequest(page_token=token))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "page_token" in refused.value.details()


def test_the_index_keys_share_one_cluster_slot(namespace, grpc_redis_url):
    """Each index script names several keys: in a Redis Cluster they must hash to one slot ({live})."""
    from redis.crc import key_slot

    store = MatchStore(async_client(grpc_redis_url))
    assert store._seq.endswith("{live}:seq") and len({key_slot(k.encode()) for k in (store._seq, store._order,
                                                                                       store._until)}) == 1


def test_the_list_needs_the_api_key_as_every_call_does(namespace, grpc_redis_url):
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, api_key="s3cret")) as server, \
            grpc.insecure_channel(server.target) as channel:
        guarded = game_service_pb2_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            guarded.ListMatches(game_service_pb2.ListMatchesRequest())
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert guarded.ListMatches(game_service_pb2.ListMatchesRequest(), metadata=(("x-api-key", "s3cret"),))
