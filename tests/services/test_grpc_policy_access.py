"""Issue 27's import attacks on a real server: a client names only the policies the operator allowed.

``CreateGame``, ``SubmitJob`` and ``SubmitTournament`` with a policy ``unittest.__main__:X`` (whose import calls
``sys.exit``) made the server import it and exit. Now any import path outside the allowed modules is
INVALID_ARGUMENT naming the allowed sources, and nothing is imported for it; an allowed module that raises as it is
imported (``SystemExit``, ``KeyboardInterrupt``) is INVALID_ARGUMENT naming what it raised; the server answers on.
A ``cardtable serve`` process never imports from its working folder, where a module was planted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_harness import ServerProcess, ServerThread
from grpc_health.v1 import health_pb2, health_pb2_grpc
from matchplay import ONE_DEAL, PERSON, bot, create, play_to_end
from planted import PACKAGE, evil_module

from services.app.allowed_policies import PolicyAllowList
from services.generated.cardtable.v1 import game_service_pb2, game_service_pb2_grpc, simulation_service_pb2_grpc
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.server import ServerConfig

pytestmark = pytest.mark.usefixtures("user_policies")
ALLOWED = PolicyAllowList(("mybots", f"{PACKAGE}.exits", f"{PACKAGE}.interrupts"))
BUILT_IN = "the policies are greedy, ismcts, pimc, random (built in)"
Call = Callable[[grpc.Channel, str], object]
TIMEOUT_S = 30  # generous: a server whose loop died (as the attack left it) never answers


@pytest.fixture(scope="module")
def grpc_server(grpc_redis_url: str) -> Iterator[ServerThread]:
    """This module's server: ``cardtable serve --allow-policies mybots,<planted>.exits,<planted>.interrupts``."""
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url, allow_policies=ALLOWED)) as server:
        yield server


def create_game(channel: grpc.Channel, policy: str) -> game_service_pb2.CreateGameResponse:
    request = game_service_pb2.CreateGameRequest(game_id="tablanette", seats=[PERSON, bot(policy)], options=ONE_DEAL)
    return game_service_pb2_grpc.GameServiceStub(channel).CreateGame(request, timeout=TIMEOUT_S)


def submit_job(channel: grpc.Channel, policy: str) -> object:
    spec = sim_pb2.JobSpec(game_id="tablanette", count=10, seed=1,
                           policies=[sim_pb2.PolicySpec(name=policy), sim_pb2.PolicySpec(name="random")])
    stub = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    return stub.SubmitJob(sim_pb2.SubmitJobRequest(spec=spec), timeout=TIMEOUT_S)


def submit_tournament(channel: grpc.Channel, policy: str) -> object:
    spec = sim_pb2.TournamentSpec(game_id="tablanette", deals=10, seed=1,
                                  policies=[sim_pb2.PolicySpec(name=policy), sim_pb2.PolicySpec(name="random")])
    stub = simulation_service_pb2_grpc.SimulationServiceStub(channel)
    return stub.SubmitTournament(sim_pb2.SubmitTournamentRequest(spec=spec), timeout=TIMEOUT_S)


CALLS = pytest.mark.parametrize("call", [create_game, submit_job, submit_tournament], ids=lambda c: c.__name__)


def refusal(call: Call, channel: grpc.Channel, policy: str) -> str:
    """The details of the INVALID_ARGUMENT that ``call`` naming ``policy`` gets."""
    with pytest.raises(grpc.RpcError) as refused:
        call(channel, policy)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value.details()
    return refused.value.details()


def assert_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT_S)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    games = game_service_pb2_grpc.GameServiceStub(channel).ListGames(game_service_pb2.ListGamesRequest(),
                                                                       timeout=TIMEOUT_S)
    assert "tablanette" in [game.game_id for game in games.games]


@CALLS
@pytest.mark.parametrize("policy", ["unittest.__main__:X", f"{PACKAGE}.marks:Bot", f"{PACKAGE}:Bot"],
                         ids=["unittest.__main__:X", "planted.marks:Bot", "planted:Bot"])  # (ids alike on every worker)
def test_an_import_path_outside_the_allowed_modules_is_refused_and_never_imported(
        call: Call, policy: str, channel: grpc.Channel, planted_policies: Path) -> None:
    assert "unittest.__main__" not in sys.modules
    details = refusal(call, channel, policy)
    assert f"policy {policy!r} is not allowed on this server; {BUILT_IN} and import paths module:Class in the " \
           f"allowed modules mybots, {PACKAGE}.exits, {PACKAGE}.interrupts" in details
    # the planted package was importable all along (its modules were found on sys.path), yet nothing of it ran
    assert "unittest.__main__" not in sys.modules and f"{PACKAGE}.marks" not in sys.modules
    assert not planted_policies.exists()
    assert_serving(channel)


@CALLS
@pytest.mark.parametrize(("module", "raised"), [("exits", "SystemExit: 3"), ("interrupts", "KeyboardInterrupt")])
def test_an_allowed_module_that_raises_anything_as_it_is_imported_is_a_clear_error(
        call: Call, module: str, raised: str, channel: grpc.Channel, planted_policies: Path) -> None:
    policy = f"{PACKAGE}.{module}:Bot"
    for _ in range(2):  # a failed import is not kept: the second try runs the module again, and is refused again
        details = refusal(call, channel, policy)
        assert f"policy {policy!r}: importing '{PACKAGE}.{module}' raised {raised}" in details
        assert_serving(channel)


def test_an_allowed_modules_policy_plays(channel: grpc.Channel) -> None:
    games = game_service_pb2_grpc.GameServiceStub(channel)
    created, tokens = create(games, [PERSON, bot("mybots.cautious:Cautious")], seed=4)
    responses = play_to_end(games, created.match_id, tokens, choose=lambda legal: legal[0])
    moves = [*created.moves, *(m for r in responses for m in r.moves)]
    assert responses[-1].view.game_over and any(move.seat == 1 for move in moves)


def test_a_server_started_without_allowed_modules_takes_no_import_path(grpc_redis_url: str) -> None:
    with ServerThread(ServerConfig(port=0, redis_url=grpc_redis_url)) as server, \
            grpc.insecure_channel(server.target) as channel:
        details = refusal(create_game, channel, "mybots.cautious:Cautious")
        assert details == ("seat 1: policy 'mybots.cautious:Cautious' is not allowed on this server; "
                           f"{BUILT_IN}; no import paths are allowed on this server; start it with "
                           "--allow-policies MODULE")
        assert "unknown policy 'clever'" in refusal(create_game, channel, "clever")
        create_game(channel, "greedy:epsilon=0.5")  # the built-ins with their parameters, as ever
        assert_serving(channel)


def plant_entry_point(folder: Path, name: str, target: str) -> None:
    """A package's metadata in ``folder`` that registers policy ``name`` (``target``) under cardtable.policies."""
    dist = folder / "plantedbots-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plantedbots\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[cardtable.policies]\n{name} = {target}\n")


def _serve_from(folder: Path, redis_url: str, *args: str) -> ServerProcess:
    return ServerProcess("--redis-url", redis_url, *args, cwd=folder, env={"PYTHONPATH": None})


@pytest.mark.parametrize(("allowed", "expected"), [
    ((), "policy 'unittest.__main__:X' is not allowed on this server"),
    # even an operator who allows it: its import calls sys.exit(2) (unittest.main rejects the server's arguments)
    (("--allow-policies", "unittest"), "policy 'unittest.__main__:X': importing 'unittest.__main__' raised "
                                       "SystemExit: 2"),
], ids=["default", "allowed"])
def test_the_unittest_main_attack_on_a_cardtable_serve_process(allowed: tuple[str, ...], expected: str,
                                                               grpc_redis_url: str) -> None:
    with ServerProcess("--redis-url", grpc_redis_url, *allowed) as server, \
            grpc.insecure_channel(server.target) as channel:
        for call in (create_game, submit_job, submit_tournament):
            assert expected in refusal(call, channel, "unittest.__main__:X")
            assert_serving(channel)
    assert server.process.returncode == 0  # it lived on until SIGTERM stopped it


def test_cardtable_serve_never_imports_from_its_working_folder(tmp_path: Path, grpc_redis_url: str) -> None:
    marker = tmp_path / "evil-ran"
    (tmp_path / "evil.py").write_text(evil_module(marker))
    plant_entry_point(tmp_path, "planted", "evil:Bot")
    for allowed in ([], ["--allow-policies", "evil"]):
        # not allowed: refused by name; allowed by name: still not found, as the working folder is not searched
        expected = "is not allowed on this server" if not allowed else "cannot import 'evil' (No module named 'evil')"
        server = _serve_from(tmp_path, grpc_redis_url, *allowed).start()
        try:
            with grpc.insecure_channel(server.target) as channel:
                assert expected in refusal(create_game, channel, "evil:Bot")
                assert "unknown policy 'planted'" in refusal(create_game, channel, "planted")  # no entry point
                assert_serving(channel)
            assert not marker.exists()
        finally:
            assert server.terminate() == 0


def test_cardtable_serve_imports_an_allowed_module_from_a_folder_the_operator_names(
        tmp_path: Path, grpc_redis_url: str) -> None:
    marker = tmp_path / "evil-ran"
    (tmp_path / "evil.py").write_text(evil_module(marker))
    with _serve_from(tmp_path, grpc_redis_url, "--allow-policies", "evil", "--policy-path", ".") as server, \
            grpc.insecure_channel(server.target) as channel:
        created = create_game(channel, "evil:Bot")
        assert created.match_id and marker.read_text() == "evil ran"
