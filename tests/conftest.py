"""Fixtures shared across the suite (keep this file small: a fixture lives here only when several files use it).

Before any test: the run's key namespace is set (tests/keyspace.py), the Hypothesis profile is loaded (fixed examples
when ``$CI`` is set, tests/game_cases.py), and the session's Ray is started if a collected test needs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import game_cases  # noqa: F401  (loads the Hypothesis profile before any test module makes its settings)
import pytest
import redis
from click.testing import CliRunner
from keyspace import NAMESPACE, wipe
from redis_cluster import LoopbackCluster

from replay.namespace import KEY_PREFIX_ENV

RAY_CPUS = 2
CLUSTER_TOO = "cluster_too"
ROOT = Path(__file__).resolve().parents[1]
# Policies of one's own that tests name by import path (docs/bots.md's example, and tests/fixtures/ctpolicies): the
# session's Ray gets their code as a job's runtime environment, as `cardtable simulate` gives a job its policies'.
POLICY_FOLDERS = (ROOT / "examples", ROOT / "tests" / "fixtures")
POLICY_CODE = [str(ROOT / "examples" / "mybots"), str(ROOT / "tests" / "fixtures" / "ctpolicies")]
# The names of this process's threads when the session's Ray started (see pytest_collection_finish).
RAY_STARTED_AMONG: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    os.environ[KEY_PREFIX_ENV] = NAMESPACE  # inherited by the servers, commands and Ray workers the tests start
    config.addinivalue_line("markers", f"{CLUSTER_TOO}: run the test on the single Redis and on a Redis Cluster")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``cluster_too`` runs twice: ``redis_url`` is the single Redis ([server]), then a Redis Cluster
    ([cluster]); every store, server and command the test opens on it follows."""
    if metafunc.definition.get_closest_marker(CLUSTER_TOO) and "redis_url" in metafunc.fixturenames:
        metafunc.parametrize("redis_url", ["server", "cluster"], indirect=True, scope="session")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the session's Ray now, before any test runs, if a collected test needs it. Ray forks its processes
    with a Python preexec_fn, which can hang while other threads of this process call into gRPC (gRPC then logs
    "skipping fork() handlers" and the raylet never starts): before the first test, no gRPC thread runs yet."""
    if any("local_ray" in item.fixturenames for item in session.items):
        from workers.cluster import connect_ray

        RAY_STARTED_AMONG[:] = [thread.name for thread in threading.enumerate()]
        connect_ray(cpus=RAY_CPUS, py_modules=POLICY_CODE)


@pytest.fixture
def user_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mybots`` (examples/) and ``ctpolicies`` (tests/fixtures/) importable here, as from a user's own folder."""
    for folder in POLICY_FOLDERS:
        monkeypatch.syspath_prepend(str(folder))


@pytest.fixture
def planted_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/planted.py's package importable here (for a server in this process to be asked for it); the file its
    ``marks`` module writes when imported."""
    from planted import plant

    marker = plant(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return marker


@pytest.fixture
def cli_runner() -> CliRunner:
    """Runs ``cardtable`` commands in-process: ``cli_runner.invoke(cli, ["games", "--json"])``."""
    return CliRunner()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest, redis_server_url: str) -> str:
    """The suite's Redis: the single one of ``redis_server_url``, or the session's Redis Cluster in a test marked
    ``cluster_too`` (see pytest_generate_tests)."""
    if getattr(request, "param", "server") == "cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return redis_server_url


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackCluster]:
    """A real Redis Cluster on free loopback ports (three primaries, each with a replica), stopped at the end."""
    missing = [command for command in ("redis-server", "redis-cli") if shutil.which(command) is None]
    if missing:
        pytest.skip(f"a Redis Cluster needs {' and '.join(missing)} (the redis-server package), not installed here")
    with LoopbackCluster(tmp_path_factory.mktemp("redis-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The suite's real Redis: REDIS_URL if set, else 127.0.0.1:6379 if it answers, else an embedded Valkey. Every
    key of the run's namespace is deleted at the end."""
    url = os.environ.get("REDIS_URL")
    if not url:
        try:
            redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.5).ping()
            url = "redis://127.0.0.1:6379"
        except (redis.RedisError, OSError):
            url = None
    if url is not None:
        yield url
        with redis.Redis.from_url(url) as client:
            wipe(client, NAMESPACE)
        return
    from replay.embedded import EmbeddedValkey

    with EmbeddedValkey(tmp_path_factory.mktemp("valkey")) as valkey:
        yield valkey.url


@pytest.fixture(scope="session")
def grpc_redis_url(redis_url: str) -> str:
    """The Redis of the gRPC tests (the suite's one)."""
    return redis_url


@pytest.fixture(scope="session")
def local_ray(redis_server_url: str) -> Iterator[list[str]]:
    """One local Ray with 2 CPUs shared by every test of the session that needs Ray, started before the first test
    (see pytest_collection_finish) and stopped before the run's keys are wiped; gives the names of the threads this
    process ran when it started."""
    import ray

    from workers.cluster import connect_ray

    connect_ray(cpus=RAY_CPUS, py_modules=POLICY_CODE)
    yield RAY_STARTED_AMONG
    ray.shutdown()


@pytest.fixture(scope="session")
def local_ray_address(local_ray: list[str]) -> str:
    """The GCS address of the session's Ray (``local_ray``), for a `cardtable serve` to join (``RAY_ADDRESS``) rather
    than start a Ray of its own, which takes it 10-20 s: for the tests that do not look at the server's own Ray."""
    import ray

    return str(ray.get_runtime_context().gcs_address)


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost (its own CA) and its key: (cert.pem, key.pem)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a self-signed certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key
