"""Tournaments over gRPC (SimulationService.SubmitTournament, GetTournament) on a real server process with its own
local Ray: the standings are those of the same tournament played in this process, bad tournaments are refused, and a
tournament the server stopped in is resumed by the next server (results kept in Redis, finished chunks not played
again)."""

from __future__ import annotations

import time

import grpc
import pytest
import redis
from grpc_harness import ServerProcess
from test_lifecycle import live_driver, server_env

from replay.embedded import EmbeddedValkey
from services.generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from services.generated.cardtable.v1 import simulation_service_pb2_grpc
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import Chunk
from workers.spec import validate
from workers.tournament import (
    TournamentSpec,
    check_tournament,
    load_tournament,
    new_tournament,
    save_tournament,
    standings,
    tournament_jobs,
)


def _spec(*policies: str, deals: int = 6, chunk_size: int = 0) -> sim_pb2.TournamentSpec:
    return sim_pb2.TournamentSpec(game_id="german_whist", policies=[sim_pb2.PolicySpec(name=p) for p in policies],
                                  deals=deals, seed=11, chunk_size=chunk_size)


def _final(sims: simulation_service_pb2_grpc.SimulationServiceStub, tournament_id: str) -> sim_pb2.Tournament:
    deadline = time.monotonic() + 300
    while True:
        got = sims.GetTournament(sim_pb2.GetTournamentRequest(tournament_id=tournament_id)).tournament
        if got.state != sim_pb2.JOB_STATE_RUNNING or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def check_a_tournament_over_grpc_gives_the_standings_played_here(server: ServerProcess) -> None:
    """Bad tournaments are refused; a good one's standings are those of the same tournament played here."""
    expected_spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy"), deals=6, seed=11))
    scores = {(pairing, arrangement): play_chunk(job, Chunk(0, 0, job.count)).unit_scores
              for pairing, arrangement, job in tournament_jobs(expected_spec)}
    expected = standings(expected_spec, scores)
    with grpc.insecure_channel(server.target) as channel:
        sims = simulation_service_pb2_grpc.SimulationServiceStub(channel)
        for bad, words in [(_spec("random"), "at least two"), (_spec("random", "clever"), "unknown policy"),
                           (_spec("random", "greedy", deals=0), "count")]:
            with pytest.raises(grpc.RpcError) as caught:
                sims.SubmitTournament(sim_pb2.SubmitTournamentRequest(spec=bad))
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in caught.value.details()
        with pytest.raises(grpc.RpcError) as caught:
            sims.GetTournament(sim_pb2.GetTournamentRequest(tournament_id="tournament-999999"))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        started = sims.SubmitTournament(sim_pb2.SubmitTournamentRequest(spec=_spec("random", "greedy"))).tournament
        assert started.state == sim_pb2.JOB_STATE_RUNNING
        got = _final(sims, started.tournament_id)
    assert got.state == sim_pb2.JOB_STATE_SUCCEEDED, got.error
    assert len(got.job_ids) == 2 and [p.name for p in got.spec.policies] == ["random", "greedy"]
    [pairing] = got.pairings
    assert (pairing.policy_a, pairing.policy_b, pairing.deals) == ("random", "greedy", 6)
    assert pairing.mean_difference == pytest.approx(expected["pairings"][0]["mean_difference"])
    assert [(r.policy, r.rating, [r.rating_ci95_low, r.rating_ci95_high], r.note) for r in got.ratings] == [
        (r["policy"], r["rating"], r["ci95"], r["note"]) for r in expected["ratings"]]


def test_a_tournament_the_server_stopped_in_is_resumed_by_the_next_without_replaying_finished_chunks(
        tmp_path, local_ray_address):
    deals, chunk = 4000, 250
    expected_spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy"), deals=deals, seed=11,
                                                    chunk_size=chunk))
    scores = {(pairing, arrangement): play_chunk(job, Chunk(0, 0, job.count)).unit_scores
              for pairing, arrangement, job in tournament_jobs(expected_spec)}
    expected = standings(expected_spec, scores)
    with EmbeddedValkey(tmp_path) as valkey:
        store = JobStore(redis.Redis.from_url(valkey.url))
        with ServerProcess(env=server_env(tmp_path, local_ray_address)) as first:
            channel = grpc.insecure_channel(first.target)
            sims = simulation_service_pb2_grpc.SimulationServiceStub(channel)
            started = sims.SubmitTournament(sim_pb2.SubmitTournamentRequest(
                spec=_spec("random", "greedy", deals=deals, chunk_size=chunk))).tournament
            deadline = time.monotonic() + 120
            while not (load_tournament(store, started.tournament_id)["jobs"] and
                       store.chunk_results(load_tournament(store, started.tournament_id)["jobs"][0])):
                assert time.monotonic() < deadline, "no chunk finished"
                time.sleep(0.1)
            channel.close()
            assert first.terminate(timeout=90) == 0
        left = load_tournament(store, started.tournament_id)
        assert left["state"] == "running", left
        kept = {job_id: {i: r.to_dict() for i, r in store.chunk_results(job_id).items()} for job_id in left["jobs"]}
        assert sum(map(len, kept.values())) < 2 * deals // chunk, "the tournament ended before the server stopped"
        with ServerProcess(env=server_env(tmp_path, local_ray_address)) as second:
            channel = grpc.insecure_channel(second.target)
            got = _final(simulation_service_pb2_grpc.SimulationServiceStub(channel), started.tournament_id)
            channel.close()
            assert second.terminate(timeout=90) == 0
        assert got.state == sim_pb2.JOB_STATE_SUCCEEDED, got.error
        assert list(got.job_ids)[:len(left["jobs"])] == left["jobs"] and len(got.job_ids) == 2
        for job_id, chunks in kept.items():  # the chunks played before the stop are the ones kept, not played again
            now = store.chunk_results(job_id)
            assert {i: now[i].to_dict() for i in chunks} == chunks
            assert store.get(job_id).retries == 0
    assert [line["tournament_id"] for line in second.log_lines if line.get("msg") == "resuming tournament"] == [
        started.tournament_id]
    [pairing] = got.pairings
    assert pairing.mean_difference == pytest.approx(expected["pairings"][0]["mean_difference"])
    assert [(r.policy, r.rating, [r.rating_ci95_low, r.rating_ci95_high]) for r in got.ratings] == [
        (r["policy"], r["rating"], r["ci95"]) for r in expected["ratings"]]


def test_a_server_leaves_alone_and_unannounced_the_tournament_and_job_whose_driver_lives(
        tmp_path, local_ray_address):
    """A `cardtable tournament` (and a `cardtable simulate`) still running elsewhere hold their leases: a server that
    starts resumes neither, says nothing of them, and plays none of their deals; a job whose driver is gone it
    resumes. The same server then plays a tournament of its own over gRPC (what test_a_tournament_over_grpc_gives_the_
    standings_played_here checked on a server and a Ray of its own)."""
    with EmbeddedValkey(tmp_path) as valkey:
        store = JobStore(redis.Redis.from_url(valkey.url))
        spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy"), deals=40, seed=5))
        jobs = [validate(job) for _pairing, _arrangement, job in tournament_jobs(spec)]
        tournament = new_tournament(store, spec)
        tournament["jobs"].append(store.create(jobs[0]).job_id)  # its first job, made, not yet claimed by its driver
        save_tournament(store, tournament)
        lone_job = store.create(jobs[1]).job_id  # a `cardtable simulate` elsewhere
        orphan = store.create(jobs[0]).job_id  # its driver gone
        live = [tournament["tournament_id"], lone_job]
        with (live_driver(store, live[0]), live_driver(store, live[1]),
              ServerProcess(env=server_env(tmp_path, local_ray_address)) as server):
            deadline = time.monotonic() + 300
            while not store.get(orphan).is_final:
                assert time.monotonic() < deadline, server.log_lines
                time.sleep(0.2)
            check_a_tournament_over_grpc_gives_the_standings_played_here(server)
            assert server.terminate(timeout=90) == 0
            assert [store.driver(name) for name in live] == ["another-server:1"] * 2
        assert store.get(orphan).state == "succeeded"
        untouched = [*live, tournament["jobs"][0]]
        said = [line for line in server.log_lines if {line.get("job_id"), line.get("tournament_id")} & set(untouched)]
        assert said == [], said
        assert [line["job_id"] for line in server.log_lines if line.get("msg") == "resuming job"] == [orphan]
        for job_id in untouched[1:]:
            assert store.get(job_id).state == "queued" and store.chunk_results(job_id) == {}
        assert load_tournament(store, tournament["tournament_id"])["jobs"] == tournament["jobs"]


def test_a_tournament_stored_with_openskill_ratings_still_reads_with_its_old_ratings_said_so() -> None:
    from services.app.jobs import tournament_message

    spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy"), deals=6, seed=11))
    old = {"tournament_id": "tournament-3", "state": "succeeded", "spec": spec.to_dict(), "jobs": ["sim-1", "sim-2"],
           "pairings": [], "ratings": [{"policy": "greedy", "mu": 30.0, "sigma": 2.0, "rating": 24.0}]}
    [rating] = tournament_message(old).ratings
    assert (rating.policy, rating.rating, rating.note) == (
        "greedy", 24.0, "an openskill rating (mu - 3 sigma), no interval")


def test_a_bot_time_limit_goes_from_the_request_to_the_spec_and_back() -> None:
    from services.app.allowed_policies import PolicyAllowList
    from services.app.jobs import tournament_from_proto, tournament_message
    from workers.spec import JobSpecError

    message = _spec("greedy", "pimc")
    message.bot_time_limit = 0.25
    spec = tournament_from_proto(message, PolicyAllowList())
    assert spec.bot_time_limit == 0.25
    record = {"tournament_id": "tournament-4", "state": "running", "spec": spec.to_dict(), "jobs": []}
    assert tournament_message(record).spec.bot_time_limit == 0.25
    assert tournament_from_proto(_spec("greedy", "pimc"), PolicyAllowList()).bot_time_limit == 0.0  # unset: none
    message.bot_time_limit = 90
    with pytest.raises(JobSpecError, match="time limit"):
        tournament_from_proto(message, PolicyAllowList())
