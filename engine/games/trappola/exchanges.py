"""The stock of a trick game beyond the base's draw after each trick, written once: whole hands exchanged for stock
cards before the play (Trappola 3.5).

It is a :class:`engine.trickgame.TrickGame` layer (this module is not :mod:`engine.dealing`, which the state base
imports: a layer of the trick game cannot live there). A game declares the sizes and action ids as data and calls
the hooks the class's docstring names.

>>> import engine
>>> state = engine.new_match("trappola", seed=1, first_dealer=1)
>>> state.apply("redeal")
>>> state.stock_left(), [len(hand) for hand in state.dead[0]], state.current_player
(9, [9], 0)
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from ...cards import cards_in, codes_of, mask_of
from ...clone import SHARED
from ...errors import PositionError
from ...phases import DecisionPhase, Loading
from ...state import position_list, position_seat
from ...trickgame import TrickGame
from ...tricks import position_cards

EXCHANGE_WORDS = ("keep", "redeal")  # a seat's decisions in the exchanges


class HandExchanges(TrickGame):
    """Whole hands exchanged for the stock before the play (Trappola 3.5): from the dealer's left, each seat in turn,
    while ``EXCHANGED`` stock cards remain, keeps its hand (``keep``) or lays it dead, shown to all, and takes the next
    ``EXCHANGED`` stock cards (``redeal``), deciding again; a ``keep``, or too few cards left, ends its turn, and after
    the dealer's the play begins (``_begin_play``). The dead hands (``dead``) and the decisions (``exchanges``) are
    public: observations and positions list them, and a position's are replayed from ``deal_deck``.

    A game deals, then calls ``_open_exchanges`` with the stock; it offers ``KEEP`` and ``REDEAL`` in phase
    ``exchange`` and applies them with ``_exchange``; it declares :data:`EXCHANGES` before the trick play among its
    phases."""

    EXCHANGED: ClassVar[int]  # the cards of a hand, all exchanged at once
    EXCHANGE_RULE: ClassVar[str]  # who decides when, as a position's error cites it
    KEEP: ClassVar[int]  # the action ids of EXCHANGE_WORDS
    REDEAL: ClassVar[int]
    COPY = {"dead": SHARED, "exchanges": SHARED}  # (each replaced whole when it changes, in the exchanges only)
    dead: list[list[list[int]]]  # per seat, the hands it laid dead, in order (shown to all)
    exchanges: list[tuple[int, int]]  # (seat, KEEP or REDEAL) in order
    # A position being loaded (EXCHANGES): its exchanges and dead hands, replayed and compared.
    _given_exchanges: list[tuple[int, int]]
    _given_dead: list[list[list[int]]]
    _exchanging: int | None  # the seat whose exchange the replayed position waits for

    @abstractmethod
    def _begin_play(self) -> None:
        """The exchanges are over (or there are none): the play begins."""

    def stock_left(self) -> int:
        """The cards left in the stock."""
        return len(self.stock) - self.stock_top

    def _open_exchanges(self, stock: list[int], allowed: bool) -> None:
        """The deal is dealt, ``stock`` left face down: the dealer's left decides first, or with no exchanges
        (``allowed`` false) the play begins."""
        self.stock, self.stock_top = stock, 0
        self.dead = [[] for _ in range(self.n_players)]
        self.exchanges = []
        if allowed:
            self.phase, self.current_player = "exchange", (self.dealer + 1) % self.n_players
        else:
            self._begin_play()

    def _exchange(self, seat: int, action: int) -> None:
        """``seat`` keeps its hand or exchanges it (then decides again while enough stock cards remain); the turn then
        passes to the next seat, the play beginning after the dealer's."""
        self.exchanges = [*self.exchanges, (seat, action)]
        size = self.EXCHANGED
        if action == self.REDEAL:
            dead = self.dead[:]
            dead[seat] = [*dead[seat], cards_in(self.hands[seat])]
            self.dead = dead
            top = self.stock_top
            self.hands[seat] = mask_of(self.stock[top:top + size])
            self.stock_top = top + size
            if self.stock_left() >= size:
                return
        if seat != self.dealer and self.stock_left() >= size:
            self.current_player = (seat + 1) % self.n_players
        else:
            self._begin_play()

    # ---- what every seat sees, and positions ------------------------------------------------------------------

    def _exchange_codes(self) -> list[list[Any]]:
        """The observations' and positions' ``exchanges``: ``[seat, "keep" or "redeal"]`` in order."""
        return [[s, self.ACTIONS.strings[a]] for s, a in self.exchanges]

    def _dead_codes(self) -> list[list[list[str]]]:
        """The observations' and positions' ``dead``: per seat, its dead hands' cards in order."""
        return [[codes_of(hand) for hand in hands] for hands in self.dead]


class Exchanges(DecisionPhase["HandExchanges"]):
    """The exchanges in a position: ``exchanges`` (the decisions in order, replayed from the deal) and ``dead``
    (the hands laid down), declared before the trick play (whose replay of the deal makes them again)."""

    KEYS = ("dead", "exchanges")
    NAMES = ("exchange",)

    def legal(self, game: HandExchanges) -> list[int]:
        return [game.KEEP, game.REDEAL]

    def apply(self, game: HandExchanges, action: int) -> None:
        seat = game.current_player
        assert seat is not None  # State.apply_id applies only a legal action
        game._exchange(seat, action)

    def save(self, game: HandExchanges) -> dict[str, Any]:
        return {"dead": game._dead_codes(), "exchanges": game._exchange_codes()}

    def observe(self, game: HandExchanges, seat: int, obs: dict[str, Any]) -> None:
        obs["exchanges"], obs["dead"] = game._exchange_codes(), game._dead_codes()  # 3.5.1: public

    def load(self, game: HandExchanges, loading: Loading) -> None:
        """A position's ``exchanges`` (replayed by ``deal_again``) and ``dead`` hands, handed to the trick play as
        card piles."""
        p = loading.position
        words = position_moves(p["exchanges"], "exchanges", game.n_players, EXCHANGE_WORDS)
        game._given_exchanges = [(seat, game.REDEAL if word == "redeal" else game.KEEP) for seat, word in words]
        game._given_dead = [[position_cards(hand, f"dead[{seat}]") for hand in position_list(hands, f"dead[{seat}]")]
                            for seat, hands in enumerate(position_list(p["dead"], "dead", game.n_players))]
        loading.piles.update({f"dead[{s}]": [c for hand in hands for c in hand]
                              for s, hands in enumerate(game._given_dead)})

    def deal_again(self, game: HandExchanges, trump: int) -> bool:
        """The deal dealt again from deal_deck and the position's exchanges made again, each where the rules allow."""
        game._start_deal(list(game.deal_deck))
        for number, (seat, action) in enumerate(game._given_exchanges):
            if game.phase != "exchange" or seat != game.current_player:
                raise PositionError(f"exchanges[{number}]: seat {seat} may not decide there ({game.EXCHANGE_RULE})")
            game._exchange(seat, action)
        game._exchanging = game.current_player if game.phase == "exchange" else None
        return True

    def check(self, game: HandExchanges, loading: Loading) -> None:
        """After the replay: ``dead`` holds the hands the exchanges laid down, and the turn is with a seat that may
        still exchange (then no card is played), or with none in the play."""
        p = loading.position
        if game.dead != game._given_dead:
            raise PositionError(f"dead must list the hands the exchanges laid down: {game._dead_codes()}")
        exchanging = game._exchanging
        del game._given_exchanges, game._given_dead, game._exchanging
        if exchanging is None:
            if game.phase == "exchange":
                raise PositionError("the exchanges are over: phase must be 'play' or 'over'")
            return
        if game.phase != "exchange" or game.tricks or game.trick:
            raise PositionError("phase must be 'exchange' and no card played while a seat may still exchange")
        if p["current_player"] != exchanging:
            raise PositionError(f"current_player must be {exchanging}, the seat to exchange")


EXCHANGES = Exchanges()


def position_moves(value: object, key: str, n: int, words: Sequence[str]) -> list[tuple[int, str]]:
    """A position's ``[[seat, word], ...]`` (each word one of ``words``) as pairs, else PositionError naming ``key``.

    >>> position_moves([[0, "keep"]], "exchanges", 2, ("keep", "redeal"))
    [(0, 'keep')]
    """
    pairs = []
    for item in position_list(value, key):
        if not (isinstance(item, list) and len(item) == 2 and item[1] in words):
            raise PositionError(f"{key} holds [seat, word] pairs, each word one of {list(words)}, got {item!r}")
        pairs.append((position_seat(item[0], f"{key}: a seat", n), item[1]))
    return pairs
