"""Auction inference (engine.bots.inference): samples that fit the other seats' bids as greedy makes them, within
every hard fact of play, drawn from the seed alone; the ``infer`` option of pimc and ismcts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine.bots import SeatView, make_policies, make_policy, seat_observer
from engine.bots.inference import auction_stations, bids_to_fit, infer_sample, misfits, misfits_at
from engine.rng import Rng


def _greedy_to_play(seed: int, cards: int, deals: int = 1) -> engine.State:
    """A contrée match played by greedy on every seat to ``cards`` cards into the play of its ``deals``-th deal."""
    state = engine.new_match("belote_contree", seed=seed, first_dealer=0)
    bots = make_policies(["greedy"] * 4, "belote_contree", seed=seed)
    while not (state.deal_index == deals - 1 and state.phase == "play" and
               sum(1 for _s, a in state.moves[state.dealing_start:] if state.action_string(a)[0] in "789TJQKA")
               >= cards):
        seat = state.current_player
        assert seat is not None
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return state


def _views(count: int) -> list[SeatView]:
    """Views of the seat to play in greedy contrée deals, early in the play, where some other seat bid."""
    views = []
    for seed in range(1, 60):
        state = _greedy_to_play(seed, 3 + seed % 5)  # (later deals are cut from the tricks: known)
        view = SeatView(state, state.current_player or 0)
        if bids_to_fit(view.sample(Rng(0)), view.seat):
            views.append(view)
        if len(views) == count:
            break
    return views


def test_the_real_deal_fits_greedys_bids() -> None:
    for view in _views(8):
        moves = bids_to_fit(view.sample(Rng(1)), view.seat)
        assert misfits(view.state, moves) == 0


def test_draws_scored_at_the_kept_auction_states_count_as_a_replay_does() -> None:
    """misfits_at (each draw's hands given to the states kept once a position) gives misfits' count (each draw's
    dealing replayed), bound or not, and the real deal fits there too."""
    counts = set()
    for view in _views(6):
        first = view.sample(Rng(0))
        moves = bids_to_fit(first, view.seat)
        stations = auction_stations(first, moves)
        assert stations is not None and len(stations) == len(moves)
        assert misfits_at(view.state, stations) == 0
        for k in range(8):
            world = view.sample(Rng(50 + k))
            for bound in (1 << 30, 1, 3):
                count = misfits_at(world, stations, bound)
                assert count == misfits(world, moves, bound)
                counts.add(count)
    assert len(counts) > 3  # (worlds that fit and misfit by various counts: the comparison can fail)


def test_a_game_that_deals_after_its_auction_replays_each_draw() -> None:
    """Belote deals its second round after the taking: a hand at a bid is not the hand at the end, so no states are
    kept and each draw's dealing is replayed."""
    state = engine.new_match("belote", seed=1)
    view = _played(state, make_policies(["greedy"] * 4, "belote", seed=1),
                   lambda played, _: played.phase != "play" or len(played.moves) - played.dealing_start < 4)
    first = view.sample(Rng(1))
    moves = bids_to_fit(first, view.seat)
    assert moves and auction_stations(first, moves) is None


def test_inferred_samples_keep_every_hard_fact() -> None:
    for view in _views(6):
        for k in range(5):  # (from_position replays the tricks against the hands dealt: PositionError if illegal)
            world = infer_sample(view, Rng(k), 16)
            # the follow rule's voids: every card a seat played was legal with the hand the world deals it
            assert world.observation(view.seat) == view.state.observation(view.seat)
            assert type(world).from_position(world.to_position()).to_position() == world.to_position()


def test_an_inferred_sample_is_a_function_of_the_seed() -> None:
    view = _views(1)[0]
    first = [infer_sample(view, Rng(k), 12).hands for k in range(4)]
    again = [infer_sample(SeatView(view.state.clone(), view.seat), Rng(k), 12).hands for k in range(4)]
    assert first == again
    assert len({tuple(h) for h in first}) > 1


def test_worlds_that_misfit_the_bids_are_rarer() -> None:
    """Without inference (infer 1: one draw) most worlds contradict some bid; with it, far fewer do, and the misfits
    left are fewer on average."""
    plain, inferred, plain_total, inferred_total = 0, 0, 0, 0
    for view in _views(8):
        moves = bids_to_fit(view.sample(Rng(0)), view.seat)
        for k in range(10):
            a = misfits(infer_sample(view, Rng(100 + k), 1), moves)
            b = misfits(infer_sample(view, Rng(100 + k), 16), moves)
            plain += a > 0
            inferred += b > 0
            plain_total += a
            inferred_total += b
    assert inferred_total * 2 < plain_total
    assert inferred < plain


def test_a_bidders_trump_honours_follow_the_bid() -> None:
    """The declarer's partner, in worlds inferred, holds the declarer with more trump than without inference."""
    from engine.cards import cards_in
    with_, without = 0, 0
    for view in _views(8):
        state = view.state
        contract = state.contract
        if contract is None or contract.declarer == view.seat:
            continue
        trump = state.trump
        for k in range(10):
            for tries, counter in ((1, 0), (16, 1)):
                world = infer_sample(view, Rng(k), tries)
                held = sum(1 for c in cards_in(world.hands[contract.declarer] | world._played_since(contract.declarer))
                           if c // 13 == trump)
                if counter:
                    with_ += held
                else:
                    without += held
    assert with_ > without


def test_infer_is_an_option_of_pimc_and_ismcts() -> None:
    for name in ("pimc", "ismcts"):
        assert make_policy(name, "belote_contree", 0, 1, {"infer": 8}).params["infer"] == 8
        with pytest.raises(ValueError, match="infer"):
            make_policy(name, "belote_contree", 0, 1, {"infer": -1})
        with pytest.raises(ValueError, match="infer"):
            make_policy(name, "belote_contree", 0, 1, {"infer": "many"})
        with pytest.raises(ValueError, match="infers"):
            make_policy(name, "belote_contree", 0, 1, {"infers": 2})


@pytest.mark.parametrize("label", ["pimc:samples=3:dd_cards=8:infer=6", "ismcts:iters=24:infer=6"])
def test_a_decision_with_inference_is_a_function_of_the_seed(label: str) -> None:
    state = _greedy_to_play(7, 2)
    seat = state.current_player
    assert seat is not None
    decisions = []
    for _ in range(2):
        bot = make_policies([label] * 4, "belote_contree", seed=3)[seat]
        decisions.append(bot.choose_id(state.legal_action_ids(), seat_observer(state.clone(), seat, bot)))
    assert decisions[0] == decisions[1]


def _played(state: engine.State, bots: list[Any], going: Callable[[engine.State, int], bool]) -> SeatView:
    """The view of the seat to act once ``bots`` have played ``state`` while ``going(state, moves played so far)``."""
    moves = 0
    while going(state, moves):
        seat = state.current_player
        assert seat is not None
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
        moves += 1
    seat = state.current_player
    assert seat is not None
    return SeatView(state, seat)


@pytest.mark.parametrize("game", ["german_whist", "belote", "botifarra"])
def test_games_without_bids_to_fit_sample_as_before(game: str) -> None:
    state = engine.new_match(game, seed=2)
    view = _played(state, make_policies(["random"] * state.players, game, seed=2), lambda _, moves: moves < 12)
    seat = view.seat
    world = infer_sample(view, Rng(5), 8)
    assert world.observation(seat) == state.observation(seat)


@pytest.mark.parametrize("game", ["belote", "botifarra", "boonaken"])
def test_other_auctions_are_read_and_the_real_deal_fits_them(game: str) -> None:
    fitted = 0
    for seed in (1, 2, 3):
        state = engine.new_match(game, seed=seed)
        view = _played(state, make_policies(["greedy"] * state.players, game, seed=seed),
                       lambda played, _: played.phase != "play" or len(played.moves) - played.dealing_start < 4)
        seat = view.seat
        moves = bids_to_fit(view.sample(Rng(1)), seat)  # (none where a move was hidden from the seat: Boonaken's)
        fitted += bool(moves)
        assert misfits(state, moves) == 0
        world = infer_sample(view, Rng(2), 8)
        assert world.observation(seat) == state.observation(seat)
    assert fitted


def test_an_auction_with_a_move_hidden_from_the_seat_is_not_replayed() -> None:
    """Thunee's trumper lays its trump card face down: a sample's moves would show it, so nothing is fitted."""
    state = engine.new_match("thunee", seed=1)
    bots = make_policies(["greedy"] * 4, "thunee", seed=1)
    while state.phase != "play" or len(state.moves) - state.dealing_start < 8:
        seat = state.current_player
        assert seat is not None
        state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    seat = state.current_player
    assert seat is not None
    hidden = [m for m in state.moves if state.action_seen_by(seat, m[0], state.action_string(m[1])) !=
              state.action_string(m[1])]
    assert hidden and bids_to_fit(SeatView(state, seat).sample(Rng(1)), seat) == []


@pytest.mark.parametrize("name", ["pimc", "ismcts"])
def test_inference_draws_count_in_a_decisions_work(name: str) -> None:
    from engine.bots.registry import policy_class
    cls = policy_class(name)
    plain = cls.work_cost(cls.resolve_params({"infer": 0}))
    inferred = cls.work_cost(cls.resolve_params({"infer": 8}))
    assert plain is not None and inferred is not None and inferred.work > plain.work
