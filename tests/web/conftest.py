"""Fixtures of the web tests: the web app on a free loopback port (over the suite's Redis and the run's key
namespace), replays seeded into a collection of its own, and one headless Chromium for the browser tests (Debian's,
driven by Playwright; they skip when it is not installed)."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from replay.store import ReplayStore
from services.protogen import ensure_generated

ensure_generated()  # the web app reads jobs through the simulation service's helpers, which import the stubs

from web_harness import CHROMIUM, CHROMIUM_ARGS, WebServer, seeded_replays, serve_in_thread  # noqa: E402

from services.cli.web import allowed_hosts  # noqa: E402
from services.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def web_server(redis_url: str) -> Iterator[WebServer]:
    """The web app on a free port while a module's tests run (no server thread is left for the tests after)."""
    client = redis.Redis.from_url(redis_url)
    store = ReplayStore(client)
    collection = f"webtest-{secrets.token_hex(4)}"
    data = seeded_replays()
    indexes = store.add(collection, data)
    server, thread, port = serve_in_thread(create_app(redis_url, allowed_hosts=allowed_hosts("127.0.0.1")))
    try:
        yield WebServer(f"http://127.0.0.1:{port}", redis_url, collection,
                        {f"{collection}/{i}": d for i, d in zip(indexes, data, strict=True)})
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the browser tests (all in one module). Not session scope: while Playwright's sync API is
    open, this thread has a running event loop, and a later test's asyncio.run would fail."""
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: `make install` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, web_server: WebServer) -> Iterator[Any]:
    """A fresh page (its own storage) on a phone-sized screen; a script error on the page, or a request to any other
    host than cardtable's, fails the test."""
    context = browser.new_context(viewport={"width": 412, "height": 915}, base_url=web_server.url)
    page = context.new_page()
    errors: list[str] = []
    elsewhere: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: None if request.url.startswith((f"{web_server.url}/", "data:", "blob:"))
            else elsewhere.append(request.url))
    page.set_default_timeout(15_000)
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"
    assert not elsewhere, f"the page asked another host: {elsewhere}"


