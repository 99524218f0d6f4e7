"""The numeric face of a match for learning agents: a fixed action space per game, and one observation encoding for
every game (documented in docs/environments.md).

**Actions.** Each game has a fixed number of action indexes (:class:`ActionCodec`): a trick game's action ids are its
``CardActions`` table (card plays, suffixed plays such as ``KH:belote``, then its words), used as they are; a fishing
game's steps (docs/fishing_moves.md) are ``52 * k + card`` for k = 0 trail, 1 a jack that takes the whole table,
2 begin a capture with the card, 3 take the card, then ``next`` and ``done``.

**Observation.** A float32 vector of what ``state.observation(seat)`` and the deal's public moves show, so it holds
nothing the seat may not know (:class:`ObservationEncoder`). Seats are relative to the observer (0 itself, 1 the next
seat in seat order, ...). Card planes are 52 entries each, card ``suit * 13 + rank`` (suits C D H S, ranks 2..A),
1 where the card is:

====================  ==========================================================================================
plane                 cards
====================  ==========================================================================================
0 hand                the observer's hand
1 .. n trick          the card seat k played to the trick in progress
n+1 table             the table (fishing games)
n+2 face up           face-up cards the observation shows: ``face_up``, ``turn_up``, ``bottom_card``,
                      ``removed_card``
n+3 known             ``known_cards``: cards known to be in another seat's hand (taken face up, declared, ...)
n+4 played            every card in this deal's public moves so far (played, trailed or captured, as seen)
====================  ==========================================================================================

then ``trump`` one-hot (C, D, H, S, none), ``phase`` one-hot (the game's phases as its ``GameInfo.phases`` lists
them, then any other), the match score of each seat (raw points), the dealer one-hot, 1 if the observer is to act, the
stock size, the deal index.

What a game shows and when (cards played face down, face-up cards that change at any move or stop showing when
played) is declared on its ``GameInfo`` and read from the registry.

>>> import engine
>>> state = engine.new_match("german_whist", seed=1)
>>> encoder = ObservationEncoder(2, "german_whist")
>>> vector = encoder.encode_afresh(state, 0)
>>> vector.shape, int(vector[:52].sum())
((379,), 13)
>>> ActionCodec.for_game("tablanette").size, ActionCodec.for_game("german_whist").size
(210, 56)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import engine
from engine.cards import CARD_OF_CODE, CODES, NUM_CARDS, SUITS
from engine.fishing import BEGIN, DONE, NEXT, TAKE, FishingCore, FishingState
from engine.trickgame import FaceDownPlays, TrickCore, TrickGame

if TYPE_CHECKING:
    from engine import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from engine import _cython_shim as cython

if cython.compiled:
    from cython.cimports.libc.string import memcpy  # type: ignore[import-untyped]  # C's own

FACE_UP_KEYS = ("face_up", "turn_up", "bottom_card", "removed_card")
CARD_MASK = (1 << 6) - 1


class ActionCodec:
    """A game's actions as indexes ``0 .. size - 1`` and back: ``index(action_id)``, and the legal ids by index."""

    def __init__(self, game_id: str, size: int, fishing: bool) -> None:
        self.game_id = game_id
        self.size = size
        self.fishing = fishing
        # A fishing game's action id -> its index, filled as ids come (a dict lookup per legal id at every step,
        # not a call of ``index``).
        self._index_of = _IndexOf(self) if fishing else None

    @classmethod
    def for_game(cls, game_id: str) -> ActionCodec:
        """The codec of a game; a ValueError for a game whose actions have no fixed table."""
        game = engine.game_class(game_id)
        if issubclass(game, FishingState):
            return cls(game_id, 4 * NUM_CARDS + 2, True)
        actions = getattr(game, "ACTIONS", None)
        if actions is None:
            raise ValueError(f"{game_id} has no fixed action table (a CardActions ACTIONS, or fishing steps)")
        return cls(game_id, len(actions.strings), False)

    def index(self, action: int) -> int:
        return _fishing_index(action) if self.fishing else action

    def index_string(self, index: int) -> str:
        """The action an index stands for, in the rules' notation (``"KS:"``, ``"+4C"``; a jack taking the whole
        table is ``"JS:*"``, whatever the table holds)."""
        if not 0 <= index < self.size:
            raise ValueError(f"{self.game_id}'s action indexes are 0..{self.size - 1}, not {index}")
        if not self.fishing:
            return str(engine.game_class(self.game_id).ACTIONS.strings[index])  # type: ignore[attr-defined]
        if index >= 4 * NUM_CARDS:
            return "next" if index == 4 * NUM_CARDS else "done"
        kind, card = divmod(index, NUM_CARDS)
        return ("{}", "{}:*", "{}:", "+{}")[kind].format(CODES[card])

    def legal_by_index(self, legal_ids: Sequence[int]) -> dict[int, int]:
        """Index -> action id for the legal ids (one id per index: a state never offers two)."""
        index_of = self._index_of
        if index_of is None:
            return {action: action for action in legal_ids}
        return {index_of[action]: action for action in legal_ids}


class _IndexOf(dict[int, int]):
    """A fishing game's action id -> its index (:meth:`ActionCodec.index`), worked out once per id."""

    def __init__(self, codec: ActionCodec) -> None:
        super().__init__()
        self.codec = codec

    def __missing__(self, action: int) -> int:
        index = self[action] = self.codec.index(action)
        return index


def card_tokens(action: str) -> list[int]:
    """The cards an action string names (``"KS:4C,TD"`` -> KS, 4C, TD; ``"+3C"`` -> 3C; ``"bid:80:H"`` -> none)."""
    cards = []
    for part in action.replace(",", ":").split(":"):
        code = part[1:] if part.startswith("+") else part
        card = CARD_OF_CODE.get(code)
        if card is not None:
            cards.append(card)
    return cards


_MAX_SEATS = 8  # the sizes of the encoder's per-seat arrays (its C arrays' sizes are these literals)
_MAX_PLANES = _MAX_SEATS + 5
_PLANE = cython.declare(cython.int, NUM_CARDS)  # a card plane's entries, typed for the compiled build


@cython.final
@cython.cclass
class ObservationEncoder:
    """The observation vector of each seat of a ``players``-player match of ``game_id`` (see the module's table), a
    trick game or a fishing game: read from the state's own hands and trick (masks), never from an observation dict
    built at every move, and kept up to date move by move (the tests compare it at every move of every game with the
    table worked out from the seat's observation and public history).

    Each card plane of a seat's vector is a 52-bit mask: :meth:`encode` works out the seat's planes now and writes
    only the entries whose bit changed since that seat's last vector (a few cards), and the one-hots, scores, stock
    size and deal index when they changed. The environment tells it of each move (:meth:`moved`, with the action id):
    it adds the cards the move names to the deal's played cards and notes when the phase, the deal, the stock or the
    first trick changed; only then are the parts that depend on them worked out again (trump, phase, dealer and deal;
    the face-up and known cards from the game's ``shown_cards``, an engine hook (every fishing game's; a trick game's
    unless its observation decides), else from ``state.observation(seat)``). :meth:`new_match` starts over;
    :meth:`encode_afresh` encodes any state at once (OpenSpiel's, which it copies and samples). The vector
    environment's rows (:class:`Rows`) copy the seat's vector out of the encoder's own, as :meth:`encode` does.

    Compiled (``build_engine.py`` compiles this module with the engine), the per-seat state is C arrays of 64-bit
    masks and the vectors a typed float32 memoryview; run from source, the arrays are lists and the same code runs as
    Python. The fishing games' table takes the trick's place."""

    players = cython.declare(cython.int, visibility="readonly")
    size = cython.declare(cython.int, visibility="readonly")
    planes = cython.declare(cython.int, visibility="readonly")
    scalars = cython.declare(cython.int, visibility="readonly")
    scores_at = cython.declare(cython.int, visibility="readonly")  # where the scores are, then the dealer one-hot,
    to_act_at = cython.declare(cython.int, visibility="readonly")  # "to act", the stock's size and the deal index
    phases = cython.declare(object, visibility="readonly")
    game_id = cython.declare(object, visibility="readonly")
    cython.declare(_fishing=cython.bint, _stocked=cython.bint, _face_down_plays=cython.bint,
                   _face_down_moves=cython.bint, _has_secret=cython.bint, _shown_every_move=cython.bint,
                   _shown_until_played=cython.bint, _quiet_plays=cython.bint, _trump_seen=cython.bint,
                   _tricks_begun=cython.bint, _trump_at=cython.int, _phase_at=cython.int, _dealer_at=cython.int,
                   _deal_epoch=cython.longlong, _shown_epoch=cython.longlong, _stock_left=cython.longlong,
                   _played=cython.ulonglong, _shown_any=cython.ulonglong)
    cython.declare(_written=cython.ulonglong[104], _new=cython.ulonglong[13], _face_up=cython.ulonglong[8],
                   _known=cython.ulonglong[8], _own=cython.ulonglong[8], _trump_of=cython.int[8],
                   _phase_of=cython.int[8], _dealer_of=cython.int[8], _deal_seen=cython.longlong[8],
                   _shown_seen=cython.longlong[8], _stock_seen=cython.double[8], _deal_of=cython.double[8],
                   _w_trump=cython.int[8], _w_phase=cython.int[8], _w_dealer=cython.int[8], _w_to_act=cython.int[8],
                   _w_stock=cython.double[8], _w_deal=cython.double[8], _w_scores=cython.double[64])
    cython.declare(_matrix=cython.float[:, ::1], _vectors=list, _pending=list, _scores_seen=list,
                   _bit_of=object, _secret=object, _plain_card=object, _phase=object, _dealings=object,
                   _deal_index=object, _state_type=object, _shown_of=object, _trump_seen_of=object,
                   _phase_index=dict, _quiet_phases=frozenset)
    # the deal part (trump, phase, dealer, deal index) worked out once an epoch, for every seat
    cython.declare(_deal_part_epoch=cython.longlong, _deal_trump=cython.int, _deal_phase=cython.int,
                   _deal_dealer=cython.int, _deal_number=cython.double)

    @cython.locals(n=cython.int)
    def __init__(self, players: int, game_id: str, like: ObservationEncoder | None = None) -> None:
        game = engine.game_class(game_id)
        if not issubclass(game, (TrickGame, FishingState)):
            raise ValueError(f"{game_id} is neither a trick game nor a fishing game: it has no observation vector")
        if not 0 < players <= _MAX_SEATS:
            raise ValueError(f"the observation encoder has room for 1 to {_MAX_SEATS} seats; {players} asked")
        if not cython.compiled:
            self._written, self._new = [0] * (_MAX_SEATS * _MAX_PLANES), [0] * _MAX_PLANES
            self._face_up, self._known, self._own = [0] * _MAX_SEATS, [0] * _MAX_SEATS, [0] * _MAX_SEATS
            self._trump_of, self._phase_of, self._dealer_of = [0] * _MAX_SEATS, [0] * _MAX_SEATS, [0] * _MAX_SEATS
            self._deal_seen, self._shown_seen = [0] * _MAX_SEATS, [0] * _MAX_SEATS
            self._stock_seen, self._deal_of = [0.0] * _MAX_SEATS, [0.0] * _MAX_SEATS
            self._w_trump, self._w_phase, self._w_dealer = [0] * _MAX_SEATS, [0] * _MAX_SEATS, [0] * _MAX_SEATS
            self._w_to_act = [0] * _MAX_SEATS
            self._w_stock, self._w_deal = [0.0] * _MAX_SEATS, [0.0] * _MAX_SEATS
            self._w_scores = [0.0] * (_MAX_SEATS * _MAX_SEATS)
        self.game_id = game_id
        self.players = n = players
        self.phases = engine.game_info(game_id).phases
        self._phase_index = {phase: index for index, phase in enumerate(self.phases)}
        self.planes = n + 5
        self.scalars = len(SUITS) + 1 + len(self.phases) + 1 + 2 * n + 3
        self.size = self.planes * NUM_CARDS + self.scalars
        self._fishing = issubclass(game, FishingState)  # a table plane and no trick; its action strings name cards
        self._stocked = self._fishing or game.STOCK_SHOWN is not None  # type: ignore[attr-defined]  # it deals a stock
        # Action id -> the cards its string names (as the reference reads the history), a mask of the played plane;
        # and the actions the other seats see without their cards (a card played face down, Boonaken's discards,
        # Thunee's trump card laid face down): only the actor's played plane shows them, the others' once the history
        # does. Worked out by the first match (a probe match needs a player count the game is played by); a twin
        # shares both.
        if like is not None:
            shared = cython.declare(ObservationEncoder, like)
            self._bit_of, self._secret = shared._bit_of, shared._secret
        elif self._fishing:
            self._bit_of, self._secret = None, None  # (its ids say their cards: _fishing_cards)
        else:
            strings = game.ACTIONS.strings  # type: ignore[attr-defined]
            self._bit_of, self._secret = [_mask_of(card_tokens(action)) for action in strings], None
        self._face_down_moves = game.INFO.face_down
        self._has_secret = False
        self._face_down_plays = issubclass(game, FaceDownPlays)  # its face-down trick cards show no card
        # Face-up and known cards that change at any move (Thunee's trump turned up and its jodi cards played,
        # Boonaken's centre) are read from the seat's observation (without history) at every one; those that stop
        # showing when played (Two-Ten-Jack's face-up stock, Tablić's bottom card) again when one is played.
        self._shown_every_move = game.INFO.shown_every_move
        # Of those, the phases whose words change nothing shown while the phase goes on (Thunee's calling).
        self._quiet_phases = frozenset(getattr(game, "QUIET_WORD_PHASES", ()))
        # Whether its plain card plays change nothing shown either (Boonaken's: its shown cards are the centre's).
        self._quiet_plays = bool(getattr(game, "QUIET_CARD_PLAYS", False))
        # A trick game's plain card plays (id -> card, None for the other moves): of those, only the deal's first card
        # and a card its vectors showed change what a game whose shown cards change at any move shows (the rest of its
        # moves, words and suffixed plays, are asked about again).
        self._plain_card = None if self._fishing else game.ACTIONS.plain_card  # type: ignore[attr-defined]
        self._shown_until_played = game.INFO.shown_until_played
        # The trump as each seat knows it, read with the shown cards (Thunee's, until turned up), where the game says.
        self._trump_seen = not self._fishing and game.trump_seen is not TrickGame.trump_seen  # type: ignore[attr-defined]
        self._trump_at = self.planes * NUM_CARDS
        self._phase_at = self._trump_at + len(SUITS) + 1
        self.scores_at = self._phase_at + len(self.phases) + 1
        self._dealer_at = self.scores_at + n
        self.to_act_at = self._dealer_at + n
        self._vectors = None  # (made by the first match, and kept from match to match)
        self._state_type = None  # the class whose shown_cards and trump_seen are _shown_of and _trump_seen_of

    @cython.locals(seat=cython.int, n=cython.int)
    def new_match(self, state: Any) -> None:
        """Start every seat's vector afresh for ``state``, a new match."""
        if self._secret is None:
            self._secret = secret_actions(state.game_id, self.players) if self._face_down_moves else frozenset()
        self._has_secret = bool(self._secret)
        n = self.players
        if self._vectors is None:
            # The seats' vectors, one numpy array of a row each, written through a memoryview (typed, compiled); one
            # copy per observation makes the array returned. What each holds is kept in ``_written`` (the planes)
            # and the ``_w_`` arrays (-1: no one-hot entry set), from match to match.
            matrix = np.zeros((n, self.size), dtype=np.float32)
            self._matrix = memoryview(matrix)
            self._vectors = list(matrix)
            for seat in range(n):
                self._w_trump[seat] = self._w_phase[seat] = self._w_dealer[seat] = -1
        for seat in range(n):
            self._own[seat] = 0  # the cards of each seat's secret moves
            self._deal_seen[seat] = self._shown_seen[seat] = -1  # the deal and shown parts' epochs it saw
        self._scores_seen = [None] * n  # the score list each seat's vector shows (the engine replaces it whole)
        self._deal_part_epoch = -1
        self._played = 0  # the cards this deal's moves named
        self._pending = []  # the secret moves (index, mask) the others' history does not show
        self._deal_epoch = self._shown_epoch = 0
        self._deal_index, self._dealings, self._phase = state.deal_index, state.dealings, state.phase
        self._stock_left = len(state.stock) - getattr(state, "stock_top", 0) if self._stocked else 0
        self._tricks_begun = bool(getattr(state, "tricks", ()))
        self._shown_any = 0  # every face-up or known card a seat's vector showed this match

    def moved(self, state: Any, action: int) -> None:
        """After ``action`` (an id) was applied to ``state``."""
        self._moved(state, action, state.current_player is None)

    @cython.cfunc
    @cython.locals(named=cython.ulonglong, left=cython.longlong, seat=cython.int, quiet=cython.bint,
                   start=cython.longlong, over=cython.bint, begun=cython.bint, trick=TrickCore, fishing=FishingCore)
    def _moved(self, state: Any, action: Any, over: bool) -> None:
        """``moved``; ``over``: the match is over (``state.current_player is None``, which the caller has read)."""
        # The state's per-move fields are read through its core (C struct fields, compiled): ``trick`` is a trick
        # game's, ``fishing`` a fishing game's.
        trick, fishing = None, None
        if self._fishing:
            fishing = state
            named = _fishing_cards(action)
            phase = fishing.phase
        else:
            trick = state
            named = self._bit_of[action]
            phase = trick.phase
        if self._has_secret and action in self._secret:  # (a trick game's)
            seat = trick.moves[-1][0]
            self._own[seat] |= named
            self._pending.append((len(trick.moves) - 1, named))
        else:
            self._played |= named
        # What the slow parts depend on: the phase and the dealing (all of it; a new deal is a new dealing), whether
        # the first trick is over (it ends declarations) and the stock's size (it shrinks after a trick of German
        # Whist, by an exchange of Trappola).
        quiet = True  # the phase and the dealing go on
        if phase != self._phase or state.dealings != self._dealings:
            quiet = False
            if state.deal_index != self._deal_index:
                self._forget_deal()  # a new deal
                self._deal_index = state.deal_index
            if not self._fishing or state.dealings != self._dealings:  # a fishing game's capture phase shows no more
                self._shown_epoch += 1
            self._phase, self._dealings = phase, state.dealings
            self._deal_epoch += 1
        # The history shows a secret move once the phases say so (Two-Ten-Jack's face-down card when its trick is
        # gathered; Thunee's trump card never): asked as a trick ends or the phase or dealing changes, the only moves
        # after which it does in any game (tests/envs check the vectors at every move of every game).
        if self._pending and (not quiet or not trick.trick):
            start = state._secret_moves_start()
            if start > self._pending[0][0]:
                self._played |= _revealed(self._pending, start)
        if over:
            self._forget_deal()  # the match is over: the environment's last deal starts after its last move
        if self._shown_until_played and named & self._shown_any:
            self._shown_epoch += 1
        elif self._shown_every_move and (
                self._plain_card[action] is None and not (quiet and self._phase in self._quiet_phases)
                or not self._quiet_plays and (named & self._shown_any or not trick.tricks and len(trick.trick) == 1)):
            self._shown_epoch += 1  # a word (but a quiet phase's), a suffixed play, a card shown, the deal's first card
        if self._fishing:
            left = len(fishing.stock)
            if left != self._stock_left:  # its shown facts change with the stock
                self._stock_left = left
                self._shown_epoch += 1
        elif not trick.trick:  # the stock and the tricks played change only as a trick ends (or outside the play)
            left = len(trick.stock) - trick.stock_top if self._stocked else 0
            begun = bool(trick.tricks)
            if left != self._stock_left or begun != self._tricks_begun:
                self._stock_left, self._tricks_begun = left, begun
                self._shown_epoch += 1

    @cython.cfunc
    @cython.locals(seat=cython.int)
    def _forget_deal(self) -> None:
        """The played cards, and the secret moves', forgotten (a new deal, or the match's end)."""
        self._played = 0
        for seat in range(self.players):
            self._own[seat] = 0
        if self._pending:  # (a new list only when one was in use: fewer objects for the garbage collector)
            self._pending = []

    @cython.locals(index=cython.longlong, actor=cython.int, named=cython.ulonglong)
    def encode_afresh(self, state: Any, seat: int, deal_start: int = 0) -> np.ndarray:
        """The vector of ``seat`` for ``state`` whatever came before (the moves this encoder was told of are
        forgotten): the deal's played cards read from its moves from ``deal_start`` on (the match's moves before this
        deal), as the seat's public history shows them."""
        self.new_match(state)
        secret_from = state._secret_moves_start()  # the history shows the secret moves before this one
        moves = state.moves
        for index in range(deal_start, len(moves)):
            actor, action = moves[index]
            named = _fishing_cards(action) if self._fishing else self._bit_of[action]
            if action in self._secret and index >= secret_from:
                self._own[actor] |= named
            else:
                self._played |= named
        return self.encode(state, seat)

    def twin(self) -> ObservationEncoder:
        """A new encoder of the same game and player count sharing this one's tables (worked out once: Boonaken's
        action table has 37,120 entries), for another match (a vector environment has one per match)."""
        return ObservationEncoder(self.players, self.game_id, self)

    @cython.locals(seat=cython.int)
    def encode(self, state: Any, seat: int) -> np.ndarray:
        """The vector of ``seat`` now (a new array)."""
        self._update(state, seat, state.current_player == seat)
        return self._vectors[seat].copy()  # type: ignore[no-any-return]

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(seat=cython.int, n=cython.int, p=cython.int, k=cython.int, at=cython.int, entry=cython.int,
                   index=cython.int, old=cython.int, new=cython.ulonglong, changed=cython.ulonglong,
                   value=cython.double, matrix=cython.float[:, ::1], scores=object, side_of=object,
                   acting=cython.bint)
    def _update(self, state: Any, seat: int, acting: bool) -> None:
        """The seat's vector (its row of the encoder's matrix) brought up to date: only what changed is written.
        ``acting``: the seat is to act (``state.current_player == seat``, which every caller has read)."""
        self._fill(state, seat)
        matrix = self._matrix
        for p in range(self.planes):
            new = self._new[p]
            changed = new ^ self._written[seat * 13 + p]
            if not changed:
                continue
            self._written[seat * 13 + p] = new
            at = p * _PLANE
            if not cython.compiled:  # (from the highest changed bit down: a few int operations each)
                while changed:
                    entry = changed.bit_length() - 1
                    matrix[seat, at + entry] = new >> entry & 1
                    changed ^= 1 << entry
                continue
            entry = 0
            while changed:  # (the lowest bit up, a byte at a time past the unchanged ones)
                if not changed & 0xFF:
                    changed >>= 8
                    entry += 8
                    continue
                if changed & 1:
                    matrix[seat, at + entry] = new >> entry & 1
                changed >>= 1
                entry += 1
        # the one-hots: trump (a suit, or none), phase and dealer
        index, old = self._trump_at + self._trump_of[seat], self._w_trump[seat]
        if index != old:
            if old >= 0:
                matrix[seat, old] = 0.0
            matrix[seat, index] = 1.0
            self._w_trump[seat] = index
        index, old = self._phase_at + self._phase_of[seat], self._w_phase[seat]
        if index != old:
            if old >= 0:
                matrix[seat, old] = 0.0
            matrix[seat, index] = 1.0
            self._w_phase[seat] = index
        index, old = self._dealer_at + self._dealer_of[seat], self._w_dealer[seat]
        if index != old:
            if old >= 0:
                matrix[seat, old] = 0.0
            matrix[seat, index] = 1.0
            self._w_dealer[seat] = index
        index = 1 if acting else 0
        if index != self._w_to_act[seat]:
            matrix[seat, self.to_act_at] = index
            self._w_to_act[seat] = index
        value = self._stock_seen[seat]
        if value != self._w_stock[seat]:
            matrix[seat, self.to_act_at + 1] = value
            self._w_stock[seat] = value
        value = self._deal_of[seat]
        if value != self._w_deal[seat]:
            matrix[seat, self.to_act_at + 2] = value
            self._w_deal[seat] = value
        scores = state.side_scores
        if scores is not self._scores_seen[seat]:  # (a new list: the engine's clones share it, never changed)
            self._scores_seen[seat] = scores
            n, side_of = self.players, state.side_of
            for k in range(n):
                value = scores[side_of[(seat + k) % n]]
                if value != self._w_scores[seat * 8 + k]:  # (what the vector holds: 0 at first)
                    matrix[seat, self.scores_at + k] = value
                    self._w_scores[seat * 8 + k] = value

    @cython.cfunc
    @cython.locals(seat=cython.int, n=cython.int, k=cython.int, other=cython.int, card=cython.int,
                   down=cython.ulonglong, one=cython.ulonglong, trick=TrickCore, fishing=FishingCore)
    def _fill(self, state: Any, seat: int) -> None:
        """The seat's card planes now in ``_new`` (its slow parts worked out again when they are stale)."""
        if self._deal_seen[seat] != self._deal_epoch or self._shown_seen[seat] != self._shown_epoch:
            self._slow_parts(state, seat)
        n, one = self.players, 1
        for k in range(1, n + 1):
            self._new[k] = 0
        if self._fishing:  # (the core's C struct fields, compiled)
            fishing = state
            self._new[0] = fishing.hands[seat]
            self._new[n + 1] = fishing.table
        else:
            trick = state
            self._new[0] = trick.hands[seat]
            self._new[n + 1] = 0
            down = state.down if self._face_down_plays else 0  # shown as "facedown" (or "facedown:<card>"), no card
            for other, card in trick.trick:
                if not down >> card & 1:
                    self._new[(other - seat + n) % n + 1] |= one << card
        self._new[n + 2] = self._face_up[seat]
        self._new[n + 3] = self._known[seat]
        self._new[n + 4] = self._played | self._own[seat]

    @cython.cfunc
    @cython.locals(seat=cython.int, trump=cython.int, face_up=cython.ulonglong, known=cython.ulonglong,
                   stock=cython.longlong)
    def _slow_parts(self, state: Any, seat: int) -> None:
        """Work out the parts that change only between phases or deals (trump, phase, dealer, deal index) and
        between tricks or phases (the face-up and known cards and the stock's size: the game's ``shown_cards``, else
        from the seat's observation)."""
        if self._deal_seen[seat] != self._deal_epoch:
            self._deal_seen[seat] = self._deal_epoch
            if self._deal_part_epoch != self._deal_epoch:
                self._deal_part_epoch = self._deal_epoch
                self._deal_trump = len(SUITS) if self._fishing else state.trump  # suits 0..3, NO_TRUMP (4) is "none"
                self._deal_phase = self._phase_index.get(state.phase, len(self.phases))
                self._deal_dealer, self._deal_number = state.dealer, state.deal_index
            self._trump_of[seat] = self._deal_trump
            self._phase_of[seat] = self._deal_phase
            self._dealer_of[seat] = (self._deal_dealer - seat + self.players) % self.players
            self._deal_of[seat] = self._deal_number
        if self._shown_seen[seat] != self._shown_epoch:
            self._shown_seen[seat] = self._shown_epoch
            if type(state) is not self._state_type:  # (the class's functions called: no method look-up a step)
                self._state_type = cls = type(state)
                self._shown_of, self._trump_seen_of = cls.shown_cards, getattr(cls, "trump_seen", None)
            shown = self._shown_of(state, seat)  # (FishingState's or TrickGame's; None: read the observation)
            if shown is None:
                seen = state.observation(seat, history=False)
                shown = (_mask_of(face_up_codes(seen)), _mask_of(seen.get("known_cards", ())),
                         seen.get("stock_size") or 0)
                if self._shown_every_move:  # the trump as the seat knows it (Thunee's, until turned up)
                    self._trump_of[seat] = _suit_index(seen.get("trump"))
            elif self._trump_seen:
                self._trump_of[seat] = self._trump_seen_of(state, seat)  # (NO_TRUMP, 4, is "none")
            face_up, known = shown[0], shown[1]
            self._shown_any |= face_up | known
            self._face_up[seat], self._known[seat] = face_up, known
            stock = shown[2]  # (an int: as a C integer first, not through Python's float conversion)
            self._stock_seen[seat] = stock


_DECISION_CARDLESS = cython.declare(cython.ulonglong, NEXT | DONE)  # the fishing ids' flags, typed
_DECISION_ONE_CARD = cython.declare(cython.ulonglong, BEGIN | TAKE)
_ALL_CARDS = cython.declare(cython.ulonglong, (1 << NUM_CARDS) - 1)
_CARD_BITS = cython.declare(cython.ulonglong, CARD_MASK)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(action=cython.ulonglong, one=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _fishing_cards(action: int) -> int:
    """The cards a fishing game's action id names, as the reference encoder reads them from its string (``JH:6C,2D``
    names three, ``KS:`` and ``+3C`` one, ``next`` and ``done`` none): the card, and a whole turn's captured cards."""
    one = 1
    if action & _DECISION_CARDLESS:
        return 0
    if action & _DECISION_ONE_CARD:
        return one << (action & _CARD_BITS)
    return one << (action & _CARD_BITS) | (action >> 6) & _ALL_CARDS


_DONE = cython.declare(cython.ulonglong, DONE)
_NEXT = cython.declare(cython.ulonglong, NEXT)
_TAKE = cython.declare(cython.ulonglong, TAKE)
_BEGIN = cython.declare(cython.ulonglong, BEGIN)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(action=cython.ulonglong, card=cython.longlong)
@cython.returns(cython.longlong)
def _fishing_index(action: int) -> int:
    """A fishing game's action index (:class:`ActionCodec`) of its action id."""
    if action & _DONE:
        return 4 * _PLANE + 1
    if action & _NEXT:
        return 4 * _PLANE
    card = action & _CARD_BITS
    if action & _TAKE:
        return 3 * _PLANE + card
    if action & _BEGIN:
        return 2 * _PLANE + card
    return (_PLANE if action >> 6 else 0) + card  # a jack taking the table, or a trail


@cython.cfunc
@cython.inline
@cython.locals(fishing=cython.bint, trick=TrickCore, fishing_core=FishingCore)
def _to_act(state: Any, fishing: bool) -> Any:
    """``state.current_player``, read as its core's C struct field (compiled): a fishing game's or a trick game's."""
    if fishing:
        fishing_core = state
        return fishing_core.current_player
    trick = state
    return trick.current_player


# ---- the PettingZoo environment's moves (envs/pettingzoo.py), compiled with this module -------------------------

@cython.final
@cython.cclass
class SeatMoves:
    """The action mask of the seat to act in one match (``mask``, int8, 1 for each legal index; all 0 once it is
    over) and its moves: a legal index played and the encoder told of it, then the next seat's mask, in C where the
    build compiles this module. A fishing game's legal index -> id is kept beside the mask (a trick game's index is
    its id)."""

    mask = cython.declare(object, visibility="readonly")
    cython.declare(_fishing=cython.bint, _size=cython.longlong, _ids=cython.longlong[::1], _legal=list,
                   _encoder=ObservationEncoder, _no_mask=object)
    cython.declare(_mask=cython.schar[::1])  # type: ignore[attr-defined]  # (int8: Cython's signed char)

    def __init__(self, codec: ActionCodec, encoder: ObservationEncoder) -> None:
        self._fishing, self._size, self._encoder = codec.fishing, codec.size, encoder
        self.mask = np.zeros(codec.size, dtype=np.int8)
        self._mask = self.mask
        self._no_mask = np.zeros(codec.size, dtype=np.int8)  # (the mask of a seat not to act)
        self._ids = np.zeros(codec.size if codec.fishing else 1, dtype=np.int64)
        self._legal: list[int] = []  # the legal ids the mask shows

    @cython.locals(seat=cython.int)
    def observation(self, state: Any, seat: int) -> dict[str, np.ndarray]:
        """PettingZoo's observation of ``seat``: its vector now (:meth:`ObservationEncoder.encode`, a new array) and a
        copy of the mask if it is the seat to act, else of an all-0 one."""
        acting = state.current_player == seat  # (None once the match is over)
        self._encoder._update(state, seat, acting)
        return {"observation": self._encoder._vectors[seat].copy(),
                "action_mask": (self.mask if acting else self._no_mask).copy()}

    @cython.locals(index=cython.longlong, action=cython.longlong)
    def play(self, state: Any, index: int) -> None:
        """The move of legal index ``index`` (IllegalAction if it is not one, and nothing changes; OverflowError
        compiled, for an index beyond 64 bits), the encoder told of it, and the next seat's mask."""
        action = -1  # (no action's id)
        if 0 <= index < self._size and self._mask[index]:
            action = self._ids[index] if self._fishing else index
            if not cython.compiled:
                action = int(action)  # (a numpy integer, from source)
        state.apply_id(action)
        to_act = state.current_player
        self._encoder._moved(state, action, to_act is None)
        self._select(state, to_act)

    def select(self, state: Any) -> None:
        """The mask of the seat to act in ``state`` (all 0 when none is)."""
        self._select(state, state.current_player)

    def clear(self) -> None:
        """The mask all 0 (its legal entries cleared: Boonaken's has 37,120)."""
        self._clear()
        self._legal = []

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(k=cython.Py_ssize_t, action=cython.longlong, index=cython.longlong, legal=list)
    def _select(self, state: Any, to_act: Any) -> None:
        """``select``, a C call from ``play`` (``to_act``: ``state.current_player``)."""
        self._clear()
        legal = [] if to_act is None else state.legal_action_ids()
        for k in range(len(legal)):
            action = legal[k]
            if self._fishing:
                index = _fishing_index(action)
                self._ids[index] = action
            else:
                index = action
            self._mask[index] = 1
        self._legal = legal

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(k=cython.Py_ssize_t, action=cython.longlong)
    def _clear(self) -> None:
        """The mask's legal entries cleared (``_legal`` left as it is)."""
        for k in range(len(self._legal)):
            action = self._legal[k]
            self._mask[_fishing_index(action) if self._fishing else action] = 0


# ---- the vector environment's rows (envs/vector.py): its per-match loop, compiled with this module -----------------

@cython.cclass
class MaskBuffer:
    """One buffer of a batch's action masks: ``view``, the read-only array handed out, and ``writable``, an array of
    the same memory (a ``bytearray``) that only the batch writes in; ``legal``, ``starts`` and ``counts``, the legal
    indexes written in it, match by match (:class:`Rows`), the entries to clear before it is written again.

    An array made from ``view`` (a slice, a reshape, ``np.asarray``, a ``memoryview``) holds a reference to ``view``
    (numpy's views of an array over a foreign buffer keep that array as their base), so ``view``'s reference count
    says whether anyone outside the batch still holds the buffer (:meth:`held`)."""

    view = cython.declare(object, visibility="readonly")
    writable = cython.declare(object, visibility="readonly")
    legal = cython.declare(object, visibility="public")
    starts = cython.declare(object, visibility="readonly")
    counts = cython.declare(object, visibility="readonly")
    _refs = cython.declare(cython.Py_ssize_t)

    def __init__(self, num_envs: int, actions: int) -> None:
        memory = bytearray(num_envs * actions)  # (zeroed)
        self.writable = np.ndarray((num_envs, actions), dtype=np.int8, buffer=memory)
        view = np.ndarray((num_envs, actions), dtype=np.int8, buffer=memory)
        view.flags.writeable = False
        self.view = view
        self.legal = np.zeros(16 * num_envs, dtype=np.int64)
        self.starts = np.zeros(num_envs, dtype=np.int64)
        self.counts = np.zeros(num_envs, dtype=np.int64)
        del view
        self._refs = self._references()  # the batch's own: this buffer's field

    def _references(self) -> int:
        return sys.getrefcount(self.view)  # type: ignore[no-any-return]

    def held(self) -> bool:
        """Whether anything beyond this buffer refers to its ``view`` (the batch's ``masks`` field, a caller)."""
        return self._references() > self._refs


SPARE_MASKS = 4  # the mask buffers a fresh batch keeps for reuse once their callers let them go


@cython.cclass
class Rows:
    """The batch arrays of a vector environment's matches, and its step's per-match loop (compiled with the encoder):
    each match's seat to act, its observation (the encoder's vector of that seat, as :meth:`ObservationEncoder.encode`
    gives it) and its action mask; the legal indexes of every match one after the other in ``legal`` (match ``i``'s
    from ``legal_starts[i]``, ``legal_counts[i]`` of them); a fishing game's index -> id of each match's legal moves
    in ``ids`` (a trick game's index is its id).

    ``fresh``: every step writes new arrays of observations and seats to act (the last step's are left to whoever holds
    them: the environment's copies, without copying), else the same arrays again. The masks are read-only arrays
    (:class:`MaskBuffer`): a step writes them in a buffer that nobody outside holds, its last legal entries cleared (a
    full row is not written: Boonaken's have 37,120 entries), a new buffer only when the caller holds every one of
    the ``SPARE_MASKS`` kept (``fresh``; else the one buffer, whoever holds it)."""

    observations = cython.declare(object, visibility="readonly")
    masks = cython.declare(object, visibility="readonly")
    current_player = cython.declare(object, visibility="readonly")
    legal = cython.declare(object, visibility="readonly")
    legal_starts = cython.declare(object, visibility="readonly")
    legal_counts = cython.declare(object, visibility="readonly")
    cython.declare(_masks=cython.schar[:, ::1])  # type: ignore[attr-defined]  # (int8: Cython's signed char)
    cython.declare(_fishing=cython.bint, _fresh=cython.bint, _rows=cython.float[:, ::1],
                   _seats=cython.longlong[::1], _legal=cython.longlong[::1], _starts=cython.longlong[::1],
                   _counts=cython.longlong[::1], _ids=cython.longlong[:, ::1], _played=cython.longlong[::1],
                   _buffer=MaskBuffer, _spare=list, _shape=tuple)

    def __init__(self, num_envs: int, size: int, actions: int, fishing: bool, fresh: bool) -> None:
        self._played = np.zeros(num_envs, dtype=np.int64)
        self._fishing, self._fresh = fishing, fresh
        self._shape = (num_envs, actions)
        self.observations = np.zeros((num_envs, size), dtype=np.float32)
        self.current_player = np.zeros(num_envs, dtype=np.int64)
        ids = np.zeros((num_envs, actions) if fishing else (1, 1), dtype=np.int64)
        self._rows, self._seats, self._ids = self.observations, self.current_player, ids
        self._buffer = None  # type: ignore[assignment]
        self._spare = [MaskBuffer(num_envs, actions)]
        self._use(self._spare[0])

    @cython.cfunc
    def _use(self, buffer: MaskBuffer) -> None:
        """``buffer``'s masks and legal indexes the batch's (the typed views taken again only for another buffer: the
        one let go at every step is written again, mostly)."""
        self.masks = buffer.view
        if buffer is self._buffer:
            return
        self._buffer = buffer
        self._masks = buffer.writable
        self.legal, self.legal_starts, self.legal_counts = buffer.legal, buffer.starts, buffer.counts
        self._legal, self._starts, self._counts = self.legal, self.legal_starts, self.legal_counts

    def observe(self, states: list[Any], encoders: list[ObservationEncoder]) -> None:
        """Every match's row afresh."""
        self._begin()
        self._observe_all(states, encoders, None, None, None, None)

    def step(self, states: list[Any], encoders: list[ObservationEncoder], chosen: np.ndarray, deal_index: list[int],
             ended: Callable[[int], None]) -> None:
        """Each match's chosen index (``chosen``, int64, all legal: :meth:`first_illegal` said so; a fishing game's
        mapped back to its id) played, ``ended(i)`` called where match ``i``'s deal or match ended (it rewards the
        match and starts the next one), its legal moves and mask written; then, in a second pass, each encoder told of
        its match's move and its row written. (Two passes, the engine's code then the encoder's: one pass alternating
        between them missed the instruction cache twice as often, for the same instructions.)"""
        self._begin()
        self._observe_all(states, encoders, chosen, deal_index, ended, True)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.Py_ssize_t, k=cython.Py_ssize_t, index=cython.longlong, indexes=cython.longlong[::1])
    def first_illegal(self, chosen: np.ndarray) -> int:
        """The first match whose index in ``chosen`` (int64, one a match) is not among its legal ones, or -1: one loop
        in C (a step's numpy checks cost more than the loop over 64 matches of a few moves), read from the legal
        indexes."""
        if not cython.compiled:
            owner = np.repeat(np.arange(len(chosen)), self.legal_counts)
            found = np.zeros(len(chosen), dtype=bool)
            found[owner[self.legal[:len(owner)] == chosen[owner]]] = True
            return int(np.flatnonzero(~found)[0]) if not found.all() else -1
        indexes = chosen
        for i in range(indexes.shape[0]):
            index = indexes[i]
            for k in range(self._starts[i], self._starts[i] + self._counts[i]):
                if self._legal[k] == index:
                    break
            else:
                return i
        return -1

    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.Py_ssize_t, k=cython.longlong, draws=cython.double[::1], picks=cython.longlong[::1])
    def sample(self, uniforms: np.ndarray) -> np.ndarray:
        """A legal index per match: of match ``i``'s legal indexes, number ``floor(uniforms[i] * count)``
        (``uniforms`` float64 in [0, 1), one a match)."""
        if not cython.compiled:
            return self.legal[self.legal_starts  # type: ignore[no-any-return]
                              + (uniforms * self.legal_counts).astype(np.int64)]
        chosen = np.empty(self._seats.shape[0], dtype=np.int64)
        draws, picks = uniforms, chosen
        for i in range(picks.shape[0]):
            k = cython.cast(cython.longlong, draws[i] * self._counts[i])  # (the floor: the number is at least 0)
            picks[i] = self._legal[self._starts[i] + k]
        return chosen

    @cython.cfunc
    @cython.locals(buffer=MaskBuffer, k=cython.Py_ssize_t)
    def _begin(self) -> None:
        """New arrays for this step's rows (``fresh``), and a mask buffer that nobody outside holds, its last legal
        entries cleared (``fresh``; else the one buffer)."""
        buffer = self._buffer
        if self._fresh:
            self.observations = np.empty_like(self.observations)  # (every row is written whole)
            self.current_player = np.empty_like(self.current_player)
            self._rows, self._seats = self.observations, self.current_player
            self.masks = None  # (the batch's own reference to the last step's masks, not a caller's)
            buffer = None
            for k in range(len(self._spare)):
                if not cython.cast(MaskBuffer, self._spare[k]).held():
                    buffer = self._spare[k]
                    break
            if buffer is None:  # the caller holds every one: a new buffer (zeroed), the oldest let go
                buffer = MaskBuffer(self._shape[0], self._shape[1])
                if len(self._spare) >= SPARE_MASKS:
                    del self._spare[0]
                self._spare.append(buffer)
        self._use(buffer)
        self._clear_masks()

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.Py_ssize_t, k=cython.Py_ssize_t)
    def _clear_masks(self) -> None:
        """The legal entries last written in the batch's mask buffer cleared (not the whole rows)."""
        if not cython.compiled:
            writable = self._buffer.writable
            writable[np.repeat(np.arange(len(writable)), self.legal_counts),
                     self.legal[:int(self.legal_counts.sum())]] = 0
            return
        for i in range(self._seats.shape[0]):
            for k in range(self._starts[i], self._starts[i] + self._counts[i]):
                self._masks[i, self._legal[k]] = 0

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.Py_ssize_t, k=cython.Py_ssize_t, at=cython.Py_ssize_t,
                   count=cython.Py_ssize_t, seat=cython.int, action=cython.longlong, index=cython.longlong,
                   fishing=cython.bint, encoder=ObservationEncoder, legal=list, indexes=cython.longlong[::1],
                   played=cython.longlong[::1])
    def _observe_all(self, states: list[Any], encoders: list[ObservationEncoder], chosen: Any, deal_index: Any,
                     ended: Any, move: Any) -> None:
        fishing = self._fishing
        at = 0
        indexes = chosen
        played = self._played
        for i in range(len(states)):
            state = states[i]
            played[i] = -1
            if move is not None:
                action = indexes[i]
                if fishing:
                    action = self._ids[i, action]
                if not cython.compiled:
                    action = int(action)  # (a numpy integer, from source)
                state.apply_id(action)
                to_act = _to_act(state, fishing)
                if to_act is None:  # the match is over: a new one in its place
                    ended(i)
                    state = states[i]
                    to_act = _to_act(state, fishing)
                else:
                    played[i] = action
                    if state.deal_index != deal_index[i]:
                        ended(i)  # (the deal's rewards: the match goes on, its seat to act as it was)
            else:
                to_act = _to_act(state, fishing)
            seat = to_act
            legal = state.legal_action_ids()
            count = len(legal)
            if at + count > self._legal.shape[0]:
                self.legal = np.concatenate([self.legal, np.zeros(max(at + count, self._legal.shape[0]),
                                                                  dtype=np.int64)])
                self._buffer.legal = self.legal
                self._legal = self.legal
            for k in range(count):
                action = legal[k]
                index = _fishing_index(action) if fishing else action
                self._legal[at + k] = index
                self._masks[i, index] = 1
                if fishing:
                    self._ids[i, index] = action
            self._starts[i], self._counts[i] = at, count
            at += count
            self._seats[i] = seat
        for i in range(len(states)):
            state = states[i]
            encoder = encoders[i]
            seat, action = self._seats[i], played[i]
            if not cython.compiled:
                seat, action = int(seat), int(action)  # (numpy integers, from source)
            if action >= 0:  # (a match that goes on: one that ended was replaced, and played nothing)
                encoder._moved(state, action, False)
            encoder._update(state, seat, True)  # (the row is the seat to act's)
            if cython.compiled:  # (one memcpy: a memoryview slice's copy costs more than the row; the views are
                # indexed as fields, not taken into locals: each such local takes a reference to its view)
                memcpy(cython.address(self._rows[i, 0]), cython.address(encoder._matrix[seat, 0]),
                       encoder._matrix.shape[1] * cython.sizeof(cython.float))  # type: ignore[index]
            else:
                self.observations[i] = encoder._vectors[seat]  # type: ignore[index]


def secret_actions(game_id: str, players: int) -> frozenset[int]:
    """The action ids of a trick game whose cards the other seats do not see (a card played face down, Boonaken's
    discards, Thunee's trump card laid face down): a game has some exactly when its ``GameInfo.face_down`` says so."""
    probe = engine.new_match(game_id, seed=0, players=players)
    strings = probe.ACTIONS.strings  # type: ignore[attr-defined]
    return frozenset(a for a, action in enumerate(strings)
                     if card_tokens(action) and _hidden_from_others(probe, action))


def _hidden_from_others(state: Any, action: str) -> bool:
    """Whether the other seats see ``action`` without the cards it names (then they see none of them)."""
    seen = state.action_seen_by(1, 0, action)
    if seen == action:
        return False
    assert not card_tokens(seen), f"{state.game_id} shows the others part of {action}: {seen}"
    return True


def _revealed(pending: list[tuple[int, int]], shown_from: int) -> int:
    """The bits of the secret moves the history shows now (those before ``shown_from``), taken off ``pending``."""
    bits = 0
    while pending and pending[0][0] < shown_from:
        bits |= pending.pop(0)[1]
    return bits


def _suit_index(trump: Any) -> int:
    return SUITS.index(trump) if isinstance(trump, str) and trump in SUITS else len(SUITS)


def face_up_codes(observation: Mapping[str, Any]) -> list[str]:
    """The face-up cards an observation shows under :data:`FACE_UP_KEYS`, each key a card or a list of cards
    (Boonaken's ``face_up`` centre pair)."""
    codes: list[str] = []
    for key in FACE_UP_KEYS:
        value = observation.get(key)
        if isinstance(value, str):
            codes.append(value)
        elif isinstance(value, (list, tuple)):
            codes.extend(code for code in value if isinstance(code, str))
    return codes


def _mask_of(codes: Any, at: int = 0) -> int:
    """The cards ``codes`` name (card codes, or ints) as bits from ``at`` on."""
    mask = 0
    for code in codes:
        card = CARD_OF_CODE.get(code) if isinstance(code, str) else code if isinstance(code, int) else None
        if card is not None:
            mask |= 1 << (at + card)
    return mask
