"""Per-client limits against real servers and Redis: matches in play and match creations a minute, per API key
(several keys in one key file) or else per address; RESOURCE_EXHAUSTED names the limit, another client is not
affected, and the counts hold across server processes sharing the Redis. Jobs: tests/workers/test_fair_share.py."""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_harness import ServerProcess, ServerThread
from matchplay import PERSON, bot, create, observe, play_to_end

from services.app.auth import ApiKeys
from services.app.limits import DEFAULT_LIMITS, ClientLimits
from services.generated.cardtable.v1 import game_service_pb2_grpc
from services.match_store import Retention
from services.server import ServerConfig

LIVE_LIMIT = 3


class Keys:
    """Two clients' keys, named afresh for each test (the counts of a name live in the run's Redis namespace)."""

    def __init__(self) -> None:
        tag = secrets.token_hex(3)
        self.alice, self.bob = f"alice-{tag}", f"bob-{tag}"
        self.secrets = {self.alice: secrets.token_urlsafe(16), self.bob: secrets.token_urlsafe(16)}

    def file_text(self) -> str:
        alice, bob = self.secrets[self.alice], self.secrets[self.bob]
        return f"# one key per client\n{self.alice}:{alice}\n\n{self.bob} {bob}\n"

    def api_keys(self) -> ApiKeys:
        return ApiKeys.parse(self.file_text())


@pytest.fixture
def keys() -> Keys:
    return Keys()


def stub_for(target: str, key: str) -> tuple[grpc.Channel, game_service_pb2_grpc.GameServiceStub]:
    channel = grpc.insecure_channel(target)
    intercepted = grpc.intercept_channel(channel, _KeyMetadata(key))
    return channel, game_service_pb2_grpc.GameServiceStub(intercepted)


class _KeyMetadata(grpc.UnaryUnaryClientInterceptor):
    def __init__(self, key: str) -> None:
        self.key = key

    def intercept_unary_unary(self, continuation, details, request):
        metadata = [*(details.metadata or ()), ("x-api-key", self.key)]
        return continuation(details._replace(metadata=metadata), request)


def refusal(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


@pytest.fixture
def server(grpc_redis_url: str, keys: Keys) -> Iterator[ServerThread]:
    config = ServerConfig(port=0, redis_url=grpc_redis_url, api_key=keys.api_keys(),
                          limits=ClientLimits(live_matches=LIVE_LIMIT, matches_per_minute=50))
    with ServerThread(config) as running:
        yield running


@pytest.mark.cluster_too
def test_each_key_of_a_key_file_is_let_in_and_others_are_not(server: ServerThread, keys: Keys) -> None:
    for name in (keys.alice, keys.bob):
        channel, games = stub_for(server.target, keys.secrets[name])
        with channel:
            assert create(games, [PERSON, bot()], game_id="german_whist")[0].match_id
    channel, games = stub_for(server.target, "not-a-key")
    with channel:
        assert refusal(lambda: create(games, [PERSON, bot()])).code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.cluster_too
def test_matches_in_play_are_limited_per_key_and_a_finished_one_frees_its_place(server: ServerThread,
                                                                                   keys: Keys) -> None:
    alice_channel, alice = stub_for(server.target, keys.secrets[keys.alice])
    bob_channel, bob = stub_for(server.target, keys.secrets[keys.bob])
    with alice_channel, bob_channel:
        made = [create(alice, [PERSON, bot()], game_id="german_whist", seed=n) for n in range(LIVE_LIMIT)]
        refused = refusal(lambda: create(alice, [PERSON, bot()], game_id="german_whist"))
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.details() == (f"this client has {LIVE_LIMIT} matches in play, the limit is {LIVE_LIMIT} "
                                     "(--max-live-matches)")
        assert create(bob, [PERSON, bot()], game_id="german_whist")[0].match_id  # another key: its own count
        finished, tokens = made[0]
        play_to_end(alice, finished.match_id, tokens)
        assert create(alice, [PERSON, bot()], game_id="german_whist")[0].match_id  # the finished one's place
        again = refusal(lambda: create(alice, [PERSON, bot()], game_id="german_whist"))
        assert again.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.cluster_too
def test_an_abandoned_match_that_expired_frees_its_place(grpc_redis_url: str, keys: Keys) -> None:
    config = ServerConfig(port=0, redis_url=grpc_redis_url, api_key=keys.api_keys(), retention=Retention(60, 1.0),
                          limits=ClientLimits(live_matches=1))
    with ServerThread(config) as server:
        channel, games = stub_for(server.target, keys.secrets[keys.alice])
        with channel:
            abandoned, tokens = create(games, [PERSON, bot()], game_id="german_whist")
            assert refusal(lambda: create(games, [PERSON, bot()])).code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # nobody moves: Redis forgets it after a second
                try:
                    observe(games, abandoned.match_id, 0, tokens[0])
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.NOT_FOUND
                    break
                time.sleep(0.1)
            assert create(games, [PERSON, bot()], game_id="german_whist")[0].match_id


@pytest.mark.cluster_too
def test_the_limits_hold_across_server_processes_sharing_redis(grpc_redis_url: str, keys: Keys) -> None:
    config = ServerConfig(port=0, redis_url=grpc_redis_url, api_key=keys.api_keys(),
                          limits=ClientLimits(live_matches=2))
    key = keys.secrets[keys.alice]
    with ServerThread(config) as first, ServerThread(config) as second:
        first_channel, on_first = stub_for(first.target, key)
        second_channel, on_second = stub_for(second.target, key)
        with first_channel, second_channel:
            create(on_first, [PERSON, bot()], game_id="german_whist")
            create(on_second, [PERSON, bot()], game_id="german_whist")
            for games in (on_first, on_second):
                refused = refusal(lambda games=games: create(games, [PERSON, bot()], game_id="german_whist"))
                assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "the limit is 2" in refused.details()


def flood(games, seconds: float, calls: int) -> tuple[int, int, float, str]:
    """CreateGame as fast as one client can, ``calls`` times or for ``seconds``: (created, refused, seconds taken,
    the first refusal's message)."""
    created = refused = 0
    message = ""
    started = time.monotonic()
    while created + refused < calls and time.monotonic() - started < seconds:
        try:
            create(games, [PERSON, bot()], game_id="german_whist", seed=created)
            created += 1
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc.details()
            refused += 1
            message = message or exc.details()
    return created, refused, time.monotonic() - started, message


def test_match_flooding_is_cut_off_at_the_creation_rate(grpc_redis_url: str, keys: Keys) -> None:
    """The default limits of `cardtable serve`: a client that creates matches in a loop gets its burst of 60 and
    then one a second; another client still creates its own."""
    config = ServerConfig(port=0, redis_url=grpc_redis_url, api_key=keys.api_keys(), limits=DEFAULT_LIMITS)
    rate = DEFAULT_LIMITS.matches_per_minute
    with ServerThread(config) as server:
        alice_channel, alice = stub_for(server.target, keys.secrets[keys.alice])
        bob_channel, bob = stub_for(server.target, keys.secrets[keys.bob])
        with alice_channel, bob_channel:
            created, refused, seconds, message = flood(alice, seconds=20.0, calls=2000)
            print(f"\nflood: {created} matches created and {refused} refused in {seconds:.1f} s "
                  f"(limit {rate} a minute)")
            assert refused > 0
            assert rate <= created <= rate + math.ceil(seconds * rate / 60) + 1
            assert message.startswith(f"this client creates matches faster than the limit of {rate} a minute "
                                      "(--max-matches-per-minute): the next one may be created in ")
            assert create(bob, [PERSON, bot()], game_id="german_whist")[0].match_id


@pytest.mark.cluster_too
def test_without_keys_a_client_is_its_address(grpc_redis_url: str) -> None:
    config = ServerConfig(port=0, redis_url=grpc_redis_url, limits=ClientLimits(matches_per_minute=2))
    with ServerThread(config) as server, grpc.insecure_channel(server.target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        quotas = server.server.backends.clients.quotas
        # The address's bucket may hold this run's earlier creations (`cardtable serve`'s in other tests): a full one.
        _run(server, quotas.client.delete(quotas.key("peer:127.0.0.1", "rate")))
        create(games, [PERSON, bot()], game_id="german_whist")
        create(games, [PERSON, bot()], game_id="german_whist")
        refused = refusal(lambda: create(games, [PERSON, bot()], game_id="german_whist"))
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "limit of 2 a minute" in refused.details()
        _run(server, quotas.client.delete(quotas.key("peer:127.0.0.1", "rate")))


def _run(server: ServerThread, coroutine) -> object:
    return asyncio.run_coroutine_threadsafe(coroutine, server.loop).result(timeout=10)


def test_cardtable_serve_takes_a_key_file_and_the_limit_flags(grpc_redis_url: str, keys: Keys,
                                                               tmp_path: Path) -> None:
    key_file = tmp_path / "keys.txt"
    key_file.write_text(keys.file_text())
    with ServerProcess("--redis-url", grpc_redis_url, "--grace", "0.2", "--api-key-file", str(key_file),
                       "--max-live-matches", "1", env={"CARDTABLE_API_KEY": None}) as server:
        for name in (keys.alice, keys.bob):
            channel, games = stub_for(server.target, keys.secrets[name])
            with channel:
                create(games, [PERSON, bot()], game_id="german_whist")
                refused = refusal(lambda games=games: create(games, [PERSON, bot()], game_id="german_whist"))
                assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert refused.details() == "this client has 1 matches in play, the limit is 1 (--max-live-matches)"


def test_serve_workers_share_the_key_file_and_the_limits(grpc_redis_url: str, keys: Keys, tmp_path: Path) -> None:
    """`cardtable serve --workers 2`: each worker process reads the key file and takes the limits, and the count is
    one for both (the kernel spreads the connections between the two)."""
    key_file = tmp_path / "keys.txt"
    key_file.write_text(keys.file_text())
    with ServerProcess("--redis-url", grpc_redis_url, "--grace", "0.2", "--workers", "2", "--api-key-file",
                       str(key_file), "--max-live-matches", "1", env={"CARDTABLE_API_KEY": None}) as server:
        channel, games = stub_for(server.target, keys.secrets[keys.alice])
        with channel:
            create(games, [PERSON, bot()], game_id="german_whist")
        codes = []
        for _ in range(6):  # new connections: some land on the other worker
            channel, games = stub_for(server.target, keys.secrets[keys.alice])
            with channel:
                codes.append(refusal(lambda games=games: create(games, [PERSON, bot()], game_id="german_whist")).code())
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 6


@pytest.mark.parametrize(("text", "words"), [
    ("alice:k1\nalice:k2\n", "line 2: the key named 'alice' is listed twice"),
    ("alice:k1\nbob:k1\n", "line 2: the key named 'bob' is listed twice (by its name or its key)"),
    ("al/ice:k1\n", "line 1: a key's name is 1 to 64 letters, digits or _.@- (not 'al/ice')"),
    ("alice:\n", "line 1: the key of 'alice' is empty or holds a space"),
    ("# nothing\n\n", "it holds no API key"),
])
def test_a_wrong_key_file_is_one_line_naming_what_is_wrong(cli_runner, tmp_path: Path, text: str,
                                                           words: str) -> None:
    from services.cli.main import cli

    key_file = tmp_path / "keys.txt"
    key_file.write_text(text)
    result = cli_runner.invoke(cli, ["serve", "--api-key-file", str(key_file)])
    assert result.exit_code == 2 and words in result.output, result.output


def test_cardtable_serve_shows_the_limit_flags_and_their_defaults(cli_runner) -> None:
    from services.cli.main import cli

    shown = " ".join(cli_runner.invoke(cli, ["serve", "--help"], terminal_width=200).output.split())
    for flag, default in (("--max-jobs-per-client", 4), ("--max-live-matches", 100),
                          ("--max-matches-per-minute", 60), ("--abandon-after", "6h")):
        assert flag in shown and f"[default: {default}" in shown.split(flag, 1)[1].split("--", 1)[0]
