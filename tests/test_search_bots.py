"""The searching policies, pimc and ismcts: they decide from the seat's view only (the decision is the same in every
state the seat cannot tell apart), deterministically per seed, by name with parameters; their samples depend only on
what the seat knows."""

from __future__ import annotations

import pytest

import engine
from engine.bots import SeatView, make_policies, make_policy, parse_policy, play_out, policy_label, seat_observer
from engine.rng import Rng

LABELS = ["pimc:samples=3:dd_cards=8", "pimc:samples=2:dd_cards=0:rollouts=2", "ismcts:iters=24",
          "ismcts:iters=12:dd_cards=12"]
GAMES = {  # game, options, the decision points looked at (moves into the deal)
    "german_whist": ({}, (3, 20, 40)),
    "belote_contree": ({"num_deals": 1}, (6, 18, 30)),
    "tablanette": ({"max_deals": 1}, (4, 15)),
    "belote": ({"max_deals": 1}, (8, 20)),
    "two_ten_jack": ({}, (1, 4, 9, 17, 25)),
    "boonaken": ({"max_deals": 1}, (2, 6, 9, 14, 22)),
    "botifarra": ({"max_deals": 1}, (5, 14, 30)),
}


def _positions(game: str) -> list[engine.State]:
    """States after random play to each decision point of GAMES, from two seeds."""
    options, points = GAMES[game]
    states = []
    for seed in (1, 2):
        state = engine.new_match(game, seed=seed, options=options)
        bots = make_policies(["random"] * state.players, game, seed)
        for move in range(max(points) + 1):
            if state.is_terminal:
                break
            if move in points and len(state.legal_action_ids()) > 1:
                states.append(state.clone())
            seat = state.current_player
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
    return states


def _decide(label: str, state: engine.State, seed: int = 5) -> int:
    seat = state.current_player
    name, params = parse_policy(label)
    bot = make_policy(name, state.game_id, seat, seed, params)
    return bot.choose_id(state.legal_action_ids(), SeatView(state, seat))


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_decision_is_unchanged_when_the_hidden_cards_are_dealt_otherwise(game: str, label: str) -> None:
    """The seat's own view is all it uses: in a state dealt again where the seat has not seen (engine.determinize:
    the same observation), it plays the same move from the same seed."""
    positions = _positions(game)
    assert positions
    moved = 0
    for k, state in enumerate(positions):
        seat = state.current_player
        other = engine.determinize(state, seat, Rng(100 + k))
        assert other.observation(seat) == state.observation(seat)
        moved += other.to_position()["hands"] != state.to_position()["hands"] if "hands" in state.to_position() else 1
        assert _decide(label, other) == _decide(label, state), f"{game} position {k}"
    assert moved  # the hidden cards really were dealt otherwise


@pytest.mark.parametrize("game", sorted(GAMES))
def test_samples_depend_only_on_what_the_seat_knows(game: str) -> None:
    """The same samples, whole positions, in a state dealt otherwise where the seat has not seen (tests/
    test_determinize.py checks it over every game and player count)."""
    for k, state in enumerate(_positions(game)):
        seat = state.current_player
        other = engine.determinize(state, seat, Rng(7 + k))
        a, b = engine.determinize(state, seat, Rng(3)), engine.determinize(other, seat, Rng(3))
        assert {**a.to_position(), "seed": 0, "rng": 0} == {**b.to_position(), "seed": 0, "rng": 0}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_memo_draws_the_same_samples(game: str) -> None:
    """Samples of one position drawn with a memo (what a SeatView keeps between its samples) are the samples drawn
    without."""
    for state in _positions(game):
        seat, memo = state.current_player, {}
        for k in range(3):
            with_memo = engine.determinize(state, seat, Rng(k), memo).to_position()
            assert with_memo == engine.determinize(state, seat, Rng(k)).to_position()


def test_a_fixed_view_samples_the_real_deal() -> None:
    """German Whist once the stock is drawn: the seat knows every card by elimination (SeatView.fixed), and its
    samples hold the real hands."""
    state = engine.new_match("german_whist", seed=3, first_dealer=0)
    fixed = []
    while not state.is_terminal:
        view = SeatView(state, state.current_player)
        fixed.append(view.fixed())
        if fixed[-1]:
            assert view.sample(Rng(1)).hands == view.sample(Rng(2)).hands == state.hands
        state.apply_id(state.legal_action_ids()[0])
    assert fixed == [False] * 26 + [True] * 26  # the stock lasts 13 tricks


@pytest.mark.parametrize("label", LABELS)
def test_a_seed_gives_the_same_play(label: str) -> None:
    def play(seed: int) -> list:
        state = engine.new_match("german_whist", seed=9, first_dealer=0)
        play_out(state, make_policies([label, "greedy"], "german_whist", seed))
        return state.history
    assert play(1) == play(1)


def test_search_policies_take_their_parameters_by_label() -> None:
    assert parse_policy("pimc:samples=8:dd_cards=0") == (
        "pimc", {"samples": 8, "rollouts": 1, "dd_cards": 0, "budget": 0, "rollout": "greedy", "bids": "greedy",
                 "infer": 8})
    assert policy_label("ismcts", {"iters": 400}) == "ismcts"
    assert policy_label("ismcts", {"iters": 50, "rollout": "greedy"}) == "ismcts:iters=50:rollout=greedy"
    with pytest.raises(ValueError, match="samples. = 0 is out of range"):
        parse_policy("pimc:samples=0")
    with pytest.raises(ValueError, match="rollout"):
        parse_policy("pimc:rollout=pimc")


def test_a_search_policy_asks_for_its_seat_view() -> None:
    state = engine.new_match("german_whist", seed=1, first_dealer=0)
    bot = make_policy("pimc", "german_whist", 1, 1)
    with pytest.raises(ValueError, match="SeatView"):
        bot(state.observation(1))
    with pytest.raises(ValueError, match="SeatView"):
        bot.choose_id(state.legal_action_ids(), lambda: state.observation(1))


def test_a_budget_bounds_the_samples() -> None:
    """With a budget of one move, pimc decides on its first sample: as pimc with one sample does."""
    state = _positions("german_whist")[0]
    assert _decide("pimc:samples=50:budget=1", state) == _decide("pimc:samples=1", state)



@pytest.mark.parametrize("game", ["german_whist", "belote_contree", "tablanette", "boonaken", "two_ten_jack"])
def test_ismcts_decides_the_same_from_its_source_without_cython(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ismcts's tree is typed in Cython's pure-Python mode (C fields and loops compiled); where Cython is absent its
    source runs through the engine's shim of those names, as plain Python, and from the same seeds it makes the same
    decisions, drawing as many times from its own generator and its play-outs' (against the compiled build when it
    is built). Tablanette's capture ids take up to 60 bits; Boonaken and Two-Ten-Jack show some moves only in part
    (their tree keys moves as the seat sees them)."""
    import importlib.util
    import sys
    from pathlib import Path

    from engine.bots.ismcts import IsmctsPolicy

    monkeypatch.setitem(sys.modules, "cython", None)  # import cython fails
    source = Path(engine.__file__).parent / "bots" / "ismcts.py"
    spec = importlib.util.spec_from_file_location("engine.bots._ismcts_without_cython", source)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, plain)
    spec.loader.exec_module(plain)
    assert plain.cython.__name__ == "engine._cython_shim"
    searched = 0
    for k, state in enumerate(_positions(game)):
        seat = state.current_player
        ours, theirs = (cls(game, seat, 5 + k, {"iters": 40}) for cls in (IsmctsPolicy, plain.IsmctsPolicy))
        legal = state.legal_action_ids()
        assert ours.choose_id(legal, SeatView(state, seat)) == theirs.choose_id(legal, SeatView(state, seat))
        assert ours.rng.state == theirs.rng.state
        if ours._bots is not None:
            searched += 1
            assert [bot.rng.state for bot in ours._bots] == [bot.rng.state for bot in theirs._bots]
    assert searched >= 2


# ---- named with parameters everywhere a policy is named ------------------------------------------------------------

def test_job_specs_take_search_policies_with_parameters() -> None:
    from workers.spec import JobSpec, validate
    spec = validate(JobSpec(game="german_whist", policies=("pimc:samples=4:dd_cards=10", "ismcts:iters=400"), count=4,
                            seed=1))
    assert spec.policies == ("pimc:samples=4:dd_cards=10", "ismcts")


def test_grpc_policy_specs_name_search_policies_with_parameters() -> None:
    from services.app.allowed_policies import PolicyAllowList
    from services.app.convert import policy_label_of
    from services.app.errors import InvalidArgument
    built_in = PolicyAllowList()
    assert policy_label_of("pimc", {"samples": "8", "rollout": "random"}, built_in) == "pimc:samples=8:rollout=random"
    assert policy_label_of("ismcts:iters=50", {}, built_in) == "ismcts:iters=50"
    with pytest.raises(InvalidArgument, match="iters"):
        policy_label_of("ismcts", {"iters": "lots"}, built_in)


def test_replay_headers_keep_search_policy_labels() -> None:
    from replay.record import decode, record_deal
    labels = ["pimc:samples=2:dd_cards=6", "ismcts:iters=10"]
    replay = decode(record_deal("german_whist", 3, labels))
    assert list(replay.header.policies) == labels
    state = engine.new_match("german_whist", seed=3)
    play_out(state, make_policies(labels, "german_whist", 3))
    assert [move for move in state.history] == [(s, a) for s, a in replay.moves]


@pytest.mark.parametrize(("cards", "exact"), [(24, True), (25, False)])
def test_pimc_searches_exactly_from_24_cards_left_by_default(monkeypatch: pytest.MonkeyPatch, cards: int,
                                                            exact: bool) -> None:
    """``dd_cards`` defaults to 24, from the solver's measured speed (s40; engine/bots/pimc.py, docs/ratings.md): in
    Belote contrée the double-dummy search takes over for the last six tricks, play-outs decide before."""
    import engine.bots.pimc as pimc
    from engine.search.double_dummy import cards_left

    solved: list[int] = []

    class Counting(pimc.DoubleDummy):  # type: ignore[misc]
        def __init__(self, state: engine.State, *args: object, **kwargs: object) -> None:
            solved.append(cards_left(state))
            super().__init__(state, *args, **kwargs)

    monkeypatch.setattr(pimc, "DoubleDummy", Counting)
    for seed in range(1, 20):
        state = engine.new_match("belote_contree", seed=seed, options={"num_deals": 1})
        bots = make_policies(["greedy"] * state.players, "belote_contree", seed)
        while not state.is_terminal and not (state.phase == "play" and cards_left(state) == cards):
            seat = state.current_player
            state.apply_id(bots[seat].choose_id(state.legal_action_ids(), seat_observer(state, seat, bots[seat])))
        if not state.is_terminal and len(state.legal_action_ids()) > 1:
            break
    else:
        raise AssertionError(f"no decision at {cards} cards left")
    assert parse_policy("pimc")[1]["dd_cards"] == 24
    _decide("pimc:samples=2", state)
    assert solved == ([cards] * 2 if exact else [])


@pytest.mark.parametrize("rollout", ["greedy", "random"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_playouts_play_as_fresh_bots_do(game: str, rollout: str) -> None:
    """A search's Playouts (observers and their Seen rebound from one play-out's state to the next) play each
    play-out as play_out does with observers made for it, from the same seeds."""
    from engine.bots.search import Playouts, last_deal

    positions = [last_deal(state) for state in _positions(game)]
    players = positions[0].players
    playouts = Playouts(make_policies([rollout] * players, game, 7))
    fresh = make_policies([rollout] * players, game, 7)
    for state in positions * 2:
        kept, made = state.clone(), state.clone()
        assert playouts.play(kept) == play_out(made, fresh)
        assert kept.moves == made.moves and kept.is_terminal
