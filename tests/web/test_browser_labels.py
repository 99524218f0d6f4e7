"""Issue 28's page checks in a real browser (headless Chromium): the seed shown is the replay's to the last digit,
and every game with an auction, declarations, exchanges or special calls reads right at every move: no
``undefined``, ``null``, ``NaN`` or raw internal key on the page (see RAW), every phase shown, deals counted from 1,
the dealer named as the page names seats, the last trick's label true to its cards."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
import redis
from playwright.sync_api import expect
from web_harness import WebServer, screenshot

import engine
import replay
from replay.store import ReplayStore
from services.web.frames import replay_frames

BIG_SEED = 3331525659724964719  # above 2**53: a JSON number would reach the page as 3331525659724965000
SEEDS = range(1, 61)  # the deals looked through for each game's phases and calls, with each of BOTS
BOTS = ("random", "greedy")  # random bots call what greedy ones never would, and greedy ones what random rarely reach
PLAIN_PHASES = {"play", "capture", "over"}  # a fishing game's capture is its card play, not a call
# What must never show where the page means words. A raw internal key is an engine identifier shown as it is: a
# snake_case name (``declaration_points``) or a colon-joined code (``sequence:4:TS``, ``bid:140:C``, ``Seat 1:x``
# glued), or a move's code where its words belong ("declared declare"). The rules' notation of a move is no raw
# key: the page shows it on purpose in the move list and in "last:" (marked with the class ``notation``) and on the
# live table's buttons of legal moves and its log of moves; those are left out of the check.
RAW = {
    "undefined": re.compile(r"\bundefined\b"),
    "null": re.compile(r"\bnull\b"),
    "NaN": re.compile(r"\bNaN\b"),
    "an object": re.compile(r"\[object \w+\]"),
    "a snake_case key": re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b"),
    "a colon-joined code": re.compile(r"[^\s:]:[^\s]"),
    "a choice's code": re.compile(r"\bdeclared (?:no)?declare\b|\bnodeclare\b"),
}

# Step through the viewer in the page: every turn's frame, its visible text without the moves' notation, the
# status line's phase and deal, the dealer's label, and the last trick's label with its cards.
STEP_ALL = """
() => {
  const out = [];
  const count = document.querySelectorAll("[aria-label=moves] li[data-index]").length;
  for (let i = 0; i <= count; i++) {
    if (i) document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    const main = document.getElementById("main").cloneNode(true);
    for (const el of main.querySelectorAll(".notation")) el.remove();
    for (const el of main.querySelectorAll("*")) el.append(" ");  // words of neighbouring elements stay apart
    const status = [...document.querySelectorAll(".felt .status span")].map((s) => s.textContent);
    const trickLabel = [...document.querySelectorAll(".felt .label")].map((l) => l.textContent)
      .find((t) => t.includes("last taken"));
    const lastTrick = trickLabel === undefined ? null
      : document.querySelectorAll(".felt .center .pile:last-child .cards .played").length;
    const result = {};
    for (const dt of document.querySelectorAll(".felt [data-testid=deal-result] dt")) {
      result[dt.textContent] = dt.nextElementSibling.textContent;
    }
    out.push({ text: main.textContent.replace(/\\s+/g, " "), status, trickLabel: trickLabel ?? null, lastTrick, result,
               move: document.querySelector(".felt").dataset.move });
  }
  return out;
}
"""


def raw_words(text: str) -> list[str]:
    """The first of each kind of RAW word in ``text``, with its context."""
    return [f"{what}: {found.group(0)!r} (as in ...{text[max(0, found.start() - 30):found.end() + 10]}...)"
            for what, pattern in RAW.items() for found in [pattern.search(text)] if found]


# The observation keys of calls: auctions, exchanges, declarations, trump choices, doublings, special calls.
CALLS = ("declarations", "exchanges", "auction", "choice", "doubling", "jodi", "double", "kanak", "roem", "declared")


def games_with_calls() -> list[str]:
    """The games whose deals have more phases than play (auctions, exchanges, trump choices, special calls), as
    the registry says."""
    return [g for g in engine.list_games() if set(engine.game_info(g).phases) - PLAIN_PHASES]


def covering_deals(game: str) -> list[bytes]:
    """Few recorded deals of ``game`` that together reach every phase its deals reach in SEEDS with BOTS and any
    number of players (Thunee's trip is for 6), and each kind of call (a declaration, an exchange, Thunee's jodi,
    Boonaken's roem...) where the game has them."""
    wanted: set[str] = set()
    found: list[tuple[set[str], bytes]] = []
    for players, bots, seed in itertools.product(engine.game_info(game).player_counts, BOTS, SEEDS):
        data = replay.record_deal(game, seed=seed, players=players, policies=[bots] * players)
        frames = replay_frames(data, "probe/0", None)["frames"]
        reached = {f"phase {f['phase']}" for f in frames}
        for key in CALLS:
            if any(f.get(key) not in (None, 0) and (not isinstance(f[key], list) or any(f[key])) for f in frames):
                reached.add(key)
        wanted |= reached
        found.append((reached, data))
    chosen: list[bytes] = []
    covered: set[str] = set()
    while covered != wanted:
        reached, data = max(found, key=lambda item: len(item[0] - covered))
        chosen.append(data)
        covered |= reached
    return chosen


@pytest.fixture(scope="module")
def stored(web_server: WebServer) -> Iterator[dict[str, Any]]:
    """The replays of this module in a collection of their own: the big-seed deal, and each game's covering deals."""
    calls = {game: covering_deals(game) for game in games_with_calls()}
    data = [replay.record_deal("belote", seed=BIG_SEED), *(d for deals in calls.values() for d in deals)]
    with redis.Redis.from_url(web_server.redis_url) as client:
        store = ReplayStore(client)
        collection = f"{web_server.collection}-labels"
        ids = [f"{collection}/{index}" for index in store.add(collection, data)]
        yield {"big": ids[0], "calls": dict(zip(ids[1:], data[1:], strict=True))}
        store.delete_collection(collection)


def test_the_registry_names_the_games_with_calls() -> None:
    assert games_with_calls() == ["belote", "belote_contree", "boonaken", "botifarra", "thunee", "trappola"]


def test_the_seed_shown_is_the_replays_exactly(page: Any, stored: dict[str, Any]) -> None:
    page.goto(f"/#/replay/{stored['big']}")
    expect(page.get_by_test_id("seed")).to_have_text(str(BIG_SEED))
    collection = stored["big"].split("/")[0]
    page.goto(f"/#/?collection={collection}")
    expect(page.locator(f"tr[data-replay='{stored['big']}'] td").last).to_have_text(str(BIG_SEED))


def test_a_big_seed_typed_in_the_new_game_form_deals_that_seeds_cards(page: Any) -> None:
    page.goto("/#/play")
    page.select_option("select[aria-label=game]", "belote")
    page.fill("input[aria-label=seed]", str(BIG_SEED))
    page.click("[data-testid=start]")
    page.locator("[data-testid=live]").wait_for()
    hand = page.locator(".seat.me .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    assert hand == engine.new_match("belote", seed=BIG_SEED).observation(0)["hand"]


def step_problems(step: dict[str, Any], frame: dict[str, Any], seat_name: Callable[[int], str]) -> list[str]:
    """What is wrong with one step of the viewer, against the frame the API gave for it."""
    problems = raw_words(step["text"])
    status = " | ".join(step["status"])
    if f"deal {frame['deal_index'] + 1}" not in status:
        problems.append(f"the status says {status!r} in deal {frame['deal_index'] + 1}")
    if frame["phase"] != "over" and f"phase {frame['phase']}" not in status:
        problems.append(f"phase {frame['phase']!r} not shown in {status!r}")
    if status.count("over") > 1:
        problems.append(f"{status!r} says over twice")
    if f"dealer {seat_name(frame['dealer'])}" not in status:
        problems.append(f"the dealer is not named as the seats are: {status!r}")
    if "deal_result" in frame and step["result"].get("dealer") != seat_name(frame["deal_result"]["dealer"]):
        problems.append(f"the deal result's dealer is {step['result'].get('dealer')!r}")
    if step["trickLabel"] is not None:
        tricks = frame["tricks"]
        if step["trickLabel"] != f"trick {len(tricks)}, the last taken" or step["lastTrick"] != len(tricks[-1]):
            problems.append(f"{step['trickLabel']!r} over {step['lastTrick']} cards, {len(tricks)} tricks taken, "
                            f"the last of {len(tricks[-1])} cards")
    return problems


def test_every_game_with_calls_reads_right_at_every_move(page: Any, stored: dict[str, Any]) -> None:
    """Each game's covering deals stepped through move by move, from all seats and from one seat."""
    problems: dict[str, str] = {}  # what is wrong -> the first move where it shows
    for replay_id, data in stored["calls"].items():
        header = replay.decode(data).header

        def seat_name(seat: int, policies: Sequence[str] = header.policies) -> str:
            return f"Seat {seat} ({policies[seat]})"  # as the viewer names seats

        for query, seat in (("", None), ("?seat=1", 1)):
            shown = replay_frames(data, replay_id, seat)
            page.goto(f"/#/replay/{replay_id}{query}")
            # this replay's view from this seat, not the last one's
            expect(page.locator("h1")).to_have_text(f"{engine.game_info(header.game).name} \u2014 {replay_id}")
            expect(page.locator("select[aria-label=perspective]")).to_have_value("" if seat is None else str(seat))
            steps = page.evaluate(STEP_ALL)
            assert len(steps) == len(shown["frames"]), header.game
            for step, frame in zip(steps, shown["frames"], strict=True):
                for problem in step_problems(step, frame, seat_name):
                    what = problem.split(" (as in ")[0]  # one line per kind of problem, with its first context
                    problems.setdefault(f"{header.game}{query}: {what}",
                                        f"{problem}, move {step['move']} of {replay_id}")
        screenshot(page, f"labels-{header.game}")
    assert not problems, "\n".join(f"{what} (first: {first})" for what, first in problems.items())


# The live table's text without the moves' notation: the log of moves and the buttons of the legal moves.
LIVE_TEXT = """
() => {
  const main = document.getElementById("main").cloneNode(true);
  for (const el of main.querySelectorAll(".log, .actions, .chooser, .notation")) el.remove();
  for (const el of main.querySelectorAll("*")) el.append(" ");  // words of neighbouring elements stay apart
  return { text: main.textContent.replace(/\\s+/g, " "),
           status: [...document.querySelectorAll(".felt .status span")].map((s) => s.textContent).join(" | ") };
}
"""


def start_live(page: Any, game: str, seed: int, options: dict[str, str]) -> Any:
    """A new live match against the bots from the page's form; returns the live table."""
    page.goto("/#/play")
    page.select_option("select[aria-label=game]", game)
    for name, value in options.items():
        page.locator(f"[data-option={name}]").fill(value)
    page.fill("input[aria-label=seed]", str(seed))
    page.click("[data-testid=start]")
    live = page.locator("[data-testid=live]")
    live.wait_for()
    return live


def test_a_refused_click_names_the_deal_the_table_shows(page: Any) -> None:
    """The engine's refusal counts deals as the page does: deal 1, not its deal_index 0."""
    start_live(page, "belote_contree", 3, {})  # the person's first move is a bid: no card is legal yet
    page.locator(".seat.me button.card").first.click()
    expect(page.get_by_test_id("error")).to_contain_text("(belote_contree deal 1, auction, seat 0 to act)")
    assert "deal 1" in page.evaluate(LIVE_TEXT)["status"]


def test_the_live_table_reads_right_at_every_move(page: Any) -> None:
    """A Belote deal (an auction, declarations) played by clicking: the table reads right at every move (RAW, and
    "over" said once)."""
    live = start_live(page, "belote", 5, {"max_deals": "1"})
    problems: dict[str, int] = {}
    for _ in range(200):
        shown = page.evaluate(LIVE_TEXT)
        for word in raw_words(shown["text"]):
            problems.setdefault(word, int(live.get_attribute("data-move")))
        if shown["status"].count("over") > 1:
            problems.setdefault(f"{shown['status']!r} says over twice", int(live.get_attribute("data-move")))
        if live.get_attribute("data-over") == "true":
            break
        before = live.get_attribute("data-move")
        page.locator("[data-action], .seat.me button.card[data-choices]").first.click()
        page.wait_for_function("b => document.querySelector('[data-testid=live]').dataset.move !== b", arg=before)
    assert live.get_attribute("data-over") == "true"
    screenshot(page, "labels-live-belote-over")
    assert not problems, "\n".join(f"{what} (first at move {move})" for what, move in problems.items())
