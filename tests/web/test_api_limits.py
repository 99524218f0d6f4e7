"""The web API's per-client limits, over real Redis: matches in play and creations a minute per API key (several
keys, as `cardtable web --api-key-file` takes them), else per address; beyond a limit HTTP 429 with the message that
names it, and another client is not affected."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from services.app.auth import ApiKeys
from services.app.limits import ClientLimits
from services.cli.main import cli
from services.web.app import create_app


@pytest.fixture
def names() -> tuple[str, str]:
    tag = secrets.token_hex(3)  # fresh clients: the counts live in the run's Redis namespace
    return f"carol-{tag}", f"dave-{tag}"


@pytest.fixture
def keys(names: tuple[str, str]) -> dict[str, str]:
    return {name: secrets.token_urlsafe(16) for name in names}


def app_client(redis_url: str, keys: dict[str, str], limits: ClientLimits) -> TestClient:
    api_keys = ApiKeys.parse("".join(f"{name}:{key}\n" for name, key in keys.items()))
    return TestClient(create_app(redis_url, api_keys, limits=limits))


def new_match(client: TestClient, key: str | None):
    headers = {"x-api-key": key} if key else {}
    return client.post("/api/matches", json={"game": "german_whist"}, headers=headers)


def too_many(response, message: str) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["error"] == {"code": "RESOURCE_EXHAUSTED", "message": message}


@pytest.fixture
def keyed(redis_url: str, keys: dict[str, str]) -> Iterator[TestClient]:
    with app_client(redis_url, keys, ClientLimits(live_matches=2, matches_per_minute=100)) as client:
        yield client


def test_matches_in_play_are_limited_per_key(keyed: TestClient, keys: dict[str, str]) -> None:
    carol, dave = keys.values()
    assert [new_match(keyed, carol).status_code for _ in range(2)] == [200, 200]
    too_many(new_match(keyed, carol), "this client has 2 matches in play, the limit is 2 (--max-live-matches)")
    assert new_match(keyed, dave).status_code == 200
    assert new_match(keyed, "wrong").status_code == 401


def test_the_creation_rate_is_limited_per_key(redis_url: str, keys: dict[str, str]) -> None:
    carol, dave = keys.values()
    with app_client(redis_url, keys, ClientLimits(matches_per_minute=3)) as client:
        statuses = [new_match(client, carol).status_code for _ in range(6)]
        assert statuses[:3] == [200] * 3 and statuses[-1] == 429
        response = new_match(client, carol)
        assert response.status_code == 429
        assert response.json()["error"]["message"].startswith(
            "this client creates matches faster than the limit of 3 a minute (--max-matches-per-minute)")
        assert new_match(client, dave).status_code == 200


def test_without_keys_a_client_is_its_address(redis_url: str) -> None:
    """(The test client's address is "testclient": no other test of the run creates matches with limits from it.)"""
    with TestClient(create_app(redis_url, limits=ClientLimits(live_matches=1))) as client:
        assert new_match(client, None).status_code == 200
        too_many(new_match(client, None), "this client has 1 matches in play, the limit is 1 (--max-live-matches)")


def test_cardtable_web_has_the_limit_flags_with_their_defaults() -> None:
    shown = CliRunner().invoke(cli, ["web", "--help"], terminal_width=200).output
    assert "--max-live-matches" in shown and "default: 100" in shown
    assert "--max-matches-per-minute" in shown and "default: 60" in shown
    assert "--max-jobs-per-client" not in shown  # the web submits no job
