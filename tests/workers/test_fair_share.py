"""Fair share of the cluster between jobs, against a real server, Redis and the session's local Ray (2 CPUs): a small
job submitted while a job of 10^9 deals runs is not starved, and a client (an API key) has at most so many jobs and
tournaments unfinished."""

from __future__ import annotations

import secrets
import time

import grpc
import pytest
from test_service import simulation_server

from services.app.auth import ApiKeys
from services.app.limits import ClientLimits
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.generated.cardtable.v1 import simulation_service_pb2_grpc
from workers import jobstore

pytestmark = pytest.mark.usefixtures("local_ray")

SMALL_JOB_LIMIT_S = 60.0  # the bound for the small job on a 2-core machine


def greedy_tablanette(count: int) -> sim_pb2.JobSpec:
    # Tablanette's greedy bot plays some 13 ms a deal here: a chunk of the big job (10,000 deals, the fewest a job of
    # 10^9 may have per chunk) holds a CPU for minutes unless it is played in slices.
    return sim_pb2.JobSpec(game_id="tablanette", policies=[sim_pb2.PolicySpec(name="greedy")], count=count, seed=3)


def state_of(server, job_id: str, metadata=()) -> sim_pb2.Job:
    return server.GetJob(sim_pb2.GetJobRequest(job_id=job_id), metadata=metadata).job


def poll(server, job_id: str, done, timeout: float, metadata=()) -> sim_pb2.Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = state_of(server, job_id, metadata)
        if done(job):
            return job
        time.sleep(0.1)
    raise TimeoutError(f"job {job_id} still {sim_pb2.JobState.Name(job.state)} after {timeout} s "
                       f"({job.progress.units_done} of {job.progress.units_total} played)")


def test_a_small_job_finishes_within_a_minute_while_a_job_of_a_billion_deals_runs(redis_url, test_prefix):
    with simulation_server(redis_url, test_prefix) as channel:
        server = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        big = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=greedy_tablanette(10**9))).job
        try:
            assert big.spec.chunk_size == 10_000
            poll(server, big.job_id, lambda job: job.progress.units_done > 0, timeout=120)  # its tasks hold the CPUs
            submitted = time.monotonic()
            small = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=greedy_tablanette(20))).job
            finished = poll(server, small.job_id, lambda job: job.state != sim_pb2.JOB_STATE_RUNNING
                            and job.state != sim_pb2.JOB_STATE_QUEUED, timeout=SMALL_JOB_LIMIT_S)
            took = time.monotonic() - submitted
            print(f"\n20-deal job finished in {took:.1f} s while the 10^9-deal job ran")
            assert finished.state == sim_pb2.JOB_STATE_SUCCEEDED and finished.results.units == 20
            assert took < SMALL_JOB_LIMIT_S
            running = state_of(server, big.job_id)
            assert running.state == sim_pb2.JOB_STATE_RUNNING and running.progress.chunks_done == 0
        finally:
            server.CancelJob(sim_pb2.CancelJobRequest(job_id=big.job_id))
            cancelled = poll(server, big.job_id, lambda job: job.state == sim_pb2.JOB_STATE_CANCELLED, timeout=60)
        assert cancelled.progress.chunks_done == 0  # no chunk of it finished: it played only slices


def test_a_small_job_on_another_server_process_is_not_starved_either(redis_url, test_prefix):
    """Two servers on one Redis and one Ray (here two in this process, each with its own slots, as two processes
    have): each holds its jobs' part of the CPUs (JobStore.jobs_elsewhere)."""
    with simulation_server(redis_url, test_prefix) as first, simulation_server(redis_url, test_prefix) as second:
        on_first = simulation_service_pb2_grpc.SimulationServiceStub(first)
        on_second = simulation_service_pb2_grpc.SimulationServiceStub(second)
        big = on_first.SubmitJob(sim_pb2.SubmitJobRequest(spec=greedy_tablanette(10**9))).job
        try:
            poll(on_first, big.job_id, lambda job: job.progress.units_done > 0, timeout=120)
            submitted = time.monotonic()
            small = on_second.SubmitJob(sim_pb2.SubmitJobRequest(spec=greedy_tablanette(20))).job
            finished = poll(on_second, small.job_id, lambda job: job.state not in (sim_pb2.JOB_STATE_RUNNING,
                                                                                  sim_pb2.JOB_STATE_QUEUED),
                            timeout=SMALL_JOB_LIMIT_S)
            took = time.monotonic() - submitted
            print(f"\n20-deal job on a second server finished in {took:.1f} s while the 10^9-deal job ran")
            assert finished.state == sim_pb2.JOB_STATE_SUCCEEDED and took < SMALL_JOB_LIMIT_S
        finally:
            on_first.CancelJob(sim_pb2.CancelJobRequest(job_id=big.job_id))
            poll(on_first, big.job_id, lambda job: job.state == sim_pb2.JOB_STATE_CANCELLED, timeout=60)


def test_a_client_has_at_most_its_limit_of_unfinished_jobs_and_tournaments(redis_url, test_prefix):
    alice, bob = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
    keys = ApiKeys.parse(f"alice:{alice}\nbob:{bob}\n")
    as_alice, as_bob = [("x-api-key", alice)], [("x-api-key", bob)]
    whist = sim_pb2.JobSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random")], count=10**8,
                            seed=1)
    tournament = sim_pb2.TournamentSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name="random"),
                                                                          sim_pb2.PolicySpec(name="greedy")],
                                        deals=4, seed=2)
    with simulation_server(redis_url, test_prefix, api_key=keys, limits=ClientLimits(jobs=2)) as channel:
        server = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        running = [server.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist), metadata=as_alice).job.job_id
                   for _ in range(2)]
        try:
            for submit in (lambda: server.SubmitJob(sim_pb2.SubmitJobRequest(spec=whist), metadata=as_alice),
                           lambda: server.SubmitTournament(sim_pb2.SubmitTournamentRequest(spec=tournament),
                                                           metadata=as_alice)):
                with pytest.raises(grpc.RpcError) as caught:
                    submit()
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert caught.value.details() == ("this client has 2 jobs running, the limit is 2 "
                                                  "(--max-jobs-per-client)")
            assert len(server.ListJobs(sim_pb2.ListJobsRequest(), metadata=as_bob).jobs) == 2  # nothing was made
            small = server.SubmitJob(sim_pb2.SubmitJobRequest(spec=greedy_tablanette(20)), metadata=as_bob).job
            assert poll(server, small.job_id, lambda job: job.state == sim_pb2.JOB_STATE_SUCCEEDED, timeout=60,
                        metadata=as_bob)
            server.CancelJob(sim_pb2.CancelJobRequest(job_id=running[0]), metadata=as_alice)
            poll(server, running[0], lambda job: job.state == sim_pb2.JOB_STATE_CANCELLED, timeout=60,
                 metadata=as_alice)
            played = server.SubmitTournament(sim_pb2.SubmitTournamentRequest(spec=tournament), metadata=as_alice)
            assert played.tournament.state == sim_pb2.JOB_STATE_RUNNING  # the cancelled job's place
        finally:
            for job_id in running[1:]:
                server.CancelJob(sim_pb2.CancelJobRequest(job_id=job_id), metadata=as_alice)
                poll(server, job_id, lambda job: job.state == sim_pb2.JOB_STATE_CANCELLED, timeout=60,
                     metadata=as_alice)


def test_processes_tell_each_other_how_many_jobs_they_drive(job_store, monkeypatch):
    assert job_store.jobs_elsewhere("a", 2) == 0
    assert job_store.jobs_elsewhere("b", 1) == 2
    assert job_store.jobs_elsewhere("a", 3) == 1
    assert job_store.jobs_elsewhere("b", 0) == 3  # b drives none now: forgotten at once
    assert job_store.jobs_elsewhere("c", 1) == 3
    monkeypatch.setattr(jobstore, "PROCESS_JOBS_SECONDS", 0.05)
    job_store.jobs_elsewhere("a", 3)  # a says it for 50 ms
    deadline = time.monotonic() + 10
    while job_store.jobs_elsewhere("c", 1) and time.monotonic() < deadline:  # a stopped saying it: a died
        time.sleep(0.02)
    assert job_store.jobs_elsewhere("c", 1) == 0
