"""Tournaments: duplicate deals (every arrangement deals the same cards to the same seats), standings from per-deal
scores, checks of the spec, and the same results with one or two Ray workers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from timed_meter import timed_meters

from replay.record import decode, start_state
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import Chunk
from workers.ratings import beats, margin_stats, rate_pairings
from workers.spec import JobSpec, JobSpecError, validate
from workers.tournament import (
    TournamentSpec,
    check_tournament,
    duplicate_margins,
    load_tournament,
    run_tournament,
    standings,
    tournament_jobs,
)


class _Replays:
    def __init__(self) -> None:
        self.saved: dict[int, bytes] = {}

    def add(self, number: int, data: bytes) -> None:
        self.saved[number] = data

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("game", ["german_whist", "belote_contree", "tablanette"])
def test_every_arrangement_plays_the_same_cards_from_the_same_seats(game: str) -> None:
    spec = check_tournament(TournamentSpec(game, ("random", "greedy", "greedy:epsilon=0.5"), deals=3, seed=8,
                                           options={"max_deals": 1}))
    deals: dict[int, set[str]] = {}
    for _pairing, _arrangement, job in tournament_jobs(spec):
        from dataclasses import replace

        from workers.spec import LogSpec
        sink = _Replays()
        play_chunk(validate(replace(job, log=LogSpec("all"))), Chunk(0, 0, job.count), sink)
        for number, data in sink.saved.items():
            replay = decode(data)
            dealt = start_state(replay.header).to_position()
            deals.setdefault(number, set()).add(repr((dealt["deal_deck"], dealt.get("hands"), dealt["dealer"])))
    assert sorted(deals) == [0, 1, 2]
    assert all(len(variants) == 1 for variants in deals.values())  # one deal per number, whoever sat where


def test_arrangements_swap_the_sides() -> None:
    spec = check_tournament(TournamentSpec("belote_contree", ("random", "greedy"), deals=2, seed=1))
    assert [job.policies for _p, _a, job in tournament_jobs(spec)] == [
        ("random", "greedy", "random", "greedy"), ("greedy", "random", "greedy", "random")]


def test_duplicate_margins_average_the_arrangements() -> None:
    assert duplicate_margins([[[10, 3], [0, 5]], [[2, 9], [5, 0]]]) == [7.0, -5.0]
    # Three sides, arrangements AAB, ABA, ABB, BAA, BAB, BBA: A's sides' mean less B's in each, averaged.
    deal = [[[6, 0, 3]], [[6, 0, 3]], [[6, 0, 3]], [[6, 0, 3]], [[6, 0, 3]], [[6, 0, 3]]]
    assert duplicate_margins(deal) == [0.0]  # the same scores whoever sits where: no edge
    a_wins = [[[4, 4, 1]], [[4, 1, 4]], [[4, 1, 1]], [[1, 4, 4]], [[1, 4, 1]], [[1, 1, 4]]]  # A scores 4, B 1
    assert duplicate_margins(a_wins) == [3.0]
    with pytest.raises(ValueError, match="2 arrangements given for 6"):
        duplicate_margins(a_wins[:2])


def test_standings_rate_the_winner_higher() -> None:
    spec = TournamentSpec("german_whist", ("a", "b"), deals=3, seed=1)
    result = standings(spec, {((0, 1), 0): [[5, 1], [4, 2], [3, 3]], ((0, 1), 1): [[1, 6], [2, 2], [3, 3]]})
    [row] = result["pairings"]
    assert row["mean_difference"] == pytest.approx((4.5 + 1 + 0) / 3, abs=1e-4)
    assert row["win_rate"] == pytest.approx((1 + 1 + 0.5) / 3, abs=1e-4)
    assert [r["policy"] for r in result["ratings"]] == ["a", "b"]
    # Two policies: the ratings are half the margin either side of 0, with the margin's own interval.
    a, b = result["ratings"]
    assert a["rating"] == pytest.approx(row["mean_difference"] / 2, abs=1e-4)
    assert b["rating"] == pytest.approx(-a["rating"])
    assert a["ci95"][1] - a["ci95"][0] == pytest.approx((row["ci95"][1] - row["ci95"][0]) / 2, abs=1e-3)


def _scores(margins: list[int]) -> dict[int, list[list[int]]]:
    """Both arrangements' side scores of two-sided deals whose duplicate margins are ``margins``."""
    return {0: [[max(m, 0), max(-m, 0)] for m in margins], 1: [[max(-m, 0), max(m, 0)] for m in margins]}


def users_case() -> dict:
    """The issue's case: a bot loses to greedy head to head (-1.52 a deal, 46.8% of the deals won) but beats random
    by more than greedy does, so a fit of all three pairings rates it above greedy."""
    deals = 1000
    mine_greedy = [4] * 468 + [-6] * 432 + [-8] * 100
    mine_random = [20 + (k % 7) - 3 for k in range(deals)]
    greedy_random = [10 + (k % 5) - 2 for k in range(deals)]
    spec = TournamentSpec("german_whist", ("mine", "greedy", "random"), deals=deals, seed=1)
    scores = {}
    for pairing, margins in (((0, 1), mine_greedy), ((0, 2), mine_random), ((1, 2), greedy_random)):
        for arrangement, side_scores in _scores(margins).items():
            scores[pairing, arrangement] = side_scores
    return standings(spec, scores)


def test_a_policy_that_lost_head_to_head_is_never_ranked_above_its_winner() -> None:
    result = users_case()
    head_to_head = result["pairings"][0]
    assert (head_to_head["a"], head_to_head["b"], head_to_head["deals"]) == ("mine", "greedy", 1000)
    assert head_to_head["mean_difference"] == -1.52 and head_to_head["win_rate"] == 0.468
    assert head_to_head["ci95"][1] < 0, "greedy's win is outside the noise"
    rated = {row["policy"]: row for row in result["ratings"]}
    assert rated["mine"]["rating"] > rated["greedy"]["rating"], "the fit alone would put mine first"
    assert [row["policy"] for row in result["ratings"]] == ["greedy", "mine", "random"]
    low, high = head_to_head["ci95"]
    assert rated["mine"]["note"] == (f"ranked below greedy (lost to it head to head: -1.52 [{low:+.2f}, "
                                     f"{high:+.2f}] a deal)")
    assert rated["greedy"]["note"] == rated["random"]["note"] == ""
    # The fit: r[mine] - r[greedy] = (2 * -1.52 + about 20 - about 10) / 3, with ratings summing to 0.
    mine_random, greedy_random = (row["mean_difference"] for row in result["pairings"][1:])
    assert rated["mine"]["rating"] - rated["greedy"]["rating"] == pytest.approx(
        (2 * -1.52 + mine_random - greedy_random) / 3, abs=1e-3)
    assert sum(row["rating"] for row in result["ratings"]) == pytest.approx(0, abs=1e-3)
    for row in result["ratings"]:
        assert row["ci95"][0] < row["rating"] < row["ci95"][1]


def test_a_cycle_of_head_to_head_wins_is_ranked_by_rating_and_said() -> None:
    ranked = rate_pairings(["a", "b", "c"], {("a", "b"): [3, 2, 4, 3], ("b", "c"): [1, 2, 1, 2],
                                             ("a", "c"): [-1, -2, -1, -1]})
    assert [row["policy"] for row in ranked] == ["a", "c", "b"]  # by rating: a 0.58, c -0.08, b -0.5
    assert ranked[0]["note"] == "in a cycle of head-to-head results with b, c: ranked by rating"


@given(st.lists(st.lists(st.integers(-6, 6), min_size=6, max_size=6), min_size=3, max_size=12))
def test_no_policy_is_ranked_above_one_that_beat_it_outside_a_cycle(deals: list[list[int]]) -> None:
    policies = ["p0", "p1", "p2", "p3"]
    pairs = [("p0", "p1"), ("p0", "p2"), ("p0", "p3"), ("p1", "p2"), ("p1", "p3"), ("p2", "p3")]
    margins = {pair: [deal[i] for deal in deals] for i, pair in enumerate(pairs)}
    ranked = rate_pairings(policies, margins)
    place = {row["policy"]: i for i, row in enumerate(ranked)}
    for (a, b), values in margins.items():
        won = beats(margin_stats(values))
        winner, loser = (a, b) if won > 0 else (b, a)
        if won and place[winner] > place[loser]:
            assert "cycle" in ranked[place[loser]]["note"] and "cycle" in ranked[place[winner]]["note"]


@pytest.mark.parametrize(("policies", "message"), [
    (("greedy",), "at least two policies"),
    (("greedy", "greedy:epsilon=0"), "each policy once"),
    (("greedy", "clever"), "unknown policy"),
])
def test_bad_tournaments_are_refused(policies: tuple[str, ...], message: str) -> None:
    with pytest.raises(JobSpecError, match=message):
        check_tournament(TournamentSpec("german_whist", policies, deals=10, seed=1))


@pytest.mark.parametrize("game", ["two_ten_jack", "tablanette"])
def test_three_sides_play_every_arrangement_of_the_two_policies(game: str) -> None:
    """Each seat is each policy's in three of the six arrangements, and the pairing's margins come out of them."""
    spec = check_tournament(TournamentSpec(game, ("random", "greedy"), deals=6, seed=4, players=3))
    jobs = tournament_jobs(spec)
    assert len(jobs) == 6 and len({job.policies for _p, _a, job in jobs}) == 6
    for seat in range(3):
        assert sorted(job.policies[seat] for _p, _a, job in jobs) == ["greedy"] * 3 + ["random"] * 3
    scores = {(pairing, arrangement): play_chunk(job, Chunk(0, 0, job.count)).unit_scores
              for pairing, arrangement, job in jobs}
    [row] = standings(spec, scores)["pairings"]
    assert row["deals"] == 6 and row["mean_difference"] < 0  # random against greedy


@pytest.mark.usefixtures("local_ray")
@pytest.mark.cluster_too
def test_one_or_two_workers_give_the_same_standings(job_store: JobStore, redis_url: str) -> None:
    spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy", "pimc:samples=1:dd_cards=8"),
                                           deals=12, seed=3, chunk_size=4))
    runs = [run_tournament(job_store, spec, redis_url, max_workers=workers) for workers in (1, 2)]
    assert all(run["state"] == "succeeded" for run in runs)
    assert runs[0]["pairings"] == runs[1]["pairings"] and runs[0]["ratings"] == runs[1]["ratings"]
    assert load_tournament(job_store, runs[1]["tournament_id"]) == runs[1]


def test_the_table_shows_the_ranked_ratings_with_intervals_beside_the_pairings() -> None:
    from rich.console import Console

    from services.cli.tournament import standings_tables

    result = {"tournament_id": "tournament-1", **users_case()}
    console = Console(record=True, width=200)
    console.print(standings_tables(result))
    lines = [" ".join(line.replace("│", " ").split()) for line in console.export_text().splitlines()]
    low, high = result["pairings"][0]["ci95"]
    assert f"mine vs greedy 1,000 -1.52 [{low:+.2f}, {high:+.2f}] 46.8%" in lines
    ranked = [line.split()[:2] for line in lines if line[:2] in ("1 ", "2 ", "3 ")]
    assert ranked == [["1", "greedy"], ["2", "mine"], ["3", "random"]]
    [mine] = [line for line in lines if line.startswith("2 mine ")]
    rating = result["ratings"][1]
    assert mine.startswith(f"2 mine {rating['rating']:+.2f} [{rating['ci95'][0]:+.2f}, {rating['ci95'][1]:+.2f}] "
                           "ranked below greedy (lost to it head to head: -1.52")


def test_a_bot_time_limit_round_trips_and_an_old_spec_loads_without_one() -> None:
    spec = check_tournament(TournamentSpec("german_whist", ("greedy", "pimc"), deals=4, seed=2, bot_time_limit=0.2))
    assert TournamentSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    assert {job.bot_time_limit for _p, _a, job in tournament_jobs(spec)} == {0.2}
    [(_p, _a, job), *_rest] = tournament_jobs(spec)
    assert JobSpec.from_dict(json.loads(json.dumps(job.to_dict()))) == job
    old = spec.to_dict()
    del old["bot_time_limit"]  # stored before tournaments had time limits
    assert TournamentSpec.from_dict(old).bot_time_limit == 0.0
    old_job = job.to_dict()
    del old_job["bot_time_limit"]
    assert JobSpec.from_dict(old_job).bot_time_limit == 0.0
    # Without a limit, a spec stores as it did before limits (the web's pinned JSON of jobs shows it unchanged).
    unlimited = check_tournament(TournamentSpec("german_whist", ("greedy", "pimc"), deals=4, seed=2))
    assert "bot_time_limit" not in unlimited.to_dict() and TournamentSpec.from_dict(unlimited.to_dict()) == unlimited
    [(_p, _a, plain_job), *_rest] = tournament_jobs(unlimited)
    assert "bot_time_limit" not in plain_job.to_dict() and JobSpec.from_dict(plain_job.to_dict()) == plain_job


@pytest.mark.parametrize("seconds", [-0.1, 60.5, float("nan"), float("inf"), "0.2", True])
def test_a_bad_bot_time_limit_is_refused(seconds: object) -> None:
    with pytest.raises(JobSpecError, match="time limit"):
        check_tournament(TournamentSpec("german_whist", ("greedy", "pimc"), deals=4, seed=2,
                                        bot_time_limit=seconds))  # type: ignore[arg-type]


def test_a_bot_time_limit_cuts_each_searching_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """pimc asks far more worlds than it can sample in 20 ms: every one of its decisions is bounded by the limit,
    its searches are cut by it, and each cut comes within a generous bound of its deadline (a look every 1,000 work
    units, a few ms); greedy plays as it does."""
    meters = timed_meters(monkeypatch)
    spec = check_tournament(TournamentSpec("german_whist", ("greedy", "pimc:samples=10000"), deals=2, seed=5,
                                           bot_time_limit=0.02))
    scores = {(pairing, arrangement): play_chunk(job, Chunk(0, 0, job.count)).unit_scores
              for pairing, arrangement, job in tournament_jobs(spec)}
    [row] = standings(spec, scores)["pairings"]
    assert row["deals"] == 2
    assert meters and {meter.seconds for meter in meters} == {0.02}
    cut = [meter.late for meter in meters if meter.late >= 0]
    # About half are cut (46 of 89 here): a deal's last tricks leave few worlds, searched whole within the limit.
    assert len(cut) >= len(meters) // 4, (len(cut), len(meters))
    assert max(cut) < 1.0, sorted(cut)[-5:]
