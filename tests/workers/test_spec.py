"""Job specs: defaults resolved, policies per seat, and a clear message for every job that cannot run."""

from __future__ import annotations

import json

import pytest

from workers.plan import job_chunks
from workers.spec import MAX_CHUNKS, MAX_COUNT, JobSpec, JobSpecError, LogSpec, default_chunk_size, validate


def spec(**changes) -> JobSpec:
    fields = {"game": "tablanette", "policies": ("greedy", "random"), "count": 100, "seed": 1, **changes}
    return JobSpec(**fields)


def test_validate_fills_in_players_and_chunk_size():
    checked = validate(spec(count=10_000))
    assert checked.players == 2
    assert checked.chunk_size == default_chunk_size(10_000) == 157
    assert checked.policies == ("greedy", "random")


@pytest.mark.parametrize("count", [MAX_CHUNKS * 1000 + 1, MAX_COUNT])
def test_the_default_chunk_size_keeps_a_big_job_within_the_chunk_limit(count):
    assert len(job_chunks(validate(spec(count=count)))) <= MAX_CHUNKS


def test_one_policy_plays_every_seat():
    assert validate(spec(policies=("random",))).policies == ("random", "random")
    assert validate(spec(game="belote_contree", policies=("random",))).policies == ("random",) * 4


def test_one_policy_per_side_follows_the_partnerships():
    partners = validate(spec(players=4, options={"partnerships": True}, policies=("greedy", "random")))
    assert partners.policies == ("greedy", "random", "greedy", "random")


def test_policy_parameters_are_checked_and_written_canonically():
    checked = validate(spec(policies=("greedy:epsilon=0.20", "random")))
    assert checked.policies == ("greedy:epsilon=0.2", "random")
    assert validate(spec(policies=("greedy:epsilon=0",))).policies == ("greedy", "greedy")
    assert JobSpec.from_dict(checked.to_dict()) == checked
    partners = validate(spec(players=4, options={"partnerships": True}, policies=("greedy:epsilon=1", "random")))
    assert partners.policies == ("greedy:epsilon=1.0", "random") * 2


def test_round_trip_through_a_dict():
    checked = validate(spec(log=LogSpec("sample", 2), options={"target": 151}, unit="match", count=3))
    assert JobSpec.from_dict(checked.to_dict()) == checked


def test_a_simulation_jobs_bot_time_limit_round_trips_through_json_and_an_old_job_has_none():
    checked = validate(spec(policies=("pimc", "ismcts:iters=50"), log=LogSpec("all"), bot_time_limit=0.25))
    assert checked.bot_time_limit == 0.25
    assert JobSpec.from_dict(json.loads(json.dumps(checked.to_dict()))) == checked
    unlimited = validate(spec(policies=("pimc", "ismcts:iters=50")))
    assert "bot_time_limit" not in unlimited.to_dict()  # stored as a job was before limits
    assert JobSpec.from_dict(unlimited.to_dict()).bot_time_limit == 0.0


@pytest.mark.parametrize(("changes", "message"), [
    ({"game": "poker"}, "unknown game 'poker'"),
    ({"policies": ("greedy", "genius")}, "unknown policy 'genius'"),
    ({"policies": ("random",) * 3}, "needs 2 policies"),
    ({"policies": ("greedy:epsilon=1.5", "random")}, "policy 'greedy': parameter 'epsilon' = 1.5 is out of range; "
                                                     "allowed: 0.0..1.0"),
    ({"policies": ("greedy:epsilon=often",)}, "policy 'greedy': parameter 'epsilon' is a number (0.0..1.0), not "
                                              "'often'"),
    ({"policies": ("greedy:eps=0.1",)}, "policy 'greedy' has no parameter 'eps'; it takes epsilon"),
    ({"policies": ("random:epsilon=0.1",)}, "policy 'random' has no parameter 'epsilon'; it takes none"),
    ({"policies": ("greedy:epsilon",)}, "policy parameters are written greedy:param=value"),
    ({"count": 0}, "count (the number of deals) must be between 1"),
    ({"count": MAX_COUNT + 1}, "must be between 1"),
    ({"count": 2.5}, "count must be a whole number"),
    ({"seed": -1}, "seed must be between 0"),
    ({"count": 0, "unit": "match"}, "count (the number of matches) must be between 1"),
    ({"chunk_size": 10**9}, "chunk_size"),
    ({"count": 10**9, "chunk_size": 1}, "1,000,000,000 deals in chunks of 1 make 1,000,000,000 chunks, more than the "
                                        "100,000 a job may have: use chunks of at least 10,000 deals"),
    ({"count": MAX_CHUNKS + 1, "chunk_size": 1, "unit": "match"}, "100,001 matches in chunks of 1 make 100,001"),
    ({"unit": "trick"}, "unit must be one of deal, match"),
    ({"options": {"max_deals": 3}}, "max_deals cannot be set"),
    ({"options": {"target": "high"}}, "target"),
    ({"options": {"colour": 1}}, "colour"),
    ({"players": 7}, "not 7"),
    ({"log": LogSpec("sample", 0)}, "a sample logs between 1 and 100"),
    ({"log": LogSpec("sample", 101)}, "a sample logs between 1 and 100"),
    ({"bot_time_limit": -0.5}, "a bot's time limit must be from 0 (no limit) to 60 seconds a decision, not -0.5"),
    ({"bot_time_limit": 60.5}, "to 60 seconds a decision, not 60.5"),
    ({"bot_time_limit": float("nan")}, "to 60 seconds a decision, not nan"),
    ({"bot_time_limit": "0.2"}, "a bot's time limit is a number of seconds a decision, not '0.2'"),
])
def test_bad_jobs_say_what_is_wrong(changes, message):
    with pytest.raises(JobSpecError) as caught:
        validate(spec(**changes))
    assert message in str(caught.value)


@pytest.mark.parametrize(("text", "parsed"), [
    ("all", LogSpec("all")), ("none", LogSpec("none")), ("sample:25", LogSpec("sample", 25)),
    (" Sample:3 ", LogSpec("sample", 3)),
])
def test_log_spec_parses(text, parsed):
    assert LogSpec.parse(text) == parsed
    assert LogSpec.parse(parsed.describe()) == parsed


@pytest.mark.parametrize("text", ["some", "sample", "sample:x", "all:3", ""])
def test_bad_log_specs_are_refused(text):
    with pytest.raises(JobSpecError, match="sample:K|all, none"):
        LogSpec.parse(text)
