"""The observation vector of docs/environments.md worked out from the seat's observation dict and public history, as
its table reads: the tests' reference for :class:`envs.encoding.ObservationEncoder`, which keeps the same vector up to
date from the state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import engine
from engine.cards import CARD_OF_CODE, NUM_CARDS, SUITS
from envs.encoding import card_tokens, face_up_codes


class ReferenceEncoder:
    """The observation vector of one seat of a ``players``-player match of ``game_id`` (see the module's table)."""

    def __init__(self, players: int, game_id: str) -> None:
        self.players = players
        self.phases = engine.game_info(game_id).phases
        self.planes = players + 5
        self.scalars = len(SUITS) + 1 + len(self.phases) + 1 + 2 * players + 3
        self.size = self.planes * NUM_CARDS + self.scalars

    def encode(self, observation: Mapping[str, Any], seat: int, deal_start: int) -> np.ndarray:
        """The vector of ``observation`` (``state.observation(seat, history=True)``); ``deal_start``: the number of
        moves of the match before this deal (the history's entries from there on are this deal's moves)."""
        n = self.players
        vector = np.zeros(self.size, dtype=np.float32)
        planes = vector[: self.planes * NUM_CARDS].reshape(self.planes, NUM_CARDS)
        _mark(planes[0], observation.get("hand", ()))
        for other, code in observation.get("trick", ()):
            _mark(planes[1 + (other - seat) % n], (code,))
        _mark(planes[n + 1], observation.get("table", ()))
        _mark(planes[n + 2], face_up_codes(observation))
        _mark(planes[n + 3], observation.get("known_cards", ()))
        played = planes[n + 4]
        for _, action in observation.get("history", ())[deal_start:]:
            played[card_tokens(action)] = 1.0
        at = self.planes * NUM_CARDS
        trump = observation.get("trump")
        vector[at + (SUITS.index(trump) if isinstance(trump, str) and trump in SUITS else len(SUITS))] = 1.0
        at += len(SUITS) + 1
        phase, phases = observation.get("phase"), self.phases
        vector[at + (phases.index(phase) if phase in phases else len(phases))] = 1.0
        at += len(phases) + 1
        scores = observation["scores"]
        for k in range(n):
            vector[at + k] = scores[(seat + k) % n]
        at += n
        vector[at + (observation["dealer"] - seat) % n] = 1.0
        at += n
        vector[at] = 1.0 if observation.get("current_player") == seat else 0.0
        vector[at + 1] = observation.get("stock_size") or 0
        vector[at + 2] = observation["deal_index"]
        return vector


def _mark(plane: np.ndarray, codes: Any) -> None:
    for code in codes:
        card = CARD_OF_CODE.get(code) if isinstance(code, str) else None
        if card is not None:
            plane[card] = 1.0
