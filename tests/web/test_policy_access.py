"""Issue 27's import attacks on the web API: the live table's bot names only a policy the operator allowed (HTTP 400
otherwise, naming the allowed sources, nothing imported), an allowed module that raises as it is imported is a 400
naming what it raised, and ``cardtable web`` never imports from its working folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from planted import PACKAGE, evil_module
from starlette.testclient import TestClient
from web_harness import ANALYSIS_NODES, CARDTABLE, free_port, serve_in_thread, wait_until_answering

from services.app.allowed_policies import PolicyAllowList
from services.web.app import create_app

pytestmark = pytest.mark.usefixtures("user_policies")
ALLOWED = PolicyAllowList(("mybots", f"{PACKAGE}.exits", f"{PACKAGE}.interrupts"))
BUILT_IN = "the policies are greedy, ismcts, pimc, random (built in)"


def post_match(base: str, policy: str) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"game": "tablanette", "policy": policy, "seed": 3}).encode()
    request = urllib.request.Request(f"{base}/api/matches", data=body, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def refusal(base: str, policy: str) -> str:
    status, body = post_match(base, policy)
    assert status == 400 and body["error"]["code"] == "INVALID_ARGUMENT", body
    return body["error"]["message"]


def assert_serving(base: str) -> None:
    with urllib.request.urlopen(f"{base}/api/games", timeout=30) as response:
        assert response.status == 200 and "tablanette" in [game["id"] for game in json.loads(response.read())]


@pytest.fixture(scope="module")
def web(redis_url: str) -> Iterator[str]:
    """The web app allowing mybots and two planted modules, on a free loopback port; its base URL."""
    server, thread, port = serve_in_thread(create_app(redis_url, analysis_nodes=ANALYSIS_NODES, policies=ALLOWED))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@pytest.mark.parametrize("policy", ["unittest.__main__:X", f"{PACKAGE}.marks:Bot"],
                         ids=["unittest.__main__:X", "planted.marks:Bot"])  # (one id on every xdist worker)
def test_a_policy_outside_the_allowed_modules_is_a_400_and_never_imported(web: str, policy: str,
                                                                          planted_policies: Path) -> None:
    message = refusal(web, policy)
    assert message == (f"policy {policy!r} is not allowed on this server; {BUILT_IN} and import paths module:Class "
                       f"in the allowed modules mybots, {PACKAGE}.exits, {PACKAGE}.interrupts")
    assert "unittest.__main__" not in sys.modules and f"{PACKAGE}.marks" not in sys.modules
    assert not planted_policies.exists()
    assert_serving(web)


@pytest.mark.parametrize(("module", "raised"), [("exits", "SystemExit: 3"), ("interrupts", "KeyboardInterrupt")])
def test_an_allowed_module_that_raises_as_it_is_imported_is_a_400(web: str, module: str, raised: str,
                                                                  planted_policies: Path) -> None:
    policy = f"{PACKAGE}.{module}:Bot"
    assert refusal(web, policy) == f"policy {policy!r}: importing '{PACKAGE}.{module}' raised {raised}"
    assert_serving(web)


def test_an_allowed_modules_bot_takes_its_seat(web: str) -> None:
    status, created = post_match(web, "mybots.cautious:Cautious:risk=0.5")
    assert status == 200 and created["token"], created
    assert created["view"]["seats"][1]["policy"] == "mybots.cautious:Cautious:risk=0.5"


def test_a_web_app_created_without_allowed_modules_takes_no_import_path(redis_url: str) -> None:
    with TestClient(create_app(redis_url, analysis_nodes=ANALYSIS_NODES)) as client:
        response = client.post("/api/matches", json={"game": "tablanette", "policy": "mybots.cautious:Cautious"})
        assert response.status_code == 400 and response.json()["error"]["message"] == (
            f"policy 'mybots.cautious:Cautious' is not allowed on this server; {BUILT_IN}; no import paths are "
            "allowed on this server; start it with --allow-policies MODULE")
        assert client.post("/api/matches", json={"game": "tablanette", "policy": "pimc:samples=2"}).status_code == 200


def test_cardtable_web_never_imports_from_its_working_folder(tmp_path: Path, redis_url: str) -> None:
    marker = tmp_path / "evil-ran"
    (tmp_path / "evil.py").write_text(evil_module(marker))
    port = free_port()
    env = {**os.environ, "CARDTABLE_ALLOW_POLICIES": "evil"}  # allowed by name, as an operator might
    env.pop("PYTHONPATH", None)
    server = subprocess.Popen([CARDTABLE, "web", "--port", str(port), "--redis-url", redis_url], cwd=tmp_path,
                              env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base, server)
        assert "policy 'evil:Bot': cannot import 'evil' (No module named 'evil')" in refusal(base, "evil:Bot")
        assert "policy 'other:Bot' is not allowed on this server" in refusal(base, "other:Bot")
        assert_serving(base)
        assert not marker.exists()
    finally:
        server.terminate()
        server.wait(timeout=30)
