"""The PettingZoo environments (issue 16): PettingZoo's own api_test and seed_test for every game and player count,
and what the environment promises beyond them (masks, the encoding, rewards per deal, seeding, text)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pytest

import engine
from engine.cards import CARD_OF_CODE
from engine.rng import Rng

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402
from reference_encoding import ReferenceEncoder  # noqa: E402

from engine.fishing import FishingState  # noqa: E402
from engine.trickgame import TrickGame  # noqa: E402
from envs.encoding import ActionCodec, ObservationEncoder, secret_actions  # noqa: E402
from envs.pettingzoo import CardtableEnv  # noqa: E402

CASES = [(game, players) for game in engine.list_games() for players in engine.game_info(game).player_counts]
CYCLES = 40  # turns of every seat: enough to cross a deal's end in every game, and the match's end in some


@pytest.mark.parametrize(("game", "players"), CASES)
def test_pettingzoos_api_and_seed_tests_pass(game: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a dict observation (with its action mask) is what PettingZoo asks for
        api_test(CardtableEnv(game, players, options={"max_deals": 2}), num_cycles=CYCLES)
        seed_test(lambda: CardtableEnv(game, players, options={"max_deals": 2}), num_cycles=CYCLES)


def _play(env: CardtableEnv, seed: int, check=None) -> dict[str, float]:
    """Play the match with random legal indexes; ``check(env, observation, info)`` sees every step; the rewards
    summed per agent."""
    env.reset(seed=seed)
    rng = Rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if check is not None:
            check(env, observation, info)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return totals


@pytest.mark.parametrize(("game", "players"), [(g, p) for g, p in CASES if p == engine.game_info(g).default_players])
def test_the_mask_and_the_encoding_say_what_the_seat_may_know(game: str, players: int) -> None:
    env = CardtableEnv(game, players, options={"max_deals": 1})
    codec = ActionCodec.for_game(game)

    def check(env: CardtableEnv, observation: dict, info: dict) -> None:
        state = env.state
        seat = state.current_player
        legal = state.legal_action_ids()
        assert sorted(np.flatnonzero(observation["action_mask"])) == sorted(codec.index(a) for a in legal)
        assert {codec.index_string(i) for i in np.flatnonzero(observation["action_mask"])} == set(
            codec.index_string(codec.index(a)) for a in legal)
        vector, view = observation["observation"], state.observation(seat)
        hand = {CARD_OF_CODE[c] for c in view.get("hand", ())}
        assert set(np.flatnonzero(vector[:52])) == hand
        for other, code in view.get("trick", ()):
            if code in CARD_OF_CODE:
                assert vector[52 * (1 + (other - seat) % players) + CARD_OF_CODE[code]] == 1
        at = 52 * (players + 5) + 5 + len(engine.game_info(game).phases) + 1  # past the planes, trump and phase
        assert list(vector[at:at + players]) == [view["scores"][(seat + k) % players] for k in range(players)]

    _play(env, 3, check)


@pytest.mark.parametrize(("game", "options"), [("belote", {}), ("german_whist", {"target_score": 100}),
                                               ("tablanette", {}), ("tres", {})])
def test_rewards_come_at_each_deals_end_and_add_up_to_the_match_scores(game: str, options: dict) -> None:
    env = CardtableEnv(game, options={**options, "max_deals": 2})
    rewards_at: list[int] = []

    def check(env: CardtableEnv, observation: dict, info: dict) -> None:
        if any(env.rewards.values()):
            rewards_at.append(len(env.state.deal_results))

    totals = _play(env, 11, check)
    assert [totals[agent] for agent in env.possible_agents] == env.state.scores
    assert rewards_at and set(rewards_at) == {1}  # only right after the first deal's end (the second's ends it)


def test_a_seed_plays_the_engines_deal_and_no_seed_plays_on_from_it() -> None:
    env = CardtableEnv("tablanette")
    env.reset(seed=42)
    assert env.state.to_position() == engine.new_match("tablanette", seed=42).to_position()
    env.reset()
    after_42 = env.state.to_position()
    env.reset(seed=42)
    env.reset()
    assert env.state.to_position() == after_42 != engine.new_match("tablanette", seed=42).to_position()


def test_an_illegal_index_is_refused_and_changes_nothing() -> None:
    env = CardtableEnv("german_whist")
    env.reset(seed=1)
    before = env.state.to_position()
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    with pytest.raises(engine.IllegalAction, match=rf"illegal action 'action index {illegal}' \(german_whist deal 1"):
        env.step(illegal)
    assert env.state.to_position() == before
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    for bad in (float(legal), str(legal), None, -1):  # an index is an integer: no rounding, no parsing
        with pytest.raises(engine.IllegalAction, match="illegal action .action index "):
            env.step(bad)
        assert env.state.to_position() == before
    env.step(np.int64(legal))
    assert len(env.state.moves) == 1


@pytest.mark.parametrize(("game", "key"), [("boonaken", "face_up"), ("belote", "turn_up"), ("german_whist", "face_up")])
def test_the_face_up_plane_holds_every_face_up_card(game: str, key: str) -> None:
    """Plane n+2 holds the cards face up on the table, one card (a turn-up) or several (Boonaken's centre pair)."""
    env = CardtableEnv(game, options={"max_deals": 1})
    env.reset(seed=3)
    seat, n = env.state.current_player, env.n
    shown = env.state.observation(seat)[key]
    cards = {CARD_OF_CODE[code] for code in ([shown] if isinstance(shown, str) else shown)}
    observation, *_ = env.last()
    assert cards and set(np.flatnonzero(observation["observation"][52 * (n + 2):52 * (n + 3)])) == cards


def test_render_shows_the_table_as_text() -> None:
    env = CardtableEnv("belote", 4, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("belote, deal 1, dealer seat ") and "turn_up " in text and "<- to act: pass" in text
    assert CardtableEnv("belote", 4).render() is None


@pytest.mark.parametrize(("args", "message"), [
    (("snap",), "unknown game 'snap'"),
    (("belote", 5), "belote"),
    (("tablanette", None, {"hand_size": 99}), "hand_size"),
])
def test_a_bad_environment_is_refused_clearly(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CardtableEnv(*args)
    with pytest.raises(ValueError, match="render_mode must be one of ansi, human or None"):
        CardtableEnv("tablanette", render_mode="rgb_array")


@pytest.mark.parametrize("game", engine.list_games())
def test_every_legal_action_has_its_own_index(game: str) -> None:
    codec = ActionCodec.for_game(game)
    for seed in range(3):
        state = engine.new_match(game, seed=seed, options={"max_deals": 1})
        rng = Rng(seed)
        while not state.is_terminal:
            legal = state.legal_action_ids()
            indexes = codec.legal_by_index(legal)
            assert len(indexes) == len(legal) and all(0 <= i < codec.size for i in indexes)
            assert sorted(indexes.values()) == sorted(legal)
            state.apply_id(rng.choice(legal))


def test_every_game_is_a_trick_game_or_a_fishing_game_and_has_the_encoding() -> None:
    trick_games = {game for game in engine.list_games() if issubclass(engine.game_class(game), TrickGame)}
    fishing_games = {game for game in engine.list_games() if issubclass(engine.game_class(game), FishingState)}
    assert trick_games | fishing_games == set(engine.list_games())
    assert fishing_games == {"tablanette", "tablic"}
    assert all(ObservationEncoder(players, game).size == ReferenceEncoder(players, game).size
               for game, players in CASES)


@pytest.mark.parametrize("game", [g for g in engine.list_games() if issubclass(engine.game_class(g), TrickGame)])
def test_a_game_declares_face_down_moves_exactly_when_it_has_them(game: str) -> None:
    info = engine.game_info(game)
    assert info.face_down == any(secret_actions(game, n) for n in info.player_counts)
    face_down = {g for g in engine.list_games() if engine.game_info(g).face_down}
    assert face_down == {"two_ten_jack", "boonaken", "thunee"}


@pytest.mark.parametrize(("game", "players", "options"), [(*case, {}) for case in CASES] + [
    ("german_whist", 2, {"face_down_four": True}), ("trappola", 2, {"public_declaration_ranks": True}),
    ("tablanette", 4, {"partnerships": True}), ("tablanette", 2, {"hand_size": 8, "target": 20})])
def test_the_fast_encoding_is_the_observations_at_every_move(game: str, players: int, options: dict) -> None:
    env = CardtableEnv(game, players, options={**options, "max_deals": 2})
    reference = ReferenceEncoder(players, game)

    def check(env: CardtableEnv, observation: dict, info: dict) -> None:
        for seat in range(players):
            view = env.state.observation(seat, history=True)
            np.testing.assert_array_equal(env.encode(seat), reference.encode(view, seat, env._deal_start))

    for seed in range(2):
        _play(env, seed, check)
        assert env.state.is_terminal
        for seat in range(players):  # and at the match's end
            view = env.state.observation(seat, history=True)
            np.testing.assert_array_equal(env.encode(seat), reference.encode(view, seat, env._deal_start))


@pytest.mark.parametrize("game", engine.list_games())
def test_the_incremental_encoding_is_a_fresh_encoding_at_every_step(game: str) -> None:
    """The vectors kept up to date move by move (and the env's step and observe around them) equal the vector worked
    out afresh from the state at every step, across a deal's end and to the match's end: the acting seat's only (as a
    learner's loop asks), or every seat's at every step."""
    env = CardtableEnv(game, options={"max_deals": 2})
    fresh = env.encoder.twin()
    steps = []

    def checker(every_seat: bool):
        def check(env: CardtableEnv, observation: dict, info: dict) -> None:
            state = env.state
            steps.append(state.current_player)
            np.testing.assert_array_equal(observation["observation"],
                                          fresh.encode_afresh(state, state.current_player, env._deal_start))
            for seat in range(env.n) if every_seat else ():
                np.testing.assert_array_equal(env.encode(seat), fresh.encode_afresh(state, seat, env._deal_start))
        return check

    for seed, every_seat in ((5, False), (6, True), (7, False)):
        _play(env, seed, checker(every_seat))
        for seat in range(env.n):
            np.testing.assert_array_equal(env.encode(seat), fresh.encode_afresh(env.state, seat, env._deal_start))
    assert len(steps) > 20


@pytest.mark.parametrize("game", [g for g in engine.list_games()
                                  if getattr(engine.game_class(g), "QUIET_WORD_PHASES", ())])
def test_a_quiet_phases_words_change_nothing_shown_while_it_goes_on(game: str) -> None:
    """A game's ``QUIET_WORD_PHASES`` (Thunee's): a word of one of them that leaves the phase and the dealing as they
    were changes no seat's ``shown_cards`` or ``trump_seen`` (the encoder asks them again only when it ended the
    phase), over random matches of every player count; and such words are played (the claim is tested)."""
    quiet, words = engine.game_class(game).QUIET_WORD_PHASES, 0
    for state, action, shown, phase, dealings in _random_moves(game, seeds=60):
        if (phase in quiet and state.phase == phase and state.dealings == dealings
                and state.ACTIONS.plain_card[action] is None):
            words += 1
            assert _shown(state) == shown
    assert words > 1000


@pytest.mark.parametrize("game", [g for g in engine.list_games()
                                  if getattr(engine.game_class(g), "QUIET_CARD_PLAYS", False)])
def test_quiet_card_plays_change_nothing_shown(game: str) -> None:
    """A game's ``QUIET_CARD_PLAYS`` (Boonaken's): a plain card play that leaves the phase and the dealing as they
    were changes no seat's ``shown_cards`` or ``trump_seen`` (the encoder asks them again only after another move),
    over random matches of every player count; and such plays are made (the claim is tested)."""
    plays = 0
    for state, action, shown, phase, dealings in _random_moves(game, seeds=40):
        if state.phase == phase and state.dealings == dealings and state.ACTIONS.plain_card[action] is not None:
            plays += 1
            assert _shown(state) == shown
    assert plays > 1000


Shown = list[tuple[object, object]]  # each seat's shown_cards and trump_seen


def _shown(state: engine.State) -> Shown:
    return [(state.shown_cards(seat), state.trump_seen(seat)) for seat in range(state.players)]


def _random_moves(game: str, seeds: int) -> Iterator[tuple[engine.State, int, Shown, object, int]]:
    """Random matches of ``game`` (two deals, every player count, ``seeds`` seeds each): after every move, the state,
    the move, and what every seat was shown, the phase and the dealings count before it."""
    for players in engine.game_info(game).player_counts:
        for seed in range(seeds):
            state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 2})
            rng = Rng(seed + 1)
            while state.current_player is not None:
                shown = _shown(state)
                phase, dealings = state.phase, state.dealings
                legal = state.legal_action_ids()
                action = legal[rng.below(len(legal))]
                state.apply_id(action)
                yield state, action, shown, phase, dealings
