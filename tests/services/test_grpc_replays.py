"""ReplayService through generated stubs: a finished live match's replay, listing (a bad replay marked among the
others), streaming, export, bad ids."""

from __future__ import annotations

import json
import secrets

import grpc
import pytest
from forged import REASONS, store_one_bad_replay
from matchplay import PERSON, bot, create, play_to_end

import replay
from replay.clients import sync_client
from replay.store import ReplayStore
from services.generated.cardtable.v1 import common_pb2, game_service_pb2, replay_service_pb2, replay_service_pb2_grpc

pytestmark = pytest.mark.cluster_too

Code = grpc.StatusCode


@pytest.fixture(scope="module")
def replays(channel) -> replay_service_pb2_grpc.ReplayServiceStub:
    return replay_service_pb2_grpc.ReplayServiceStub(channel)


@pytest.fixture(scope="module")
def finished(games):
    """A finished one-deal match of a person against a greedy bot: (its moves, its final view, its replay id)."""
    created, tokens = create(games, [PERSON, bot("greedy")], seed=31)
    responses = play_to_end(games, created.match_id, tokens)
    moves = list(created.moves) + [m for r in responses for m in r.moves]
    assert responses[-1].replay_id.startswith("live/")
    return moves, responses[-1].view, responses[-1].replay_id


@pytest.fixture
def store(grpc_redis_url):
    return ReplayStore(sync_client(grpc_redis_url))


@pytest.fixture
def collection(store):
    """A collection of this test's own, deleted afterwards."""
    name = f"test-{secrets.token_hex(4)}"
    yield name
    store.delete_collection(name)


def test_a_finished_match_is_in_the_replay_store(replays, finished):
    moves, final, replay_id = finished
    got = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=replay_id))
    assert list(got.moves) == moves and list(got.scores) == list(final.scores)
    assert got.replay.game_id == "tablanette" and got.replay.scope == "match" and got.replay.seed == 31
    assert list(got.replay.policies) == ["human", "greedy"] and got.replay.move_count == len(moves)
    decoded = replay.decode(got.data)
    assert [a for _, a in decoded.moves] == [m.action for m in moves] and got.replay.size_bytes == len(got.data)


def test_streaming_a_replay_move_by_move_from_each_perspective(replays, finished):
    moves, final, replay_id = finished
    full = list(replays.StreamReplay(replay_service_pb2.StreamReplayRequest(replay_id=replay_id)))
    assert not full[0].HasField("move") and [s.move for s in full[1:]] == moves
    assert full[-1].view.game_over and list(full[-1].view.scores) == list(final.scores)
    start = json.loads(full[0].view.json)
    assert full[0].view.perspective == common_pb2.PERSPECTIVE_FULL and len(start["hands"]) == 2
    seat = list(replays.StreamReplay(replay_service_pb2.StreamReplayRequest(
        replay_id=replay_id, perspective=common_pb2.PERSPECTIVE_SEAT, seat=1)))
    assert all(json.loads(s.view.json)["seat"] == 1 for s in seat) and len(seat) == len(full)
    public = replays.StreamReplay(replay_service_pb2.StreamReplayRequest(
        replay_id=replay_id, perspective=common_pb2.PERSPECTIVE_PUBLIC))
    assert "hand" not in json.loads(next(public).view.json)
    bad_seat = replay_service_pb2.StreamReplayRequest(replay_id=replay_id, perspective=common_pb2.PERSPECTIVE_SEAT,
                                                      seat=2)
    with pytest.raises(grpc.RpcError) as caught:
        next(replays.StreamReplay(bad_seat))
    assert caught.value.code() == Code.INVALID_ARGUMENT


def test_a_paced_stream_waits_between_moves(replays, store, collection):
    replay_id = store.save(replay.record_deal("tablanette", seed=2, players=4), collection)
    request = replay_service_pb2.StreamReplayRequest(replay_id=replay_id, pace_ms=20)
    call = replays.StreamReplay(request, timeout=0.2)
    with pytest.raises(grpc.RpcError) as caught:
        list(call)  # a 4-player deal has 48 moves: about 1 s at 20 ms each
    assert caught.value.code() == Code.DEADLINE_EXCEEDED


def test_export_as_json_and_as_text(replays, finished):
    moves, _, replay_id = finished
    exported = replays.ExportReplay(replay_service_pb2.ExportReplayRequest(replay_id=replay_id))
    assert exported.content_type == "application/json" and exported.format == replay_service_pb2.EXPORT_FORMAT_JSON
    assert [a for _, a in json.loads(exported.content)["moves"]] == [m.action for m in moves]
    text = replays.ExportReplay(replay_service_pb2.ExportReplayRequest(
        replay_id=replay_id, format=replay_service_pb2.EXPORT_FORMAT_TEXT))
    assert text.content_type == "text/plain" and text.content.startswith('[Game "tablanette"]')


def test_listing_a_collection_page_by_page(replays, store, collection):
    ids = [store.save(replay.record_deal("tablic", seed=s), collection) for s in range(5)]
    seen, token = [], ""
    while True:
        page = replays.ListReplays(replay_service_pb2.ListReplaysRequest(collection=collection, page_size=2,
                                                                          page_token=token))
        assert len(page.replays) <= 2
        seen += page.replays
        token = page.next_page_token
        if not token:
            break
    assert [r.replay_id for r in seen] == ids
    assert [r.seed for r in seen] == list(range(5)) and all(r.game_id == "tablic" for r in seen)
    live = replays.ListReplays(replay_service_pb2.ListReplaysRequest(page_size=1))
    assert len(live.replays) == 1 and live.replays[0].replay_id.startswith("live/")


@pytest.mark.parametrize(("replay_id", "code"), [
    ("live/999999999", Code.NOT_FOUND),
    ("no-slash", Code.INVALID_ARGUMENT),
    ("", Code.INVALID_ARGUMENT),
    ("bad collection!/3", Code.INVALID_ARGUMENT),
])
def test_bad_replay_ids(replays, replay_id, code):
    for call in (lambda: replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=replay_id)),
                 lambda: next(replays.StreamReplay(replay_service_pb2.StreamReplayRequest(replay_id=replay_id))),
                 lambda: replays.ExportReplay(replay_service_pb2.ExportReplayRequest(replay_id=replay_id))):
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() == code


def test_bad_list_requests(replays):
    for request in [replay_service_pb2.ListReplaysRequest(collection="a b"),
                    replay_service_pb2.ListReplaysRequest(page_token="x")]:
        with pytest.raises(grpc.RpcError) as caught:
            replays.ListReplays(request)
        assert caught.value.code() == Code.INVALID_ARGUMENT


def test_a_corrupt_stored_replay_is_data_loss(replays, store, collection):
    replay_id = store.save(replay.record_deal("tablanette", seed=4), collection)
    data = bytearray(store.get(replay_id))
    data[len(data) // 2] ^= 0xFF
    store.redis.hset(store.bucket_key(collection, 0), 0, bytes(data))
    with pytest.raises(grpc.RpcError) as caught:
        replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=replay_id))
    assert caught.value.code() == Code.DATA_LOSS and replay_id.split("/")[0] in caught.value.details()


@pytest.mark.parametrize("kind", ["forged", "corrupt"])
def test_a_collection_holding_one_bad_replay_lists_the_others_and_marks_it(replays, store, collection, kind):
    stored = store_one_bad_replay(store, collection, kind)
    seen, token = [], ""
    while True:  # pages of 3: the bad replay is the first of the second page
        page = replays.ListReplays(replay_service_pb2.ListReplaysRequest(collection=collection, page_size=3,
                                                                          page_token=token), timeout=10)
        seen += page.replays
        token = page.next_page_token
        if not token:
            break
    assert [r.replay_id for r in seen] == stored.ids
    (bad,) = [r for r in seen if r.error]
    assert bad.replay_id == stored.bad_id and bad.error.startswith(REASONS[kind]) and "\n" not in bad.error
    assert (bad.size_bytes, bad.game_id, bad.move_count, bad.header_json) == (stored.bad_size, "", 0, "")
    for listed in seen:
        if listed.replay_id != stored.bad_id:
            data = stored.good[listed.replay_id]
            assert (listed.game_id, listed.size_bytes, listed.error) == ("tablic", len(data), "")
            assert (listed.seed, listed.move_count) == (replay.decode(data).header.seed, len(replay.decode(data).moves))

    request = replay_service_pb2.GetReplayRequest(replay_id=stored.bad_id)
    for call in (lambda: replays.GetReplay(request, timeout=10),
                 lambda: next(replays.StreamReplay(replay_service_pb2.StreamReplayRequest(replay_id=stored.bad_id),
                                                   timeout=10)),
                 lambda: replays.ExportReplay(replay_service_pb2.ExportReplayRequest(replay_id=stored.bad_id),
                                              timeout=10)):
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() == Code.DATA_LOSS
        details = caught.value.details()  # the store's words for bytes it cannot check, else the codec's
        assert details.startswith(f"replay {stored.bad_id} ") and REASONS[kind] in details
        assert "\n" not in details and "Traceback" not in details


def test_a_set_declared_by_its_size_shows_its_rank_only_to_its_declarer(games, replays):
    """Trappola 6.4: the other seat and the public see ``declare:three`` in moves, watches and seat replays."""
    options = {"allow_redeal": common_pb2.OptionValue(bool_value=False)}
    created = games.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="trappola", seats=[PERSON, PERSON], seed=3, first_dealer=1, options=options))
    tokens = {t.seat: t.token for t in created.seat_tokens}
    match_id = created.match_id
    watching = games.WatchGame(game_service_pb2.WatchGameRequest(
        match_id=match_id, perspective=common_pb2.PERSPECTIVE_SEAT, seat=1, seat_token=tokens[1]))
    next(watching)  # the snapshot
    answer = games.Act(game_service_pb2.ActRequest(match_id=match_id, seat=0, seat_token=tokens[0],
                                                   action="declare:three:K", expected_move_number=0))
    assert [m.action for m in answer.moves] == ["declare:three:K"]
    assert next(watching).move.action == "declare:three"
    view = games.GetObservation(game_service_pb2.GetObservationRequest(match_id=match_id, seat=1,
                                                                       seat_token=tokens[1])).view
    assert json.loads(view.json)["history"] == [[0, "declare:three"]]
    responses = play_to_end(games, match_id, tokens, choose=lambda legal: legal[0])
    replay_id = responses[-1].replay_id

    def streamed(perspective, seat=0):
        steps = replays.StreamReplay(replay_service_pb2.StreamReplayRequest(
            replay_id=replay_id, perspective=perspective, seat=seat))
        return [s.move.action for s in steps if s.HasField("move")][0]

    assert streamed(common_pb2.PERSPECTIVE_FULL) == streamed(common_pb2.PERSPECTIVE_SEAT, 0) == "declare:three:K"
    assert streamed(common_pb2.PERSPECTIVE_SEAT, 1) == streamed(common_pb2.PERSPECTIVE_PUBLIC) == "declare:three"


def test_analyze_values_each_card_as_the_cli_does(replays, store, collection):
    from replay.analysis import analyze
    data = replay.record_deal("german_whist", seed=3, policies=["greedy", "random"])
    replay_id = store.save(data, collection)
    got = replays.Analyze(replay_service_pb2.AnalyzeRequest(replay_id=replay_id, from_trick=21))
    report = analyze(data, from_trick=21)
    assert got.replay_id == replay_id and got.game_id == "german_whist" and got.unit == "tricks"
    assert got.exact_from_move == report["exact_from_move"] and list(got.turning_points) == report["turning_points"]
    last = got.moves[-1]
    assert last.status == replay_service_pb2.ANALYSIS_STATUS_EXACT and last.card == report["moves"][-1]["card"]
    assert {v.card: v.value for v in got.moves[-3].values} == report["moves"][-3]["values"]
    assert got.moves[0].status == replay_service_pb2.ANALYSIS_STATUS_BEFORE_FROM_TRICK


def test_analyze_refuses_what_it_cannot_analyse(replays, store, collection):
    fishing = store.save(replay.record_deal("tablanette", seed=4), collection)
    whist = store.save(replay.record_deal("german_whist", seed=4), collection)
    for request, code in [(replay_service_pb2.AnalyzeRequest(replay_id=fishing), Code.INVALID_ARGUMENT),
                          (replay_service_pb2.AnalyzeRequest(replay_id=whist, max_nodes=10**9), Code.INVALID_ARGUMENT),
                          (replay_service_pb2.AnalyzeRequest(replay_id="live/999999999"), Code.NOT_FOUND)]:
        with pytest.raises(grpc.RpcError) as caught:
            replays.Analyze(request)
        assert caught.value.code() == code


def test_a_boonaken_discard_shows_its_cards_only_to_its_declarer(games, replays):
    """Boonaken 6.1: the declarer discards face down; the other seats and the public see ``discard`` in moves,
    watches and seat replays."""
    options = {"max_deals": common_pb2.OptionValue(int_value=1)}
    created = games.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="boonaken", seats=[PERSON] * 4, seed=5, first_dealer=3, options=options))
    tokens = {t.seat: t.token for t in created.seat_tokens}
    match_id = created.match_id
    watching = games.WatchGame(game_service_pb2.WatchGameRequest(
        match_id=match_id, perspective=common_pb2.PERSPECTIVE_SEAT, seat=1, seat_token=tokens[1]))
    next(watching)  # the snapshot
    for number, (seat, action) in enumerate([(0, "bid:70"), (1, "pass"), (2, "pass"), (3, "pass")]):
        games.Act(game_service_pb2.ActRequest(match_id=match_id, seat=seat, seat_token=tokens[seat], action=action,
                                              expected_move_number=number))
        next(watching)
    view = games.GetObservation(game_service_pb2.GetObservationRequest(match_id=match_id, seat=0,
                                                                       seat_token=tokens[0])).view
    discard = list(view.legal_actions)[0]
    answer = games.Act(game_service_pb2.ActRequest(match_id=match_id, seat=0, seat_token=tokens[0], action=discard,
                                                   expected_move_number=4))
    assert [m.action for m in answer.moves] == [discard]
    assert next(watching).move.action == "discard"
    view = games.GetObservation(game_service_pb2.GetObservationRequest(match_id=match_id, seat=1,
                                                                       seat_token=tokens[1])).view
    assert json.loads(view.json)["history"][-1] == [0, "discard"]
    responses = play_to_end(games, match_id, tokens, choose=lambda legal: legal[0])
    replay_id = responses[-1].replay_id

    def streamed(perspective, seat=0):
        steps = replays.StreamReplay(replay_service_pb2.StreamReplayRequest(
            replay_id=replay_id, perspective=perspective, seat=seat))
        return [s.move.action for s in steps if s.HasField("move")][4]

    assert streamed(common_pb2.PERSPECTIVE_FULL) == streamed(common_pb2.PERSPECTIVE_SEAT, 0) == discard
    assert streamed(common_pb2.PERSPECTIVE_SEAT, 1) == streamed(common_pb2.PERSPECTIVE_PUBLIC) == "discard"
