"""SimulationService against a real server, Redis and Ray: submit, watch to the end, get, list, cancel, bad jobs,
and a job that outlives its server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest

from services.protogen import ensure_generated

ensure_generated()

from grpc_harness import ServerThread  # noqa: E402

from services import simulation_service  # noqa: E402
from services.app import jobs  # noqa: E402
from services.app.allowed_policies import PolicyAllowList  # noqa: E402
from services.generated.cardtable.v1 import common_pb2, simulation_service_pb2_grpc  # noqa: E402
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2  # noqa: E402
from services.server import ServerConfig  # noqa: E402
from workers.chunk import play_chunk  # noqa: E402
from workers.jobstore import JobStore  # noqa: E402
from workers.plan import job_chunks  # noqa: E402
from workers.spec import JobSpec, validate  # noqa: E402
from workers.stats import comparable, summarize, total  # noqa: E402

pytestmark = pytest.mark.usefixtures("local_ray")


@contextmanager
def simulation_server(redis_url: str, prefix: str, **config) -> Iterator[grpc.Channel]:
    """A server with only the SimulationService (keys under the test's prefix), in a thread (tests/grpc_harness.py),
    and a channel to it; ``config`` adds to its ServerConfig (API keys, limits)."""
    install = lambda server, backends: simulation_service.install(server, backends, prefix)  # noqa: E731
    with ServerThread(ServerConfig(port=0, redis_url=redis_url, services=(install,), **config)) as server, \
            grpc.insecure_channel(server.target) as channel:
        yield channel


@pytest.fixture
def server(redis_url: str, test_prefix: str) -> Iterator[simulation_service_pb2_grpc.SimulationServiceStub]:
    with simulation_server(redis_url, test_prefix) as channel:
        yield simulation_service_pb2_grpc.SimulationServiceStub(channel)


def job_spec(**changes) -> sim_pb2.JobSpec:
    policies = [sim_pb2.PolicySpec(name="greedy"), sim_pb2.PolicySpec(name="random")]
    fields = {"game_id": "tablanette", "policies": policies, "count": 400, "seed": 5, "chunk_size": 50, **changes}
    return sim_pb2.JobSpec(**fields)


def test_submit_watch_get_and_list(server):
    submitted = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec())).job
    assert submitted.job_id.startswith("sim-")
    assert submitted.spec.players == 2 and submitted.spec.chunk_size == 50
    updates = [u.job for u in server.WatchJob(sim_pb2.WatchJobRequest(job_id=submitted.job_id), timeout=120)]
    assert updates[-1].state == sim_pb2.JOB_STATE_SUCCEEDED
    done = [u.progress.units_done for u in updates]
    assert done == sorted(done) and done[-1] == 400
    job = server.GetJob(sim_pb2.GetJobRequest(job_id=submitted.job_id)).job
    assert job.progress.chunks_done == job.progress.chunks_total == 8
    results = job.results
    assert results.units == 400 and len(results.sides) == 2
    greedy = results.sides[0]
    assert greedy.policies == ["greedy"]
    assert greedy.mean_score_ci95_low < greedy.mean_score < greedy.mean_score_ci95_high
    assert greedy.win_rate > results.sides[1].win_rate
    assert {c.name for c in results.counters} == {"cards", "tablanettes"}
    assert json.loads(results.json)["units"] == 400
    second = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(count=10))).job
    first_page = server.ListJobs(sim_pb2.ListJobsRequest(page_size=1))
    assert [j.job_id for j in first_page.jobs] == [second.job_id]
    assert not first_page.jobs[0].HasField("results")
    rest = server.ListJobs(sim_pb2.ListJobsRequest(page_size=5, page_token=first_page.next_page_token))
    assert [j.job_id for j in rest.jobs] == [submitted.job_id] and rest.next_page_token == ""


def test_policy_parameters_are_played_and_given_back(server):
    noisy = [sim_pb2.PolicySpec(name="greedy", params={"epsilon": "0.50"}), sim_pb2.PolicySpec(name="greedy")]
    jobs = [server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(policies=policies, count=200))).job
            for policies in (noisy, noisy[:1] + [sim_pb2.PolicySpec(name="greedy", params={"epsilon": "0"})])]
    finished = [[u.job for u in server.WatchJob(sim_pb2.WatchJobRequest(job_id=job.job_id), timeout=120)][-1]
                for job in jobs]
    assert [job.state for job in finished] == [sim_pb2.JOB_STATE_SUCCEEDED] * 2
    job = server.GetJob(sim_pb2.GetJobRequest(job_id=jobs[0].job_id)).job
    assert [(p.name, dict(p.params)) for p in job.spec.policies] == [("greedy", {"epsilon": "0.5"}), ("greedy", {})]
    assert [side.policies for side in job.results.sides] == [["greedy:epsilon=0.5"], ["greedy"]]
    assert job.results.sides[1].win_rate > job.results.sides[0].win_rate
    same = [comparable(json.loads(server.GetJob(sim_pb2.GetJobRequest(job_id=j.job_id)).job.results.json))
            for j in jobs]
    assert same[0] == same[1]  # epsilon=0 is plain greedy: the same spec, the same results


def test_spec_messages_round_trip_policy_parameters():
    request = job_spec(policies=[sim_pb2.PolicySpec(name=" greedy ", params={"epsilon": "1"}),
                                 sim_pb2.PolicySpec(name="random")])
    spec = jobs.spec_from_proto(request, PolicyAllowList())
    assert spec.policies == ("greedy:epsilon=1.0", "random")
    message = jobs.spec_message(spec)
    assert jobs.spec_from_proto(message, PolicyAllowList()) == spec
    assert dict(message.policies[0].params) == {"epsilon": "1.0"}


def test_spec_messages_carry_the_bot_time_limit_both_ways():
    spec = jobs.spec_from_proto(job_spec(bot_time_limit=0.25), PolicyAllowList())
    assert spec.bot_time_limit == 0.25
    message = jobs.spec_message(spec)
    assert message.bot_time_limit == 0.25 and jobs.spec_from_proto(message, PolicyAllowList()) == spec
    assert jobs.spec_from_proto(job_spec(), PolicyAllowList()).bot_time_limit == 0.0  # unset: no limit
    assert jobs.spec_message(JobSpec.from_dict(validate(JobSpec("tablic", ("random",), 4, seed=1)).to_dict())
                             ).bot_time_limit == 0.0  # a job stored before limits has none


def test_a_job_with_a_bot_time_limit_is_stored_played_and_given_back_with_it(server, redis_client, test_prefix):
    searchers = [sim_pb2.PolicySpec(name="pimc", params={"samples": "4"}),
                 sim_pb2.PolicySpec(name="ismcts", params={"iters": "20"})]
    submitted = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(
        game_id="german_whist", policies=searchers, count=2, chunk_size=1, bot_time_limit=0.5))).job
    assert submitted.spec.bot_time_limit == 0.5
    assert JobStore(redis_client, test_prefix).get(submitted.job_id).spec.bot_time_limit == 0.5
    final = [u.job for u in server.WatchJob(sim_pb2.WatchJobRequest(job_id=submitted.job_id), timeout=300)][-1]
    assert final.state == sim_pb2.JOB_STATE_SUCCEEDED, final.error
    job = server.GetJob(sim_pb2.GetJobRequest(job_id=submitted.job_id)).job
    assert job.spec.bot_time_limit == 0.5 and job.results.units == 2
    listed = server.ListJobs(sim_pb2.ListJobsRequest(page_size=1)).jobs
    assert [(j.job_id, j.spec.bot_time_limit) for j in listed] == [(submitted.job_id, 0.5)]


def test_cancel_a_running_job(server):
    job = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(
        game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=1_000_000, chunk_size=2000))).job
    watch = server.WatchJob(sim_pb2.WatchJobRequest(job_id=job.job_id), timeout=120)
    for update in watch:
        if update.job.progress.units_done > 0:
            break
    cancelled = server.CancelJob(sim_pb2.CancelJobRequest(job_id=job.job_id)).job
    assert cancelled.cancel_requested
    final = [u.job for u in watch][-1]
    assert final.state == sim_pb2.JOB_STATE_CANCELLED
    assert final.results.units < 1_000_000
    with pytest.raises(grpc.RpcError) as caught:
        server.CancelJob(sim_pb2.CancelJobRequest(job_id=job.job_id))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(("changes", "message"), [
    ({"game_id": "poker"}, "unknown game 'poker'"),
    ({"policies": [sim_pb2.PolicySpec(name="genius")]}, "unknown policy 'genius'"),
    ({"policies": []}, "at least one policy"),
    ({"policies": [sim_pb2.PolicySpec(name="greedy", params={"epsilon": "1.5"})]},
     "policy 'greedy': parameter 'epsilon' = 1.5 is out of range; allowed: 0.0..1.0"),
    ({"policies": [sim_pb2.PolicySpec(name="greedy", params={"epsilon": "often"})]},
     "policy 'greedy': parameter 'epsilon' is a number (0.0..1.0), not 'often'"),
    ({"policies": [sim_pb2.PolicySpec(name="greedy", params={"temperature": "2"})]},
     "policy 'greedy' has no parameter 'temperature'; it takes epsilon"),
    ({"policies": [sim_pb2.PolicySpec(name="random", params={"epsilon": "0.1"})]},
     "policy 'random' has no parameter 'epsilon'; it takes none"),
    ({"count": 0}, "count (the number of deals) must be between 1"),
    ({"count": 10**12}, "must be between 1 and 1,000,000,000"),
    ({"count": 10**9, "chunk_size": 1}, "make 1,000,000,000 chunks, more than the 100,000 a job may have"),
    ({"options": {"target": common_pb2.OptionValue(string_value="high")}}, "target"),
    ({"logging": sim_pb2.REPLAY_LOGGING_SAMPLE, "sample_size": 0}, "a sample logs between 1"),
    ({"sample_size": 3}, "sample_size goes with logging REPLAY_LOGGING_SAMPLE"),
    ({"bot_time_limit": -1}, "a bot's time limit must be from 0 (no limit) to 60 seconds a decision, not -1.0"),
    ({"bot_time_limit": 61}, "to 60 seconds a decision, not 61.0"),
    ({"bot_time_limit": float("inf")}, "to 60 seconds a decision, not inf"),
])
def test_bad_jobs_are_invalid_arguments(server, changes, message):
    with pytest.raises(grpc.RpcError) as caught:
        server.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(**changes)))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details()


def test_unknown_jobs_and_bad_tokens(server):
    with pytest.raises(grpc.RpcError) as caught:
        server.GetJob(sim_pb2.GetJobRequest(job_id="sim-nothere"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no simulation job 'sim-nothere'" in caught.value.details()
    with pytest.raises(grpc.RpcError) as caught:
        server.CancelJob(sim_pb2.CancelJobRequest(job_id="sim-nothere"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as caught:
        server.ListJobs(sim_pb2.ListJobsRequest(page_token="abc"))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_job_outlives_its_server(redis_url, test_prefix, redis_client):
    with simulation_server(redis_url, test_prefix) as channel:
        stub = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        job = stub.SubmitJob(sim_pb2.SubmitJobRequest(spec=job_spec(count=300))).job
        finished = [u.job for u in stub.WatchJob(sim_pb2.WatchJobRequest(job_id=job.job_id), timeout=120)][-1]
    # A job left half-done by a server that went away (its driver's lease expired) is resumed by the next one.
    store = JobStore(redis_client, test_prefix)
    unfinished = store.create(store.get(job.job_id).spec)
    store.save_chunk(unfinished.job_id, store.chunk_results(job.job_id)[0])
    store.set_state(unfinished.job_id, "running")
    with simulation_server(redis_url, test_prefix) as channel:
        stub = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        assert stub.GetJob(sim_pb2.GetJobRequest(job_id=job.job_id)).job.results.units == 300
        resumed = [u.job for u in stub.WatchJob(sim_pb2.WatchJobRequest(job_id=unfinished.job_id), timeout=120)][-1]
    assert resumed.state == sim_pb2.JOB_STATE_SUCCEEDED
    assert json.loads(resumed.results.json)["sides"] == json.loads(finished.results.json)["sides"]


SHIPPED_POLICY = '''
from engine.bots import Policy


class Lowest(Policy):
    """Plays the first legal action."""

    def choose(self, observation: dict) -> str:
        return observation["legal_actions"][0]
'''


def test_a_job_naming_a_policy_of_ones_own_ships_its_code_to_the_workers(redis_url, test_prefix, tmp_path,
                                                                          monkeypatch):
    # The server (this process, started with --allow-policies shippedbots) imports it from a folder the session's Ray
    # workers have never had on their path (Ray started before it existed): they play it only if the job brings its
    # code.
    (tmp_path / "shippedbots").mkdir()
    (tmp_path / "shippedbots" / "__init__.py").write_text("")
    (tmp_path / "shippedbots" / "lowest.py").write_text(SHIPPED_POLICY)
    monkeypatch.syspath_prepend(str(tmp_path))
    policies = [sim_pb2.PolicySpec(name="shippedbots.lowest:Lowest"), sim_pb2.PolicySpec(name="random")]
    spec = job_spec(game_id="german_whist", policies=policies, count=40, chunk_size=10)
    with simulation_server(redis_url, test_prefix, allow_policies=PolicyAllowList(("shippedbots",))) as channel:
        server = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        job = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=spec)).job
        finished = [u.job for u in server.WatchJob(sim_pb2.WatchJobRequest(job_id=job.job_id), timeout=300)][-1]
    assert finished.state == sim_pb2.JOB_STATE_SUCCEEDED, finished.error
    assert finished.results.units == 40 and finished.results.sides[0].policies == ["shippedbots.lowest:Lowest"]
    here = validate(JobSpec(game="german_whist", policies=("shippedbots.lowest:Lowest", "random"), count=40, seed=5,
                            chunk_size=10))
    played_here = summarize(here, total([play_chunk(here, c) for c in job_chunks(here)], 2), 1.0)
    assert comparable(json.loads(finished.results.json)) == comparable(played_here)
