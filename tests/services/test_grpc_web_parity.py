"""The web API refuses what the gRPC API refuses, with the same message and the HTTP status of the same code: both
run the same code (services/app/live_matches.py, services/app/replays.py), and this holds them to it on one match;
and the web answers with the messages gRPC answers with, mapped (services/web/mapping.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from matchplay import PERSON, act, bot, create, observe
from starlette.testclient import TestClient

from services.generated.cardtable.v1 import game_service_pb2, replay_service_pb2, replay_service_pb2_grpc
from services.web.app import HTTP_STATUS, create_app


@pytest.fixture(scope="module")
def web(grpc_redis_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(grpc_redis_url)) as client:
        yield client


@pytest.fixture(scope="module")
def replays(channel: grpc.Channel) -> replay_service_pb2_grpc.ReplayServiceStub:
    return replay_service_pb2_grpc.ReplayServiceStub(channel)


def grpc_refusal(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return refused.value.code(), refused.value.details()


def same_refusal(rpc: Callable[[], Any], response: Any) -> None:
    code, message = grpc_refusal(rpc)
    assert response.status_code == HTTP_STATUS[code.name], response.text
    assert response.json()["error"] == {"code": code.name, "message": message}


def test_moves_are_refused_alike(games: Any, web: TestClient) -> None:
    created, tokens = create(games, [PERSON, bot("greedy"), bot("greedy"), bot("greedy")], game_id="belote_contree",
                             seed=5, options={})
    match_id, token = created.match_id, tokens[0]
    view = observe(games, match_id, 0, token)
    number = view.move_number

    def web_act(action: str, expected: int = number, seat: int = 0, with_token: str = token) -> Any:
        return web.post(f"/api/matches/{match_id}/act", headers={"x-seat-token": with_token},
                        json={"seat": seat, "action": action, "expected_move_number": expected})

    assert view.phase == "auction"
    card = json.loads(view.json)["hand"][0]
    for action in (card, "ZZ", "bid:999:C"):  # a card in the auction, no action at all, a bid out of range
        same_refusal(lambda a=action: act(games, match_id, 0, token, a, number), web_act(action))
    same_refusal(lambda: act(games, match_id, 0, token, "pass", number + 4), web_act("pass", expected=number + 4))
    same_refusal(lambda: act(games, match_id, 0, "wrong", "pass", number), web_act("pass", with_token="wrong"))
    same_refusal(lambda: act(games, match_id, 1, token, "pass", number), web_act("pass", seat=1))
    same_refusal(lambda: act(games, match_id, 5, token, "pass", number), web_act("pass", seat=5))
    same_refusal(lambda: act(games, "nosuchmatch", 0, token, "pass", 0),
                 web.post("/api/matches/nosuchmatch/act", headers={"x-seat-token": token},
                          json={"seat": 0, "action": "pass", "expected_move_number": 0}))
    assert observe(games, match_id, 0, token) == view  # nothing changed


@pytest.mark.parametrize(("game", "options", "policy"), [
    ("chess", {}, "greedy"),
    ("tablanette", {"colour": 1}, "greedy"),
    ("tablanette", {"target": -5}, "greedy"),
    ("tablanette", {}, "genius"),
])
def test_new_matches_are_refused_alike(games: Any, web: TestClient, game: str, options: dict[str, Any],
                                       policy: str) -> None:
    from services.app.convert import option_value

    request = game_service_pb2.CreateGameRequest(game_id=game, seats=[PERSON, bot(policy)], seed=1,
                                                 options={k: option_value(v) for k, v in options.items()})
    code, message = grpc_refusal(lambda: games.CreateGame(request))
    response = web.post("/api/matches", json={"game": game, "options": options, "policy": policy, "seed": 1})
    assert response.status_code == HTTP_STATUS[code.name]
    error = response.json()["error"]
    assert error["code"] == code.name
    # a bot's seat is numbered in a gRPC request (its SeatSpec), not in the web's (one policy for every bot)
    assert error["message"] == message.removeprefix("seat 1: ")


@pytest.mark.parametrize("replay_id", ["nocollection", "bad name/0", "parity-none/0"])
def test_replays_are_refused_alike(replays: Any, web: TestClient, replay_id: str) -> None:
    same_refusal(lambda: replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=replay_id)),
                 web.get(f"/api/replays/{replay_id}"))


@pytest.mark.parametrize(("collection", "token"), [("a b", ""), ("live", "x"), ("live", "²")])
def test_replay_pages_are_refused_alike(replays: Any, web: TestClient, collection: str, token: str) -> None:
    same_refusal(lambda: replays.ListReplays(replay_service_pb2.ListReplaysRequest(collection=collection,
                                                                                   page_token=token)),
                 web.get("/api/replays", params={"collection": collection, "page_token": token}))


def _web_fields(message: Any, fields: tuple) -> dict[str, Any]:
    """The web's JSON of ``message`` under the fields of ``fields`` taken from the message (not the Kept ones)."""
    from services.web.mapping import Field, mapped
    from services.web.wire import dumps

    return json.loads(dumps(mapped(message, [f for f in fields if isinstance(f, Field)])))


def test_the_web_answers_with_the_games_grpc_answers_with(games: Any, web: TestClient) -> None:
    from services.web.mapping import GAME, GAME_INFO

    listed = games.ListGames(game_service_pb2.ListGamesRequest(page_size=1000))
    assert web.get("/api/games").json() == [_web_fields(g, GAME) for g in listed.games]
    info = games.GetGameInfo(game_service_pb2.GetGameInfoRequest(game_id="tablanette", players=3))
    assert web.get("/api/games/tablanette?players=3").json() == _web_fields(info, GAME_INFO)


def test_the_web_lists_the_matches_grpc_lists(games: Any, web: TestClient) -> None:
    from services.web.mapping import MATCH_VIEW

    created, _ = create(games, [PERSON, bot("greedy")], game_id="german_whist", seed=11)
    summary = next(m for m in games.ListMatches(game_service_pb2.ListMatchesRequest(page_size=100)).matches
                   if m.match_id == created.match_id)
    shown = next(m for m in web.get("/api/matches?page_size=100").json()["matches"]
                 if m["match_id"] == created.match_id)
    expected = _web_fields(summary, MATCH_VIEW)
    assert {name: shown[name] for name in expected} == expected


def test_the_web_shows_the_job_grpc_shows(channel: grpc.Channel, web: TestClient, grpc_redis_url: str) -> None:
    import time

    import redis

    from services.generated.cardtable.v1 import simulation_service_pb2, simulation_service_pb2_grpc
    from services.web.mapping import JOB, JOB_RESULTS
    from workers.chunk import play_chunk
    from workers.jobstore import SUCCEEDED, JobStore
    from workers.plan import job_chunks
    from workers.spec import JobSpec, validate
    from workers.stats import side_seats, summarize, total

    spec = validate(JobSpec("tablic", ("greedy:epsilon=0.25", "random"), 4, seed=3, chunk_size=4))
    results = summarize(spec, total([play_chunk(spec, c) for c in job_chunks(spec)], len(side_seats(spec))), 1.0)
    with redis.Redis.from_url(grpc_redis_url) as raw:  # played here and stored as over: no server adopts it
        store = JobStore(raw)
        record = store.create(spec)
        store.set_state(record.job_id, SUCCEEDED, finished=time.time(), results=results)
    jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    job = jobs.GetJob(simulation_service_pb2.GetJobRequest(job_id=record.job_id)).job
    shown = web.get(f"/api/jobs/{record.job_id}").json()
    expected = _web_fields(job, (*JOB, *JOB_RESULTS))
    assert expected["results"]["units"] == 4 and expected["counters"]
    assert {name: shown[name] for name in expected} == expected
    assert shown["spec"]["policies"] == ["greedy:epsilon=0.25", "random"]
