"""cardtable's games as PettingZoo AEC environments (``pip install cardtable[pettingzoo]``; docs/environments.md).

One environment plays one match of a game (its options as given: ``{"max_deals": 1}`` for single deals). Agents are
``player_0 .. player_{n-1}`` (seat order). Each observation is a dict: ``"observation"``, the game-independent
float32 vector of :mod:`envs.encoding`, and ``"action_mask"``, int8 over the game's action indexes (1 = legal).
Rewards come at the end of each deal: each seat gets the points its side scored in that deal (partners alike); the
match's end terminates every agent. ``reset(seed=...)`` seeds the match through cardtable's RNG (the same seed, the
same deals as ``engine.new_match(game, seed=...)``); ``reset()`` without a seed plays the next seed of the stream the
last seed started. ``render()`` returns the table as text (``render_mode="ansi"``) or prints it (``"human"``).

>>> env = CardtableEnv("german_whist", options={"max_deals": 1})
>>> env.reset(seed=7)
>>> env.agent_selection in env.possible_agents, int(env.action_space("player_0").n)
(True, 56)
>>> observation, reward, terminated, truncated, info = env.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum()) == len(env.state.legal_actions())
((379,), True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from operator import index as as_index
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import engine
from engine.rng import Rng, fresh_seed

from .encoding import ActionCodec, ObservationEncoder, SeatMoves
from .text import render_text

RENDER_MODES = ("ansi", "human")


class CardtableEnv(AECEnv):  # type: ignore[misc]
    """An AEC environment for ``game`` with ``players`` seats (the game's default when None) and game ``options``."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cardtable_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        probe = engine.new_match(game, seed=0, players=players, options=options)  # checks game, players, options
        self.game = game
        self.n = probe.players
        self.game_options = dict(options or {})
        self.render_mode = render_mode
        self.codec = ActionCodec.for_game(game)
        self.encoder = ObservationEncoder(self.n, game)  # kept up to date move by move
        self.possible_agents = [f"player_{seat}" for seat in range(self.n)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # The per-agent dicts a match starts and ends with, copied (a tenth of dict.fromkeys's cost). (One attribute
        # for the three: past 30 attributes an instance's dict is no longer shared with its class's keys, and every
        # attribute read of the step and last() is slower, about 900 instructions a step.)
        self._blank = tuple(dict.fromkeys(self.possible_agents, value) for value in (0, False, True))
        self.metadata = {**self.metadata, "name": f"cardtable_{game}_{self.n}p_v0"}
        observation = spaces.Box(low=-np.inf, high=np.inf, shape=(self.encoder.size,), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(self.codec.size,), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self._action_space = spaces.Discrete(self.codec.size)
        self._seeds: Rng | None = None
        self.state: engine.State | None = None
        # The acting seat's mask and moves, kept up to date move by move (a copy of the mask goes out with each
        # observation; the others' masks are all 0).
        self._moves = SeatMoves(self.codec, self.encoder)
        self._no_mask = np.zeros(self.codec.size, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ---- the match --------------------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match: from ``seed``, or from the next seed of the stream (a fresh one if never seeded).
        ``options`` is not used: game options are given to the constructor."""
        if seed is not None:
            self._seeds = Rng(seed)
            match_seed = seed
        else:
            self._seeds = self._seeds or Rng(fresh_seed())
            match_seed = self._seeds.next_u64()
        self.state = state = engine.new_match(self.game, seed=match_seed, players=self.n, options=self.game_options)
        self.encoder.new_match(state)
        self.agents = list(self.possible_agents)
        zeros, falses, _ = self._blank
        self.rewards = self._no_rewards = zeros.copy()
        self._cumulative_rewards = zeros.copy()
        self.terminations = falses.copy()
        self.truncations = falses.copy()
        self.infos = {agent: {} for agent in self.agents}
        self._deal_start = 0
        self._deal_index = 0
        self._scores_at_deal_start = state.scores  # (a new list at each read)
        self._select()

    def _select(self) -> None:
        """The seat to act and its mask, at the match's start (a move's are worked out with it)."""
        state = self.state
        assert state is not None and state.current_player is not None  # only while the match goes on
        self.agent_selection = self.possible_agents[state.current_player]
        self._moves.select(state)

    def agent_iter(self, max_iter: int = 2**63) -> Iterable[str]:
        """PettingZoo's agent loop (``AECEnv.agent_iter``: the agent to act while any agent is left, at most
        ``max_iter`` times), as a generator."""
        return _AgentIter(self, max_iter)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``: the observation, cumulative reward, termination, truncation and info of the agent to act."""
        agent = self.agent_selection
        # (observe(agent): the agent selected is the seat to act while the match goes on; reset() comes first)
        observation = self._moves.observation(self.state, self._seat_of[agent]) if observe else None
        return (observation, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent],
                self.infos[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        assert state is not None  # reset() comes first
        try:
            index = as_index(action)  # type: ignore[arg-type]  # an int or a numpy integer, never a float
        except TypeError:
            index = -1  # no action's index
        try:
            # The move (apply_id checks that it is legal, and changes nothing if not), the encoder told of it, the
            # next seat's mask.
            self._moves.play(state, index)
        except (engine.IllegalAction, OverflowError):
            raise engine.IllegalAction(f"action index {action!r}", state.legal_actions(), state._where()) from None
        if self._cumulative_rewards[agent]:
            self._cumulative_rewards[agent] = 0
        seat = state.current_player
        if seat is not None and state.deal_index == self._deal_index:  # the usual move
            if self.rewards is not self._no_rewards:
                self.rewards = self._no_rewards
            self.agent_selection = self.possible_agents[seat]
            return
        self.rewards = self._no_rewards.copy()
        self._deal_over()
        if seat is None:
            self.terminations = self._blank[2].copy()
        else:
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()

    def _was_dead_step(self, action: Any) -> None:
        """``AECEnv._was_dead_step``, the step of an agent the match's end terminated: the same changes (the agent
        removed from ``agents`` and its dicts, the next dead agent selected, then the agent that was to act once none
        is left, the rewards cleared) without looking for the dead agents among those left: here every agent ends at
        once, with the match, so every one left is dead (PettingZoo's own search cost the match's last steps as much
        as ten steps of play in Thunee)."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        del self.terminations[agent], self.truncations[agent], self.rewards[agent], self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        skip = getattr(self, "_skip_agent_selection", None)
        if agents:
            if skip is None:
                self._skip_agent_selection = agent
            self.agent_selection = agents[0]
        else:
            if skip is not None:
                self.agent_selection = skip
            self._skip_agent_selection = None
        rewards = self.rewards
        for name in rewards:
            rewards[name] = 0

    def _deal_over(self) -> None:
        """Each seat's reward: the points its side scored in the deal that just ended."""
        state = self.state
        assert state is not None
        scores = state.scores  # (a new list at each read)
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = scores[seat] - self._scores_at_deal_start[seat]
        self._scores_at_deal_start = scores
        self._deal_index = state.deal_index
        self._deal_start = len(state.moves)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state
        assert state is not None  # reset() comes first
        mask = self._moves.mask if agent == self.agent_selection and state.current_player is not None else self._no_mask
        seat = self._seat_of[agent]
        vector = self.encoder.encode(state, seat)
        return {"observation": vector, "action_mask": mask.copy()}

    def encode(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` now (:mod:`envs.encoding`)."""
        state = self.state
        assert state is not None  # reset() comes first
        return self.encoder.encode(state, seat)

    # ---- people -----------------------------------------------------------------------------------------------

    def render(self) -> str | None:
        """The table as text: the deal, scores, whose turn, and every seat's view of the cards it holds."""
        if self.render_mode is None or self.state is None:
            return None
        text = render_text(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state = None


class _AgentIter:
    """``env.agent_iter()``: iterable as often as PettingZoo's own (each loop from the agent to act now)."""

    def __init__(self, env: CardtableEnv, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self) -> Iterator[str]:
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


def env(game: str, players: int | None = None, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None) -> CardtableEnv:
    """PettingZoo's usual constructor name: ``envs.pettingzoo.env("belote", players=4)``."""
    return CardtableEnv(game, players, options, render_mode)
