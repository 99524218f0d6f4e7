"""Tournaments: duplicate deals (every arrangement deals the same cards to the same seats), standings from per-deal
scores, checks of the spec, and the same results with one or two Ray workers."""

from __future__ import annotations

import pytest

from replay.record import decode, start_state
from workers.chunk import play_chunk
from workers.jobstore import JobStore
from workers.plan import Chunk
from workers.spec import JobSpecError, validate
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
def test_one_or_two_workers_give_the_same_standings(job_store: JobStore, redis_url: str) -> None:
    spec = check_tournament(TournamentSpec("german_whist", ("random", "greedy", "pimc:samples=1:dd_cards=8"),
                                           deals=12, seed=3, chunk_size=4))
    runs = [run_tournament(job_store, spec, redis_url, max_workers=workers) for workers in (1, 2)]
    assert all(run["state"] == "succeeded" for run in runs)
    assert runs[0]["pairings"] == runs[1]["pairings"] and runs[0]["ratings"] == runs[1]["ratings"]
    assert load_tournament(job_store, runs[1]["tournament_id"]) == runs[1]
