"""Greedy for German Whist: one sort key per legal action, best highest (german_whist.md 5.3-5.5).

>>> obs = {"game": "german_whist", "legal_actions": ["2C", "AC"], "trump": "H", "trick": [], "face_up": "AH"}
>>> rank_german_whist(obs)
[(1, 1), (1, 13)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey, register_greedy, register_state_ranker
from ...bots.policy import Observation
from ...cards import CARD_OF_CODE, SUIT, SUITS
from ...state import State
from ...trickgame import TrickGame
from ...tricks import beats
from . import RANKING

WHIST_POWER = RANKING.power


@register_greedy("german_whist")
def rank_german_whist(obs: Observation) -> Sequence[SortKey]:
    """Phase 1: fight for a face-up card worth having (a trump or a ten and up), else duck; phase 2: win cheaply.

    A ``down:<slot>`` card (face_down_four) is unknown, so it ranks below every hand card.
    """
    face_up = obs.get("face_up")
    trick = obs["trick"]
    return _whist_keys(SUITS.index(obs["trump"]), None if face_up is None else CARD_OF_CODE[face_up],
                       CARD_OF_CODE[trick[0][1]] if trick else None,
                       [CARD_OF_CODE.get(action) for action in obs["legal_actions"]])


@register_state_ranker("german_whist")
def rank_german_whist_state(state: State, seat: int, legal_ids: Sequence[int]) -> Sequence[SortKey]:
    """:func:`rank_german_whist` from the state: the trump, the face-up card, the trick's lead and the legal cards."""
    assert isinstance(state, TrickGame)
    stock, top, trick, card_of = state.stock, state.stock_top, state.trick, state.ACTIONS.card_of
    return _whist_keys(state.trump, stock[top] if top < len(stock) else None, trick[0][1] if trick else None,
                       [card_of[a] for a in legal_ids])


def _whist_keys(trump: int, face_up: int | None, lead: int | None, cards: Sequence[int | None]) -> list[SortKey]:
    power = WHIST_POWER[trump]
    worth_winning = face_up is None or SUIT[face_up] == trump or power[face_up] >= 10
    keys: list[SortKey] = []
    for card in cards:
        if card is None:
            keys.append((0, 0))
        elif lead is None:
            keys.append((1, power[card] if worth_winning else -power[card]))
        elif worth_winning and beats(card, lead, trump, power):
            keys.append((2, -power[card]))  # the cheapest winner
        else:
            keys.append((1, -power[card] - (50 if SUIT[card] == trump else 0)))  # the cheapest discard, trumps kept
    return keys
