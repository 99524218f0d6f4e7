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

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import engine
from engine.cards import CARD_OF_CODE, CODES, NUM_CARDS, SUITS
from engine.fishing import BEGIN, DONE, NEXT, TAKE, FishingState
from engine.trickgame import FaceDownPlays, TrickGame

FACE_UP_KEYS = ("face_up", "turn_up", "bottom_card", "removed_card")
CARD_MASK = (1 << 6) - 1
# Many changed entries below the scores (a new deal, the match's end) are written at once: cleared with one numpy call
# and the few set entries written one by one when at most CLEAR_ONES are set (the match's end clears the played plane),
# else all unpacked from the bits with another (an entry costs about a tenth of the unpacking, a third of the clearing).
BULK_BITS = 16  # (no look at the set entries below this many changes)
CLEAR_ONES = 10


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
        if not self.fishing:
            return action
        if action & DONE:
            return 4 * NUM_CARDS + 1
        if action & NEXT:
            return 4 * NUM_CARDS
        card = action & CARD_MASK
        if action & TAKE:
            return 3 * NUM_CARDS + card
        if action & BEGIN:
            return 2 * NUM_CARDS + card
        return (NUM_CARDS if action >> 6 else 0) + card  # a jack taking the table, or a trail

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


class ObservationEncoder:
    """The observation vector of each seat of a ``players``-player match of ``game_id`` (see the module's table), a
    trick game or a fishing game: read from the state's own hands and trick (masks), never from an observation dict
    built at every move, and kept up to date move by move (the tests compare it at every move of every game with the
    table worked out from the seat's observation and public history).

    Every 0/1 entry of a seat's vector (the card planes, the trump, phase and dealer one-hots, "to act") is a bit of
    one int, its ``bits``: :meth:`encode` works out the seat's bits now, and writes only the entries whose bit changed
    since that seat's last vector (a few cards), and the scores when they changed. The environment tells it of each
    move (:meth:`moved`, with the action id): it adds the cards the move names to the deal's played bits and notes
    when the phase, the deal, the stock or the first trick changed; only then are the bits that depend on them worked
    out again (trump, phase, dealer and deal; the face-up and known cards from the game's ``shown_cards``, an engine
    hook, where it has one, else from ``state.observation(seat)``). :meth:`new_match` starts over;
    :meth:`encode_afresh` encodes any state at once (OpenSpiel's, which it copies and samples).

    The fishing games' table takes the trick's place."""

    def __init__(self, players: int, game_id: str) -> None:
        game = engine.game_class(game_id)
        if not issubclass(game, (TrickGame, FishingState)):
            raise ValueError(f"{game_id} is neither a trick game nor a fishing game: it has no observation vector")
        self.players = n = players
        self.phases = engine.game_info(game_id).phases
        self.planes = n + 5
        self.scalars = len(SUITS) + 1 + len(self.phases) + 1 + 2 * n + 3
        self.size = self.planes * NUM_CARDS + self.scalars
        self._fishing = issubclass(game, FishingState)  # a table plane and no trick; its action strings name cards
        self._stocked = self._fishing or game.STOCK_SHOWN is not None  # type: ignore[attr-defined]  # it deals a stock
        self._table_at = (n + 1) * NUM_CARDS
        self._face_up_at, self._known_at = (n + 2) * NUM_CARDS, (n + 3) * NUM_CARDS
        self._played_at = (n + 4) * NUM_CARDS
        # Action id -> the cards its string names (as the reference reads the history), as bits of the played plane.
        strings = () if self._fishing else game.ACTIONS.strings  # type: ignore[attr-defined]
        self._bit_of: Any = (_NamedCards(self._played_at) if self._fishing else
                             [_mask_of(card_tokens(action), self._played_at) for action in strings])
        # The actions the other seats see without their cards (a card played face down, Boonaken's discards, Thunee's
        # trump card laid face down): only the actor's played plane shows them, the others' once the history does.
        # Worked out by the first match (a probe match needs a player count the game is played by).
        self._face_down_moves = game.INFO.face_down
        self._secret: frozenset[int] | None = None
        self._face_down_plays = issubclass(game, FaceDownPlays)  # its face-down trick cards show no card
        # Face-up and known cards that change at any move (Thunee's trump turned up and its jodi cards played,
        # Boonaken's centre) are read from the seat's observation (without history) at every one; those that stop
        # showing when played (Two-Ten-Jack's face-up stock, Tablić's bottom card) again when one is played.
        self._shown_every_move = game.INFO.shown_every_move
        self._shown_until_played = game.INFO.shown_until_played
        # The trump as each seat knows it, read with the shown cards (Thunee's, until turned up), where the game says.
        self._trump_seen = not self._fishing and game.trump_seen is not TrickGame.trump_seen  # type: ignore[attr-defined]
        self._trump_at = self.planes * NUM_CARDS
        self._phase_at = self._trump_at + len(SUITS) + 1
        self._phases = self.phases
        self._scores_at = self._phase_at + len(self._phases) + 1
        self._dealer_at = self._scores_at + n
        self._to_act_at = self._dealer_at + n
        self._to_act_bit = 1 << self._to_act_at
        self._no_trump_bits = ~(((1 << (len(SUITS) + 1)) - 1) << self._trump_at)
        # The entries below the scores, all 0/1, written from the bits at once when many changed.
        self._bulk_entries = self._scores_at
        self._bulk_bytes = (self._to_act_at + 8) // 8
        self._above_bulk = -1 << self._scores_at
        self._below_bulk = ~self._above_bulk
        self._trick_at = [[((other - seat) % n + 1) * NUM_CARDS for other in range(n)] for seat in range(n)]
        self._powers = [1 << entry for entry in range(self.size)]  # (a look-up costs less than a shift of a big int)

    def new_match(self, state: Any) -> None:
        """Start every seat's vector afresh for ``state``, a new match."""
        if self._secret is None:
            self._secret = secret_actions(state.game_id, self.players) if self._face_down_moves else frozenset()
        n = self.players
        if "_vectors" not in self.__dict__:  # (kept from match to match: a match's first vectors write what changed)
            # Each seat's vector is a numpy array written through a memoryview (single entries cost a fraction of
            # numpy's item assignment); one copy per observation makes the array returned.
            self._vectors = [np.zeros(self.size, dtype=np.float32) for _ in range(n)]
            self._views = [memoryview(vector) for vector in self._vectors]
            self._bits = [0] * n  # the 0/1 entries each seat's vector holds
        # The parts of a seat's bits that change only with the trick, between tricks or phases, or between phases or
        # deals, and their union (``_fixed``).
        self._trick_bits = [0] * n
        self._shown_bits = [0] * n
        self._deal_bits = [0] * n
        self._fixed = [0] * n
        self._slow_bits = [0] * n  # (the deal and shown parts' union)
        # The trick list each seat's trick bits were worked out from, and its length then: the engine appends to the
        # trick in progress and starts a new list for the next one, so only the new cards are added.
        self._trick_seen: list[list[tuple[int, int]] | None] = [None] * n
        self._trick_length = [0] * n
        self._scores: list[list[int] | None] = [None] * n
        self._deal_seen = [-1] * n  # the deal part (epoch) each seat's bits were worked out for
        self._shown_seen = [-1] * n  # and its shown part
        self._stock_seen = [0] * n
        self._played_bits = 0  # the cards this deal's moves named, on the played plane
        self._own = [0] * n  # and those of each seat's secret moves
        self._pending: list[tuple[int, int]] = []  # the secret moves (index, bits) the others' history does not show
        self._deal_epoch = self._shown_epoch = 0
        self._deal_index, self._dealings, self._phase = state.deal_index, state.dealings, state.phase
        self._stock_left = len(state.stock) - getattr(state, "stock_top", 0) if self._stocked else 0
        self._tricks_begun = bool(getattr(state, "tricks", ()))
        self._shown_any = 0  # every face-up or known card a seat's vector showed this match, on the played plane
        if self._fishing:
            self._bit_of.state = state

    def moved(self, state: Any, action: int) -> None:
        """After ``action`` (an id) was applied to ``state``."""
        named = self._bit_of[action]
        if self._secret and action in self._secret:
            self._own[state.moves[-1][0]] |= named
            self._pending.append((len(state.moves) - 1, named))
        else:
            self._played_bits |= named
        if self._pending and state._secret_moves_start() > self._pending[0][0]:  # the history shows them now
            self._played_bits |= _revealed(self._pending, state._secret_moves_start())
        # What the slow parts depend on: the phase and the dealing (all of it; a new deal is a new dealing), whether
        # the first trick is over (it ends declarations) and the stock's size (it shrinks after a trick of German
        # Whist, by an exchange of Trappola).
        if state.phase != self._phase or state.dealings != self._dealings:
            if state.deal_index != self._deal_index:
                self._played_bits = 0  # a new deal
                self._own, self._pending = [0] * self.players, []
                self._deal_index = state.deal_index
            if not self._fishing or state.dealings != self._dealings:  # a fishing game's capture phase shows no more
                self._shown_epoch += 1
            self._phase, self._dealings = state.phase, state.dealings
            self._deal_epoch += 1
        if state.current_player is None:
            self._played_bits = 0  # the match is over: the environment's last deal starts after its last move
            self._own, self._pending = [0] * self.players, []
        if self._shown_until_played and named & self._shown_any:
            self._shown_epoch += 1
        if self._fishing:
            if len(state.stock) != self._stock_left:  # its shown facts change with the stock
                self._stock_left = len(state.stock)
                self._shown_epoch += 1
        elif not state.trick:  # the stock and the tricks played change only as a trick ends (or outside the play)
            left = len(state.stock) - state.stock_top if self._stocked else 0
            if left != self._stock_left or bool(state.tricks) != self._tricks_begun:
                self._stock_left, self._tricks_begun = left, bool(state.tricks)
                self._shown_epoch += 1

    def encode_afresh(self, state: Any, seat: int, deal_start: int = 0) -> np.ndarray:
        """The vector of ``seat`` for ``state`` whatever came before (the moves this encoder was told of are
        forgotten): the deal's played cards read from its moves from ``deal_start`` on (the match's moves before this
        deal), as the seat's public history shows them."""
        self.new_match(state)
        secret_from = state._secret_moves_start()  # the history shows the secret moves before this one
        moves = state.moves
        for index in range(deal_start, len(moves)):
            actor, action = moves[index]
            if action in self._secret and index >= secret_from:
                self._own[actor] |= self._bit_of[action]
            else:
                self._played_bits |= self._bit_of[action]
        return self.encode(state, seat)

    def twin(self) -> ObservationEncoder:
        """A new encoder of the same game and player count sharing this one's tables (worked out once: Boonaken's
        action table has 37,120 entries), for another match (a vector environment has one per match)."""
        twin = copy.copy(self)
        twin.__dict__.pop("_vectors", None)  # new_match gives it its own vectors and per-match state
        return twin

    def bits(self, state: Any, seat: int) -> int:
        """The seat's 0/1 entries now (the card planes, trump, phase, dealer, to act) as the bits of one int, entry
        ``i`` bit ``i``; the other entries are the scores, :meth:`stock_size` and the deal index."""
        if self._shown_every_move:
            self._shown_seen[seat] = -1
        if self._deal_seen[seat] != self._deal_epoch or self._shown_seen[seat] != self._shown_epoch:
            self._slow_parts(state, seat)
        if self._fishing:
            bits = state.hands[seat] | self._fixed[seat] | self._played_bits | state.table << self._table_at
        else:
            trick = state.trick
            if trick is not self._trick_seen[seat] or len(trick) != self._trick_length[seat]:
                self._trick_part(state, trick, seat)
            bits = state.hands[seat] | self._fixed[seat] | self._played_bits
            if self._secret:  # (a game with secret moves: the seat's own)
                bits |= self._own[seat]
        if state.current_player == seat:
            bits |= self._to_act_bit
        return bits  # type: ignore[no-any-return]

    def stock_size(self, seat: int) -> int:
        """The stock's size as the seat's last :meth:`bits` saw it."""
        return self._stock_seen[seat]

    def encode(self, state: Any, seat: int) -> np.ndarray:
        bits = self.bits(state, seat)
        changed = bits ^ self._bits[seat]
        if changed:
            self._bits[seat] = bits
            view = self._views[seat]
            if changed.bit_count() > BULK_BITS:  # a new deal or the match's end: write the planes at once
                above = self._above_bulk
                ones = bits & self._below_bulk
                count = ones.bit_count()
                if count > CLEAR_ONES:
                    self._vectors[seat][: self._bulk_entries] = np.unpackbits(
                        np.frombuffer(bits.to_bytes(self._bulk_bytes, "little"), np.uint8), count=self._bulk_entries,
                        bitorder="little")
                    changed &= above
                elif count + 3 < (changed & self._below_bulk).bit_count():
                    self._vectors[seat][: self._bulk_entries] = 0.0
                    changed = changed & above | ones  # the set ones written back below
            on = changed & bits
            changed ^= on
            power = self._powers
            while on:  # from the highest bit down (an xor a bit: fewer big ints than ``on & -on``)
                entry = on.bit_length() - 1
                view[entry] = 1.0
                on ^= power[entry]
            while changed:
                entry = changed.bit_length() - 1
                view[entry] = 0.0
                changed ^= power[entry]
        scores = state.side_scores
        if scores != self._scores[seat]:
            self._scores[seat] = list(scores)
            n, side_of, view, at = self.players, state.side_of, self._views[seat], self._scores_at
            for k in range(n):
                view[at + k] = scores[side_of[(seat + k) % n]]
        return self._vectors[seat].copy()

    def _trick_part(self, state: Any, trick: list[tuple[int, int]], seat: int) -> None:
        at = self._trick_at[seat]
        start = self._trick_length[seat] if trick is self._trick_seen[seat] else 0
        if start > len(trick) or self._face_down_plays:  # (a face-down card may show later: all again)
            start = 0
        bits = self._trick_bits[seat] if start else 0
        down = state.down if self._face_down_plays else 0  # shown as "facedown" (or "facedown:<card>"), no card
        power = self._powers
        for index in range(start, len(trick)):
            other, card = trick[index]
            if not down >> card & 1:
                bits |= power[at[other] + card]
        self._trick_seen[seat] = trick
        self._trick_length[seat] = len(trick)
        self._trick_bits[seat] = bits
        self._fixed[seat] = self._slow_bits[seat] | bits

    def _slow_parts(self, state: Any, seat: int) -> None:
        """Work out the bits that change only between phases or deals (trump, phase, dealer) and between tricks or
        phases (the face-up and known cards: the game's ``shown_cards``, else from the seat's observation), and
        write the deal index and the stock's size."""
        view = self._views[seat]
        if self._deal_seen[seat] != self._deal_epoch:
            self._deal_seen[seat] = self._deal_epoch
            trump = len(SUITS) if self._fishing else state.trump  # suits 0..3, NO_TRUMP (4) is "none"
            phases = self._phases
            phase = phases.index(state.phase) if state.phase in phases else len(phases)
            self._deal_bits[seat] = (1 << (self._trump_at + trump) | 1 << (self._phase_at + phase)
                                     | 1 << (self._dealer_at + (state.dealer - seat) % self.players))
            view[self._to_act_at + 2] = state.deal_index
        if self._shown_seen[seat] != self._shown_epoch:
            self._shown_seen[seat] = self._shown_epoch
            shown = None if self._fishing else state.shown_cards(seat)
            if shown is None:
                seen = state.observation(seat, history=False)
                shown = (_mask_of(face_up_codes(seen)), _mask_of(seen.get("known_cards", ())),
                         seen.get("stock_size") or 0)
                if self._shown_every_move:  # the trump as the seat knows it (Thunee's, until turned up)
                    trump = _suit_index(seen.get("trump"))
                    self._deal_bits[seat] = self._deal_bits[seat] & self._no_trump_bits | 1 << (self._trump_at + trump)
            elif self._trump_seen:
                trump = state.trump_seen(seat)  # (NO_TRUMP, 4, is "none")
                self._deal_bits[seat] = self._deal_bits[seat] & self._no_trump_bits | 1 << (self._trump_at + trump)
            self._shown_any |= (shown[0] | shown[1]) << self._played_at
            self._shown_bits[seat] = shown[0] << self._face_up_at | shown[1] << self._known_at
            view[self._to_act_at + 1] = self._stock_seen[seat] = shown[2]
        self._slow_bits[seat] = slow = self._deal_bits[seat] | self._shown_bits[seat]
        self._fixed[seat] = slow | self._trick_bits[seat]


class _NamedCards(dict[int, int]):
    """A fishing game's action id -> the cards its string names (``JH:6C,2D,QS`` names four) as bits from ``at`` on,
    as the reference encoder reads them from the history; ``state`` writes the strings."""

    state: Any = None

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def __missing__(self, action: int) -> int:
        mask = 0
        for card in card_tokens(self.state.action_string(action)):
            mask |= 1 << (self.at + card)
        self[action] = mask
        return mask


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
