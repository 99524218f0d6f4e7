"""A replay as the viewer shows it: its turns in the rules' notation and the table before the first and after each.

A frame is what one perspective sees: from all seats (``seat=None``: every hand, as the replay knows them) or from one
seat (its own observation: its hand, the public cards, the others' hand sizes). A fishing capture's decisions
(``KS:``, ``+4C``, ``done``) are one turn (``KS:4C,TD``), so stepping shows whole turns.

>>> from replay import record_deal
>>> shown = replay_frames(record_deal("tablanette", seed=1), "demo/0", seat=None)
>>> len(shown["frames"]) == len(shown["turns"]) + 1, shown["turns"][0]["action"]
(True, 'AC')
"""

from __future__ import annotations

from typing import Any

from engine.search.double_dummy import unsolvable
from engine.state import State
from replay import ReplayError
from replay.record import replay_turns

from ..app.errors import DataLoss, InvalidArgument
from ..app.replays import open_replayer
from ..app.views import public_observation

# Position keys that the full view shows beside the public observation: what only some seats know (the fishing
# games' captured cards, Tablić's bottom card) and the tricks played, where the observation does not list them.
_HIDDEN_KEYS = ("captured", "bottom_card", "tricks")


def frame(state: State, seat: int | None, move_number: int) -> dict[str, Any]:
    """The table from ``seat``'s view (None: every seat's) after ``move_number`` moves."""
    position = state.to_position()
    hands = position.get("hands") or []
    if seat is None:
        shown = public_observation(state, history=False)
        shown["hands"] = {str(s): cards for s, cards in enumerate(hands)}
        shown.update({key: position[key] for key in _HIDDEN_KEYS if key in position and key not in shown})
    else:
        shown = state.observation(seat, history=False)
        shown.pop("legal_actions", None)
        shown["hands"] = {str(seat): shown.pop("hand", [])}
    shown["hand_counts"] = [len(cards) for cards in hands]
    shown["move_number"] = move_number
    return shown


def replay_frames(data: bytes, replay_id: str, seat: int | None) -> dict[str, Any]:
    """Every turn of a replay and the frame before the first and after each (run it in a worker thread), and whether
    the replay has the move-by-move analysis (``analysable``: a card played in a position the double-dummy solver
    takes, as in most trick games; the page then asks for it)."""
    replayer = open_replayer(data, replay_id)
    state = replayer.state
    analysable = unsolvable(state) is None
    if seat is not None and not 0 <= seat < state.players:
        raise InvalidArgument(f"seat {seat} does not exist: this replay has seats 0..{state.players - 1}")
    frames = [frame(state, seat, 0)]
    turns = []
    try:
        for turn in replay_turns(replayer):
            shown_turn = {"first": turn.first, "last": turn.last, "seat": turn.seat, "deal_index": turn.deal_index,
                          "action": turn.action if seat is None else state.action_seen_by(seat, turn.seat,
                                                                                          turn.action)}
            turns.append(shown_turn)
            shown = frame(state, seat, turn.last)
            if state.deal_index != turn.deal_index or state.is_terminal:  # this turn ended a deal: show its result
                shown["deal_result"] = state.deal_results[-1]
            frames.append(shown)
            analysable = analysable or unsolvable(state) is None
    except ReplayError as exc:
        raise DataLoss(f"replay {replay_id} does not decode: {exc}") from None
    return {"turns": turns, "frames": frames, "scores": state.scores, "analysable": analysable,
            "winners": None if state.winners is None else list(state.winners),
            "deal_results": [r for r in state.deal_results if r["deal"] >= replayer.start_deal]}
