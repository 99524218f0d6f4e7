"""Recording replays from live play, and reconstructing them by replaying the engine move by move.

>>> data = record_deal("tablanette", seed=5, policies=["random", "greedy"])
>>> replay = decode(data)
>>> replay.header.policies, len(replay.moves) > 0, encode_replay(replay.header, replay.ordinals) == data
(('random', 'greedy'), True, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import engine
from engine.bots import Policy, make_policies, play_out
from engine.cards import CODES
from engine.errors import ActionLimitExceeded
from engine.fishing import FishingState, join_turns
from engine.state import State

from .codec import FORMAT_VERSION, Header, decode_frame, encode
from .errors import ReplayError
from .packing import permutation_digits, take_permutation

# What the engine may raise on a forged start or move: bad values, and a position whose legal actions it will not list.
_ENGINE_ERRORS = (ValueError, KeyError, IndexError, TypeError, ActionLimitExceeded)


# ---- recording ----------------------------------------------------------------------------------------------------

class Recorder:
    """Records the moves of a live state, from the start of a deal (``scope="deal"``) or a match (``"match"``).

    >>> state = engine.new_match("tablic", seed=3)
    >>> recorder = Recorder(state, policies=["human", "random"])
    >>> while not recorder.done:
    ...     recorder.play(state.legal_action_ids()[-1])
    >>> data = recorder.finish()
    """

    def __init__(self, state: State, scope: str = "deal", policies: Sequence[str] | None = None, *,
                 seeded: bool = False) -> None:
        """``seeded``: the caller knows ``engine.new_match`` started ``state`` from its seed alone (no deck, no first
        dealer given), so the header needs no probe of how the match can be started again (a hot loop's shortcut)."""
        self.state = state
        self.header = seeded_header(state, scope, policies) if seeded else header_at_start(state, scope, policies)
        self._deal_index = state.deal_index
        self._digits: list[tuple[int, int]] = []
        if self.header.deck is not None:
            self._digits = permutation_digits(state.deal_deck)
        self._moves = 0

    @property
    def done(self) -> bool:
        """The deal (or match) being recorded is over."""
        return _is_over(self.state, self.header.scope, self._deal_index)

    def record(self, legal_ids: Sequence[int], action_id: int) -> None:
        """Note a move that the caller is about to apply (``legal_ids`` is ``state.legal_action_ids()``)."""
        if self.done:
            raise ValueError(f"the recorded {self.header.scope} is over; start a new Recorder")
        self._digits.append((legal_ids.index(action_id), len(legal_ids)))
        self._moves += 1

    def play_out(self, policies: Sequence[Policy]) -> int:
        """Let ``policies`` (one per seat) play the recorded deal or match to its end; the number of moves played."""
        if self.done:
            raise ValueError(f"the recorded {self.header.scope} is over; start a new Recorder")
        moves = play_out(self.state, policies, self._digits, deal_only=self.header.scope == "deal")
        self._moves += moves
        return moves

    def play(self, action_id: int) -> None:
        """Record and apply one move (an action int)."""
        legal = self.state.legal_action_ids()
        if action_id not in legal:
            self.state.apply_id(action_id)  # raises the engine's IllegalAction, naming the legal actions
        self.record(legal, action_id)
        self.state.apply_id(action_id)

    def finish(self) -> bytes:
        if not self.done:
            raise ValueError(f"the recorded {self.header.scope} is not over yet ({self.state!r})")
        return encode(self.header, self._digits, self._moves)


def header_at_start(state: State, scope: str = "deal", policies: Sequence[str] | None = None) -> Header:
    """The header of a replay that starts now, at the start of ``state``'s current deal.

    It is as small as the start allows: a fresh match whose deck came from its seed needs no deck; a first deal
    with a given deck carries it; a later deal carries its deck, dealer, the match scores before it and what else it
    inherits from the deals before it (``State.CARRIED``).
    """
    base = seeded_header(state, scope, policies)
    if state.deal_index > 0:
        if scope != "deal":
            raise ValueError("a match replay starts at the first deal; record a later deal with scope='deal'")
        position = state.to_position()
        carried = {key: position[key] for key in state.CARRIED if position.get(key)}
        return replace(base, first_dealer=state.first_dealer, deal_index=state.deal_index, dealer=state.dealer,
                       scores=tuple(state.scores), deck=_codes(state.deal_deck), rng=state.rng.state, carried=carried)
    if state.moves:
        raise ValueError(f"a replay starts at the start of a deal; this match has {len(state.moves)} moves already")
    for first_dealer in (None, state.first_dealer):
        for deck in (None, _codes(state.deal_deck)):
            candidate = replace(base, first_dealer=first_dealer, deck=deck)
            if _reproduces(candidate, state):
                return candidate
    if scope == "match":
        raise ValueError("this match cannot be replayed from its seed (was it loaded from a position?); "
                         "record its deals with scope='deal'")
    return replace(base, first_dealer=state.first_dealer, deck=_codes(state.deal_deck))


def seeded_header(state: State, scope: str = "deal", policies: Sequence[str] | None = None) -> Header:
    """The header of a match that ``engine.new_match`` started from its seed alone (no deck, no first dealer given)."""
    policies = tuple(policies) if policies is not None else ("",) * state.players
    return Header(game=state.game_id, players=state.players, seed=state.seed, scope=scope,
                  options=non_default_options(state), policies=policies)


def non_default_options(state: State) -> dict[str, Any]:
    """The options of ``state`` that differ from the game's defaults for its player count."""
    out = {}
    for option in state.INFO.all_options():
        value, default = state.options[option.name], option.default_for(state.players)
        if type(value) is not type(default) or value != default:
            out[option.name] = value
    return out


def _reproduces(header: Header, state: State) -> bool:
    probe = start_state(header)
    return (probe.first_dealer == state.first_dealer and probe.deal_deck == state.deal_deck
            and probe.rng.state == state.rng.state)


def _codes(deck: Sequence[int]) -> tuple[str, ...]:
    return tuple(CODES[c] for c in deck)


def record_deal(game: str, seed: int, policies: Sequence[str] | None = None, *, players: int | None = None,
                options: dict[str, Any] | None = None, first_dealer: int | None = None,
                bot_seed: int | None = None) -> bytes:
    """Play the first deal of a new match with bots (``policies``: names such as ``"random"``) and record it."""
    return _record(game, seed, policies, "deal", players, options, first_dealer, bot_seed)


def record_match(game: str, seed: int, policies: Sequence[str] | None = None, *, players: int | None = None,
                 options: dict[str, Any] | None = None, first_dealer: int | None = None,
                 bot_seed: int | None = None) -> bytes:
    """Play a whole match with bots and record it as one replay."""
    return _record(game, seed, policies, "match", players, options, first_dealer, bot_seed)


def record_match_deals(game: str, seed: int, policies: Sequence[str] | None = None, *, players: int | None = None,
                       options: dict[str, Any] | None = None, first_dealer: int | None = None,
                       bot_seed: int | None = None) -> list[bytes]:
    """Play a whole match with bots and record each deal as its own replay (each one replays on its own)."""
    state = engine.new_match(game, seed=seed, players=players, options=options, first_dealer=first_dealer)
    names, bots = _bots(state, policies, seed if bot_seed is None else bot_seed)
    replays = []
    while not state.is_terminal:
        recorder = Recorder(state, "deal", names)
        recorder.play_out(bots)
        replays.append(recorder.finish())
    return replays


def _record(game: str, seed: int, policies: Sequence[str] | None, scope: str, players: int | None,
            options: dict[str, Any] | None, first_dealer: int | None, bot_seed: int | None) -> bytes:
    state = engine.new_match(game, seed=seed, players=players, options=options, first_dealer=first_dealer)
    names, bots = _bots(state, policies, seed if bot_seed is None else bot_seed)
    recorder = Recorder(state, scope, names)
    recorder.play_out(bots)
    return recorder.finish()


def _bots(state: State, policies: Sequence[str] | None, seed: int) -> tuple[list[str], list[Policy]]:
    names = list(policies) if policies is not None else ["random"] * state.players
    return names, make_policies(names, state.game_id, seed)


def encode_replay(header: Header, ordinals: Sequence[int]) -> bytes:
    """The bytes of a replay given as a header and move ordinals, checked by replaying the engine."""
    state = start_state(header)
    digits = permutation_digits([engine.cards.parse_card(c) for c in header.deck]) if header.deck else []
    start_deal = state.deal_index
    for number, ordinal in enumerate(ordinals, 1):
        if _is_over(state, header.scope, start_deal):
            raise ReplayError(f"the {header.scope} is over after {number - 1} moves but {len(ordinals)} are given",
                              move=number)
        legal = legal_ids(state, number)
        if not 0 <= ordinal < len(legal):
            raise ReplayError(f"ordinal {ordinal} is out of range: {len(legal)} legal actions", move=number)
        digits.append((ordinal, len(legal)))
        state.apply_id(legal[ordinal])
    if not _is_over(state, header.scope, start_deal):
        raise ReplayError(f"the {header.scope} is not over after the {len(ordinals)} moves given")
    try:
        return encode(header, digits, len(ordinals))
    except ValueError as exc:
        raise ReplayError(f"cannot encode this replay: {exc}") from None


# ---- reconstruction -----------------------------------------------------------------------------------------------

def start_state(header: Header) -> State:
    """The engine state a replay starts from (ReplayError if the header does not describe a valid start)."""
    deck = list(header.deck) if header.deck is not None else None
    try:
        if not header.is_later_deal:
            return engine.new_match(header.game, seed=header.seed, players=header.players, options=header.options,
                                    first_dealer=header.first_dealer, deck=deck)
        state = engine.new_match(header.game, seed=header.seed, players=header.players, options=header.options,
                                 first_dealer=header.dealer, deck=deck)
        position = state.to_position()
        position.update(deal_index=header.deal_index, scores=list(header.scores or ()), rng=header.rng,
                        **header.carried)
        if header.first_dealer is not None:
            position["first_dealer"] = header.first_dealer
        return engine.from_position(header.game, engine.game_class(header.game).deal_start_position(position))
    except _ENGINE_ERRORS as exc:
        raise ReplayError(f"the header does not start a {header.game} match: {exc}") from None


def legal_ids(state: State, number: int) -> list[int]:
    """The legal action ints before move ``number``; ReplayError if the engine cannot list them."""
    try:
        return state.legal_action_ids()
    except _ENGINE_ERRORS as exc:
        raise ReplayError(f"the engine cannot list the legal actions: {exc}", move=number) from None


@dataclass
class Step:
    """One replayed move: its number (from 1), who played it, its ordinal among ``legal_count`` legal actions."""

    number: int
    seat: int
    action: str
    ordinal: int
    legal_count: int
    deal_index: int


@dataclass
class Turn:
    """One turn of a replay: a move, or the decisions of a fishing capture (``KS:``, ``+4C``, ``+TD``, ``done``) as one
    whole turn in the rules' notation (``KS:4C,TD``); ``first`` and ``last`` number its moves (from 1)."""

    first: int
    last: int
    seat: int
    action: str
    deal_index: int

    @property
    def numbers(self) -> str:
        """``"12"``, or ``"13-16"`` for a turn of several moves."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


def replay_turns(replayer: Replayer) -> Iterator[Turn]:
    """The moves of ``replayer`` turn by turn, each turn yielded once its last move is replayed.

    >>> turns = replay_turns(Replayer(record_deal("tablanette", seed=1)))
    >>> [(turn.numbers, turn.seat, turn.action) for turn in [next(turns), next(turns)]]
    [('1', 1, 'AC'), ('2-5', 0, 'KS:AC,5D,8D')]
    """
    state = replayer.state
    steps: list[Step] = []
    for step in replayer:
        steps.append(step)
        if isinstance(state, FishingState) and state.turn is not None:
            continue  # a capture is being decided
        action = step.action if len(steps) == 1 else join_turns([(s.seat, s.action) for s in steps])[0][1]
        yield Turn(steps[0].number, step.number, step.seat, action, steps[0].deal_index)
        steps = []


class Replayer:
    """Replays a replay's bytes move by move, checking each one; ``state`` is the live engine state.

    >>> replayer = Replayer(record_deal("tablanette", seed=1))
    >>> first = next(iter(replayer)); first.number
    1
    """

    def __init__(self, data: bytes) -> None:
        frame = decode_frame(data)
        self.data = bytes(data)
        self.version = frame.version
        self.move_count = frame.move_count
        self._digits = frame.digits
        header = frame.header
        if frame.explicit_deck:
            deck_cards = _deck_cards(header)
            header = replace(header, deck=_codes(take_permutation(self._digits, deck_cards)))
        self.header = header
        self.state = start_state(header)
        most = self.state.max_moves_left
        if self.move_count > most:  # refused before replaying anything: a forged count would replay for ever
            raise ReplayError(f"corrupt replay: it holds {self.move_count:,} moves, more moves than a {header.game} "
                              f"{header.scope} can take from its start ({most:,}, engine.game_length)")
        self.start_deal = self.state.deal_index
        # Version 1 stored a fishing game's whole turns (see replay.codec); its moves are whole turns here too.
        self._whole_turns = self.version == 1 and hasattr(self.state, "legal_turn_ids")
        self.steps = 0
        # The moves as this cardtable's ordinals (for a version-1 fishing replay, those of the decisions played).
        self.ordinals: list[int] = []

    @property
    def over(self) -> bool:
        return _is_over(self.state, self.header.scope, self.start_deal)

    def __iter__(self) -> Iterator[Step]:
        state = self.state
        while not self.over:
            number = self.steps + 1
            if number > self.move_count:
                raise ReplayError(f"truncated replay: it holds {self.move_count} moves but the {self.header.scope} "
                                  "is not over", move=number)
            legal = self._legal(number)
            if not legal:
                raise ReplayError(f"the engine offers no legal action to seat {state.current_player}", move=number)
            ordinal = self._digits.take(len(legal))
            seat, deal_index = state.current_player, state.deal_index
            assert seat is not None  # someone is to act: the deal is not over
            for action in self._actions(legal[ordinal], number):
                self.ordinals.append(state.legal_action_ids().index(action))
                try:
                    state.apply_id(action)
                except _ENGINE_ERRORS as exc:
                    raise ReplayError(f"the engine rejects ordinal {ordinal}: {exc}", move=number) from None
            self.steps = number
            yield Step(number, seat, state.action_string(legal[ordinal]), ordinal, len(legal), deal_index)
        if self.steps != self.move_count:
            raise ReplayError(f"the {self.header.scope} ended after {self.steps} moves but the replay holds "
                              f"{self.move_count}", move=self.steps + 1)
        if not self._digits.exhausted:
            raise ReplayError("corrupt replay: packed data is left over after the last move", move=self.steps)

    def _legal(self, number: int) -> list[int]:
        if not self._whole_turns:
            return legal_ids(self.state, number)
        state = self.state
        assert isinstance(state, FishingState)  # only a version-1 fishing replay stores whole turns
        try:
            return state.legal_turn_ids()
        except _ENGINE_ERRORS as exc:
            raise ReplayError(f"the engine cannot list the whole turns: {exc}", move=number) from None

    def _actions(self, move: int, number: int) -> list[int]:
        """The actions that play a stored move: itself, or a version-1 whole turn's decisions."""
        if not self._whole_turns:
            return [move]
        state = self.state
        assert isinstance(state, FishingState)  # only a version-1 fishing replay stores whole turns
        decisions = state.turn_decisions(move)
        if decisions is None:
            raise ReplayError(f"the engine cannot play turn {self.state.action_string(move)}", move=number)
        return decisions


def _deck_cards(header: Header) -> list[int]:
    first_dealer = header.dealer if header.is_later_deal else header.first_dealer
    probe = start_state(replace(header, first_dealer=first_dealer, deal_index=0, deck=None))
    return sorted(probe.deal_deck)


def _is_over(state: State, scope: str, start_deal: int) -> bool:
    return state.is_terminal or (scope == "deal" and state.deal_index != start_deal)


@dataclass
class Replay:
    """A decoded and fully checked replay."""

    header: Header
    ordinals: list[int]
    moves: list[tuple[int, str]]
    deal_results: list[dict[str, Any]]
    scores: list[int]
    final: State
    data: bytes
    version: int = FORMAT_VERSION

    @property
    def size(self) -> int:
        return len(self.data)


def decode(data: bytes) -> Replay:
    """Decode replay bytes and replay every move through the engine; ReplayError names what is wrong, and where."""
    replayer = Replayer(data)
    moves = [(step.seat, step.action) for step in replayer]
    state = replayer.state
    results = [r for r in state.deal_results if r["deal"] >= replayer.start_deal]
    if replayer.header.scope == "deal":
        results = results[:1]
    return Replay(replayer.header, replayer.ordinals, moves, results, state.scores, state, replayer.data,
                  replayer.version)
