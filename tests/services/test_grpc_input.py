"""What a client may learn and send: no seed of a match in play, short errors for huge input, strict page tokens,
the API key kept out of `ps`, health Watch open, bot parameters at creation."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
import redis
from grpc_harness import ServerProcess
from grpc_health.v1 import health_pb2, health_pb2_grpc
from matchplay import PERSON, act, bot, create, observe, play_to_end

import engine
from services.generated.cardtable.v1 import (
    common_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    replay_service_pb2,
    replay_service_pb2_grpc,
    simulation_service_pb2,
    simulation_service_pb2_grpc,
)

Code = grpc.StatusCode
HUGE = "x" * (1 << 20)  # 1 MiB: its echo alone would pass gRPC's 16 KiB limit on a status's headers


@pytest.fixture(scope="module")
def replays(channel):
    return replay_service_pb2_grpc.ReplayServiceStub(channel)


@pytest.fixture(scope="module")
def jobs(channel):
    return simulation_service_pb2_grpc.SimulationServiceStub(channel)


def error_of(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


# ---- the seed of a match in play -----------------------------------------------------------------------------------

def _stored_secrets(grpc_server, redis_url: str, match_id: str) -> tuple[int, int]:
    """The seed and the RNG state of a match, as only Redis holds them."""
    record = f"{grpc_server.server.backends.matches.prefix}{{{match_id}}}"
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    position = json.loads(client.hget(record, "position"))
    client.close()
    return position["seed"], position["rng"]


def test_no_call_serves_the_seed_or_rng_of_a_match_in_play(games, replays, grpc_server, grpc_redis_url):
    created = games.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, PERSON, bot("greedy")],
        options={"max_deals": common_pb2.OptionValue(int_value=1)}))  # no seed given: the server draws it
    tokens = {t.seat: t.token for t in created.seat_tokens}
    seed, rng = _stored_secrets(grpc_server, grpc_redis_url, created.match_id)
    answers = [created]
    watches = [games.WatchGame(game_service_pb2.WatchGameRequest(match_id=created.match_id)),
               games.WatchGame(game_service_pb2.WatchGameRequest(
                   match_id=created.match_id, perspective=common_pb2.PERSPECTIVE_SEAT, seat=0, seat_token=tokens[0]))]
    answers += [next(w) for w in watches]
    for _ in range(4):  # a few moves, each seat observed before and after
        views = {seat: observe(games, created.match_id, seat, token) for seat, token in tokens.items()}
        answers += views.values()
        seat = next(v.current_player for v in views.values())
        moved = act(games, created.match_id, seat, tokens[seat], views[seat].legal_actions[0],
                    views[seat].move_number)
        answers += [moved, *(next(w) for w in watches)]
    answers.append(replays.ListReplays(replay_service_pb2.ListReplaysRequest(page_size=1000)))
    assert created.seed == 0
    for answer in answers:
        text = str(answer)
        assert str(seed) not in text and str(rng) not in text, type(answer).__name__
        for view in _views(answer):
            body = json.loads(view.json)
            assert "seed" not in body and "rng" not in body
    # Once the match is over, its replay holds the seed.
    final = play_to_end(games, created.match_id, tokens)[-1]
    summary = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=final.replay_id)).replay
    assert summary.seed == seed


def _views(answer) -> list[common_pb2.View]:
    return [answer.view] if hasattr(answer, "view") and answer.HasField("view") else []


# ---- huge and odd input ---------------------------------------------------------------------------------------------

def _bot_seat(policy: str = "random", **params: str) -> game_service_pb2.SeatSpec:
    return game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_BOT, policy=policy, params=params)


HUGE_REQUESTS = {
    "game id": lambda g, r, j: g.GetGameInfo(game_service_pb2.GetGameInfoRequest(game_id=HUGE)),
    "created game id": lambda g, r, j: g.CreateGame(game_service_pb2.CreateGameRequest(game_id=HUGE, seats=[PERSON])),
    "policy name": lambda g, r, j: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, _bot_seat(HUGE)])),
    "policy parameter": lambda g, r, j: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, _bot_seat("greedy", **{HUGE: "1"})])),
    "option name": lambda g, r, j: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, PERSON], options={HUGE: common_pb2.OptionValue(int_value=1)})),
    "option value": lambda g, r, j: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, PERSON], options={"target": common_pb2.OptionValue(string_value=HUGE)})),
    "match id": lambda g, r, j: g.GetObservation(game_service_pb2.GetObservationRequest(match_id=HUGE)),
    "action": lambda g, r, j: g.Act(game_service_pb2.ActRequest(match_id="m", action=HUGE)),
    "watched match id": lambda g, r, j: next(g.WatchGame(game_service_pb2.WatchGameRequest(match_id=HUGE))),
    "games page token": lambda g, r, j: g.ListGames(game_service_pb2.ListGamesRequest(page_token=HUGE)),
    "replays page token": lambda g, r, j: r.ListReplays(replay_service_pb2.ListReplaysRequest(page_token=HUGE)),
    "collection": lambda g, r, j: r.ListReplays(replay_service_pb2.ListReplaysRequest(collection=HUGE)),
    "replay id": lambda g, r, j: r.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=HUGE)),
    "streamed replay id": lambda g, r, j: next(r.StreamReplay(replay_service_pb2.StreamReplayRequest(replay_id=HUGE))),
    "job id": lambda g, r, j: j.GetJob(simulation_service_pb2.GetJobRequest(job_id=HUGE)),
    "jobs page token": lambda g, r, j: j.ListJobs(simulation_service_pb2.ListJobsRequest(page_token=HUGE)),
    "job policy": lambda g, r, j: j.SubmitJob(simulation_service_pb2.SubmitJobRequest(
        spec=simulation_service_pb2.JobSpec(game_id="tablanette", count=10,
                                            policies=[simulation_service_pb2.PolicySpec(name=HUGE)]))),
}


@pytest.mark.parametrize("what", HUGE_REQUESTS)
def test_huge_input_is_refused_with_a_short_message(games, replays, jobs, what):
    error = error_of(lambda: HUGE_REQUESTS[what](games, replays, jobs))
    assert error.code() == Code.INVALID_ARGUMENT, (error.code(), error.details()[:200])
    assert len(error.details()) < 300 and "1048576 characters" in error.details()


LONG = "y" * 250  # accepted as a text, but no error quotes it whole


@pytest.mark.parametrize(("call", "code"), [
    (lambda g, r: g.GetGameInfo(game_service_pb2.GetGameInfoRequest(game_id=LONG)), Code.INVALID_ARGUMENT),
    (lambda g, r: g.GetObservation(game_service_pb2.GetObservationRequest(match_id=LONG)), Code.NOT_FOUND),
    (lambda g, r: r.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=LONG)), Code.INVALID_ARGUMENT),
    (lambda g, r: r.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=f"live/{'9' * 245}")), Code.NOT_FOUND),
    (lambda g, r: r.ListReplays(replay_service_pb2.ListReplaysRequest(collection=LONG)), Code.INVALID_ARGUMENT),
    (lambda g, r: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, _bot_seat(LONG)])), Code.INVALID_ARGUMENT),
    (lambda g, r: g.CreateGame(game_service_pb2.CreateGameRequest(
        game_id="tablanette", seats=[PERSON, PERSON], options={LONG: common_pb2.OptionValue(int_value=1)})),
     Code.INVALID_ARGUMENT),
])
def test_errors_quote_input_short(games, replays, call, code):
    """A text the API accepts is still quoted short (its start, and its length)."""
    error = error_of(lambda: call(games, replays))
    details = error.details()
    assert error.code() == code and "250 characters" in details
    assert "y" * 100 not in details and "9" * 100 not in details


@pytest.mark.parametrize("token", ["9" * 5000, "9" * 19, "²", "٣", "-1", " 1", "1e3", "0x10", "1\n"])
def test_page_tokens_are_ascii_digits_of_a_bounded_length(games, replays, jobs, token):
    for call in (lambda: games.ListGames(game_service_pb2.ListGamesRequest(page_token=token)),
                 lambda: replays.ListReplays(replay_service_pb2.ListReplaysRequest(page_token=token)),
                 lambda: jobs.ListJobs(simulation_service_pb2.ListJobsRequest(page_token=token))):
        error = error_of(call)
        assert error.code() == Code.INVALID_ARGUMENT and "page_token" in error.details()


# ---- bot parameters at creation ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", [_bot_seat("greedy:epsilon=1"), _bot_seat("greedy", epsilon="1.0")])
def test_a_bot_seat_takes_policy_parameters(games, replays, seat):
    created, tokens = create(games, [PERSON, seat], seed=4)
    final = play_to_end(games, created.match_id, tokens)[-1]
    summary = replays.GetReplay(replay_service_pb2.GetReplayRequest(replay_id=final.replay_id)).replay
    assert list(summary.policies) == ["human", "greedy:epsilon=1.0"]


def test_an_epsilon_of_one_plays_at_random():
    """greedy:epsilon=1 is a random player: over a match its moves differ from plain greedy's (the parameter
    reaches the bot)."""
    from services.app.matches import LiveMatch, Seat

    plain, _, greedy_moves = LiveMatch.create("tablanette", [Seat("bot", "greedy")] * 2, {"max_deals": 1}, 9, None)
    noisy, _, noisy_moves = LiveMatch.create("tablanette", [Seat("bot", "greedy:epsilon=1.0")] * 2,
                                              {"max_deals": 1}, 9, None)
    assert [m.action for m in greedy_moves] != [m.action for m in noisy_moves]


@pytest.mark.parametrize(("seat", "needles"), [
    (_bot_seat("greedy", eps="0.3"), ["seat 1", "epsilon"]),
    (_bot_seat("greedy:eps=0.3"), ["seat 1", "epsilon"]),
    (_bot_seat("greedy", epsilon="2"), ["seat 1", "0.0..1.0"]),
    (_bot_seat("greedy", epsilon="lots"), ["seat 1", "epsilon"]),
    (_bot_seat("random", epsilon="0.1"), ["seat 1", "takes none"]),
    (_bot_seat("greedy:epsilon=0.1", epsilon="0.2"), ["seat 1", "twice"]),
    (_bot_seat("minimax"), ["seat 1", "greedy", "random"]),
    (game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_PERSON, policy="greedy"), ["seat 1", "no policy"]),
    (game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_PERSON, params={"epsilon": "1"}),
     ["seat 1", "no policy"]),
])
def test_bad_bot_parameters_name_what_is_allowed(games, seat, needles):
    error = error_of(lambda: games.CreateGame(game_service_pb2.CreateGameRequest(game_id="tablanette",
                                                                                  seats=[PERSON, seat])))
    assert error.code() == Code.INVALID_ARGUMENT and all(n in error.details() for n in needles), error.details()


# ---- the API key and health -----------------------------------------------------------------------------------------

def _calls_with_and_without(target: str, key: str) -> None:
    with grpc.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        assert error_of(lambda: stub.ListGames(game_service_pb2.ListGamesRequest())).code() == Code.UNAUTHENTICATED
        assert stub.ListGames(game_service_pb2.ListGamesRequest(), metadata=(("x-api-key", key),)).games
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
        watch = health.Watch(health_pb2.HealthCheckRequest(service="cardtable.v1.GameService"), timeout=10)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()


def _command_line(server: ServerProcess) -> str:
    return Path(f"/proc/{server.process.pid}/cmdline").read_bytes().decode().replace("\0", " ")


@pytest.mark.parametrize("given_in", ["file", "environment"])
def test_the_api_key_comes_from_a_file_or_the_environment_not_the_command_line(grpc_redis_url, tmp_path, given_in):
    key = f"key-from-{given_in}-0123456789"
    if given_in == "file":
        (tmp_path / "key").write_text(key + "\n")
        server = ServerProcess("--redis-url", grpc_redis_url, "--api-key-file", str(tmp_path / "key"))
    else:
        server = ServerProcess("--redis-url", grpc_redis_url, env={"CARDTABLE_API_KEY": key})
    with server:
        assert key not in _command_line(server)
        _calls_with_and_without(server.target, key)


def test_health_watch_answers_like_check(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "cardtable.v1.ReplayService"]:
        watch = health.Watch(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()
    watch = health.Watch(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
    watch.cancel()


def test_every_game_can_be_listed_after_all_that(games):
    assert [g.game_id for g in games.ListGames(game_service_pb2.ListGamesRequest()).games] == engine.list_games()
