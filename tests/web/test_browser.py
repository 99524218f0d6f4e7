"""The page in a real browser (headless Chromium): watch a replay to its end, play live matches against the bots by
clicking legal moves, have an illegal click refused, reload in the middle of a match. Each test saves a screenshot
under build/web/."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
import redis.asyncio
from forged import REASONS, store_one_bad_replay
from playwright.sync_api import expect
from web_harness import ANALYSIS_NODES, WebServer, screenshot, serve_in_thread

import engine
import replay
from replay.analysis import analyze
from replay.store import ReplayStore
from services.cli.web import allowed_hosts
from services.match_store import MatchStore
from services.web.app import create_app
from workers.chunk import play_chunk
from workers.jobstore import RUNNING, SUCCEEDED, JobStore
from workers.plan import job_chunks
from workers.spec import JobSpec, validate
from workers.stats import side_seats, summarize, total

MAX_CLICKS = 2000  # far above the moves a person makes in any of these matches


def live(page: Any) -> Any:
    return page.locator("[data-testid=live]")


def move_number(page: Any) -> int:
    return int(live(page).get_attribute("data-move"))


def start_game(page: Any, game: str, options: dict[str, str] | None = None, seed: int = 1) -> str:
    """Fill in the new-game form and start; returns the match id (from the page's address)."""
    page.goto("/#/play")
    page.select_option("select[aria-label=game]", game)
    for name, value in (options or {}).items():
        page.locator(f"[data-option={name}]").fill(value)
    page.fill("input[aria-label=seed]", str(seed))
    page.click("[data-testid=start]")
    live(page).wait_for()
    return page.url.rsplit("/", 1)[1]


def click_legal(page: Any) -> None:
    """Click the first legal move (a card, a button or a capture's choice) and wait for the match to move on."""
    before = live(page).get_attribute("data-move")
    legal = page.locator("[data-action], .seat.me button.card[data-choices]").first
    legal.click()
    chooser = page.locator("[data-testid=chooser] [data-action]")
    if chooser.count():
        chooser.first.click()
    page.wait_for_function("before => document.querySelector('[data-testid=live]').dataset.move !== before", arg=before)


def play_to_the_end(page: Any) -> int:
    """Click legal moves until the match is over; returns how many deal results the page showed on the way."""
    deals_shown = 0
    for _ in range(MAX_CLICKS):
        if live(page).get_attribute("data-over") == "true":
            return deals_shown
        click_legal(page)
        deals_shown += page.get_by_test_id("deal-result").count()
    raise AssertionError(f"the match was not over after {MAX_CLICKS} clicks")


def finished_replay(web_server: WebServer, page: Any) -> replay.Replay:
    """The replay the page links to once the match is over, decoded from the store."""
    link = page.locator("[data-testid=over] a[href^='#/replay/']")
    replay_id = link.get_attribute("href").removeprefix("#/replay/")
    with redis.Redis.from_url(web_server.redis_url) as client:
        return replay.decode(ReplayStore(client).get(replay_id))


def shown_scores(page: Any, where: str) -> list[int]:
    return json.loads(page.locator(f"{where} [data-testid=scores]").get_attribute("data-scores"))


def test_replay_viewer_steps_to_the_final_score(page: Any, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/0"
    expected = replay.decode(web_server.replays[replay_id])
    page.goto(f"/#/replay/{replay_id}")
    page.locator("[aria-label=moves] li[data-index]").first.wait_for()
    turns = page.locator("[aria-label=moves] li[data-index]").count()
    assert turns == len(expected.moves)  # Belote contrée: one turn per move
    for _ in range(turns):
        page.keyboard.press("ArrowRight")
    assert shown_scores(page, "[data-testid=final]") == expected.scores
    assert page.get_by_test_id("position").inner_text().startswith(f"move {len(expected.moves)} of ")
    # every move in the rules' notation, in order
    actions = page.locator("[aria-label=moves] li[data-index] .action").all_inner_texts()
    assert actions == [action for _, action in expected.moves]
    screenshot(page, "replay-viewer-end")


def test_replay_viewer_plays_at_a_pace(page: Any, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/2"  # German Whist: 26 tricks of two cards
    expected = replay.decode(web_server.replays[replay_id])
    page.goto(f"/#/replay/{replay_id}")
    page.select_option("select[aria-label=pace]", "80")
    page.get_by_role("button", name="play").click()
    expect(page.get_by_test_id("final").get_by_test_id("scores")).to_have_attribute(
        "data-scores", json.dumps(expected.scores, separators=(",", ":")), timeout=30_000)
    assert page.get_by_test_id("position").inner_text().startswith(f"move {len(expected.moves)} of ")


def test_the_viewer_shows_a_deal_of_every_game_to_its_score(page: Any, web_server: WebServer) -> None:
    for replay_id, data in list(web_server.replays.items())[4:]:
        expected = replay.decode(data)
        page.goto(f"/#/replay/{replay_id}")  # the same page: wait for this replay's viewer, not the last one's
        name = engine.game_info(expected.header.game).name
        expect(page.locator("h1")).to_have_text(f"{name} \u2014 {replay_id}")
        page.keyboard.press("End")
        assert shown_scores(page, "[data-testid=final]") == expected.scores, expected.header.game
        expect(page.get_by_test_id("deal-result")).to_be_visible()
        page.keyboard.press("Home")
        assert page.locator(".seat .card:not(.back)").count() > 0  # every hand, face up
    screenshot(page, "replay-viewer-last-game-start")


def test_replay_viewer_jumps_by_the_move_list_and_keeps_a_permalink(page: Any, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/1"  # Tablanette: a capture's decisions are one turn
    page.goto(f"/#/replay/{replay_id}")
    item = page.locator("[aria-label=moves] li[data-index]").nth(9)
    target = item.get_attribute("data-move")
    item.click()
    assert "current" in item.get_attribute("class")
    permalink = page.get_by_test_id("permalink").get_attribute("href")
    assert permalink == f"#/replay/{replay_id}?move={target}"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    assert "current" in item.get_attribute("class")
    # the permalink opens the viewer at that move, from one seat's view: the other hand is face down
    page.goto(f"/{permalink}&seat=0")
    page.reload()
    assert "current" in page.locator(f"[aria-label=moves] li[data-move='{target}']").get_attribute("class")
    assert page.locator(".seat[data-seat='1'] .card.back").count() > 0
    assert page.locator(".seat[data-seat='1'] .card:not(.back)").count() == 0
    assert page.locator(".seat[data-seat='0'] .card:not(.back)").count() > 0
    screenshot(page, "replay-viewer-seat-view")


def check_marks(page: Any, report: dict[str, Any]) -> None:
    """The move list marks each card the analysis lists, and no other move, with its loss ("best" for none) or as
    not analysed; the turning points, and only they, are marked so."""
    losses = page.locator("[aria-label=moves] li[data-index] .loss")
    expect(losses).to_have_count(len(report["moves"]))  # every card played: a figure, or "not analysed"
    for m in report["moves"]:
        mark = page.locator(f"[aria-label=moves] li[data-move='{m['move']}'] .loss")
        if m["status"] == "exact":
            assert mark.get_attribute("data-loss") == str(m["loss"]), m
            assert mark.inner_text() == ("best" if m["loss"] == 0 else f"\u2212{m['loss']}"), m
            turning = page.locator(f"[aria-label=moves] li.turning[data-move='{m['move']}']").count() == 1
            assert turning == (m["loss"] > 0), m
        else:
            assert mark.get_attribute("data-loss") is None and "not analysed" in mark.get_attribute("title"), m
    assert page.locator("[aria-label=moves] li.turning").count() == len(report["turning_points"])


def test_the_viewer_marks_each_cards_loss_from_the_analysis(page: Any, web_server: WebServer) -> None:
    """German Whist: the replay shows at once, its analysis follows; the marked losses are the analysis' figures,
    the turning points are marked, the cards before the exact part say they were not analysed."""
    replay_id = f"{web_server.collection}/2"
    report = analyze(web_server.replays[replay_id], max_nodes=ANALYSIS_NODES)
    page.goto(f"/#/replay/{replay_id}")
    check_marks(page, report)
    worst = next(m for m in report["moves"] if m["move"] == report["turning_points"][0])
    item = page.locator(f"[aria-label=moves] li[data-move='{worst['move']}']")
    assert item.locator(".loss").inner_text() == f"\u2212{worst['loss']}"
    assert "turning" in item.get_attribute("class")
    points = page.get_by_test_id("turning-points").locator("a")
    assert points.count() == len(report["turning_points"])
    points.first.click()  # jumps to the costliest card, whose values show
    assert "current" in item.get_attribute("class")
    expect(page.get_by_test_id("move-analysis")).to_contain_text(
        f"S{worst['seat']} {worst['card']}: {worst['value']} of the best {worst['best']}")
    trick_word = "trick" if worst["loss"] == 1 else "tricks"
    assert page.get_by_test_id("verdict").inner_text() == f"lost {worst['loss']} {trick_word}"
    screenshot(page, "replay-viewer-analysis")


def test_a_belote_contree_deal_is_analysed_after_its_auction(page: Any, web_server: WebServer) -> None:
    replay_id = f"{web_server.collection}/0"
    report = analyze(web_server.replays[replay_id], max_nodes=ANALYSIS_NODES)
    page.goto(f"/#/replay/{replay_id}")
    check_marks(page, report)
    first_card = report["moves"][0]["move"]
    assert first_card > 1  # the bids before it carry no mark
    bids = page.locator("[aria-label=moves] li[data-index]").evaluate_all(
        f"items => items.filter(li => Number(li.dataset.move) < {first_card} && li.querySelector('.loss')).length")
    assert bids == 0
    expect(page.get_by_test_id("analysis")).to_contain_text(f"Exact from move {report['exact_from_move']}")
    assert "card points" in page.get_by_test_id("analysis").inner_text()


def test_a_fishing_game_shows_no_analysis_and_no_error(page: Any, web_server: WebServer) -> None:
    page.goto(f"/#/replay/{web_server.collection}/1")  # Tablanette
    page.locator("[aria-label=moves] li[data-index]").first.wait_for()
    page.keyboard.press("End")
    expect(page.get_by_test_id("final")).to_contain_text("Final score")
    assert page.get_by_test_id("analysis").count() == 0
    assert page.locator("[aria-label=moves] .loss").count() == 0
    assert page.get_by_test_id("error").count() == 0


def test_replay_list_pages_to_a_replay(page: Any, web_server: WebServer) -> None:
    page.goto(f"/#/?collection={web_server.collection}")
    rows = page.locator("tr[data-replay]")
    rows.first.wait_for()
    assert rows.count() == min(len(web_server.replays), 25)  # a page
    if len(web_server.replays) > 25:
        page.get_by_role("button", name="Next page").click()
        expect(rows).to_have_count(len(web_server.replays) - 25)
        page.get_by_role("button", name="First page").click()
        expect(rows).to_have_count(min(len(web_server.replays), 25))
    rows.nth(3).click()
    page.get_by_test_id("permalink").wait_for()
    assert page.url.endswith(f"#/replay/{web_server.collection}/3?move=0")


def test_the_replay_list_marks_a_forged_replay_and_lists_the_others(page: Any, web_server: WebServer) -> None:
    store = ReplayStore(redis.Redis.from_url(web_server.redis_url))
    collection = f"{web_server.collection}-forged"
    stored = store_one_bad_replay(store, collection, "forged")
    try:
        page.goto(f"/#/?collection={collection}")
        expect(page.locator("tr[data-replay]")).to_have_count(len(stored.good))
        marked = page.locator("tr[data-unreadable]")
        expect(marked).to_have_count(1)
        expect(marked).to_contain_text(f"{stored.bad_id}unreadable: {REASONS['forged']}")
    finally:
        store.delete_collection(collection)
        store.redis.close()


def test_play_a_whole_tablanette_match(page: Any, web_server: WebServer) -> None:
    start_game(page, "tablanette", seed=4)
    deals_shown = play_to_the_end(page)
    finished = finished_replay(web_server, page)
    assert finished.final.is_terminal
    assert deals_shown == len(finished.deal_results) > 1  # each deal's result, shown once as it ended
    assert shown_scores(page, "[data-testid=over]") == finished.scores
    screenshot(page, "live-tablanette-over")


def test_play_a_belote_contree_deal(page: Any, web_server: WebServer) -> None:
    start_game(page, "belote_contree", options={"num_deals": "1"}, seed=9)
    assert play_to_the_end(page) == 1
    finished = finished_replay(web_server, page)
    assert len(finished.deal_results) == 1
    assert shown_scores(page, "[data-testid=over]") == finished.scores
    screenshot(page, "live-belote-contree-over")


def engine_refusal(web_server: WebServer, match_id: str, action: str) -> str:
    """The engine's message for ``action`` in the stored match (what the page must show)."""

    async def stored() -> dict[str, Any]:
        client = redis.asyncio.Redis.from_url(web_server.redis_url, decode_responses=True)
        try:
            found = await MatchStore(client).load(match_id, with_log=False)
        finally:
            await client.aclose()
        assert found is not None
        return found.position

    with ThreadPoolExecutor(1) as thread:  # Playwright's loop runs in this thread
        position = thread.submit(asyncio.run, stored()).result()
    state = engine.from_position("belote_contree", position)
    with pytest.raises(engine.IllegalAction) as refused:
        state.action_ids(action)
    return str(refused.value)


def test_an_illegal_click_is_refused_with_the_engines_message(page: Any, web_server: WebServer) -> None:
    match_id = start_game(page, "belote_contree", seed=3)  # the person's first move is a bid: no card is legal yet
    before = move_number(page)
    hand = page.locator(".seat.me button.card")
    card = hand.first.get_attribute("data-card")
    assert hand.first.get_attribute("data-action") is None
    hand.first.click()
    message = page.get_by_test_id("error")
    message.wait_for()
    assert message.inner_text() == f"INVALID_ARGUMENT: {engine_refusal(web_server, match_id, card)}"
    assert move_number(page) == before  # nothing changed
    assert page.locator(".seat.me button.card").count() == 8
    screenshot(page, "live-illegal-click")
    click_legal(page)  # and the match goes on
    assert move_number(page) > before


def test_reload_keeps_the_game(page: Any, web_server: WebServer) -> None:
    match_id = start_game(page, "german_whist", seed=2)
    for _ in range(3):
        click_legal(page)
    before = move_number(page)
    hand = page.locator(".seat.me .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    page.reload()
    live(page).wait_for()
    assert page.url.endswith(f"#/play/{match_id}")
    assert move_number(page) == before
    assert page.locator(".seat.me .card").evaluate_all("cards => cards.map(c => c.dataset.card)") == hand
    screenshot(page, "live-after-reload")
    click_legal(page)
    assert move_number(page) > before


def test_a_job_shows_its_progress_live_then_its_results_and_plot(page: Any, web_server: WebServer) -> None:
    """A job played here chunk by chunk, as its driver would: the list follows it without a reload."""
    spec = validate(JobSpec("tablic", ("greedy", "random"), 40, seed=1, chunk_size=20))
    with redis.Redis.from_url(web_server.redis_url) as client:
        store = JobStore(client)
        record = store.create(spec)
        page.goto("/#/jobs")
        row = page.locator(f"tr[data-job='{record.job_id}']")
        expect(row).to_contain_text("queued")
        expect(row).to_contain_text("0/40")
        chunks = list(job_chunks(spec))
        store.set_state(record.job_id, RUNNING, started=time.time())
        done = [play_chunk(spec, chunks[0])]
        store.save_chunk(record.job_id, done[0])
        expect(row).to_contain_text("running")
        expect(row).to_contain_text("20/40")
        done += [play_chunk(spec, chunk) for chunk in chunks[1:]]
        for result in done[1:]:
            store.save_chunk(record.job_id, result)
        results = summarize(spec, total(done, len(side_seats(spec))), 1.0)
        store.set_state(record.job_id, SUCCEEDED, finished=time.time(), results=results)
        expect(row).to_contain_text("succeeded")
        expect(row).to_contain_text("40/40")
    row.click()
    table = page.get_by_test_id("results")
    for side in results["sides"]:
        expect(table).to_contain_text(f"{side['mean']:.2f}")
        expect(table).to_contain_text(f"{side['win_rate']:.3f}")
    plot = page.locator("img.plot")
    page.wait_for_function("() => document.querySelector('img.plot').naturalWidth > 0")
    assert plot.bounding_box()["width"] > 100
    screenshot(page, "jobs-results")


def post(url: str, body: dict[str, Any], token: str = "") -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", "x-seat-token": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def test_a_spectator_follows_a_live_match(page: Any, web_server: WebServer) -> None:
    created = post(f"{web_server.url}/api/matches", {"game": "german_whist", "seed": 6})
    view, token = created["view"], created["token"]
    page.goto(f"/#/watch/{view['match_id']}")
    board = page.locator("[data-testid=watch] > [data-move]")
    expect(board).to_have_attribute("data-move", str(view["move_number"]))
    for _ in range(3):
        acted = post(f"{web_server.url}/api/matches/{view['match_id']}/act",
                     {"seat": 0, "action": view["legal_actions"][0], "expected_move_number": view["move_number"]},
                     token)
        view = acted["view"]
        expect(board).to_have_attribute("data-move", str(view["move_number"]))  # pushed, not reloaded
    expect(page.locator("[aria-label=moves] li")).to_have_count(view["move_number"] - created["view"]["move_number"])
    assert page.locator(".seat .card:not(.back)").count() == 0  # nobody's hand is shown to a spectator
    screenshot(page, "live-spectator")


def test_the_page_asks_for_the_api_key_once(browser: Any, web_server: WebServer) -> None:
    server, thread, port = serve_in_thread(create_app(web_server.redis_url, api_key="s3cret",
                                                      allowed_hosts=allowed_hosts("127.0.0.1")))
    context = browser.new_context(viewport={"width": 412, "height": 915}, base_url=f"http://127.0.0.1:{port}")
    try:
        page = context.new_page()
        page.goto(f"/#/?collection={web_server.collection}")
        form = page.locator("#api-key-form")
        expect(form).to_be_visible()
        expect(page.get_by_test_id("error")).to_contain_text("UNAUTHENTICATED: missing API key")
        form.locator("input").fill("s3cret")
        form.locator("button").click()
        expect(form).to_be_hidden()
        expect(page.locator("tr[data-replay]").first).to_be_visible()
        page.goto("/#/jobs")  # the jobs' event stream carries the key too
        expect(page.locator("tr[data-job], td.muted").first).to_be_visible()
        page.reload()  # the key is remembered
        expect(page.locator("tr[data-job], td.muted").first).to_be_visible()
        expect(form).to_be_hidden()
        screenshot(page, "api-key-jobs")
    finally:
        context.close()
        server.should_exit = True
        thread.join(timeout=15)
