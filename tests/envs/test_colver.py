"""colver's agents in a seat of Belote contrée (envs/colver.py, issue 31): what the adapter hands colver, the legality
of its moves in our engine, and its seeding."""

from __future__ import annotations

import pytest

import engine
from engine.bots import make_policies, seat_observer
from engine.bots.view import SeatView
from engine.rng import Rng

pytest.importorskip("colver")
from envs.colver import ColverPolicy, card_code, card_index  # noqa: E402

GAME = "belote_contree"
QUICK = "envs.colver:ColverPolicy:time_ms=0:worlds=2"  # count mode: repeatable, and quick
QUICK_PARAMS = {"time_ms": 0, "worlds": 2}


def _deal(seed: int, labels: list[str], policy_seed: int = 1) -> tuple[engine.State, list[str]]:
    """One deal played by ``labels``; the state at its end and the actions played."""
    state = engine.new_match(GAME, seed=seed, options={"num_deals": 1})
    bots = make_policies(labels, GAME, policy_seed)
    played = []
    while not state.is_terminal:
        seat = state.current_player
        action = bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat]))
        played.append(state.action_string(action))
        state.apply_id(action)  # raises on an illegal move
    return state, played


def _positions(count: int) -> list[engine.State]:
    """States at a card to play with two choices or more, from deals greedy bids and random plays."""
    found = []
    for seed in range(count):
        state = engine.new_match(GAME, seed=seed, options={"num_deals": 1})
        bots = make_policies(["greedy", "random"] * 2, GAME, seed)
        stop = 1 + seed % 28
        cards = 0
        while not state.is_terminal:
            seat = state.current_player
            if state.phase == "play":
                if cards >= stop and len(state.legal_action_ids()) > 1:
                    found.append(state)
                    break
                cards += 1
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return found


def test_colver_gets_the_seats_view_and_a_sample_not_the_hidden_cards() -> None:
    """The hands colver is given hold the seat's own and the cards each seat played, the rest a sample; and a deal
    the seat cannot tell from the real one (same observation, other hidden cards) gets the same move."""
    differs = 0
    positions = _positions(40)
    assert len(positions) >= 30
    for number, state in enumerate(positions):
        seat = state.current_player
        other = SeatView(state, seat).sample(Rng(1000 + number))
        assert other.observation(seat) == state.observation(seat)
        moves = []
        for position in (state, other):
            bot = ColverPolicy(GAME, seat, number, QUICK_PARAMS)
            moves.append(bot.choose_id(position.legal_action_ids(), seat_observer(position, seat, bot)))
            given = bot.last_hands
            assert given is not None
            observation = position.observation(seat)
            played = [(p, c) for trick in [*observation["tricks"], observation["trick"]] for p, c in trick]
            assert given[seat] == sorted([card_index(c) for c in observation["hand"]]
                                         + [card_index(c) for p, c in played if p == seat])
            for player in range(4):
                assert {card_index(c) for p, c in played if p == player} <= set(given[player])
        assert moves[0] == moves[1]
        real = [sorted(card_index(c) for c in state.observation(p)["hand"]) for p in range(4)]
        given_now = [sorted(set(hand) - {card_index(c) for trick in [*state.observation(seat)["tricks"],
                                                                       state.observation(seat)["trick"]]
                                         for _p, c in trick}) for hand in bot.last_hands or []]
        differs += any(given_now[p] != real[p] for p in range(4) if p != seat)
    assert differs >= len(positions) // 2  # the other seats' cards are a sample: they differ from the real ones


def test_every_move_is_legal_in_our_engine_over_many_deals() -> None:
    for seed in range(12):
        state, played = _deal(seed, [QUICK, "greedy", QUICK, "random"] if seed % 2 else [QUICK] * 4, seed)
        assert state.is_terminal and len(played) >= 32


def test_a_seed_gives_the_same_moves() -> None:
    assert _deal(5, [QUICK, "greedy"] * 2, 3)[1] == _deal(5, [QUICK, "greedy"] * 2, 3)[1]


def test_a_card_our_rules_forbid_is_replaced_by_colvers_best_allowed_candidate() -> None:
    # rules 10.5: trump H, partner winning with QH, void in clubs: 7H (undertrumping the partner) is forbidden here,
    # allowed in colver
    legal = ["9D", "AH", "KS"]
    scores = {"7H": 10.0, "9D": 40.0, "AH": 55.0, "KS": 30.0}  # lower is better for this seat (colver took 7H)
    decision = {"action": card_index("7H"), "candidates": [(card_index(c), s) for c, s in scores.items()]}
    assert ColverPolicy._mapped(decision, legal) == "KS"  # colver chose the lowest score: lower is better here
    decision["action"] = card_index("AH")
    assert ColverPolicy._mapped(decision, legal) == "AH"
    assert ColverPolicy._mapped({"action": card_index("KH")}, ["KH", "KH:belote", "QS"]) == "KH:belote"
    assert [card_code(card_index(c)) for c in legal] == legal


def test_colvers_solver_agrees_with_ours_on_the_bench_endings() -> None:
    from services.bench.colver_dd import colver_against_ours

    report = colver_against_ours(2, seed=3)
    for label in ("belote_contree:6", "belote_contree:5"):
        row = report[label]
        assert row["values_agree"] == 2 and row["colver_oracle_mean_seconds"] > 0 and row["mean_seconds"] > 0
