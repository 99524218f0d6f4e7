"""The web app's HTTP/JSON API: the same answers and the same refusals as the gRPC API (a clear message, the HTTP
status of the gRPC code, nothing changed), the API key, the page's assets, and the live job events."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
from forged import REASONS, BadCollection, store_one_bad_replay
from starlette.testclient import TestClient
from web_harness import ANALYSIS_NODES, WebServer, serve_in_thread

import engine
import replay
from engine.budget import Cancel
from engine.trickgame import TrickGame
from replay.analysis import analyze
from replay.store import ReplayStore
from services.web.app import HTTP_STATUS, create_app
from services.web.frames import replay_frames
from workers.jobstore import JobStore
from workers.spec import JobSpec, validate

STATUS = dict(HTTP_STATUS)


@pytest.fixture(scope="module")
def client(web_server: WebServer) -> Iterator[TestClient]:
    with TestClient(create_app(web_server.redis_url, analysis_nodes=ANALYSIS_NODES)) as test_client:
        yield test_client


def refused(response: Any, code: str, *fragments: str) -> str:
    """Check that ``response`` refuses with gRPC code ``code`` (its HTTP status) and a message holding
    ``fragments``; returns the message."""
    assert response.status_code == STATUS[code], response.text
    error = response.json()["error"]
    assert error["code"] == code
    for fragment in fragments:
        assert fragment in error["message"]
    return error["message"]


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def new_match(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/matches", json={"game": "german_whist", "seed": 5, **body})
    assert response.status_code == 200, response.text
    return response.json()


def act(client: TestClient, created: dict[str, Any], action: str, move: int | None = None,
        token: str | None = None) -> Any:
    view = created["view"]
    return client.post(f"/api/matches/{view['match_id']}/act",
                       headers={"x-seat-token": created["token"] if token is None else token},
                       json={"seat": view["seat"], "action": action,
                             "expected_move_number": view["move_number"] if move is None else move})


def observe(client: TestClient, created: dict[str, Any]) -> dict[str, Any]:
    view = created["view"]
    response = client.get(f"/api/matches/{view['match_id']}?seat={view['seat']}",
                          headers={"x-seat-token": created["token"]})
    assert response.status_code == 200, response.text
    return response.json()["view"]


# ---- the page -----------------------------------------------------------------------------------------------------

def test_the_page_and_its_assets_come_from_cardtable(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("/static/app.js", "/static/cards.js", "/static/style.css"):
        assert asset in page.text
        assert client.get(asset).status_code == 200
    for text in (page.text, client.get("/static/app.js").text, client.get("/static/style.css").text):
        assert "http://" not in text and "https://" not in text  # no CDN, no font or script from elsewhere


# ---- games and live matches ---------------------------------------------------------------------------------------

def test_games_and_their_options(client: TestClient) -> None:
    games = client.get("/api/games").json()
    assert [g["id"] for g in games] == engine.list_games()
    info = client.get("/api/games/tablanette?players=4").json()
    assert info["players"] == 4
    assert {o["name"] for o in info["options"]} == {o.name for o in engine.game_info("tablanette").all_options()}
    refused(client.get("/api/games/chess"), "INVALID_ARGUMENT", "unknown game 'chess'", "tablanette")
    refused(client.get("/api/games/belote_contree?players=3"), "INVALID_ARGUMENT", "is played by 4 players, not 3")
    refused(client.get("/api/games/tablanette?players=two"), "INVALID_ARGUMENT", "players is a whole number")


def test_a_match_is_played_as_over_grpc(client: TestClient) -> None:
    created = new_match(client, seat=1, policy="random")
    view = created["view"]
    assert view["seat"] == 1 and view["current_player"] == 1 and view["legal_actions"]
    assert [s["kind"] for s in view["seats"]] == ["bot", "person"]
    # the bots' opening moves are those the engine plays with the same seed
    legal = view["legal_actions"]
    acted = act(client, created, legal[0])
    assert acted.status_code == 200, acted.text
    moves = acted.json()["moves"]
    assert moves[0] == {"number": view["move_number"] + 1, "seat": 1, "action": legal[0], "deal_index": 0}
    after = acted.json()["view"]
    assert after["move_number"] == view["move_number"] + len(moves)
    assert observe(client, created)["observation"]["hand"] == after["observation"]["hand"]


def test_a_whole_match_ends_in_a_replay(client: TestClient, web_server: WebServer) -> None:
    created = new_match(client, game="belote_contree", options={"num_deals": 1}, seed=8)
    for _ in range(200):
        view = created["view"]
        if view["game_over"]:
            break
        response = act(client, created, view["legal_actions"][0])
        assert response.status_code == 200, response.text
        created = {**created, "view": response.json()["view"]}
        ended = response.json()["deal_results"]
        assert ended == [] or created["view"]["game_over"]  # one deal: only the last move ends one
    view = observe(client, created)
    assert view["game_over"] and view["replay_id"].startswith("live/")
    with redis.Redis.from_url(web_server.redis_url) as raw:
        finished = replay.decode(ReplayStore(raw).get(view["replay_id"]))
    assert finished.scores == view["scores"]
    assert ended == finished.deal_results  # the last move's answer says how the deal ended


@pytest.mark.parametrize(("game", "players"), [(game, players) for game in engine.list_games()
                                                for players in engine.game_info(game).player_counts])
def test_every_game_and_player_count_is_played_live(client: TestClient, game: str, players: int) -> None:
    created = new_match(client, game=game, players=players, seat=players - 1, seed=3)
    view = created["view"]
    assert view["players"] == players and view["seat"] == players - 1 and not view["game_over"]
    assert view["current_player"] == players - 1  # the bots have played up to the person's turn
    acted = act(client, created, view["legal_actions"][-1])
    assert acted.status_code == 200, acted.text
    assert acted.json()["moves"][0]["seat"] == players - 1


def test_an_illegal_move_is_refused_with_the_engines_message_and_changes_nothing(client: TestClient) -> None:
    created = new_match(client, game="belote_contree", seed=3)
    before = observe(client, created)
    state = engine.new_match("belote_contree", seed=3)
    card = before["observation"]["hand"][0]  # the first move is a bid: no card is legal
    message = refused(act(client, created, card), "INVALID_ARGUMENT", f"illegal action '{card}'", "pass")
    assert message.startswith("illegal action")
    assert state.legal_actions()  # the engine's own listing is what the message names
    assert observe(client, created) == before


@pytest.mark.parametrize(("body", "code", "fragment"), [
    ({"game": "chess"}, "INVALID_ARGUMENT", "unknown game 'chess'"),
    ({"game": "belote_contree", "players": 3}, "INVALID_ARGUMENT", "is played by 4 players, not 3"),
    ({"game": "tablanette", "seat": 2}, "INVALID_ARGUMENT", "seat 2 does not exist"),
    ({"game": "tablanette", "policy": "genius"}, "INVALID_ARGUMENT", "unknown policy 'genius'"),
    ({"game": "tablanette", "policy": "pimc:samples=10000:rollouts=1000:dd_cards=52"}, "INVALID_ARGUMENT",
     "more than 1,000,000, 10 times this server's bot budget of 100,000 (--bot-budget); lower samples"),
    ({"game": "tablanette", "options": {"colour": 1}}, "INVALID_ARGUMENT", "unknown option 'colour'"),
    ({"game": "tablanette", "options": {"target": -5}}, "INVALID_ARGUMENT", "target"),
    ({"game": "tablanette", "options": {"target": [1]}}, "INVALID_ARGUMENT", "option 'target' is a number"),
    ({"game": "tablanette", "seed": -1}, "INVALID_ARGUMENT", "seed is a whole number"),
    ({"game": "tablanette", "seed": True}, "INVALID_ARGUMENT", "field 'seed' is int"),
    ({"game": "tablanette", "players": "2"}, "INVALID_ARGUMENT", "field 'players' is int"),
    ({"game": "tablanette", "colour": "red"}, "INVALID_ARGUMENT", "unknown field 'colour'"),
    ({"game": "x" * 300}, "INVALID_ARGUMENT", "at most 256"),
])
def test_a_bad_new_match_is_refused(client: TestClient, body: dict[str, Any], code: str, fragment: str) -> None:
    refused(client.post("/api/matches", json=body), code, fragment)


def test_a_body_that_is_no_json_object_is_refused(client: TestClient) -> None:
    refused(client.post("/api/matches", content=b"game=tablanette",
                        headers={"content-type": "application/x-www-form-urlencoded"}), "INVALID_ARGUMENT", "JSON")
    refused(client.post("/api/matches", content=b"{not json", headers={"content-type": "application/json"}),
            "INVALID_ARGUMENT", "not JSON")
    refused(client.post("/api/matches", json=["tablanette"]), "INVALID_ARGUMENT", "a JSON object")
    refused(client.post("/api/matches", content=b" " * 20_000, headers={"content-type": "application/json"}),
            "INVALID_ARGUMENT", "bytes")


def test_bad_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    created = new_match(client)
    view = created["view"]
    before = observe(client, created)
    legal = view["legal_actions"][0]
    refused(act(client, created, legal, token="not-the-token"), "PERMISSION_DENIED", "wrong token for seat 0")
    refused(act(client, created, legal, token=""), "PERMISSION_DENIED", "x-seat-token")
    refused(act(client, created, legal, move=view["move_number"] + 3), "ABORTED", "stale move number")
    refused(act(client, created, "ZZ"), "INVALID_ARGUMENT", "illegal action 'ZZ'")
    match_id = view["match_id"]
    refused(client.post(f"/api/matches/{match_id}/act", headers={"x-seat-token": created["token"]},
                        json={"seat": 1, "action": legal, "expected_move_number": view["move_number"]}),
            "PERMISSION_DENIED", "seat 1 is played by the bot")
    refused(client.post(f"/api/matches/{match_id}/act", headers={"x-seat-token": created["token"]},
                        json={"seat": 7, "action": legal, "expected_move_number": view["move_number"]}),
            "INVALID_ARGUMENT", "seat 7 does not exist")
    refused(client.post(f"/api/matches/{match_id}/act", headers={"x-seat-token": created["token"]},
                        json={"seat": 0, "expected_move_number": view["move_number"]}),
            "INVALID_ARGUMENT", "action is missing")
    refused(client.post("/api/matches/nosuchmatch/act", headers={"x-seat-token": created["token"]},
                        json={"seat": 0, "action": legal, "expected_move_number": 0}), "NOT_FOUND", "no match")
    refused(client.get(f"/api/matches/{match_id}?seat=0"), "PERMISSION_DENIED", "x-seat-token")
    assert observe(client, created) == before


# ---- replays ------------------------------------------------------------------------------------------------------

def test_collections_and_pages_of_replays(client: TestClient, web_server: WebServer) -> None:
    names = {c["name"]: c["count"] for c in client.get("/api/collections").json()}
    assert names[web_server.collection] == len(web_server.replays)
    first = client.get(f"/api/replays?collection={web_server.collection}&page_size=3").json()
    assert [r["replay_id"] for r in first["replays"]] == list(web_server.replays)[:3]
    rest = client.get(f"/api/replays?collection={web_server.collection}&page_size=1000"
                      f"&page_token={first['next_page_token']}").json()
    assert [r["replay_id"] for r in rest["replays"]] == list(web_server.replays)[3:]
    assert rest["next_page_token"] == ""
    summary = first["replays"][0]
    assert summary["game"] == "belote_contree" and summary["players"] == 4 and summary["policies"] == ["greedy"] * 4


@pytest.fixture
def one_forged(web_server: WebServer) -> Iterator[BadCollection]:
    """A collection of this test's own (in the web server's store) holding one forged replay among good ones."""
    store = ReplayStore(redis.Redis.from_url(web_server.redis_url))
    collection = f"{web_server.collection}-forged"
    yield store_one_bad_replay(store, collection, "forged")
    store.delete_collection(collection)
    store.redis.close()


def test_a_collection_holding_one_forged_replay_lists_the_others_and_marks_it(web_server: WebServer,
                                                                              one_forged: BadCollection) -> None:
    collection = one_forged.bad_id.rpartition("/")[0]
    listed = get_json(f"{web_server.url}/api/replays?collection={collection}")["replays"]
    assert [r["replay_id"] for r in listed] == one_forged.ids
    (bad,) = [r for r in listed if "error" in r]
    assert bad == {"replay_id": one_forged.bad_id, "size_bytes": one_forged.bad_size, "error": bad["error"]}
    assert bad["error"].startswith(REASONS["forged"])
    assert all(r["game"] == "tablic" for r in listed if r is not bad)
    try:
        get_json(f"{web_server.url}/api/replays/{one_forged.bad_id}")
        raise AssertionError("a forged replay was served")
    except urllib.error.HTTPError as refused_replay:
        assert refused_replay.code == STATUS["DATA_LOSS"]
        assert json.loads(refused_replay.read())["error"] == {
            "code": "DATA_LOSS", "message": f"replay {one_forged.bad_id} does not decode: {bad['error']}"}


def test_a_replay_is_the_engines_record_turn_by_turn(client: TestClient, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/1"  # Tablanette: whole turns in the rules' notation
    data = web_server.replays[replay_id]
    decoded = replay.decode(data)
    shown = client.get(f"/api/replays/{replay_id}").json()
    assert shown["scores"] == decoded.scores
    assert shown["turns"][-1]["last"] == len(decoded.moves)
    assert len(shown["frames"]) == len(shown["turns"]) + 1
    assert any(":" in turn["action"] and "," in turn["action"] for turn in shown["turns"])  # a capture of two
    assert shown["frames"][-1]["deal_result"] == decoded.deal_results[0]
    full = shown["frames"][0]["hands"]
    assert all(full[str(seat)] for seat in range(2))
    seat_view = client.get(f"/api/replays/{replay_id}?perspective=seat&seat=1").json()
    assert list(seat_view["frames"][0]["hands"]) == ["1"]  # only that seat's hand
    assert seat_view["frames"][0]["hands"]["1"] == full["1"]
    assert seat_view == json.loads(json.dumps(replay_frames(data, replay_id, 1) | {
        "replay": shown["replay"], "perspective": "seat", "seat": 1}))


def test_a_trick_games_replay_is_analysed_apart_and_once(web_server: WebServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The viewer's analysis is replay.analysis' report with the server's node budget, asked for after the replay
    (which does not wait for it), computed once per replay and from_trick."""
    import services.app.replays

    runs: list[tuple[int, int]] = []

    def counted(data: bytes, from_trick: int, max_nodes: int, cancel: Cancel | None = None) -> dict[str, Any]:
        runs.append((from_trick, max_nodes))
        return analyze(data, from_trick, max_nodes, cancel)

    monkeypatch.setattr(services.app.replays, "analyze", counted)
    replay_id = f"{web_server.collection}/2"  # German Whist
    data = web_server.replays[replay_id]
    with TestClient(create_app(web_server.redis_url, analysis_nodes=ANALYSIS_NODES)) as analysed:
        shown = analysed.get(f"/api/replays/{replay_id}").json()
        assert shown["analysable"] and runs == []  # the replay comes without its analysis
        report = analysed.get(f"/api/replays/{replay_id}/analysis").json()
        assert report == {"replay_id": replay_id, **json.loads(json.dumps(analyze(data, 1, ANALYSIS_NODES)))}
        assert analysed.get(f"/api/replays/{replay_id}/analysis").json() == report
        assert runs == [(1, ANALYSIS_NODES)]  # kept: the second request did not search again
        later = analysed.get(f"/api/replays/{replay_id}/analysis?from_trick=24").json()
        assert runs == [(1, ANALYSIS_NODES), (24, ANALYSIS_NODES)]
    assert report["turning_points"] and report["exact_from_move"] > 1  # something to show, and a part not analysed
    assert {m["status"] for m in report["moves"]} == {"exact", "too large"}
    assert {m["status"] for m in later["moves"]} == {"exact", "before from_trick"}
    moves = {m["move"]: m for m in report["moves"]}
    assert set(moves) == {t["first"] for t in shown["turns"]}  # every card played, by its move number
    worst = moves[report["turning_points"][0]]
    assert worst["loss"] == worst["best"] - worst["value"] > 0


def test_an_analysis_under_way_holds_up_nothing_else(web_server: WebServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a search runs (held here until the other requests are answered), the server answers the replay and
    other calls; a second request for the same replay waits for the same search."""
    import services.app.replays

    started, release = threading.Event(), threading.Event()
    runs = []

    def held(data: bytes, from_trick: int, max_nodes: int, cancel: Cancel | None = None) -> dict[str, Any]:
        runs.append(from_trick)
        started.set()
        assert release.wait(30)
        return analyze(data, from_trick, max_nodes, cancel)

    monkeypatch.setattr(services.app.replays, "analyze", held)
    replay_id = f"{web_server.collection}/0"  # Belote contrée
    server, thread, port = serve_in_thread(create_app(web_server.redis_url, analysis_nodes=ANALYSIS_NODES))
    base = f"http://127.0.0.1:{port}"
    try:
        with ThreadPoolExecutor(2) as requests:
            first = requests.submit(get_json, f"{base}/api/replays/{replay_id}/analysis")
            assert started.wait(30)
            second = requests.submit(get_json, f"{base}/api/replays/{replay_id}/analysis")
            assert get_json(f"{base}/api/replays/{replay_id}")["analysable"]  # not held up by the search
            assert [g["id"] for g in get_json(f"{base}/api/games")] == engine.list_games()
            assert not first.done()
            release.set()
            assert first.result(30) == second.result(30)
    finally:
        release.set()
        server.should_exit = True
        thread.join(timeout=15)
    assert runs == [1]
    data = web_server.replays[replay_id]
    assert first.result()["moves"] == json.loads(json.dumps(analyze(data, 1, ANALYSIS_NODES)["moves"]))


def test_only_a_trick_games_replay_has_an_analysis(client: TestClient, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/1"  # Tablanette: a fishing game
    assert client.get(f"/api/replays/{replay_id}").json()["analysable"] is False
    refused(client.get(f"/api/replays/{replay_id}/analysis"), "INVALID_ARGUMENT", "tablanette is not a trick game")
    belote = f"{web_server.collection}/0"
    assert client.get(f"/api/replays/{belote}").json()["analysable"] is True
    refused(client.get(f"/api/replays/{belote}/analysis?from_trick=0"), "INVALID_ARGUMENT",
            "from_trick is a whole number from 1")
    refused(client.get(f"/api/replays/{web_server.collection}/999/analysis"), "NOT_FOUND", "no replay")


def test_a_replay_is_analysable_where_the_analysis_has_cards(client: TestClient, web_server: WebServer) -> None:
    """The page asks for the analysis of a replay only where it has something: the fishing games and the trick
    games whose tricks the double-dummy solver does not take (their own trick rules) have none."""
    games = {}
    for replay_id, data in list(web_server.replays.items())[4:]:  # a deal of every game
        game = replay.decode(data).header.game
        games[game] = client.get(f"/api/replays/{replay_id}").json()["analysable"]
        trick_game = isinstance(engine.new_match(game, seed=1), TrickGame)
        assert games[game] == (trick_game and bool(analyze(data, max_nodes=1)["moves"])), game
    assert games["german_whist"] and games["belote_contree"] and not games["tablanette"]
    assert not all(games.values())


@pytest.mark.parametrize(("path", "code", "fragment"), [
    ("/api/replays/nocollection", "INVALID_ARGUMENT", "a replay id is <collection>/<index>"),
    ("/api/replays/webtest-none/0", "NOT_FOUND", "no replay 'webtest-none/0'"),
    ("/api/replays?collection=bad%20name", "INVALID_ARGUMENT", "a collection name is"),
    ("/api/replays?page_token=x", "INVALID_ARGUMENT", "bad page_token"),
    ("/api/replays?page_size=-1", "INVALID_ARGUMENT", "page_size is a whole number"),
])
def test_bad_replay_requests_are_refused(client: TestClient, path: str, code: str, fragment: str) -> None:
    refused(client.get(path), code, fragment)


def test_bad_replay_views_are_refused(client: TestClient, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/2"
    refused(client.get(f"/api/replays/{replay_id}?perspective=god"), "INVALID_ARGUMENT", "perspective is 'full'")
    refused(client.get(f"/api/replays/{replay_id}?perspective=seat&seat=2"), "INVALID_ARGUMENT",
            "seat 2 does not exist")


def test_a_corrupt_stored_replay_is_data_loss(client: TestClient, web_server: WebServer) -> None:
    collection = f"{web_server.collection}-corrupt"
    with redis.Redis.from_url(web_server.redis_url) as raw:
        store = ReplayStore(raw)
        replay_id = store.save(replay.record_deal("german_whist", seed=4), collection)
        data = bytearray(store.get(replay_id))
        data[len(data) // 2] ^= 0xFF
        raw.hset(store.bucket_key(collection, 0), 0, bytes(data))
    refused(client.get(f"/api/replays/{replay_id}"), "DATA_LOSS", replay_id.split("/")[0])
    refused(client.get(f"/api/replays/{replay_id}/analysis"), "DATA_LOSS", replay_id.split("/")[0])


# ---- jobs ---------------------------------------------------------------------------------------------------------

def test_jobs_are_listed_with_their_progress(client: TestClient, web_server: WebServer) -> None:
    with redis.Redis.from_url(web_server.redis_url) as raw:
        store = JobStore(raw)
        record = store.create(validate(JobSpec("tablic", ("greedy", "random"), 40, seed=1)))
    listed = client.get("/api/jobs").json()["jobs"]
    mine = next(job for job in listed if job["job_id"] == record.job_id)
    assert mine["state"] == "queued" and mine["units_total"] == 40 and mine["units_done"] == 0
    assert client.get(f"/api/jobs/{record.job_id}").json()["results"] is None
    refused(client.get(f"/api/jobs/{record.job_id}/plot.svg"), "INVALID_ARGUMENT", "has no results yet")
    refused(client.get("/api/jobs/sim-nosuchjob"), "NOT_FOUND", "no simulation job 'sim-nosuchjob'")
    with client.stream("GET", "/api/events/jobs") as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        assert next(lines) == "event: jobs"
        page = json.loads(next(lines).removeprefix("data: "))
    assert record.job_id in [job["job_id"] for job in page]


# ---- the API key --------------------------------------------------------------------------------------------------

def test_the_api_key_is_required_when_set(web_server: WebServer) -> None:
    with TestClient(create_app(web_server.redis_url, api_key="s3cret")) as keyed:
        assert keyed.get("/").status_code == 200  # the page holds no data
        assert keyed.get("/static/app.js").status_code == 200
        refused(keyed.get("/api/games"), "UNAUTHENTICATED", "missing API key", "x-api-key")
        refused(keyed.get("/api/games", headers={"x-api-key": "wrong"}), "UNAUTHENTICATED", "wrong API key")
        refused(keyed.post("/api/matches", json={"game": "tablanette"}), "UNAUTHENTICATED")
        assert keyed.get("/api/games", headers={"x-api-key": "s3cret"}).status_code == 200
        assert keyed.get("/api/games", headers={"authorization": "Bearer s3cret"}).status_code == 200


def events_of(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event name, data) of a server-sent event stream's lines."""
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield name, json.loads(line.removeprefix("data: "))


def test_a_match_is_watched_move_by_move(client: TestClient) -> None:
    created = new_match(client, game="tablanette", seed=12)
    view = created["view"]
    with client.stream("GET", f"/api/matches/{view['match_id']}/events") as stream:
        events = events_of(stream.iter_lines())
        name, snapshot = next(events)
        assert name == "snapshot" and snapshot["view"]["move_number"] == view["move_number"]
        assert "hand" not in snapshot["view"]["observation"]  # anyone's view: no hand
        acted = act(client, created, view["legal_actions"][0]).json()
        for played in acted["moves"]:
            name, event = next(events)
            assert name == "move" and event["move"]["number"] == played["number"]
            assert event["view"]["move_number"] == played["number"]
        assert event["view"]["scores"] == acted["view"]["scores"]
    with client.stream("GET", f"/api/matches/{view['match_id']}/events?seat=0",
                       headers={"x-seat-token": created["token"]}) as stream:
        name, snapshot = next(events_of(stream.iter_lines()))
        assert snapshot["view"]["observation"]["hand"] == acted["view"]["observation"]["hand"]
    refused(client.get(f"/api/matches/{view['match_id']}/events?seat=0", headers={"x-seat-token": "nope"}),
            "PERMISSION_DENIED", "wrong token")
    refused(client.get(f"/api/matches/{view['match_id']}/events?seat=1", headers={"x-seat-token": "nope"}),
            "PERMISSION_DENIED", "played by the bot")
    refused(client.get("/api/matches/nosuchmatch/events"), "NOT_FOUND", "no match 'nosuchmatch'")
