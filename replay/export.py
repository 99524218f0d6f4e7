"""Replays as JSON (header, moves as action strings, deal results, scores) and as a readable text record.

Importing an exported JSON gives back the very same bytes: the header and the moves determine them.

>>> from replay import record_deal
>>> data = record_deal("tablanette", seed=9)
>>> import_json(export_json(data)) == data
True
>>> print(text_record(data).splitlines()[0])
[Game "tablanette"]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.errors import IllegalAction
from engine.state import State

from .codec import READ_VERSIONS, Header, header_from_dict
from .errors import ReplayError
from .record import Replayer, _is_over, decode, encode_replay, legal_ids, replay_turns, start_state

JSON_FORMAT = "cardtable-replay"
TEXT_RECORD_START = '[Game "'  # the first tag pair of every text record (_tags)


# ---- JSON ---------------------------------------------------------------------------------------------------------

def export_dict(data: bytes) -> dict[str, Any]:
    """A JSON-ready dict of a replay (checked by replaying the engine)."""
    replay = decode(data)
    out: dict[str, Any] = {
        "format": JSON_FORMAT,
        "version": replay.version,
        "header": replay.header.to_dict(),
        "moves": [[seat, action] for seat, action in replay.moves],
        "deal_results": replay.deal_results,
        "scores": replay.scores,
        "bytes": replay.size,
    }
    if replay.final.winners is not None:
        out["winners"] = list(replay.final.winners)
    return out


def export_json(data: bytes, indent: int | None = 2) -> str:
    return json.dumps(export_dict(data), indent=indent)


def import_dict(record: Mapping[str, Any]) -> bytes:
    """The replay bytes of an exported dict; ReplayError names the first move that does not replay.

    A move may be a fishing game's whole turn (``KS:4C,TD``, as version 1 exported them): it is written as the
    decisions that make it up, in the current format version.
    """
    if not isinstance(record, Mapping) or record.get("format") != JSON_FORMAT:
        raise ReplayError(f"not an exported cardtable replay (its \"format\" is not {JSON_FORMAT!r})")
    if record.get("version") not in READ_VERSIONS:
        raise ReplayError(f"exported replay version {record.get('version')!r} is not supported "
                          f"(this cardtable reads versions {', '.join(map(str, READ_VERSIONS))})")
    header = header_from_dict(record.get("header") or {})
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise ReplayError("an exported replay lists its moves as [seat, action] pairs")
    data = encode_replay(header, _ordinals(header, moves))
    expected = record.get("scores")
    if expected is not None and decode(data).scores != expected:
        raise ReplayError(f"the moves give scores {decode(data).scores} but the record says {expected}")
    return data


def import_json(text: str) -> bytes:
    if text.lstrip().startswith(TEXT_RECORD_START):
        raise ReplayError("this is a text export (`replay export --format text`), a record to read that cannot be "
                          "imported: export the replay with --format json or --format bin to import it")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ReplayError("not a replay record: JSON nested too deep") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise ReplayError(f"not a replay record: {exc}") from None
    return import_dict(record)


def _ordinals(header: Header, moves: list[Any]) -> list[int]:
    state = start_state(header)
    start_deal = state.deal_index
    ordinals = []
    for number, move in enumerate(moves, 1):
        if not (isinstance(move, list | tuple) and len(move) == 2):
            raise ReplayError(f"a move is a [seat, action] pair, got {move!r}", move=number)
        seat, action = move
        if _is_over(state, header.scope, start_deal):
            raise ReplayError(f"the {header.scope} is already over", move=number)
        if seat != state.current_player:
            raise ReplayError(f"the record says seat {seat} plays but it is seat {state.current_player}'s turn",
                              move=number)
        legal_ids(state, number)  # a ReplayError if the engine cannot list them
        try:
            actions = state.action_ids(action) if isinstance(action, str) else []
        except IllegalAction:
            actions = []
        if not actions:
            raise ReplayError(f"{action!r} is not legal here; legal: {', '.join(state.legal_actions())}",
                              move=number)
        for action_id in actions:
            ordinals.append(state.legal_action_ids().index(action_id))
            state.apply_id(action_id)
    return ordinals


# ---- text ---------------------------------------------------------------------------------------------------------

def text_record(data: bytes, hands: bool = False) -> str:
    """A readable record of a replay, like a PGN for cards: tag pairs, then each deal move by move (tricks grouped,
    a fishing capture decided in steps as one whole turn, ``12-15. S0 KS:4C,TD``; deals counted from 1).

    Each deal starts with every seat's hand; with ``hands`` every move also shows the hand it was played from.
    """
    return "\n".join(text_lines(data, hands))


def text_lines(data: bytes, hands: bool = False) -> Iterator[str]:
    replay = decode(data)  # check everything before printing anything
    yield from _tags(replay.header, replay.size, replay.scores)
    replayer = Replayer(data)
    state = replayer.state
    moves = replay_turns(replayer)
    deal = None
    trick: list[str] = []
    tricks = 0
    while not replayer.over:
        before = _Snapshot(state)
        move = next(moves)
        if move.deal_index != deal:
            deal, tricks = move.deal_index, 0
            yield ""
            yield f"Deal {deal + 1} (dealer seat {before.dealer})"  # deals counted from 1, as the CLI counts them
            yield from before.deal_start()
        label = f"S{move.seat} {move.action}"
        if hands:
            label += f"   (hand: {' '.join(before.hands[move.seat])})"
        after = _trick_size(state)
        if before.plays_to_trick(after):
            trick.append(label)
            if after == 0:
                tricks += 1
                yield f"  Trick {tricks}: " + ", ".join(trick)
                trick = []
        else:
            yield f"  {move.numbers}. {label}"
        if state.deal_index != deal or state.is_terminal:
            if trick:
                yield "  Unfinished trick: " + ", ".join(trick)
                trick = []
            if state.deal_results and state.deal_results[-1]["deal"] == deal:
                yield f"  Result: {_result_text(state.deal_results[-1])}"
    yield ""
    yield f"Scores: {' '.join(map(str, replay.scores))}"


class _Snapshot:
    """What the text record shows of a state before a move: the dealer, every hand, the table, the trick so far."""

    def __init__(self, state: State) -> None:
        public = state.observation(0)
        self.dealer = state.dealer
        self.hands = [_hand(state, seat) for seat in range(state.players)]
        self.table = public.get("table")
        self.trick_size = len(public["trick"] or []) if "trick" in public else None

    def plays_to_trick(self, trick_size_after: int) -> bool:
        """The move added a card to the trick (or completed it); bids and other moves leave it as it was."""
        if self.trick_size is None:
            return False
        return trick_size_after > self.trick_size or (self.trick_size > 0 and trick_size_after == 0)

    def deal_start(self) -> Iterator[str]:
        for seat, hand in enumerate(self.hands):
            yield f"  Hand S{seat}: {' '.join(hand)}"
        if self.table is not None:
            yield f"  Table: {' '.join(self.table)}"


def _hand(state: State, seat: int) -> list[str]:
    return list(state.observation(seat).get("hand") or [])


def _trick_size(state: State) -> int:
    return len(state.observation(0).get("trick") or [])


def _result_text(result: Mapping[str, Any]) -> str:
    extras = ", ".join(result_facts(result))
    return f"points {_fmt(result['points'])}" + (f" ({extras})" if extras else "")


# The deal-result facts whose value is a seat (None when no seat holds it: no belote declared).
SEAT_FACTS = frozenset({"taker", "declarer", "belote", "last_capturer"})


def result_facts(result: Mapping[str, Any], seat_name: Callable[[int], str] = lambda seat: f"seat {seat}",
                 ) -> list[str]:
    """A deal result's own facts in words, points and deal number left out: a seat is named (``declarer seat 1``),
    a yes/no fact is its name or ``not`` its name (``made``, ``not capot``), a fact nobody holds is left out
    (``belote`` None), a list is its values (``card points 136 26``).

    >>> result_facts({"deal": 0, "points": [0, 162], "taker": 1, "belote": None, "capot": False, "made": True})
    ['taker seat 1', 'not capot', 'made']
    """
    facts = []
    for key, value in result.items():
        name = key.replace("_", " ")
        if key in ("deal", "dealer", "points") or value is None:
            continue
        if isinstance(value, bool):
            facts.append(name if value else f"not {name}")
        elif key in SEAT_FACTS and isinstance(value, int):
            facts.append(f"{name} {seat_name(value)}")
        else:
            facts.append(f"{name} {_fmt(value)}")
    return facts


def _fmt(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def _tags(header: Header, size: int, scores: list[int]) -> Iterator[str]:
    options = ", ".join(f"{k}={v}" for k, v in header.options.items()) or "default"
    tags = [
        ("Game", header.game),
        ("Players", header.players),
        ("Options", options),
        ("Seed", header.seed),
        ("FirstDealer", "drawn" if header.first_dealer is None else f"seat {header.first_dealer}"),
        ("Policies", ", ".join(p or "?" for p in header.policies)),
        ("Scope", header.scope),
        ("Deal", header.deal_index + 1),
        ("Result", "-".join(map(str, scores))),
        ("Bytes", size),
    ]
    for name, value in tags:
        yield f'[{name} "{value}"]'
