"""The web live table reads and takes whole turns (issue 28): a fishing capture is shown and played as the rules
files write it (``AD:7H,4S``), never as the engine's steps (``AD:``, ``+7H``, ``+4S``), in the seat's choices, the
move list and a spectator's move list; the whole turn is played in one go, and an illegal one changes nothing and
names the legal turns. Over the API (in-process, as tests/web/test_api.py) and in a real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from starlette.testclient import TestClient
from test_api import act, events_of, new_match, observe, refused
from test_browser import live, move_number, post, start_game
from web_harness import ANALYSIS_NODES, WebServer, screenshot

from services.web.app import create_app

STEP = re.compile(r"(^|: )\+|:$|(^|: )(next|done)$")  # an engine step as a move list would show it


@pytest.fixture(scope="module")
def client(web_server: WebServer) -> Iterator[TestClient]:
    with TestClient(create_app(web_server.redis_url, analysis_nodes=ANALYSIS_NODES)) as test_client:
        yield test_client


# ---- the API ----------------------------------------------------------------------------------------------------

def test_a_seat_is_offered_whole_turns_and_plays_one_in_one_go(client: TestClient) -> None:
    created = new_match(client, game="tablanette", seed=42, policy="random")
    view = created["view"]
    assert view["current_player"] == 0 and "AD:" in view["legal_actions"]  # the engine's steps, for programs
    assert view["legal_turns"] == ["3C", "9D:7H,2S", "AD:7H,4S", "AS:7H,4S", "QC:7H,2S,4S", "QD:7H,2S,4S"]
    acted = act(client, created, "AD:4S,7H")  # its cards in any order
    assert acted.status_code == 200, acted.text
    moves = acted.json()["moves"]
    assert [m["action"] for m in moves[:3]] == ["AD:", "+7H", "+4S"]  # the whole turn, as its steps
    after = acted.json()["view"]
    assert after["current_player"] == 0 and after["legal_turns"]
    assert not [t for t in after["legal_turns"] if t.endswith(":") or t.startswith("+")]


def test_an_illegal_whole_turn_changes_nothing_and_names_the_legal_turns(client: TestClient) -> None:
    created = new_match(client, game="tablanette", seed=42, policy="random")
    before = observe(client, created)
    refused(act(client, created, "AD:7H"), "INVALID_ARGUMENT", "illegal action 'AD:7H'",
            "legal turns: [3C, 9D:7H,2S, AD:7H,4S, AS:7H,4S, QC:7H,2S,4S, QD:7H,2S,4S]")
    assert observe(client, created) == before


def test_a_capture_begun_in_steps_is_finished_by_its_whole_turn(client: TestClient) -> None:
    created = new_match(client, game="tablic", seed=4, policy="random")
    acted = act(client, created, "4H:")  # a program playing the steps
    assert acted.status_code == 200, acted.text
    view = acted.json()["view"]
    assert view["legal_actions"] == ["+4D", "+4S"] and view["legal_turns"] == ["4H:4D", "4H:4D,4S", "4H:4S"]
    acted = act(client, {**created, "view": view}, "4H:4S,4D")
    assert acted.status_code == 200, acted.text
    assert [m["action"] for m in acted.json()["moves"][:2]] == ["+4D", "+4S"]


def test_a_spectator_has_no_turns_to_choose(client: TestClient) -> None:
    created = new_match(client, game="tablanette", seed=42)
    with client.stream("GET", f"/api/matches/{created['view']['match_id']}/events") as stream:
        name, snapshot = next(events_of(stream.iter_lines()))
    assert name == "snapshot" and snapshot["view"]["legal_turns"] == [] == snapshot["view"]["legal_actions"]


# ---- the page ---------------------------------------------------------------------------------------------------

def shown_moves(page: Any, label: str) -> list[str]:
    return page.locator(f"[aria-label='{label}'] li").all_inner_texts()


def test_the_live_table_shows_and_plays_whole_turns(page: Any, web_server: WebServer) -> None:
    start_game(page, "tablic", seed=4)
    card = page.locator(".seat.me button.card[data-card='4H']")
    expect(card).to_have_attribute("data-choices", "4")
    before = move_number(page)
    card.click()
    choices = page.locator("[data-testid=chooser] [data-action]")
    assert [choices.nth(i).get_attribute("data-action") for i in range(choices.count())] == [
        "4H", "4H:4D", "4H:4D,4S", "4H:4S"]
    expect(page.get_by_test_id("chooser")).to_contain_text("4\u2665:4\u2666,4\u2660")
    page.locator("[data-testid=chooser] [data-action='4H:4D,4S']").click()
    page.wait_for_function("before => document.querySelector('[data-testid=live]').dataset.move !== before",
                           arg=str(before))
    moves = shown_moves(page, "recent moves")
    assert "you: 4\u2665:4\u2666,4\u2660" in moves, moves
    assert not [m for m in moves if STEP.search(m)], moves
    mine = page.locator("[aria-label='recent moves'] li", has_text="you: 4\u2665:4\u2666,4\u2660")
    assert (mine.get_attribute("data-first"), mine.get_attribute("data-last")) == (str(before + 1), str(before + 3))
    screenshot(page, "live-whole-turns")


def test_a_card_with_one_whole_turn_plays_it_with_one_click(page: Any, web_server: WebServer) -> None:
    start_game(page, "tablanette", seed=42)
    card = page.locator(".seat.me button.card[data-card='AD']")
    expect(card).to_have_attribute("data-action", "AD:7H,4S")
    card.click()
    expect(page.locator("[aria-label='recent moves'] li").first).to_have_text("you: A\u2666:7\u2665,4\u2660")
    assert live(page).get_attribute("data-move") != "0"


def test_a_spectator_reads_whole_turns(page: Any, web_server: WebServer) -> None:
    created = post(f"{web_server.url}/api/matches", {"game": "tablanette", "seed": 42})
    view, token = created["view"], created["token"]
    page.goto(f"/#/watch/{view['match_id']}")
    board = page.locator("[data-testid=watch] > [data-move]")
    expect(board).to_have_attribute("data-move", str(view["move_number"]))
    acted = post(f"{web_server.url}/api/matches/{view['match_id']}/act",
                 {"seat": 0, "action": "AD:7H,4S", "expected_move_number": view["move_number"]}, token)
    expect(board).to_have_attribute("data-move", str(acted["view"]["move_number"]))
    moves = shown_moves(page, "moves")
    assert moves[0] == "S0: A\u2666:7\u2665,4\u2660", moves
    assert len(moves) < len(acted["moves"]) and not [m for m in moves if STEP.search(m)], moves


def test_a_capture_begun_in_steps_is_finished_on_the_page_by_a_whole_turn(page: Any, web_server: WebServer) -> None:
    """A program (or another tab) began the capture with its first step: the page shows it being decided and offers
    the whole turns that finish it."""
    match_id = start_game(page, "tablic", seed=4)
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('cardtable.match.{match_id}'))")
    before = move_number(page)
    acted = post(f"{web_server.url}/api/matches/{match_id}/act",
                 {"seat": 0, "action": "4H:", "expected_move_number": before}, stored["token"])
    assert acted["view"]["legal_turns"] == ["4H:4D", "4H:4D,4S", "4H:4S"]
    page.reload()
    expect(live(page)).to_have_attribute("data-move", str(before + 1))
    expect(page.locator("[aria-label='recent moves'] li").last).to_have_text("you: 4\u2665: \u2026")
    buttons = page.locator("[aria-label='other moves'] [data-action]")
    assert [buttons.nth(i).get_attribute("data-action") for i in range(buttons.count())] == [
        "4H:4D", "4H:4D,4S", "4H:4S"]
    page.locator("[aria-label='other moves'] [data-action='4H:4D,4S']").click()
    expect(page.locator("[aria-label='recent moves'] li", has_text="you: 4\u2665:4\u2666,4\u2660")).to_have_count(1)
    assert not [m for m in shown_moves(page, "recent moves") if STEP.search(m)]
