"""Live matches between people and bots: who sits where, seat tokens, and playing a person's move and the bots' replies.

A :class:`LiveMatch` is rebuilt from Redis for a request (a server keeps only a cache, checked by the store's
compare-and-set): the engine state comes from the stored position and the moves logged after it, its history (when
the request needs it) from the move log. Bots choose with an RNG
derived from the match seed and the move number, so a bot's move does not depend on which server process plays it.

>>> seats = [Seat("person"), Seat("bot", "greedy")]
>>> match, tokens, moves = LiveMatch.create("tablanette", seats, options={}, seed=7, first_dealer=None)
>>> played = match.play_person(0, tokens[0], match.state.legal_actions()[0], match.version) if 0 in tokens else []
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import engine
from engine.bots import GreedyPolicy, RandomPolicy, make_policy, parse_policy, seat_observer
from engine.bots.policy import Policy
from engine.budget import NO_BUDGET, Budget, Cancel
from engine.rng import derive_seed
from engine.state import State
from replay import Recorder

from ..match_store import Move, StoredMatch
from .budgets import check_cost
from .errors import Aborted, FailedPrecondition, InvalidArgument, PermissionDenied, quoted

BOT, PERSON = "bot", "person"
HUMAN_POLICY = "human"  # the replay codec's name for a person's seat
MAX_ACTION_LENGTH = 256  # far above any game's longest action string; longer input is not echoed back
# Bots whose decision is a one-move heuristic (no search): microseconds, a few milliseconds at worst. Only these play
# in a bounded slice (see LiveMatch.play_bots); an exact type, so a policy derived from one is not taken for it.
QUICK_POLICIES = frozenset({RandomPolicy, GreedyPolicy})


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: ``Seat("bot", "greedy")`` or ``Seat("person")``."""

    kind: str
    policy: str = HUMAN_POLICY

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "policy": self.policy}


@dataclass
class Played:
    """One move just played: its number (from 1), the seat, the action string and the deal it belongs to, and the
    action as the other seats see it (``public``: Trappola's sets declared by their size)."""

    number: int
    seat: int
    action: str
    deal_index: int
    public: str

    def seen_by(self, viewer: int | None) -> str:
        """The action as ``viewer`` (a seat, or None: anyone) sees it."""
        return self.action if viewer == self.seat else self.public


class LiveMatch:
    """A match's fixed setup (``meta``) and its engine state after ``version`` moves."""

    def __init__(self, match_id: str, meta: dict[str, Any], state: State, version: int, replay_id: str = "",
                 has_history: bool = True) -> None:
        self.match_id = match_id
        self.meta = meta
        self.state = state
        self.version = version
        self.loaded_version = version
        self.replay_id = replay_id
        # Without its history, state.moves holds only the moves played since loading.
        self.has_history = has_history
        self.seats = [Seat(**s) for s in meta["seats"]]
        # seat -> the token last found right for it (UTF-8): a cached match's next move skips hashing it again
        self._tokens_checked: dict[int, bytes] = {}

    # ---- creation and loading -----------------------------------------------------------------------------------

    @classmethod
    def create(cls, game_id: str, seats: Sequence[Seat], options: dict[str, Any], seed: int,
               first_dealer: int | None, match_id: str = "", budget: Budget = NO_BUDGET,
               cancel: Cancel | None = None) -> tuple[LiveMatch, dict[int, str], list[Played]]:
        """A new match, its seat tokens (person seats only) and the bots' opening moves (each decision bounded by
        ``budget``, abandoned when ``cancel`` is raised: see :meth:`play_bots`); a bot whose parameters ask far more
        than ``budget`` is refused (:func:`services.app.budgets.check_cost`)."""
        if not seats:
            raise InvalidArgument("a match needs seats: one SeatSpec per player")
        for number, seat in enumerate(seats):
            _check_seat_spec(game_id, number, seat, budget)
        try:
            state = engine.new_match(game_id, seed=seed, players=len(seats), options=options,
                                     first_dealer=first_dealer)
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from None
        tokens = {n: secrets.token_urlsafe(24) for n, seat in enumerate(seats) if seat.kind == PERSON}
        meta = {
            "game": game_id, "players": len(seats), "options": options, "seed": seed, "first_dealer": first_dealer,
            "seats": [s.to_dict() for s in seats],
            "token_sha256": {str(n): _digest(token) for n, token in tokens.items()},
        }
        match = cls(match_id, meta, state, 0)
        return match, tokens, match.play_bots(budget, cancel)

    @classmethod
    def load(cls, stored: StoredMatch) -> LiveMatch:
        state = engine.from_position(stored.meta["game"], stored.position)
        for _, action_id in stored.after_position:  # the moves played since the stored position
            state.apply_id(action_id)
        # The position holds no history; the move log does (action ints are context free).
        state.moves = [] if stored.moves is None else list(stored.moves)
        return cls(stored.match_id, stored.meta, state, stored.version, stored.replay_id, stored.moves is not None)

    # ---- access -------------------------------------------------------------------------------------------------

    def check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise InvalidArgument(f"seat {seat} does not exist: this match has seats 0..{len(self.seats) - 1}")

    def authorize(self, seat: int, token: str) -> None:
        """PermissionDenied unless ``token`` is the token of person seat ``seat``."""
        self.check_seat(seat)
        if self.seats[seat].kind != PERSON:
            raise PermissionDenied(f"seat {seat} is played by the bot {quoted(self.seats[seat].policy)}, not by a "
                                   "person")
        expected = self.meta["token_sha256"][str(seat)]
        if not token:
            raise PermissionDenied(f"seat {seat}'s token is missing (seat_token)")
        given = token.encode()
        checked = self._tokens_checked.get(seat)
        if checked is not None and hmac.compare_digest(given, checked):
            return
        if not hmac.compare_digest(_digest(token), expected):
            raise PermissionDenied(f"wrong token for seat {seat}")
        self._tokens_checked[seat] = given

    # ---- play ---------------------------------------------------------------------------------------------------

    def play_person(self, seat: int, token: str, action: str, expected_version: int, budget: Budget = NO_BUDGET,
                    cancel: Cancel | None = None) -> list[Played]:
        """Play a person's move and the bots' replies (see :meth:`play_bots`); the state is unchanged if anything is
        refused."""
        return self.play_move(seat, token, action, expected_version) + self.play_bots(budget, cancel)

    def play_move(self, seat: int, token: str, action: str, expected_version: int) -> list[Played]:
        """Play a person's move alone (a fishing game's whole turn: its decisions); the state is unchanged if
        anything is refused."""
        self.authorize(seat, token)
        if expected_version != self.version:
            raise Aborted(f"stale move number: the request expects move {expected_version} but the match is at move "
                          f"{self.version}; read the match again")
        state = self.state
        if state.is_terminal:
            raise FailedPrecondition(f"match {self.match_id} is over")
        if state.current_player != seat:
            raise FailedPrecondition(f"not seat {seat}'s turn: seat {state.current_player} is to act")
        if len(action) > MAX_ACTION_LENGTH:
            raise InvalidArgument(f"action is {len(action)} characters long; legal actions: "
                                  f"{', '.join(state.legal_actions())}")
        try:
            action_ids = state.action_ids(action)  # one action, or a fishing game's whole turn as its decisions
        except engine.IllegalAction as exc:
            raise InvalidArgument(str(exc)) from None
        return [self._apply(action_id) for action_id in action_ids]

    def play_bots(self, budget: Budget = NO_BUDGET, cancel: Cancel | None = None,
                  quick_for: float | None = None) -> list[Played]:
        """Let bots move while a bot is to act, each decision bounded by ``budget``; raising ``cancel`` abandons the
        decision under way (:class:`engine.budget.Cancelled`), the moves before it played on this object only.

        ``quick_for`` (seconds): play only while the bot to act is a quick one (``QUICK_POLICIES``) and no longer than
        that before its decision, leaving the rest (:meth:`bot_to_act`) to another call; a server plays these on its
        event loop, sparing a worker thread's hand-overs. The bots' moves are the same however they are split.
        """
        played = []
        state = self.state
        deadline = None if quick_for is None else time.perf_counter() + quick_for
        while self.bot_to_act():
            seat = state.current_player
            bot_seed = derive_seed(self.meta["seed"], self.version)
            bot = bot_policy(self.seats[seat].policy, state.game_id, seat, bot_seed)
            if deadline is not None and (type(bot) not in QUICK_POLICIES or time.perf_counter() >= deadline):
                break
            action_id = bot.bound(budget, cancel).choose_id(state.legal_action_ids(), seat_observer(state, seat, bot))
            played.append(self._apply(action_id))
        return played

    def bot_to_act(self) -> bool:
        """Whether a bot is to act."""
        state = self.state
        return not state.is_terminal and self.seats[state.current_player].kind == BOT

    def _apply(self, action_id: int) -> Played:
        state = self.state
        seat, deal_index = state.current_player, state.deal_index
        state.apply_id(action_id)
        self.version += 1
        action = state.action_string(action_id)
        return Played(self.version, seat, action, deal_index, state.action_seen_by(None, seat, action))

    def new_moves(self) -> list[Move]:
        """The moves played since the match was loaded, created or last saved."""
        played = self.version - self.loaded_version
        return self.state.moves[len(self.state.moves) - played:]

    def saved(self) -> None:
        """Note that the store now holds every move played."""
        self.loaded_version = self.version
        if not self.has_history:
            # Keep "only the moves since loading" true, so observations stay O(1) on a long-lived cached match.
            self.state.moves.clear()

    def drop_history(self) -> None:
        """Forget the history (the store keeps it): what a move needs does not grow with the match."""
        self.has_history = False
        self.saved()

    # ---- the end --------------------------------------------------------------------------------------------------

    def replay_bytes(self, log: Sequence[Move]) -> bytes:
        """The whole match, whose move log is ``log``, as one replay (replays the engine, checking every move)."""
        return build_replay(self.meta, log)


def build_replay(meta: dict[str, Any], log: Sequence[Move]) -> bytes:
    """The replay of a whole match from its ``meta`` and move log; plain data in and out, so another process can run
    it: ``build_replay(match.meta, match.state.moves)``."""
    start = engine.new_match(meta["game"], seed=meta["seed"], players=meta["players"], options=meta["options"],
                             first_dealer=meta["first_dealer"])
    recorder = Recorder(start, "match", [seat["policy"] for seat in meta["seats"]])
    for _, action_id in log:
        recorder.play(action_id)
    return recorder.finish()


def _check_seat_spec(game_id: str, number: int, seat: Seat, budget: Budget) -> None:
    if seat.kind == PERSON:
        return
    if seat.kind != BOT:
        raise InvalidArgument(f"seat {number}: say whether it is a bot or a person (SeatSpec.kind)")
    try:
        bot_policy(seat.policy, game_id, number, 0)
        check_cost(seat.policy, budget)
    except (ValueError, InvalidArgument) as exc:
        raise InvalidArgument(f"seat {number}: {exc}") from None


def bot_policy(label: str, game_id: str, seat: int, seed: int) -> Policy:
    """The bot of a seat from its policy label (``greedy:epsilon=0.3``), seeded with ``seed``."""
    name, params = _parsed_label(label)
    return make_policy(name, game_id, seat, seed, params)


@lru_cache(maxsize=256)
def _parsed_label(label: str) -> tuple[str, dict[str, Any] | None]:
    """A label's policy and parameters; None for a plain name (the defaults, which need no checking)."""
    name, params = parse_policy(label)
    return name, None if label == name else params


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class MatchCache:
    """The matches this process saved last, so that the next move of a match skips reading it back (bounded LRU).

    An entry is never trusted: a move computed on it is saved with the version compare-and-set, which fails if any
    other process (or request) has moved the match on since. ``take`` removes the entry, so two requests of this
    process never share one state.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._matches: OrderedDict[str, LiveMatch] = OrderedDict()

    def take(self, match_id: str) -> LiveMatch | None:
        return self._matches.pop(match_id, None)

    def put(self, match: LiveMatch) -> None:
        match.drop_history()
        self._matches[match.match_id] = match
        self._matches.move_to_end(match.match_id)
        while len(self._matches) > self.size:
            self._matches.popitem(last=False)
