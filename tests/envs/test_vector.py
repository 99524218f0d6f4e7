"""The vector environment (issue 30): N matches stepped together are N PettingZoo environments played one by one with
the same seeds (observations, masks, rewards, autoreset included), for every game and player count; masks are the
legal moves; bad actions are refused and move nothing; observations show no card the seat may not know."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from engine.cards import CARD_OF_CODE, NUM_CARDS
from engine.rng import Rng

pytest.importorskip("gymnasium")
from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

from envs.encoding import ObservationEncoder  # noqa: E402
from envs.pettingzoo import CardtableEnv  # noqa: E402
from envs.vector import CardtableVectorEnv  # noqa: E402

CASES = [(game, players) for game in engine.list_games() for players in engine.game_info(game).player_counts]
DEAL = {"max_deals": 1}
CODE = re.compile(r"[2-9TJQKA][CDHS]")


def _singles(game: str, players: int, seeds: list[int], options: dict) -> list[CardtableEnv]:
    singles = [CardtableEnv(game, players, options=options) for _ in seeds]
    for env, seed in zip(singles, seeds, strict=True):
        env.reset(seed=seed)
    return singles


@pytest.mark.parametrize(("game", "players"), CASES)
def test_the_batch_plays_as_independent_environments_with_the_same_seeds(game: str, players: int) -> None:
    """Rows of the batch step by step against PettingZoo environments (each checked against the reference encoding
    by test_pettingzoo.py), across match ends: ``reset()`` there is the autoreset here."""
    venv = CardtableVectorEnv(game, 3, players, options=DEAL)
    observations, infos = venv.reset(seed=20)
    singles = _singles(game, players, [20, 21, 22], DEAL)
    rng, ends = np.random.default_rng(5), 0
    for _step in range(160):
        for index, env in enumerate(singles):
            seat = env.state.current_player
            assert infos["current_player"][index] == seat
            single = env.observe(env.agent_selection)
            np.testing.assert_array_equal(observations["observation"][index], single["observation"])
            np.testing.assert_array_equal(observations["action_mask"][index], single["action_mask"])
        actions = venv.sample_actions(rng)
        observations, rewards, terminations, truncations, infos = venv.step(actions)
        assert not truncations.any()
        for index, env in enumerate(singles):
            env.step(int(actions[index]))
            np.testing.assert_array_equal(rewards[index], [env.rewards[agent] for agent in env.possible_agents])
            assert terminations[index] == env.state.is_terminal
            if env.state.is_terminal:
                ends += 1
                env.reset()
    assert ends >= 3  # every match ended at least once, on average


@pytest.mark.parametrize("game", engine.list_games())
def test_masks_are_the_legal_moves_and_observations_show_only_what_the_seat_may_know(game: str) -> None:
    venv = CardtableVectorEnv(game, 4, options=DEAL)
    observations, infos = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    n = venv.n
    for _step in range(60):
        for index, state in enumerate(venv.states):
            seat = state.current_player
            indexes = sorted(venv.codec.index(action) for action in state.legal_action_ids())
            assert np.flatnonzero(observations["action_mask"][index]).tolist() == indexes
            assert sorted(venv.legal_indexes(index).tolist()) == indexes
            # Every card on a plane is in the seat's hand or named by what its observation shows (trick, table,
            # face-up and known cards, its public history); the other hands' cards are nowhere else.
            view = state.observation(seat, history=True)
            visible = {CARD_OF_CODE[code] for code in CODE.findall(repr(view))}
            planes = observations["observation"][index][: (n + 5) * NUM_CARDS].reshape(n + 5, NUM_CARDS)
            assert set(np.flatnonzero(planes.any(axis=0))) <= visible
            hidden = set()
            for other in range(n):
                if other != seat:
                    hidden |= {card for card in range(NUM_CARDS) if state.hands[other] >> card & 1}
            assert not (set(np.flatnonzero(planes.any(axis=0))) & (hidden - visible))
        observations, _rewards, _terminations, _truncations, infos = venv.step(venv.sample_actions(rng))


def test_a_match_that_ends_starts_again_at_once_from_its_next_seed() -> None:
    venv = CardtableVectorEnv("german_whist", 2, options=DEAL)
    venv.reset(seed=[100, 200])
    rng = np.random.default_rng(0)
    while True:
        before = list(venv.states)
        observations, rewards, terminations, _truncations, infos = venv.step(venv.sample_actions(rng))
        if terminations.any():
            break
    index = int(np.flatnonzero(terminations)[0])
    ended = before[index]
    assert ended.is_terminal and rewards[index].tolist() == ended.scores and sum(ended.scores) > 0
    fresh = engine.new_match("german_whist", seed=Rng([100, 200][index]).next_u64(), options=DEAL)
    state = venv.states[index]
    assert state is not ended and state.to_position() == fresh.to_position() and not state.moves
    seat = state.current_player
    assert infos["current_player"][index] == seat
    np.testing.assert_array_equal(observations["observation"][index],
                                  ObservationEncoder(2, "german_whist").encode_afresh(fresh, seat))
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


def test_the_same_seed_plays_the_same_batch() -> None:
    def run(seed: int | list[int]) -> list[np.ndarray]:
        venv = CardtableVectorEnv("tablanette", 3, options=DEAL)
        observations, _infos = venv.reset(seed=seed)
        rng, out = np.random.default_rng(9), [observations["observation"]]
        for _step in range(80):
            observations, rewards, *_rest = venv.step(venv.sample_actions(rng))
            out += [observations["observation"], observations["action_mask"], rewards]
        return out

    first, again, listed, other = run(4), run(4), run([4, 5, 6]), run(5)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(first, listed, strict=True))
    assert not np.array_equal(first[0], other[0])
    venv = CardtableVectorEnv("tablanette", 2)
    venv.reset(seed=4)
    venv.reset()  # no seed: each match's stream goes on
    assert [state.to_position() for state in venv.states] == [
        engine.new_match("tablanette", seed=Rng(seed).next_u64()).to_position() for seed in (4, 5)]


def test_bad_actions_are_refused_and_move_no_match() -> None:
    venv = CardtableVectorEnv("german_whist", 3)
    observations, _infos = venv.reset(seed=1)
    positions = [state.to_position() for state in venv.states]
    legal = venv.sample_actions(np.random.default_rng(0))
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(observations["action_mask"][1] == 0)[0])
    with pytest.raises(engine.IllegalAction, match=rf"illegal action 'action index {illegal[1]} in match 1' "
                                                   r"\(german_whist deal 1"):
        venv.step(illegal)
    for bad, message in [(np.array([legal[0], legal[1], -1]), "action index -1 in match 2"),
                         (np.array([legal[0], 56, legal[2]]), "action index 56 in match 1")]:
        with pytest.raises(engine.IllegalAction, match=message):
            venv.step(bad)
    for bad in (legal.astype(float), legal[:2], [str(a) for a in legal], legal.reshape(3, 1)):
        with pytest.raises(ValueError, match="step takes an integer array of 3 action indexes"):
            venv.step(bad)
    assert [state.to_position() for state in venv.states] == positions
    assert all(not state.moves for state in venv.states)
    venv.step(legal.tolist())
    assert all(len(state.moves) == 1 for state in venv.states)


@pytest.mark.parametrize("game", ["boonaken", "tablic"])
def test_masks_reused_once_let_go(game: str) -> None:
    """A step writes its masks in a buffer that no caller holds (a slice of one holds it), and only there: every mask
    handed out shows its step's legal indexes for as long as anyone holds it, and one let go is written again."""
    venv = CardtableVectorEnv(game, 3, options={"max_deals": 1})
    rng = np.random.default_rng(5)
    observations, _infos = venv.reset(seed=5)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    bases: dict[int, object] = {}  # each buffer's memory, by identity (held: the ids stay apart; not the masks)
    for step in range(60):
        masks = observations["action_mask"]
        legal = [venv.legal_indexes(i) for i in range(3)]
        for i in range(3):
            assert np.flatnonzero(masks[i]).tolist() == sorted(legal[i].tolist())
        bases[id(masks.base)] = masks.base
        if step % 7 == 0:  # held: the array, or a row of it
            held = masks if step % 14 == 0 else masks[1]
            kept.append((held, held.copy()))
        del masks
        observations, *_rest = venv.step(venv.sample_actions(rng))
    for held, then in kept:
        np.testing.assert_array_equal(held, then)
    assert len(bases) <= 6 + len(kept)  # the buffers let go were written again, not new ones made at every step


def test_spaces_and_copies() -> None:
    venv = CardtableVectorEnv("belote", 2, players=4)
    assert venv.single_action_space == spaces.Discrete(venv.codec.size)
    assert venv.action_space == spaces.MultiDiscrete([venv.codec.size] * 2)
    observations, _infos = venv.reset(seed=1)
    assert venv.observation_space.contains(observations)
    assert observations["observation"].dtype == np.float32 and observations["action_mask"].dtype == np.int8
    held = {key: array.copy() for key, array in observations.items()}
    rng = np.random.default_rng(1)
    later, _rewards, _ends, _cut, infos = venv.step(venv.sample_actions(rng))
    for key, array in observations.items():  # copies, never written again
        np.testing.assert_array_equal(array, held[key])
    seats = infos["current_player"].copy()
    masks = later["action_mask"].copy()
    with pytest.raises(ValueError, match="read-only"):  # the masks are read-only (reused once let go)
        later["action_mask"][0, 0] = 1
    later["observation"][:] = -1  # the observations and seats are the caller's to write in
    infos["current_player"][:] = 3 - infos["current_player"]
    illegal = np.array([int(np.flatnonzero(masks[0] == 0)[0]), int(np.flatnonzero(masks[1])[0])])
    with pytest.raises(engine.IllegalAction, match=f"action index {illegal[0]} in match 0"):
        venv.step(illegal)
    assert all(masks[i, action] for i, action in enumerate(venv.sample_actions(rng)))
    assert [state.current_player for state in venv.states] == seats.tolist()
    shared = CardtableVectorEnv("belote", 2, players=4, copy=False)
    buffers, _infos = shared.reset(seed=1)
    after, *_rest = shared.step(shared.sample_actions(np.random.default_rng(1)))
    assert after["observation"] is buffers["observation"] and after["action_mask"] is buffers["action_mask"]
    assert not after["action_mask"].flags.writeable
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        CardtableVectorEnv("belote", 0)
    with pytest.raises(ValueError, match="reset takes one seed or 2, not 3"):
        venv.reset(seed=[1, 2, 3])
