"""A match as a few lines of text, for people: ``render()`` of the PettingZoo environments, ``str()`` of the
OpenSpiel states."""

from __future__ import annotations

from typing import Any

import engine

PUBLIC_KEYS = ("trump", "turn_up", "face_up", "bottom_card", "table", "trick")  # the table, as the seat to act sees it


def render_text(state: engine.State) -> str:
    """A few lines of text: the deal, phase and scores; the public cards; each seat's hand; the moves to choose from.

    >>> import engine
    >>> print(render_text(engine.new_match("tablanette", seed=1)))
    tablanette, deal 1, dealer seat 0, phase play, scores [0, 0]
      table TC 5D 8D QS
      seat 0: 3H 8H JH 7S 9S KS
      seat 1: 6C AC 2D TD KD 6H  <- to act: 2D 6C 6H AC KD TD:
    """
    lines = [f"{state.game_id}, deal {state.deal_index + 1}, dealer seat {state.dealer}, phase {state.phase}, "
             f"scores {state.scores}"]
    public = state.observation(state.current_player if state.current_player is not None else 0, history=False)
    shown = [f"{key} {_cards_text(public[key])}" for key in PUBLIC_KEYS if public.get(key)]
    if shown:
        lines.append("  " + "   ".join(shown))
    for seat in range(state.players):
        hand = " ".join(state.observation(seat, history=False).get("hand", ()))
        turn = f"  <- to act: {' '.join(state.legal_actions())}" if state.current_player == seat else ""
        lines.append(f"  seat {seat}: {hand}{turn}")
    if state.is_terminal:
        lines.append(f"  the match is over: winners {state.winners}")
    return "\n".join(lines)


def _cards_text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(f"{item[1]} (seat {item[0]})" if isinstance(item, list) else str(item) for item in value)
    return str(value)
