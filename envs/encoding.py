"""The numeric face of a match for learning agents: a fixed action space per game, and one observation encoding for
every game (documented in docs/environments.md).

**Actions.** Each game has a fixed number of action indexes (:class:`ActionCodec`): a trick game's action ids are its
``CardActions`` table (card plays, suffixed plays such as ``KH:belote``, then its words), used as they are; a fishing
game's steps (docs/fishing_moves.md) are ``52 * k + card`` for k = 0 trail, 1 a jack that takes the whole table,
2 begin a capture with the card, 3 take the card, then ``next`` and ``done``.

**Observation.** A float32 vector computed from ``state.observation(seat)`` and the deal's public moves only, so it
holds nothing the seat may not know. Seats are relative to the observer (0 itself, 1 the next seat in seat order, ...).
Card planes are 52 entries each, card ``suit * 13 + rank`` (suits C D H S, ranks 2..A), 1 where the card is:

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

then ``trump`` one-hot (C, D, H, S, none), ``phase`` one-hot (:data:`PHASES`, then any other), the match score of
each seat (raw points), the dealer one-hot, 1 if the observer is to act, the stock size, the deal index.

>>> import engine
>>> state = engine.new_match("german_whist", seed=1)
>>> encoder = ObservationEncoder(2)
>>> vector = encoder.encode(state.observation(0, history=True), 0, 0)
>>> vector.shape, int(vector[:52].sum())
((383,), 13)
>>> ActionCodec.for_game("tablanette").size, ActionCodec.for_game("german_whist").size
(210, 56)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import engine
from engine.cards import CARD_OF_CODE, CODES, NUM_CARDS, SUITS
from engine.fishing import BEGIN, DONE, NEXT, TAKE, FishingState
from engine.trickgame import TrickGame

PHASES = ("auction", "exchange", "declare", "play", "capture", "over")
FACE_UP_KEYS = ("face_up", "turn_up", "bottom_card", "removed_card")
CARD_MASK = (1 << 6) - 1
# Games with cards played or laid face down, whose moves show a seat cards the others do not see (a first trick played
# partly face down; Boonaken's discards, boonaken.md 6.1; Thunee's trump card laid face down, thunee.md 4.5): they
# take the reference encoding.
FACE_DOWN_GAMES = ("two_ten_jack", "boonaken", "thunee")
# The fishing games the fast encoder serves: their face-up and known cards change only with the stock or when played.
FAST_FISHING_GAMES = ("tablanette", "tablic")


class ActionCodec:
    """A game's actions as indexes ``0 .. size - 1`` and back: ``index(action_id)``, and the legal ids by index."""

    def __init__(self, game_id: str, size: int, fishing: bool) -> None:
        self.game_id = game_id
        self.size = size
        self.fishing = fishing

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
        if not self.fishing:
            return {action: action for action in legal_ids}
        return {self.index(action): action for action in legal_ids}


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
    """The observation vector of one seat of an ``players``-player game (see the module's table)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.planes = players + 5
        self.scalars = len(SUITS) + 1 + len(PHASES) + 1 + 2 * players + 3
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
        phase = observation.get("phase")
        vector[at + (PHASES.index(phase) if phase in PHASES else len(PHASES))] = 1.0
        at += len(PHASES) + 1
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


class TrickEncoder:
    """:class:`ObservationEncoder`'s vector for a trick game, kept up to date from the state's own hands and trick
    (masks) instead of building the observation dict at every move: the same vector (the tests compare the two at
    every move of every game it serves), several times faster.

    The environment tells it of each move (:meth:`moved`, with the action id): it adds the cards the move names to
    the deal's played mask and notes when the phase, the deal or the trick count changed. Each seat keeps its own
    vector and the masks it shows; :meth:`encode` rewrites only the entries that changed since that seat's last
    vector (a card or two), and what changes only between tricks or phases (the face-up and known cards, the stock;
    trump, phase, dealer and deal) only after such a change: the cards from the game's ``shown_cards`` (an engine
    hook, masks) where it has one, else from ``state.observation(seat)``. :meth:`new_match` starts over.

    Used for the trick games that show every move to every seat as it is stored (all but those that play face
    down: :func:`trick_encoder` says which)."""

    def __init__(self, players: int, game: type[engine.State]) -> None:
        self.reference = ObservationEncoder(players)
        self.players = players
        n = players
        self._fishing = issubclass(game, FishingState)  # a table plane and no trick; its action strings name cards
        self._stocked = self._fishing or game.STOCK_SHOWN is not None  # type: ignore[attr-defined]  # it deals a stock
        self._bit_of: Any = (_NamedCards() if self._fishing else
                             [0 if card is None else 1 << card for card in game.ACTIONS.card_of])  # type: ignore
        self._scores_at = self.reference.planes * NUM_CARDS + len(SUITS) + 1 + len(PHASES) + 1
        self._to_act_at = self._scores_at + 2 * n
        self._plane_entries = self.reference.planes * NUM_CARDS
        self._played_at = (n + 4) * NUM_CARDS
        self._trick_at = [[((other - seat) % n + 1) * NUM_CARDS for other in range(n)] for seat in range(n)]
        self._zeros = memoryview(np.zeros(self.reference.scalars, dtype=np.float32))

    def new_match(self, state: Any) -> None:
        """Start every seat's vector afresh for ``state``, a new match."""
        n = self.players
        # Each seat's vector is a numpy array written through a memoryview (single entries cost a fraction of numpy's
        # item assignment); one copy per observation makes the array returned.
        self._vectors = [np.zeros(self.reference.size, dtype=np.float32) for _ in range(n)]
        self._views = [memoryview(vector) for vector in self._vectors]
        self._hands = [0] * n
        self._played_seen = [0] * n
        self._face_up = [0] * n
        self._known = [0] * n
        self._trick_seen: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self._scores: list[list[int] | None] = [None] * n
        self._deal_seen = [-1] * n  # the deal part (epoch) each vector was written for
        self._shown_seen = [-1] * n  # and its shown part
        self.played = 0  # the cards this deal's moves named
        self._deal_epoch = self._shown_epoch = 0
        self._deal_key: tuple[Any, ...] = (state.deal_index, state.dealings, state.phase)
        self._stock_left = len(state.stock) - getattr(state, "stock_top", 0) if self._stocked else 0
        self._tricks_begun = bool(getattr(state, "tricks", ()))
        self._table = [0] * n
        self._shown_any = 0  # every face-up or known card a seat's vector showed this match
        if self._fishing:
            self._bit_of.state = state

    def moved(self, state: Any, action: int) -> None:
        """After ``action`` (an id) was applied to ``state``."""
        named = self._bit_of[action]
        self.played |= named
        # What the slow parts depend on: the phase and the deal (all of it), whether the first trick is over (it ends
        # declarations) and the stock's size (it shrinks after a trick of German Whist, by an exchange of Trappola).
        key = self._deal_key
        if state.phase != key[2] or state.dealings != key[1] or state.deal_index != key[0]:
            key = (state.deal_index, state.dealings, state.phase)
            if key[0] != self._deal_key[0]:
                self.played = 0  # a new deal
            if not self._fishing or key[:2] != self._deal_key[:2]:  # a fishing game's capture phase shows no more
                self._shown_epoch += 1
            self._deal_key = key
            self._deal_epoch += 1
        if state.current_player is None:
            self.played = 0  # the match is over: the environment's last deal starts after its last move
        if self._fishing:
            # Its shown facts change with the stock, and when a move names a card they showed (Tablić's bottom card,
            # shown until the dealer plays it).
            if len(state.stock) != self._stock_left or named & self._shown_any:
                self._stock_left = len(state.stock)
                self._shown_epoch += 1
            return
        left = len(state.stock) - state.stock_top if self._stocked else 0
        if left != self._stock_left or bool(state.tricks) != self._tricks_begun:
            self._stock_left, self._tricks_begun = left, bool(state.tricks)
            self._shown_epoch += 1

    def encode(self, state: Any, seat: int) -> np.ndarray:
        view = self._views[seat]
        if self._deal_seen[seat] != self._deal_epoch:
            self._deal_part(state, seat)
        if self._shown_seen[seat] != self._shown_epoch:
            self._shown_part(state, seat)
        hand, old = state.hands[seat], self._hands[seat]
        if hand != old:
            self._hands[seat] = hand
            changed = hand ^ old
            while changed:
                low = changed & -changed
                view[low.bit_length() - 1] = 1.0 if hand & low else 0.0
                changed ^= low
        if self._fishing:
            table, old = state.table, self._table[seat]
            if table != old:
                self._table[seat] = table
                _write_bits(view, (self.players + 1) * NUM_CARDS, table ^ old, table)
        elif state.trick != self._trick_seen[seat]:
            trick = state.trick
            at = self._trick_at[seat]
            for other, card in self._trick_seen[seat]:
                view[at[other] + card] = 0.0
            for other, card in trick:
                view[at[other] + card] = 1.0
            self._trick_seen[seat] = trick.copy()
        played, old = self.played, self._played_seen[seat]
        if played != old:
            self._played_seen[seat] = played
            changed, at = played ^ old, self._played_at - 1
            while changed:
                low = changed & -changed
                view[at + low.bit_length()] = 1.0 if played & low else 0.0
                changed ^= low
        scores = state.side_scores
        if scores != self._scores[seat]:
            n, side_of = self.players, state.side_of
            for k in range(n):
                view[self._scores_at + k] = scores[side_of[(seat + k) % n]]
            self._scores[seat] = list(scores)
        view[self._to_act_at] = 1.0 if state.current_player == seat else 0.0
        return self._vectors[seat].copy()

    def _shown_part(self, state: Any, seat: int) -> None:
        """Write the face-up and known cards and the stock's size, which change only between tricks or phases: the
        game's ``shown_cards``, else from the seat's observation."""
        self._shown_seen[seat] = self._shown_epoch
        n, view = self.players, self._views[seat]
        shown = None if self._fishing else state.shown_cards(seat)
        if shown is None:
            seen = state.observation(seat, history=False)
            shown = (_mask_of(face_up_codes(seen)), _mask_of(seen.get("known_cards", ())),
                     seen.get("stock_size") or 0)
        face_up, known = shown[0], shown[1]
        self._shown_any |= face_up | known
        if face_up != self._face_up[seat]:
            _write_bits(view, (n + 2) * NUM_CARDS, face_up ^ self._face_up[seat], face_up)
            self._face_up[seat] = face_up
        if known != self._known[seat]:
            _write_bits(view, (n + 3) * NUM_CARDS, known ^ self._known[seat], known)
            self._known[seat] = known
        view[self._to_act_at + 1] = shown[2]

    def _deal_part(self, state: Any, seat: int) -> None:
        """Write the entries that change only between phases or deals: trump, phase, dealer, deal."""
        self._deal_seen[seat] = self._deal_epoch
        n, view = self.players, self._views[seat]
        at = self._plane_entries
        view[at: self._scores_at] = self._zeros[: self._scores_at - at]
        view[at + (len(SUITS) if self._fishing else state.trump)] = 1.0  # suits 0..3, NO_TRUMP (4) is "none"
        view[at + len(SUITS) + 1 + (PHASES.index(state.phase) if state.phase in PHASES else len(PHASES))] = 1.0
        at = self._scores_at + n
        view[at: at + n] = self._zeros[:n]
        view[at + (state.dealer - seat) % n] = 1.0
        view[self._to_act_at + 2] = state.deal_index


class _NamedCards(dict[int, int]):
    """A fishing game's action id -> the mask of the cards its string names (``JH:6C,2D,QS`` names four), as the
    reference encoder reads them from the history; ``state`` writes the strings."""

    state: Any = None

    def __missing__(self, action: int) -> int:
        mask = 0
        for card in card_tokens(self.state.action_string(action)):
            mask |= 1 << card
        self[action] = mask
        return mask


def trick_encoder(game_id: str, players: int) -> TrickEncoder | None:
    """The fast encoder of a game whose moves every seat sees as they are stored (the trick games but those that
    play face down, and Tablanette), or None (use the reference)."""
    game = engine.game_class(game_id)
    if game_id in FACE_DOWN_GAMES or not (issubclass(game, TrickGame) or game_id in FAST_FISHING_GAMES):
        return None
    return TrickEncoder(players, game)


def _write_bits(vector: memoryview, at: int, changed: int, mask: int) -> None:
    """Set ``vector[at + card]`` to the card's bit in ``mask`` for each card of ``changed``."""
    while changed:
        low = changed & -changed
        vector[at + low.bit_length() - 1] = 1.0 if mask & low else 0.0
        changed ^= low


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


def _mask_of(codes: Any) -> int:
    mask = 0
    for code in codes:
        card = CARD_OF_CODE.get(code) if isinstance(code, str) else None
        if card is not None:
            mask |= 1 << card
    return mask


def _mark(plane: np.ndarray, codes: Any) -> None:
    for code in codes:
        card = CARD_OF_CODE.get(code) if isinstance(code, str) else None
        if card is not None:
            plane[card] = 1.0
