"""N matches of one game stepped together, with batched numpy observations, action masks and rewards (the
EnvPool/pgx style, with Gymnasium's vector API; ``pip install cardtable[pettingzoo]``; docs/environments.md).

Each step takes one action index per match, for the seat to act there, and answers with every match's next seat to
act, its observation vector (:mod:`envs.encoding`, the same vector as the PettingZoo environment's), its action mask
and the rewards of every seat. A match that ends is started again at once with its next seed (Gymnasium's
``SAME_STEP`` autoreset: the step that ends a match returns its rewards and ``terminations`` True with the new
match's first observation).

>>> venv = CardtableVectorEnv("german_whist", num_envs=4, options={"max_deals": 1})
>>> observations, infos = venv.reset(seed=7)
>>> observations["observation"].shape, observations["action_mask"].shape, infos["current_player"].shape
((4, 379), (4, 56), (4,))
>>> observations, rewards, terminations, truncations, infos = venv.step(venv.sample_actions(np.random.default_rng(1)))
>>> rewards.shape, terminations.dtype.name
((4, 2), 'bool')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import engine
from engine.rng import Rng, fresh_seed

from .encoding import ActionCodec, ObservationEncoder, Rows


class CardtableVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` matches of ``game`` with ``players`` seats (the game's default when None) and game ``options``.

    - ``reset(seed=S)`` starts match ``i`` from seed ``S + i`` (a sequence of ``num_envs`` seeds gives each its own),
      the same deals as ``engine.new_match(game, seed=S + i)`` and as the PettingZoo environment's ``reset(seed=S +
      i)``; a match started again after its end takes the next seed of its stream, as that environment's ``reset()``
      does. ``reset()`` with no seed goes on with every stream (fresh ones if never seeded).
    - Observations are a dict of ``"observation"``, float32 ``(num_envs, size)``, each row the vector of the seat to
      act in that match, and ``"action_mask"``, int8 ``(num_envs, actions)``, 1 for each legal index;
      ``infos["current_player"]`` (and ``self.current_player``) is the seat to act in each match.
    - ``step(actions)`` takes an integer array of ``num_envs`` action indexes; an index that is not legal in its match
      raises ``engine.IllegalAction`` naming the match, and no match moves. Rewards are float32 ``(num_envs,
      players)``: at the end of a deal, the points each seat's side scored in it (as the PettingZoo environment's),
      else 0. ``terminations`` is True where a match ended (it has been started again); nothing truncates.
    - Arrays returned are copies unless ``copy=False`` (then they are this environment's buffers, rewritten by the
      next step): new arrays each step, written once and then left to the caller, not the buffers copied. The action
      masks are read-only (``mask.copy()`` to write in one): a step writes its masks in a buffer that nobody holds any
      more (no array made from it is alive), clearing only the last legal entries written there, and in a new zeroed
      one only when the caller holds every buffer kept (Boonaken's masks are 64 x 37,120 bytes: zeroing new ones at
      every step cost more than a third of its step). A mask handed out never changes while anyone holds it.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: str, num_envs: int, players: int | None = None, options: Mapping[str, Any] | None = None,
                 copy: bool = True) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        probe = engine.new_match(game, seed=0, players=players, options=options)  # checks game, players, options
        self.game, self.num_envs, self.n = game, num_envs, probe.players
        self.game_options = dict(options or {})
        self.copy = copy
        self.codec = ActionCodec.for_game(game)
        encoder = ObservationEncoder(self.n, game)
        encoder.new_match(probe)  # works out the tables the twins share
        self._encoders = [encoder.twin() for _ in range(num_envs)]
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.codec.size,), dtype=np.int8)})
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(self.codec.size)
        self.action_space = batch_space(self.single_action_space, num_envs)
        # The batch's observations, masks, seats to act and legal indexes, written match by match (compiled).
        # (copies: new arrays written at each step, which the environment never touches again, not its own copied)
        self._batch = Rows(num_envs, encoder.size, self.codec.size, self.codec.fishing, fresh=copy)
        self._rewards = np.zeros((num_envs, self.n), dtype=np.float32)
        self._terminations = np.zeros(num_envs, dtype=bool)
        self._truncations = np.zeros(num_envs, dtype=bool)
        # Each match's state, seed stream, deal and the scores at its start.
        self.states: list[engine.State] = []
        self._seeds: list[Rng | None] = [None] * num_envs
        self._deal_index = [0] * num_envs
        self._scores_at_deal_start: list[list[int]] = [[] for _ in range(num_envs)]
        self._rewarded = False  # whether the rewards or terminations hold anything

    # ---- Gymnasium's vector API ----------------------------------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start every match again (see the class); ``options`` is not used: game options go to the constructor."""
        if seed is None:
            streams = [stream or Rng(fresh_seed()) for stream in self._seeds]
            seeds = [stream.next_u64() for stream in streams]
        else:
            seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else [int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset takes one seed or {self.num_envs}, not {len(seeds)}")
            streams = [Rng(s) for s in seeds]
        self._seeds = list(streams)
        self.states = [None] * self.num_envs  # type: ignore[list-item]
        for index, match_seed in enumerate(seeds):
            self._start(index, match_seed)
        self._rewards.fill(0)
        self._terminations.fill(False)
        self._observe()
        return self._observations_out(), self._infos()

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        chosen = self._checked(actions)
        rewards, terminations = self._rewards, self._terminations
        if self._rewarded:  # the last step's rewards and ends (the buffers, whatever was handed out)
            rewards.fill(0)
            terminations.fill(False)
            self._rewarded = False
        self._batch.step(self.states, self._encoders, chosen, self._deal_index, self._ended)
        copy = self.copy
        return (self._observations_out(), rewards.copy() if copy else rewards,
                terminations.copy() if copy else terminations,
                self._truncations.copy() if copy else self._truncations, self._infos())

    def close_extras(self, **kwargs: Any) -> None:
        self.states = []

    # ---- beyond the API ----------------------------------------------------------------------------------------

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A legal action index for every match, uniformly at random (without reading the masks: Boonaken's have
        37,120 entries)."""
        return self._batch.sample(rng.random(self.num_envs))

    def legal_indexes(self, index: int) -> np.ndarray:
        """The legal action indexes of match ``index`` now."""
        start = int(self._batch.legal_starts[index])
        return self._batch.legal[start:start + int(self._batch.legal_counts[index])].copy()  # type: ignore[no-any-return]

    # ---- the matches -------------------------------------------------------------------------------------------

    def _start(self, index: int, match_seed: int) -> None:
        state = engine.new_match(self.game, seed=match_seed, players=self.n, options=self.game_options)
        self.states[index] = state
        self._encoders[index].new_match(state)
        self._deal_index[index] = state.deal_index
        self._scores_at_deal_start[index] = state.scores  # (a new list at each read)

    def _ended(self, index: int) -> None:
        """Match ``index``'s deal ended: its rewards, and the next match if it was the match's last deal."""
        self._deal_over(index)
        if self.states[index].current_player is None:
            self._terminations[index] = True
            stream = self._seeds[index]
            assert stream is not None  # reset() seeded every match
            self._start(index, stream.next_u64())

    def _deal_over(self, index: int) -> None:
        """Each seat's reward: the points its side scored in the deal that just ended."""
        state = self.states[index]
        scores, before = state.scores, self._scores_at_deal_start[index]
        self._rewards[index] = [now - then for now, then in zip(scores, before, strict=True)]
        self._scores_at_deal_start[index] = scores
        self._rewarded = True
        self._deal_index[index] = state.deal_index

    def _checked(self, actions: Any) -> np.ndarray:
        """The action indexes as int64, once every one is an integer legal in its match (else nothing moves)."""
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
            raise ValueError(f"step takes an integer array of {self.num_envs} action indexes, not "
                             f"{given.dtype} {given.shape}")
        # (the same array when it is one already; a uint64 above int64's range wraps to a negative index, refused)
        chosen = np.ascontiguousarray(given, dtype=np.int64)
        index = self._batch.first_illegal(chosen)
        if index >= 0:
            state = self.states[index]
            raise engine.IllegalAction(f"action index {int(given[index])} in match {index}", state.legal_actions(),
                                       state._where())
        return chosen

    def _observe(self) -> None:
        """Every match's seat to act, its observation and its mask, written into the batch's arrays."""
        self._batch.observe(self.states, self._encoders)

    @property
    def current_player(self) -> np.ndarray:
        """The seat to act in each match."""
        return self._batch.current_player  # type: ignore[no-any-return]

    def _observations_out(self) -> dict[str, np.ndarray]:
        return {"observation": self._batch.observations, "action_mask": self._batch.masks}

    def _infos(self) -> dict[str, Any]:
        return {"current_player": self._batch.current_player}

