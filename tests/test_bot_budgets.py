"""A searching bot's decision has a budget (engine.budget): a work budget cuts even a parameter bomb and keeps the
move a function of the seed; a time budget cuts it too; a cancel flag raised from another thread abandons it at once,
inside the double-dummy search and between play-outs alike; a parameter set's cost is reckoned up front."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

import engine
from engine.bots import SeatView, make_policies, make_policy, parse_policy, policy_class, seat_observer
from engine.bots.search import PLAY_PHASES
from engine.budget import NO_BUDGET, SAMPLE_WORK, Budget, BudgetSpent, Cancel, Cancelled, Meter
from engine.rng import derive_seed
from engine.search.double_dummy import CHARGE_EVERY, DoubleDummy

BOMB = "pimc:samples=10000:rollouts=1000:dd_cards=52"  # hours of work a decision, unbounded
BOMBS = [BOMB, "pimc:samples=10000:rollouts=1000:dd_cards=0", "ismcts:iters=1000000"]
GAMES = ["german_whist", "belote", "tablanette"]


def playing(game: str, seed: int = 3) -> engine.State:
    """A state of ``game`` early in the play of the cards, with a choice to make."""
    state = engine.new_match(game, seed=seed, options={"max_deals": 1})
    bots = make_policies(["greedy"] * state.players, game, seed)
    while state.phase not in PLAY_PHASES or len(state.legal_action_ids()) < 2:
        seat = state.current_player
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return state


def decide(label: str, state: engine.State, budget: Budget = NO_BUDGET, cancel: Cancel | None = None) -> int:
    seat = state.current_player
    name, params = parse_policy(label)
    bot = make_policy(name, state.game_id, seat, 5, params).bound(budget, cancel)
    return bot.choose_id(state.legal_action_ids(), SeatView(state, seat))


@pytest.mark.parametrize("label", BOMBS)
@pytest.mark.parametrize("game", GAMES)
def test_a_work_budget_cuts_a_bomb_and_the_same_seed_plays_the_same_move(game: str, label: str) -> None:
    state = playing(game)
    budget = Budget(work=20_000)
    first = decide(label, state, budget)
    assert first in state.legal_action_ids()
    assert decide(label, state.clone(), budget) == first


@pytest.mark.parametrize("label", ["pimc:samples=3:dd_cards=8", "pimc:samples=2:rollouts=2:dd_cards=0",
                                   "ismcts:iters=24"])
@pytest.mark.parametrize("game", GAMES)
def test_a_budget_the_search_stays_within_changes_nothing(game: str, label: str) -> None:
    state = playing(game)
    assert decide(label, state, Budget(work=10**9, seconds=600)) == decide(label, state.clone())


@pytest.mark.parametrize("label", BOMBS)
def test_a_search_cut_before_it_found_anything_plays_its_rollout_policy(label: str) -> None:
    state = playing("german_whist")
    seat = state.current_player
    rollout = make_policy(parse_policy(label)[1]["rollout"], "german_whist", seat, derive_seed(5, seat, 1))
    expected = rollout.choose_id(state.legal_action_ids(), SeatView(state, seat))
    assert decide(label, state, Budget(work=SAMPLE_WORK // 2)) == expected


@pytest.mark.parametrize("label", BOMBS)
def test_a_decision_whose_time_is_up_before_it_begins_plays_its_rollout_policy(
        label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine can keep a process waiting past a short limit between the decision's start and its first look
    at the clock: the decision plays as a search that found nothing does, it does not fail (a job's deal once did)."""
    import engine.budget

    clock = iter(range(0, 10**6, 10))  # each reading of the decision's clock 10 s after the one before
    monkeypatch.setattr(engine.budget, "time", SimpleNamespace(monotonic=lambda: float(next(clock)), sleep=time.sleep))
    state = playing("german_whist")
    seat = state.current_player
    rollout = make_policy(parse_policy(label)[1]["rollout"], "german_whist", seat, derive_seed(5, seat, 1))
    expected = rollout.choose_id(state.legal_action_ids(), SeatView(state, seat))
    assert decide(label, state, Budget(seconds=1)) == expected


def test_the_double_dummy_search_is_charged_as_it_goes_and_stops_at_the_budget() -> None:
    state = engine.new_match("german_whist", seed=2, first_dealer=0)  # 52 cards to play: minutes unbounded
    meter = Meter(Budget(work=5000))
    with pytest.raises(BudgetSpent):
        DoubleDummy(state, meter=meter).solve()
    assert 5000 < meter.spent <= 5000 + CHARGE_EVERY


@pytest.mark.parametrize("label", BOMBS)
def test_a_time_budget_cuts_a_bomb(label: str) -> None:
    """Where it stops depends on the machine: only that it stops is checked (generously)."""
    state = playing("belote")
    started = time.monotonic()
    assert decide(label, state, Budget(seconds=0.3)) in state.legal_action_ids()
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("label", BOMBS)
def test_a_cancel_flag_raised_from_another_thread_abandons_the_decision(label: str) -> None:
    state = playing("german_whist")
    cancel = Cancel(parent=Cancel())
    outcome: list[BaseException | int] = []

    def run() -> None:
        try:
            outcome.append(decide(label, state, cancel=cancel))
        except Exception as exc:  # noqa: BLE001  (the outcome is what the test looks at)
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive()  # the bomb is still at work
    assert cancel.parent is not None
    cancel.parent.cancel("the server is stopping")
    thread.join(10)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled) and str(outcome[0]) == "the server is stopping"


def test_a_decision_already_cancelled_does_not_start() -> None:
    cancel = Cancel()
    cancel.cancel("the client's deadline passed")
    with pytest.raises(Cancelled, match="deadline passed"):
        decide("pimc", playing("belote"), cancel=cancel)


def test_a_parameter_sets_cost_is_reckoned_from_its_parameters() -> None:
    def cost(label: str) -> int | None:
        name, params = parse_policy(label)
        found = policy_class(name).work_cost(params)
        return None if found is None else found.work

    assert cost(BOMB) > 10**13
    assert cost("pimc:samples=10000:rollouts=1000:dd_cards=52:budget=1000") < 10**10  # one world past its budget
    assert cost("pimc:dd_cards=16") < cost("pimc") < cost("pimc:samples=32") < cost("pimc:samples=32:dd_cards=28")
    assert cost("pimc") <= 100_000 and cost("ismcts") <= 100_000
    assert cost("ismcts:iters=1000000") == 1_000_000 * (SAMPLE_WORK + 30)
    assert cost("greedy") is None and cost("random") is None


def test_a_budget_is_checked() -> None:
    with pytest.raises(ValueError, match="whole number of units"):
        Budget(work=-1)
    with pytest.raises(ValueError, match="0 or more seconds"):
        Budget(seconds=float("nan"))
    assert not NO_BUDGET.bounded and Budget(seconds=1).bounded
