"""The double-dummy solver (engine/search/double_dummy.py) against brute-force minimax over the engine itself on many
small endings of every trick game it solves, against the solver it replaced (tests/dd_reference.py) on larger ones,
and the positions it refuses."""

from __future__ import annotations

from typing import Any

import dd_reference
import pytest

import engine
from engine.bots import make_policies
from engine.budget import NODE_WORK, Budget, BudgetSpent, Meter, NodeMeter
from engine.cards import BIT, SUIT, cards_in, mask_of, parse_cards
from engine.rng import Rng
from engine.scoring import point_table
from engine.search import dd_search
from engine.search.dd_search import Search, exact_value
from engine.search.double_dummy import DoubleDummy, NodeBudgetExceeded, Table, cards_left, taken, unsolvable
from engine.trickgame import TrickGame, TrickRules
from engine.tricks import HEARTS, NO_TRUMP, FollowRule, Ranking, legal_mask, trick_winner

# name: (game, players, options): every trick game whose card play the solver takes (unsolvable says the others).
# Thunee only in its normal contract: a lone call stops the play at the caller's first lost trick (6.4.3) and trip
# changes the rank order for the last trick (8.2.2), which the solver, reading RULES, does not know; random bots call
# lone contracts most of the time, so Thunee's endings come from greedy play.
GAMES: dict[str, tuple[str, int | None, dict[str, Any]]] = {
    "german_whist": ("german_whist", None, {}),
    "german_whist:all": ("german_whist", None, {"score_all_tricks": True}),
    "belote": ("belote", None, {"max_deals": 1}),
    "belote_contree": ("belote_contree", None, {"num_deals": 1}),
    "thunee": ("thunee", 4, {"target_balls": 1, "royals": False}),
    "thunee:6": ("thunee", 6, {"target_balls": 1, "royals": False, "six_trip": False, "six_mooney": False}),
}
REFUSED = ("boonaken", "botifarra", "trappola", "tres", "two_ten_jack")  # their own trick rules


def _ending(name: str, tricks_left: float, seed: int, bots: str = "random") -> TrickGame | None:
    """Play by ``bots`` from a seeded deal until ``tricks_left`` tricks (cards of that many tricks) remain to play;
    None when the deal has no such position the solver takes (its play ended, or the position is not its)."""
    game, players, options = GAMES[name]
    state = engine.new_match(game, seed=seed, players=players, options=options)
    policies = make_policies([bots if game != "thunee" else "greedy"] * state.players, game, seed)
    deal = state.deal_index
    while not state.is_terminal and state.deal_index == deal:
        if isinstance(state, TrickGame) and state.phase == "play" and \
                cards_left(state) == round(tricks_left * state.n_players):
            lone = state.game_id == "thunee" and state.contract != "normal"  # type: ignore[attr-defined]
            return None if lone or unsolvable(state) is not None else state
        seat = state.current_player
        assert seat is not None
        state.apply_id(policies[seat].choose_id(state.legal_action_ids(), lambda seat=seat: state.observation(seat)))
    return None


def _endings(name: str, tricks_left: float, count: int, bots: str = "random") -> list[TrickGame]:
    found = []
    for seed in range(200):
        state = _ending(name, tricks_left, seed, bots)
        if state is not None:
            found.append(state)
            if len(found) == count:
                return found
    raise AssertionError(f"{name}: only {len(found)} endings of {tricks_left} tricks found")


def _minimax(state: TrickGame, side: int, memo: dict[tuple[Any, ...], int]) -> int:
    """Brute force through the engine: what ``side`` takes from here on (``taken`` at the deal's end less now), every
    legal action of every line (positions met again are looked up, keyed by all the play depends on)."""
    if len(state.tricks) == state.RULES.tricks or state.current_player is None:
        return 0
    key = (tuple(state.hands), tuple(state.trick), len(state.tricks), state.current_player, state.stock_top)
    if key in memo:
        return memo[key]
    before = taken(state, side)
    values = []
    for action in state.legal_action_ids():
        child = state.clone()
        child.apply_id(action)
        done = len(child.tricks) == child.RULES.tricks or child.current_player is None
        values.append(taken(child, side) - before + (0 if done else _minimax(child, side, memo)))
    value = max(values) if state.side_of[state.current_player] == side else min(values)
    memo[key] = value
    return value


SIZES = {"german_whist": (2, 2.5, 3, 3.5, 4), "german_whist:all": (2, 3.5, 4), "thunee:6": (2, 2.5, 3)}  # in tricks
BRUTE = [(name, tricks, seed) for name in GAMES for tricks in SIZES.get(name, (2, 2.5, 3, 3.75)) for seed in range(4)]


@pytest.mark.parametrize(("name", "tricks", "seed"), BRUTE)
def test_the_solver_agrees_with_brute_force_on_small_endings(name: str, tricks: float, seed: int) -> None:
    """Each legal card's value and the position's, for the side to play and for the other side, on endings of 2 to 4
    tricks (some in mid-trick) of random deals."""
    state = _endings(name, tricks, 4)[seed]
    side = state.side_of[state.current_player]
    memo: dict[tuple[Any, ...], int] = {}
    solver = DoubleDummy(state)
    for action, value in solver.action_values().items():
        child = state.clone()
        child.apply_id(action)
        brute = taken(child, side) - taken(state, side) + _minimax(child, side, memo)
        assert value == brute, f"{name} seed {seed}: {state.action_string(action)}"
    assert solver.solve() == _minimax(state, side, memo)
    other = next(s for s in state.side_of if s != side)
    assert DoubleDummy(state, side=other).solve() == _minimax(state, other, {})


LARGER = [(name, tricks, seed) for name, tricks in (("german_whist", 6), ("german_whist", 9.5), ("german_whist:all", 8),
                                                    ("belote", 4.5), ("belote_contree", 5), ("belote_contree", 4.25),
                                                    ("thunee", 5), ("thunee:6", 3.5)) for seed in range(3)]


@pytest.mark.parametrize(("name", "tricks", "seed"), LARGER)
def test_the_solver_agrees_with_the_one_it_replaced_on_larger_endings(name: str, tricks: float, seed: int) -> None:
    state = _endings(name, tricks, 3, bots="greedy")[seed]
    new, old = DoubleDummy(state), dd_reference.DoubleDummy(state)
    assert new.card_values() == old.card_values()
    assert new.solve() == old.solve()


QUICK = [(name, tricks, seed) for name, sizes in (("german_whist", (4, 6, 8, 9.5, 13)), ("german_whist:all", (6, 8.5)))
         for tricks in sizes for seed in range(3)]


@pytest.mark.parametrize(("name", "tricks", "seed"), QUICK)
def test_the_quick_lead_bound_changes_no_value(name: str, tricks: float, seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound from a master led that no opponent can trump (``QUICK_LEAD``, where tricks are counted) prunes, and
    changes no value: each card's and the position's, for both sides, on random endings, equal an unpruned search's."""
    state = _endings(name, tricks, 3)[seed]
    other = next(s for s in state.side_of if s != state.side_of[state.current_player])
    pruned = DoubleDummy(state)
    found = (pruned.card_values(), pruned.solve(), DoubleDummy(state, side=other).solve())
    monkeypatch.setattr(dd_search, "QUICK_LEAD", False)
    unpruned = DoubleDummy(state)
    assert found == (unpruned.card_values(), unpruned.solve(), DoubleDummy(state, side=other).solve())


@pytest.mark.parametrize("name", ["german_whist", "belote_contree"])
def test_a_search_stopped_by_its_budget_leaves_the_solver_whole(name: str) -> None:
    """A search that runs out of nodes takes back its plays: the same solver solves the position after."""
    state = _endings(name, 5, 1, bots="greedy")[0]  # big enough to need more than 3 nodes
    solver = DoubleDummy(state, max_nodes=3)
    with pytest.raises(NodeBudgetExceeded):
        solver.solve()
    solver._search.max_nodes = 0  # no limit from the next look on
    assert solver.solve() == DoubleDummy(state).solve()


def test_the_solver_leaves_the_state_as_it_was() -> None:
    state = _endings("belote_contree", 3, 1)[0]
    before = state.to_position()
    DoubleDummy(state).card_values()
    assert state.to_position() == before


def test_a_node_budget_stops_the_search() -> None:
    state = _endings("german_whist", 8, 1)[0]
    with pytest.raises(NodeBudgetExceeded):
        DoubleDummy(state, max_nodes=50).solve()


def test_a_meter_is_charged_the_nodes_searched() -> None:
    state = _endings("belote_contree", 4, 1)[0]
    meter = Meter(Budget(work=10**9))
    solver = DoubleDummy(state, meter=meter)
    solver.solve()
    solver.settle()
    assert meter.spent == solver.nodes > 0


def test_a_node_meter_charges_its_meter_a_work_unit_every_node_work_nodes() -> None:
    """As pimc charges a decision's search: NODE_WORK nodes to a unit, the nodes left over not charged."""
    state = _endings("belote_contree", 5, 1)[0]
    meter = Meter(Budget(work=10**9))
    nodes = NodeMeter(meter)
    solver = DoubleDummy(state, meter=nodes)
    solver.card_values()
    solver.settle()
    assert nodes.nodes == solver.nodes > 2 * NODE_WORK
    assert meter.spent == nodes.spent == solver.nodes // NODE_WORK


def test_a_node_meter_stops_the_search_at_its_meters_budget() -> None:
    state = engine.new_match("german_whist", seed=2, first_dealer=0)  # 52 cards to play: minutes unbounded
    meter = Meter(Budget(work=200))
    nodes = NodeMeter(meter)
    with pytest.raises(BudgetSpent):
        DoubleDummy(state, meter=nodes).solve()
    assert 200 < meter.spent <= 200 + dd_search.CHARGE_EVERY // NODE_WORK + 1
    assert 200 * NODE_WORK < nodes.nodes <= 201 * NODE_WORK + dd_search.CHARGE_EVERY


@pytest.mark.parametrize(("low", "high", "value"), [(0, 162, 0), (0, 162, 162), (0, 162, 77), (5, 5, 5), (0, 1, 1)])
def test_zero_window_tests_find_the_exact_value(low: int, high: int, value: int) -> None:
    """``exact_value`` with a fail-hard test of a known value (the weakest answers a search gives): by halving, in two
    tests from a right guess, and from any guess when it follows the bounds for a few tests first."""
    asked: list[int] = []

    def test(alpha: int, beta: int) -> int:
        asked.append(beta)
        assert beta == alpha + 1
        return beta if value >= beta else alpha

    assert exact_value(test, low, high) == value
    assert len(asked) <= max(1, (high - low).bit_length() + 1)
    asked.clear()
    assert exact_value(test, low, high, guess=value) == value
    assert len(asked) <= 2
    assert exact_value(test, low, high, guess=(value + 3) % (high + 1)) == value
    for guess in (low, high, (low + high) // 3, (value + 3) % (high + 1)):  # following the bounds first (MTD(f))
        assert exact_value(test, low, high, guess=guess, steps=3) == value


@pytest.mark.parametrize(("game", "options", "reason"), [
    ("belote_contree", {}, "not playing cards"),
    ("tablanette", {}, "not a trick game"),
    *((game, {}, "rules of its own") for game in REFUSED),
    ("german_whist", {"face_down_four": True}, "in no hand"),
])
def test_positions_it_cannot_solve_are_refused_with_the_reason(game: str, options: dict[str, Any],
                                                               reason: str) -> None:
    state = engine.new_match(game, seed=3, options=options)
    if game == "belote_contree":
        assert state.phase != "play"
    assert reason in (unsolvable(state) or "")
    with pytest.raises(ValueError, match=reason):
        DoubleDummy(state)


def test_three_quarters_of_a_random_deal_solve_to_what_best_play_then_takes() -> None:
    """The value is reachable: following the solver's best card for the side and any card for the others never
    gives the side less."""
    state = _endings("german_whist", 5, 1)[0]
    side = state.side_of[state.current_player]
    target = DoubleDummy(state).solve() + taken(state, side)
    rng = Rng(1)
    while len(state.tricks) < state.RULES.tricks:
        values = DoubleDummy(state, side=side).action_values()
        if state.side_of[state.current_player] == side:
            action = max(values, key=values.__getitem__)
        else:
            action = list(values)[rng.below(len(values))]
        state.apply_id(action)
    assert taken(state, side) >= target


def _margin_minimax(state: TrickGame, side: int) -> float:
    """Brute force through the engine on the deal's margin for ``side`` (its points less the other side's), every
    belote announced (an action that announces it stands for the plain play of the same card)."""
    if state.deal_results:
        points = state.deal_results[-1]["points"]
        return points[side] - points[1 - side]
    width, values = state.ACTIONS.width, []
    legal = state.legal_action_ids()
    for action in legal:
        if action % width == 0 and action + 1 in legal:  # the plain card beside its announcement
            continue
        child = state.clone()
        child.apply_id(action)
        values.append(_margin_minimax(child, side))
    return max(values) if state.side_of[state.current_player] == side else min(values)


@pytest.mark.parametrize("tricks", [1, 1.5, 2])
def test_contree_double_dummy_points_give_the_deals_margin_with_best_play(tricks: float) -> None:
    """Belote contrée scores a contract made or failed, not the card points the solver counts: its
    ``double_dummy_points`` turn each card's double-dummy count into the deal's points, and their margin is what
    best play for the margin itself gets after that card (brute force). A capot contract (tricks) has none."""
    checked = 0
    for state in _endings("belote_contree", tricks, 12, "greedy"):
        side = state.side_of[state.current_player]
        for action, value in DoubleDummy(state).action_values().items():
            points = state.double_dummy_points(side, value)
            if state.contract.value == "capot":
                assert points is None
                continue
            child = state.clone()
            child.apply_id(action)
            assert points is not None and points[side] - points[1 - side] == _margin_minimax(child, side)
            checked += 1
    assert checked >= 10


# ---- the search on rules as data, against brute force over the same rules ----------------------------------------

PLAIN = Ranking("AKQJT98765432")
RULE_SETS = {  # what the trick games' rules vary, including follow rules no solvable game uses yet (Boonaken's)
    "whist": (TrickRules(PLAIN, tricks=3), (0, 1, 0, 1)),
    "points": (TrickRules(Ranking("ATKQJ987", "J9ATKQ87"), FollowRule(must_trump=True, partner_exempts=True,
                                                                      must_overtrump=True), tricks=3,
                          points=point_table({"A": 11, "T": 10, "K": 4}, {"J": 20, "9": 14, "A": 11}), last_trick=10),
               (0, 1, 0, 1)),
    "jass": (TrickRules(Ranking("AKQJT987", "J9AKQT87"), FollowRule(trump_with_suit=True, free_trump="J"), tricks=3,
                        points=point_table({"A": 11, "T": 10}, {"J": 20, "9": 14})), (0, 1, 0, 1)),
    "three sides, lead passes": (TrickRules(PLAIN, tricks=4, lead_passes=True), (0, 1, 2)),
}


def _rules_minimax(rules: TrickRules, trump: int, side_of: tuple[int, ...], side: int, hands: list[int],
                   trick: list[tuple[int, int]], seat: int, done: int) -> int:
    """What ``side`` takes from here on, every legal card of every line, by the rules' legal_mask and trick_winner."""
    if done == rules.tricks:
        return 0
    if trick:
        cards = [c for _s, c in trick]
        best_seat, best = trick[trick_winner(cards, trump, rules.ranking)]
        over = rules.beaters[trump][best]
        legal = legal_mask(rules.follow, hands[seat], SUIT[cards[0]], trump, over, side_of[best_seat] == side_of[seat])
    else:
        legal = hands[seat]
    values = []
    for card in cards_in(legal):
        hands[seat] ^= BIT[card]
        played = [*trick, (seat, card)]
        if len(played) < len(side_of):
            values.append(_rules_minimax(rules, trump, side_of, side, hands, played, (seat + 1) % len(side_of), done))
        else:
            winner = played[trick_winner([c for _s, c in played], trump, rules.ranking)][0]
            gain = 0
            if side_of[winner] == side:
                gain = 1 if rules.points is None else sum(rules.points[trump][c] for _s, c in played) + (
                    rules.last_trick if done + 1 == rules.tricks else 0)
            leader = (played[0][0] + 1) % len(side_of) if rules.lead_passes else winner
            values.append(gain + _rules_minimax(rules, trump, side_of, side, hands, [], leader, done + 1))
        hands[seat] ^= BIT[card]
    return max(values) if side_of[seat] == side else min(values)


@pytest.mark.parametrize(("rule_set", "seed"), [(name, seed) for name in RULE_SETS for seed in range(6)])
def test_the_search_plays_any_rules_as_data_as_brute_force_does(rule_set: str, seed: int) -> None:
    """Random hands from a 32-card deck under rules that differ in every way the search reads them (points and the
    last trick's bonus, must trump and overtrump, trumping with a suit held, a free trump, three sides, the lead
    passing on), with and without trumps."""
    rules, side_of = RULE_SETS[rule_set]
    rng = Rng(seed)
    deck = [c for c in range(52) if c % 13 >= 5]
    rng.shuffle(deck)
    n = len(side_of)
    hands = [mask_of(deck[k * rules.tricks:(k + 1) * rules.tricks]) for k in range(n)]
    trump = (NO_TRUMP, HEARTS)[seed % 2]
    for side in sorted(set(side_of)):
        search = Search(rules, trump, side_of, side, seed % n, hands, [], 0, [], [True] * rules.tricks)
        assert search.solve() == _rules_minimax(rules, trump, side_of, side, list(hands), [], seed % n, 0), side


def test_a_free_trump_need_not_follow_a_trump_lead() -> None:
    """Boonaken's rule 7.5 as data: the jack of trumps alone never has to follow trumps. West keeps his lone jack of
    hearts on North's heart lead, and East-West take all 65 points (forced to play it, they would leave North-South
    21)."""
    jass = RULE_SETS["jass"][0]
    rules = TrickRules(jass.ranking, jass.follow, tricks=2, points=jass.points)
    hands = [mask_of(parse_cards(codes)) for codes in (["TD", "8H"], ["9H", "QS"], ["TC", "AD"], ["7D", "JH"])]
    for side, value in ((0, 0), (1, 65)):
        assert _rules_minimax(rules, HEARTS, (0, 1, 0, 1), side, list(hands), [], 0, 0) == value
        assert Search(rules, HEARTS, (0, 1, 0, 1), side, 0, hands, [], 0, [], [True, True]).solve() == value


@pytest.mark.parametrize(("players", "call", "reason"), [
    (4, "thunee", "first lost trick"),
    (4, "royals", "first lost trick"),
    (6, "trip", "9 = A = T"),
])
def test_thunee_deals_that_are_not_played_on_card_points_are_refused(players: int, call: str, reason: str) -> None:
    """A lone call ends at the caller's first lost trick and a trip ranks its own way: the search plays neither."""
    for seed in range(200):
        state = engine.new_match("thunee", seed=seed, players=players)
        rng = Rng(seed)
        while state.current_player is not None and state.phase != "play":
            legal = state.legal_actions()
            state.apply(call if call in legal else legal[rng.below(len(legal))])
        if state.current_player is not None and state.contract == call:
            break
    else:
        pytest.fail(f"no deal of 200 reached a {call} contract")
    assert reason in (unsolvable(state) or "")
    with pytest.raises(ValueError, match=reason):
        DoubleDummy(state)


@pytest.mark.parametrize("name", list(GAMES))
def test_the_solvers_legal_cards_are_the_engines(name: str) -> None:
    """At every position of random play through the last tricks of four deals (any card of a trick), the cards the
    search plays are exactly the engine's legal cards."""
    checked = 0
    for state in _endings(name, 3, 4):
        card_of = state.ACTIONS.card_of
        rng = Rng(checked)
        while len(state.tricks) < state.RULES.tricks and state.current_player is not None:
            legal = state.legal_action_ids()
            if unsolvable(state) is None:  # not Thunee's calls in its play
                assert set(DoubleDummy(state).card_values()) == {card_of[a] for a in legal}
                checked += 1
            state.apply_id(legal[rng.below(len(legal))])
    assert checked >= 24


@pytest.mark.parametrize("name", ["german_whist", "belote_contree", "thunee"])
def test_a_table_shared_through_a_deal_gives_what_fresh_solvers_give(name: str) -> None:
    """The positions one search settled serve the later ones of the deal (replay analysis shares a ``Table``): every
    card's value along a played ending is the same as a solver of its own finds, for both sides."""
    table = Table()
    state = _endings(name, 4, 1, bots="greedy")[0]
    rng = Rng(5)
    while len(state.tricks) < state.RULES.tricks and state.current_player is not None:
        for side in sorted(set(state.side_of)) if unsolvable(state) is None else ():
            assert DoubleDummy(state, side, table=table).card_values() == DoubleDummy(state, side).card_values()
        legal = state.legal_action_ids()
        state.apply_id(legal[rng.below(len(legal))])



def test_the_search_runs_from_its_source_without_cython(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's C types come from Cython's pure-Python mode; where Cython is absent (a build requirement only)
    its source runs through the engine's shim of those names, as plain Python, to the same values and nodes."""
    import importlib.util
    import sys
    from pathlib import Path

    monkeypatch.setitem(sys.modules, "cython", None)  # import cython fails
    source = Path(engine.__file__).parent / "search" / "dd_search.py"
    spec = importlib.util.spec_from_file_location("engine.search._dd_search_without_cython", source)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, plain)  # its dataclass looks itself up there
    spec.loader.exec_module(plain)
    assert plain.cython.__name__ == "engine._cython_shim"
    # endings large enough that the transposition table grows (it starts at 1,024 slots) and its best leads order
    # the moves: the same nodes say the compiled search (when built) reads its table as the source does
    sizes = []
    for state in _endings("belote_contree", 7, 1) + _endings("german_whist", 8, 2):
        rules = state.RULES
        stock = list(state.stock[state.stock_top:]) if rules.draw_after_trick else []
        counts = [state._trick_counts(k) if hasattr(state, "_trick_counts") else True for k in range(rules.tricks)]
        seat = state.current_player
        ours, theirs = (module.Search(rules, state.trump, state.side_of, state.side_of[seat], seat, state.hands,
                                      state.trick, len(state.tricks), stock, counts) for module in (dd_search, plain))
        assert (ours.solve(), ours.card_values(), ours.nodes) == (theirs.solve(), theirs.card_values(), theirs.nodes)
        assert len(ours.tt) == len(theirs.tt)
        sizes.append(len(ours.tt))
    assert max(sizes) > 512, sizes


def test_the_search_refuses_more_seats_than_it_holds() -> None:
    rules = RULE_SETS["jass"][0]
    with pytest.raises(ValueError, match="up to 8 seats"):
        Search(rules, HEARTS, tuple(range(9)), 0, 0, [0] * 9, [], 0, [], [True] * rules.tricks)
