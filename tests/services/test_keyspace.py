"""A run leaves no keys behind: every key that cardtable writes (matches, replays, jobs, by a server or by the
commands) starts with the key namespace, ``CARDTABLE_KEY_PREFIX``, so the tests' namespace is wiped whole."""

from __future__ import annotations

import grpc
import pytest
import redis
from grpc_harness import ServerThread
from keyspace import wipe
from matchplay import PERSON, bot, create, play_to_end
from waiting import wait_until

from replay.embedded import EmbeddedValkey
from replay.namespace import KEY_PREFIX_ENV
from services.app.limits import DEFAULT_LIMITS
from services.cli.main import cli
from services.generated.cardtable.v1 import (
    game_service_pb2_grpc,
    replay_service_pb2,
    replay_service_pb2_grpc,
    simulation_service_pb2_grpc,
)
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.server import ServerConfig

pytestmark = pytest.mark.usefixtures("local_ray")
NAMESPACE = "ct-keyspace-test:"


def _play_and_simulate(target: str) -> None:
    """A match played to the end (its replay stored), and a job whose every deal is logged."""
    with grpc.insecure_channel(target) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        created, tokens = create(games, [PERSON, bot()])
        play_to_end(games, created.match_id, tokens)
        jobs = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        spec = sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=20,
                               seed=1, logging=sim_pb2.REPLAY_LOGGING_ALL)
        job_id = jobs.SubmitJob(sim_pb2.SubmitJobRequest(spec=spec)).job.job_id
        wait_until(lambda: jobs.GetJob(sim_pb2.GetJobRequest(job_id=job_id)).job.state == sim_pb2.JOB_STATE_SUCCEEDED,
                   120, "the job did not succeed")
        listed = replay_service_pb2_grpc.ReplayServiceStub(channel).ListReplays(
            replay_service_pb2.ListReplaysRequest(collection=job_id))
        assert len(listed.replays) == 20


def test_every_key_of_a_server_and_of_the_commands_is_in_the_namespace(tmp_path, monkeypatch, cli_runner):
    monkeypatch.setenv(KEY_PREFIX_ENV, NAMESPACE)
    with EmbeddedValkey(tmp_path) as valkey, redis.Redis.from_url(valkey.url, decode_responses=True) as client:
        # With the per-client limits on, their counts are written too.
        with ServerThread(ServerConfig(port=0, redis_url=valkey.url, limits=DEFAULT_LIMITS)) as server:
            _play_and_simulate(server.target)
        simulated = cli_runner.invoke(cli, ["simulate", "tablanette", "--deals", "30", "--policies", "random",
                                            "--log", "sample:3", "--redis-url", valkey.url])
        assert simulated.exit_code == 0, simulated.output
        keys = list(client.scan_iter())
        assert len(keys) > 10 and [key for key in keys if not key.startswith(NAMESPACE)] == []
        wipe(client, NAMESPACE)
        assert client.dbsize() == 0
