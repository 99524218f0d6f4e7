"""The chunk hot loop, without Ray: results add up exactly, replays are the codec's own, statistics are right."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

import engine
import replay
from engine.bots import make_policies, make_policy
from workers import chunk as chunk_module
from workers.chunk import ChunkResult, play_chunk
from workers.plan import Chunk, bot_seed, match_seed, plan_chunks
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import comparable, mean_interval, summarize, total, wilson_interval


class ListSink:
    def __init__(self) -> None:
        self.replays: dict[int, bytes] = {}
        self.flushes = 0

    def add(self, number: int, data: bytes) -> None:
        assert number not in self.replays
        self.replays[number] = data

    def flush(self) -> None:
        self.flushes += 1


def run(spec: JobSpec, chunk_size: int, sink: ListSink | None = None) -> dict:
    results = [play_chunk(spec, chunk, sink) for chunk in plan_chunks(spec.count, chunk_size)]
    sides = len(results[0].wins)
    return summarize(spec, total(results, sides), seconds=1.0)


@pytest.mark.parametrize(("game", "policies", "unit", "count"), [
    ("tablanette", ("greedy", "random"), "deal", 120),
    ("tablic", ("random", "greedy"), "match", 6),
    ("german_whist", ("random",), "deal", 300),
    ("belote_contree", ("random",), "deal", 150),
    ("belote", ("random",), "deal", 150),
])
def test_results_do_not_depend_on_the_chunk_size(game, policies, unit, count):
    spec = validate(JobSpec(game=game, policies=policies, count=count, seed=11, unit=unit))
    one = run(spec, count)
    assert one["units"] == count
    for size in (1, 7, count // 3 + 1):
        assert comparable(run(spec, size)) == comparable(one)


def test_a_job_with_policy_parameters_plays_them_the_same_in_any_chunks():
    spec = validate(JobSpec(game="tablanette", policies=("greedy:epsilon=0.3", "greedy"), count=90, seed=6,
                            log=LogSpec("all")))
    one_sink, many_sink = ListSink(), ListSink()
    one, many = run(spec, 90, one_sink), run(spec, 13, many_sink)
    assert comparable(many) == comparable(one)
    assert many_sink.replays == one_sink.replays
    assert [side["policies"] for side in one["sides"]] == [["greedy:epsilon=0.3"], ["greedy"]]
    state = engine.new_match("tablanette", seed=match_seed(6, 4), options={"max_deals": 1})
    bots = [make_policy("greedy", "tablanette", 0, bot_seed(6, 4), {"epsilon": 0.3}),
            make_policy("greedy", "tablanette", 1, bot_seed(6, 4))]
    engine.bots.play_out(state, bots)
    decoded = replay.decode(one_sink.replays[4])
    assert decoded.header.policies == ("greedy:epsilon=0.3", "greedy")
    assert decoded.moves == state.history and decoded.scores == state.scores


def test_epsilon_changes_the_play_and_plain_greedy_is_epsilon_zero():
    plain = run(validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=60, seed=8)), 60)
    zero = run(validate(JobSpec(game="tablanette", policies=("greedy:epsilon=0", "random"), count=60, seed=8)), 60)
    noisy = run(validate(JobSpec(game="tablanette", policies=("greedy:epsilon=0.5", "random"), count=60, seed=8)), 60)
    assert comparable(zero) == comparable(plain)
    assert comparable(noisy) != comparable(plain)


def test_each_deal_is_the_engine_match_of_its_seed():
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=40, seed=5))
    results = run(spec, 40)
    expected = [0, 0]
    for number in range(40):
        state = engine.new_match("tablanette", seed=match_seed(5, number), options={"max_deals": 1})
        engine.bots.play_out(state, make_policies(["greedy", "random"], "tablanette", bot_seed(5, number)))
        expected = [a + b for a, b in zip(expected, state.scores, strict=True)]
    assert [side["mean"] * 40 for side in results["sides"]] == pytest.approx(expected)


def test_logged_replays_are_exactly_what_the_replay_recorder_makes():
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=30, seed=3, log=LogSpec("all")))
    sink = ListSink()
    results = run(spec, 8, sink)
    assert results["replays"] == 30
    assert sorted(sink.replays) == list(range(30))
    for number in (0, 17, 29):
        assert sink.replays[number] == replay.record_deal(
            "german_whist", match_seed(3, number), ["random", "random"], options={"max_deals": 1},
            bot_seed=bot_seed(3, number))
    decoded = replay.decode(sink.replays[17])
    assert decoded.header.policies == ("random", "random")


def test_a_whole_match_replay_decodes_to_the_same_scores():
    spec = validate(JobSpec(game="tablic", policies=("greedy", "random"), count=2, seed=9, unit="match",
                            log=LogSpec("all")))
    sink = ListSink()
    play_chunk(spec, plan_chunks(2, 2)[0], sink)
    state = engine.new_match("tablic", seed=match_seed(9, 1))
    engine.bots.play_out(state, make_policies(["greedy", "random"], "tablic", bot_seed(9, 1)))
    assert replay.decode(sink.replays[1]).scores == state.scores


def test_game_counters_come_from_the_deal_results():
    spec = validate(JobSpec(game="belote", policies=("random",), count=200, seed=2))
    counters = run(spec, 50)["counters"]
    outcomes = {k: v for k, v in counters.items() if k.startswith("outcome=")}
    assert sum(outcomes.values()) == 200
    assert counters["capot=true"] + counters["capot=false"] == 200
    tablanettes = run(validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=100, seed=2)), 100)
    assert tablanettes["counters"]["tablanettes[0]"] > tablanettes["counters"]["tablanettes[1]"]


def test_a_chunk_stops_when_progress_says_so(monkeypatch):
    monkeypatch.setattr(chunk_module, "LOOK_SECONDS", math.inf)  # the reports of fast deals: every REPORT_EVERY
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=1000, seed=1))
    reports = []

    def stop_after_first(done: int) -> bool:
        reports.append(done)
        return True

    result = play_chunk(spec, plan_chunks(1000, 1000)[0], on_progress=stop_after_first)
    assert result.stopped and result.units == reports[0] == 250


def test_slow_deals_report_every_look_seconds_and_flush_their_replays_first(monkeypatch):
    """Deals slower than LOOK_SECONDS (0 here: every deal is) report after each deal, their replays written first."""
    monkeypatch.setattr(chunk_module, "LOOK_SECONDS", 0.0)
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=5, seed=9, log=LogSpec("all")))
    sink, reports = ListSink(), []

    def report(done: int) -> bool:
        reports.append((done, sink.flushes))
        return False

    result = play_chunk(spec, plan_chunks(5, 5)[0], sink, report)
    assert (result.units, result.stopped) == (5, False)
    assert reports == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    whole = ListSink()
    play_chunk(spec, plan_chunks(5, 5)[0], whole)
    assert sink.replays == whole.replays


def test_a_searching_bots_decision_asks_whether_to_stop_and_its_deal_is_dropped(monkeypatch):
    """A deal of a searching bot can take seconds: its decisions look whether to stop (every LOOK_SECONDS, 0 here),
    and the deal under way is dropped when told to; what the look raises (Redis away) is raised as it is, not as the
    deal's failure."""
    monkeypatch.setattr(chunk_module, "LOOK_SECONDS", 0.0)
    spec = validate(JobSpec(game="german_whist", policies=("pimc:samples=2", "random"), count=3, seed=4))
    reports = []

    def stop(done: int) -> bool:
        reports.append(done)
        return True

    result = play_chunk(spec, plan_chunks(3, 3)[0], on_progress=stop)
    assert (result.stopped, result.units, result.moves, reports) == (True, 0, 0, [0])

    def away(done: int) -> bool:
        raise ConnectionError("Redis is away")

    with pytest.raises(ConnectionError, match="Redis is away"):
        play_chunk(spec, plan_chunks(3, 3)[0], on_progress=away)
    looked, plain = (play_chunk(spec, plan_chunks(3, 3)[0], on_progress=on_progress).to_dict()
                     | {"seconds": 0, "cpu_seconds": 0} for on_progress in (lambda done: False, None))
    assert looked == plain  # the same play, looked at or not


def test_a_chunk_out_of_time_stops_after_the_deal_it_began_and_its_rest_adds_up_to_the_whole():
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=40, seed=9, log=LogSpec("all"),
                            unit_scores=True))
    whole_sink, sliced_sink, reports = ListSink(), ListSink(), []
    whole = play_chunk(spec, plan_chunks(40, 40)[0], whole_sink)
    first = play_chunk(spec, plan_chunks(40, 40)[0], sliced_sink, reports.append, max_seconds=0)
    assert (first.units, first.stopped, reports, sliced_sink.flushes) == (1, False, [1], 1)  # reported and flushed
    rest = play_chunk(spec, Chunk(0, 1, 39), sliced_sink, max_seconds=60)
    assert rest.units == 39
    joined = total([first, rest], 2)
    assert comparable(summarize(spec, joined, 1.0)) == comparable(summarize(spec, whole, 1.0))
    assert joined.unit_scores == whole.unit_scores
    assert sliced_sink.replays == whole_sink.replays


def test_chunk_results_round_trip_through_json():
    spec = validate(JobSpec(game="tablanette", policies=("greedy", "random"), count=30, seed=4))
    result = play_chunk(spec, plan_chunks(30, 30)[0])
    assert ChunkResult.from_dict(result.to_dict()) == result


def test_mean_interval_matches_numpy():
    values = np.random.default_rng(1).integers(-50, 200, size=500)
    mean, stdev, half = mean_interval(len(values), int(values.sum()), int((values * values).sum()))
    assert mean == pytest.approx(values.mean())
    assert stdev == pytest.approx(values.std(ddof=1))
    assert half == pytest.approx(1.959964 * values.std(ddof=1) / math.sqrt(500))
    assert mean_interval(1, 5, 25)[2] == math.inf


def test_wilson_interval_stays_in_range_and_contains_the_rate():
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    low, high = wilson_interval(30, 100)
    assert low < 0.3 < high
    assert (low, high) == pytest.approx((0.2189, 0.3958), abs=1e-4)


def test_running_mean_ends_at_the_mean():
    spec = validate(JobSpec(game="german_whist", policies=("random",), count=900, seed=8))
    results = run(spec, 250)
    last = results["running_mean"][-1]
    assert last[0] == 900
    assert last[1:] == pytest.approx([side["mean"] for side in results["sides"]])
    assert len(results["running_mean"]) == 300  # 900 deals, 3 per point
    histogram = results["histograms"][0]
    assert sum(histogram.values()) == 900
    assert statistics.fmean(int(k) for k, v in histogram.items() for _ in range(v)) == pytest.approx(
        results["sides"][0]["mean"])


def test_a_boonaken_match_a_loser_ends_is_nobody_s_win_and_no_draw():
    # boonaken.md 8.2: a seat's two - marks end the match with no winner: no side's win, and not a tie at the top.
    spec = validate(JobSpec(game="boonaken", policies=("greedy", "random", "random", "random"), count=12, seed=4,
                            unit="match", log=LogSpec("all")))
    sink = ListSink()
    result = play_chunk(spec, plan_chunks(12, 12)[0], sink)
    wins, unwon = [0] * 4, 0
    for number in range(12):
        state = engine.new_match("boonaken", seed=match_seed(4, number), options=spec.match_options())
        engine.bots.play_out(state, make_policies(list(spec.policies), "boonaken", bot_seed(4, number)))
        assert len(state.winners) <= 1
        unwon += not state.winners
        for seat in state.winners:
            wins[seat] += 1
        assert replay.decode(sink.replays[number]).scores == state.scores
    assert unwon > 0 and result.units == 12 and result.draws == 0 and result.wins == wins
    assert sum(result.wins) + unwon == result.units
    summary = summarize(spec, total([result], 4), seconds=1.0)
    assert summary["draws"] == 0 and sum(side["wins"] for side in summary["sides"]) == 12 - unwon
