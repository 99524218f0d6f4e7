"""The web API's 64-bit integers: seeds (and RNG states) are decimal strings, and no integer the API sends reaches
2**53, where a browser's JSON.parse would round it (issue 28: the page showed seed 3331525659724964719 as
3331525659724965000)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient
from web_harness import ANALYSIS_NODES, WebServer

import replay
from replay.store import ReplayStore
from services.web.app import create_app
from workers.jobstore import JobStore
from workers.spec import JobSpec, validate

BIG_SEED = 3331525659724964719  # above 2**53: a double cannot hold it
SAFE = 2**53


@pytest.fixture(scope="module")
def client(web_server: WebServer) -> Iterator[TestClient]:
    with TestClient(create_app(web_server.redis_url, analysis_nodes=ANALYSIS_NODES)) as test_client:
        yield test_client


def unsafe_integers(value: Any, path: str = "$") -> Iterator[str]:
    """The paths of the JSON value's integers that a double cannot hold exactly (|n| >= 2**53)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from unsafe_integers(item, f"{path}.{key}")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from unsafe_integers(item, f"{path}[{number}]")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= SAFE:
        yield f"{path} = {value}"


def fields_named(value: Any, name: str) -> Iterator[Any]:
    """Every value of a field called ``name``, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == name:
                yield item
            yield from fields_named(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from fields_named(item, name)


def checked(response: Any) -> Any:
    """The response's JSON, after checking that every integer in it is safe and every seed a string."""
    assert response.status_code == 200, response.text
    answer = json.loads(response.text)  # Python's JSON keeps big integers exact: the walk sees what was sent
    assert list(unsafe_integers(answer)) == []
    assert all(isinstance(seed, str) and seed.isdigit() for seed in fields_named(answer, "seed"))
    return answer


@pytest.fixture(scope="module")
def big_replays(web_server: WebServer) -> Iterator[list[str]]:
    """A deal and a match whose seed is above 2**53, and a later deal of a match (its header holds a 64-bit RNG
    state), stored in a collection of their own."""
    data = [replay.record_deal("belote", seed=BIG_SEED),
            replay.record_match("tablic", seed=BIG_SEED, policies=["greedy", "greedy"]),
            replay.record_match_deals("tablanette", seed=BIG_SEED)[1]]
    with redis.Redis.from_url(web_server.redis_url) as raw:
        store = ReplayStore(raw)
        collection = f"{web_server.collection}-big"
        ids = [f"{collection}/{index}" for index in store.add(collection, data)]
        yield ids
        store.delete_collection(collection)


def test_the_replay_endpoints_send_64_bit_numbers_as_strings(client: TestClient, big_replays: list[str]) -> None:
    collection = big_replays[0].split("/")[0]
    listed = checked(client.get(f"/api/replays?collection={collection}"))["replays"]
    assert [r["seed"] for r in listed] == [str(BIG_SEED)] * 3
    for replay_id in big_replays:
        for query in ("perspective=full", "perspective=seat&seat=1"):
            shown = checked(client.get(f"/api/replays/{replay_id}?{query}"))
            assert shown["replay"]["seed"] == shown["replay"]["header"]["seed"] == str(BIG_SEED)
    later = checked(client.get(f"/api/replays/{big_replays[2]}"))["replay"]["header"]
    assert isinstance(later["rng"], str) and int(later["rng"]) > 0


def test_the_job_endpoints_send_64_bit_numbers_as_strings(client: TestClient, web_server: WebServer) -> None:
    with redis.Redis.from_url(web_server.redis_url) as raw:
        record = JobStore(raw).create(validate(JobSpec("tablic", ("greedy", "random"), 40, seed=BIG_SEED)))
    job = checked(client.get(f"/api/jobs/{record.job_id}"))
    assert job["spec"]["seed"] == str(BIG_SEED)
    listed = checked(client.get("/api/jobs?page_size=100"))["jobs"]
    assert next(j for j in listed if j["job_id"] == record.job_id)["spec"]["seed"] == str(BIG_SEED)
    with client.stream("GET", "/api/events/jobs") as events:
        lines = events.iter_lines()
        assert next(lines) == "event: jobs"
        page = json.loads(next(lines).removeprefix("data: "))
    assert list(unsafe_integers(page)) == []
    assert all(isinstance(seed, str) for seed in fields_named(page, "seed"))


def test_a_match_takes_a_64_bit_seed_as_a_string_and_answers_with_safe_numbers(client: TestClient) -> None:
    created = checked(client.post("/api/matches", json={"game": "belote", "seed": str(BIG_SEED)}))
    as_number = checked(client.post("/api/matches", json={"game": "belote", "seed": BIG_SEED}))
    # the same seed either way: the same deal
    assert created["view"]["observation"]["hand"] == as_number["view"]["observation"]["hand"]
    view = created["view"]
    headers = {"x-seat-token": created["token"]}
    checked(client.get(f"/api/matches/{view['match_id']}?seat=0", headers=headers))
    acted = checked(client.post(f"/api/matches/{view['match_id']}/act", headers=headers,
                                json={"seat": 0, "action": view["legal_actions"][0],
                                      "expected_move_number": view["move_number"]}))
    assert acted["view"]["move_number"] > view["move_number"]


@pytest.mark.parametrize("seed", ["-1", "12a", "", str(2**64), " 5"])
def test_a_bad_seed_string_is_refused(client: TestClient, seed: str) -> None:
    response = client.post("/api/matches", json={"game": "belote", "seed": seed})
    assert response.status_code == 400, response.text
    assert "seed is a whole number from 0 to 2**64 - 1" in response.json()["error"]["message"]


def test_a_stored_job_of_a_game_this_server_does_not_know_is_listed_under_its_id(client: TestClient,
                                                                                 web_server: WebServer) -> None:
    """game_name (what the page shows) falls back to the id: the list of jobs still answers."""
    with redis.Redis.from_url(web_server.redis_url) as raw:
        spec = JobSpec("no_such_game", ("random", "random"), 10, seed=BIG_SEED, players=2, chunk_size=5)
        record = JobStore(raw).create(spec)  # (not validated: no such game here)
    listed = checked(client.get("/api/jobs?page_size=100"))["jobs"]
    assert next(j for j in listed if j["job_id"] == record.job_id)["game_name"] == "no_such_game"
    assert checked(client.get(f"/api/jobs/{record.job_id}"))["game_name"] == "no_such_game"
