"""A job's and a tournament's keys share one hash tag, so their updates that go together are one MULTI/EXEC in one
slot on a Redis Cluster as on one server; jobs and tournaments stored before the tags are read and written as they
are."""

from __future__ import annotations

import json
import time

import pytest

from replay.clients import is_cluster
from workers.chunk import play_chunk
from workers.jobstore import CANCELLED, FAILED, QUEUED, STOP_MARK_SECONDS, SUCCEEDED, JobStore
from workers.plan import Chunk, job_chunks
from workers.spec import JobSpec, validate
from workers.tournament import TournamentSpec, load_tournament, new_tournament, save_tournament

pytestmark = pytest.mark.cluster_too


def whist(count: int = 30, chunk_size: int = 10) -> JobSpec:
    return validate(JobSpec(game="german_whist", policies=("random",), count=count, seed=5, chunk_size=chunk_size))


def keys_of(store: JobStore, part: str) -> list[str]:
    found = store.redis.scan_iter(match=f"{store.prefix}*{part}*", count=1000)
    return sorted(key.decode() if isinstance(key, bytes) else key for key in found)


def slot(store: JobStore, key: str) -> int:
    return int(store.redis.execute_command("CLUSTER KEYSLOT", key)) if is_cluster(store.redis) else 0


def exec_count(store: JobStore, key: str) -> int:
    """How many MULTI/EXEC blocks the server (on a cluster: the node holding ``key``) has run."""
    client = store.redis
    if is_cluster(client):
        client = client.get_node_from_key(key).redis_connection
    stats = client.info("commandstats")
    return int(stats.get("cmdstat_exec", {}).get("calls", 0))


def test_a_jobs_keys_share_its_tag_and_its_updates_are_transactions(job_store: JobStore) -> None:
    spec = whist()
    job_id = job_store.create(spec).job_id
    first = play_chunk(spec, job_chunks(spec)[0])
    job_store.note_workers(job_id, [0], "node:1")
    assert job_store.claim(job_id, "driver-1")
    record_key = f"{job_store.prefix}job:{{{job_id}}}"
    before = exec_count(job_store, record_key)
    assert job_store.report_progress(job_id, 0, 5) is False
    assert job_store.save_chunk(job_id, first)
    assert not job_store.save_chunk(job_id, first)  # stored once
    job_store.note_retry(job_id, 1)
    record = job_store.get(job_id)
    assert (record.units_done, record.chunks_done, record.retries) == (10, 1, 1)
    assert exec_count(job_store, record_key) - before >= 5  # each of the five calls above was one MULTI/EXEC

    keys = keys_of(job_store, job_id)
    assert keys == sorted(f"{record_key}{suffix}" for suffix in ("", ":chunks", ":progress", ":workers", ":driver"))
    assert len({slot(job_store, key) for key in keys}) == 1
    assert job_store.memory(job_id) > 0
    job_store.delete(job_id)
    assert keys_of(job_store, job_id) == []
    assert job_store.list(10) == ([], None)


def test_a_drivers_stop_mark_stops_its_tasks_alone_and_lapses(job_store: JobStore) -> None:
    """A task learns in the round trip it makes anyway (at its start, at each progress report) whether to stop: its
    driver's stop mark is set (another driver's tasks play on), the job was asked to stop, or it is over."""
    job_id = job_store.create(whist()).job_id
    assert not job_store.note_workers(job_id, [0], "node:1", "mark-a")
    job_store.stop_tasks(job_id, "mark-a")
    assert job_store.note_workers(job_id, [0], "node:1", "mark-a")
    assert job_store.report_progress(job_id, 0, 5, "mark-a")
    assert not job_store.report_progress(job_id, 1, 5, "mark-b") and not job_store.report_progress(job_id, 1, 5)
    stopped = f"{job_store.prefix}job:{{{job_id}}}:stopped"
    assert 0 < job_store.redis.ttl(stopped) <= STOP_MARK_SECONDS
    assert slot(job_store, stopped) == slot(job_store, f"{job_store.prefix}job:{{{job_id}}}")
    assert job_store.get(job_id).units_done == 10  # the reports were noted all the same
    job_store.set_state(job_id, FAILED, finished=1.0)
    assert job_store.report_progress(job_id, 1, 6, "mark-b")  # a job over stops every task, whatever its mark
    job_store.delete(job_id)
    assert keys_of(job_store, job_id) == []


def test_cancel_ends_a_queued_job_in_one_step(job_store: JobStore) -> None:
    job_id = job_store.create(whist()).job_id
    cancelled = job_store.request_cancel(job_id)
    assert (cancelled.state, cancelled.cancel_requested) == (CANCELLED, True)
    assert cancelled.finished is not None and cancelled.finished <= time.time()
    done = job_store.create(whist()).job_id
    job_store.set_state(done, SUCCEEDED, finished=1.0)
    assert job_store.request_cancel(done).cancel_requested is False  # a job over is left as it is


def test_a_tournaments_record_and_lease_share_its_tag(job_store: JobStore) -> None:
    spec = TournamentSpec("german_whist", ("random", "greedy"), deals=2, seed=1)
    record = new_tournament(job_store, spec)
    tournament_id = record["tournament_id"]
    assert job_store.claim(tournament_id, "driver-1")
    keys = keys_of(job_store, f"{{{tournament_id}}}")
    tag = f"{{{tournament_id}}}"
    assert keys == [f"{job_store.prefix}job:{tag}:driver", f"{job_store.prefix}tournament:{tag}"]
    assert len({slot(job_store, key) for key in keys}) == 1
    assert load_tournament(job_store, tournament_id) == record


def store_untagged_job(store: JobStore, job_id: str, spec: JobSpec) -> None:
    """A job as the store wrote it before the tags (pinned here: ``P job:<id>`` and its ``:chunks``, ``:progress``,
    ``:workers``), halfway: one chunk of three stored."""
    first = play_chunk(spec, Chunk(0, 0, 10))
    key = f"{store.prefix}job:{job_id}"
    store.redis.hset(key, mapping={"spec": json.dumps(spec.to_dict()), "state": QUEUED, "sequence": 1,
                                   "created": 1.5, "chunks_total": 3})
    store.redis.hset(f"{key}:chunks", "0", json.dumps(first.to_dict()))
    store.redis.hset(f"{key}:progress", "0", 10)
    store.redis.hset(f"{key}:workers", "0", "node:1")
    store.redis.zadd(f"{store.prefix}jobs", {job_id: 1})


def test_a_job_stored_before_the_tags_is_read_and_written_as_it_is(job_store: JobStore) -> None:
    spec = whist()
    store_untagged_job(job_store, "sim-0123456789ab", spec)
    store = JobStore(job_store.redis, job_store.prefix)  # a new process: nothing known of the job yet
    record = store.get("sim-0123456789ab")
    assert (record.state, record.units_done, record.chunks_done, record.chunks_total) == (QUEUED, 10, 1, 3)
    assert [r.job_id for r in store.list(10)[0]] == ["sim-0123456789ab"]
    assert store.unfinished() == ["sim-0123456789ab"]
    for chunk in list(job_chunks(spec))[1:]:
        assert store.report_progress("sim-0123456789ab", chunk.index, 3) is False
        assert store.save_chunk("sim-0123456789ab", play_chunk(spec, chunk))
    store.set_state("sim-0123456789ab", SUCCEEDED, results={"deals": 30})
    record = store.get("sim-0123456789ab")
    assert (record.state, record.units_done, record.chunks_done, record.results) == (SUCCEEDED, 30, 3, {"deals": 30})
    assert sorted(store.chunk_results("sim-0123456789ab")) == [0, 1, 2]
    untagged = f"{store.prefix}job:sim-0123456789ab"
    assert keys_of(store, "sim-0123456789ab") == [untagged, f"{untagged}:chunks", f"{untagged}:progress",
                                                  f"{untagged}:workers"]
    store.delete("sim-0123456789ab")
    assert keys_of(store, "sim-0123456789ab") == []


def test_a_tournament_stored_before_the_tags_is_read_then_saved_under_its_tag(job_store: JobStore) -> None:
    record = {"tournament_id": "tournament-7", "state": "running", "spec": {}, "jobs": ["sim-0123456789ab"]}
    job_store.redis.set(f"{job_store.prefix}tournament:tournament-7", json.dumps(record))
    assert load_tournament(job_store, "tournament-7") == record
    record["state"] = "cancelled"
    save_tournament(job_store, record)
    assert load_tournament(job_store, "tournament-7") == record
    assert keys_of(job_store, "tournament-7") == [f"{job_store.prefix}tournament:{{tournament-7}}"]
