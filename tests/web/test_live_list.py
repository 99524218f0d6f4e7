"""The matches in play on the web: ``GET /api/matches`` (GameService.ListMatches' answer: newest first, paged, the
public view only) and the page's list (#/live), each match linked to its watch. A web app of this module's own, under
a key namespace of its own, so that only its matches are listed."""

from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from keyspace import NAMESPACE
from web_harness import CHROMIUM, CHROMIUM_ARGS, serve_in_thread

from replay.namespace import KEY_PREFIX_ENV
from services.cli.web import allowed_hosts
from services.web.app import create_app

SEED = 987654321987654321


@pytest.fixture(scope="module")
def web_url(redis_url: str) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_PREFIX_ENV, f"{NAMESPACE}live-web-{time.monotonic_ns()}:")
        server, thread, port = serve_in_thread(create_app(redis_url, allowed_hosts=allowed_hosts("127.0.0.1")))
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(timeout=15)


def call(url: str, body: dict[str, Any] | None = None, token: str = "") -> dict[str, Any]:
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST",
                                     headers={"content-type": "application/json", "x-seat-token": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def listed(web_url: str, page_size: int) -> list[dict[str, Any]]:
    out, token = [], ""
    while True:
        page = call(f"{web_url}/api/matches?page_size={page_size}&page_token={token}")
        assert len(page["matches"]) <= page_size
        out += page["matches"]
        token = page["next_page_token"]
        if not token:
            return out


def test_the_api_lists_the_matches_in_play_newest_first_in_pages_as_anyone_sees_them(web_url: str) -> None:
    made = [call(f"{web_url}/api/matches", {"game": "tablanette", "seed": SEED}) for _ in range(3)]
    walked = listed(web_url, 2)
    assert [m["match_id"] for m in walked][:3] == [m["view"]["match_id"] for m in made][::-1]
    first = walked[0]
    assert first["seat"] is None and first["legal_actions"] == [] and not first["game_over"]
    assert [s["kind"] for s in first["seats"]] == ["person", "bot"]
    assert not {"hand", "hands", "history"} & set(first["observation"])
    text = json.dumps(walked)
    assert all(m["token"] not in text for m in made) and str(SEED) not in text
    hand = made[-1]["view"]["observation"]["hand"]
    assert hand and not any(f'"{card}"' in json.dumps(first["observation"]) for card in hand)


def test_a_finished_match_leaves_the_api_list(web_url: str) -> None:
    created = call(f"{web_url}/api/matches", {"game": "german_whist", "seed": 6, "options": {"max_deals": 1}})
    view, token = created["view"], created["token"]
    assert view["match_id"] in {m["match_id"] for m in listed(web_url, 50)}
    while not view["game_over"]:
        view = call(f"{web_url}/api/matches/{view['match_id']}/act",
                    {"seat": 0, "action": view["legal_actions"][0], "expected_move_number": view["move_number"]},
                    token)["view"]
    assert view["match_id"] not in {m["match_id"] for m in listed(web_url, 50)}


def test_a_bad_page_token_is_refused(web_url: str) -> None:
    request = urllib.request.Request(f"{web_url}/api/matches?page_token=x1")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 400 and "page_token" in json.loads(refused.value.read())["error"]["message"]


def test_the_page_lists_the_live_matches_and_links_each_to_its_watch(web_url: str) -> None:
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: `make install` installs Debian's chromium package")
    from playwright.sync_api import expect, sync_playwright

    created = call(f"{web_url}/api/matches", {"game": "german_whist", "seed": 11, "policy": "random"})
    match_id = created["view"]["match_id"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(base_url=web_url)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(15_000)
        page.goto("/#/live")
        row = page.locator(f"[data-testid=live-matches] tr[data-match='{match_id}']")
        expect(row).to_contain_text("german_whist")
        expect(row).to_contain_text("person, random")
        expect(page.locator("nav a[data-nav=live]")).to_have_class("active")
        row.get_by_role("link", name="watch").click()
        expect(page).to_have_url(f"{web_url}/#/watch/{match_id}")
        expect(page.locator("[data-testid=watch] > [data-move]")).to_have_attribute(
            "data-move", str(created["view"]["move_number"]))
        browser.close()
    assert not errors, f"the page raised: {errors}"
