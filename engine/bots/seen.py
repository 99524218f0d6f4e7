"""What a seat has seen of a deal, from its view: the one helper a bot ranks from. It gives the facts of card play
(the seat, the phase, the trump, the trick in play and who is winning it, the legal actions and their cards, the
cards the seat has not seen, the suits each seat showed it lacks, the stock's face-up card) and the seat's whole
observation (``obs``) for anything else.

A ``Seen`` is read from the seat's observation (``Seen(obs)``), or, in play-outs, from the state through the seat's
view (:meth:`Seen.of_state`, which :class:`engine.bots.view.SeatObserver` keeps for the games whose observation shows
these facts as the state holds them): the same facts either way (the tests compare the two at every move of every
such game, and on samples of what the seat has not seen), without building the observation at every move.

>>> obs = {"seat": 0, "players": 3, "phase": "play", "trump": None, "hand": ["AH", "2S"],
...        "trick": [[1, "KS"], [2, "AS"]], "tricks": [[[0, "3C"], [1, "5D"]]], "legal_actions": ["2S"]}
>>> seen = Seen(obs)
>>> from engine.cards import CODES
>>> from engine.tricks import HEARTS, Ranking
>>> seat, card = seen.winning(seen.trump, Ranking("AKQJT98765432").power[seen.trump]); seat, CODES[card]
(2, 'AS')
>>> sorted(CODES[c] for c in seen.unseen(range(13 * HEARTS, 13 * HEARTS + 13)))[:3]
['2H', '3H', '4H']
>>> seen.voids(), seen.voids_of_others(), [CODES[c] for c in seen.legal_cards]
({1: {0}}, {0}, ['2S'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..cards import CARD_OF_CODE, SUIT, SUITS, cards_in
from ..tricks import NO_TRUMP, beats
from .policy import Observation

if TYPE_CHECKING:
    from .. import _cython_shim as cython
    from ..trickgame import TrickGame
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from .. import _cython_shim as cython

if cython.compiled:
    from cython.cimports.libc.stdlib import free, realloc  # type: ignore[import-untyped]  # C's own


_ONE = cython.declare(cython.ulonglong, 1)  # (a C 1 compiled: shifted by a card, a 64-bit mask's bit)
_SUIT = cython.declare(tuple, SUIT)  # (compiled: a C reference to the table)
NONE_LEFT = -(1 << 30)  # Seen.highest_unseen of a suit the seat has seen every card of: below every power


@cython.cclass
class Seen:
    """A seat's view of the play, read from its observation ``obs`` (or from the state: :meth:`of_state`).

    Compiled, its fields are a C struct's (:meth:`at` sets them at each turn without a dictionary or descriptor look-up)
    and its facts (phase, trump, trick, legal_cards) are properties over them; a :class:`SeenInObservation` reads each
    fact from the observation at its first use."""

    # (compiled, the fields are declared in seen.pxd)

    # Whether a Seen read from an observation reads phase, trump, trick and legal_cards at their first use (the
    # bots' SeenInObservation) rather than at once.
    _LAZY = False

    def __init__(self, obs: Observation) -> None:
        self._obs: Observation | None = obs
        self._history = False
        self._state: TrickGame | None = None
        self._legal_ids: Sequence[int] = ()
        self._legal: list[str] | None = None
        self._seat: int | None = None
        self._players: int | None = None
        self._face_up_shown = self._tricks_shown = False
        self._card_of: tuple[int | None, ...] = ()
        self._card_int: tuple[int, ...] = ()  # (of_state) the card of each action id, -1 for none (card_ints)
        self._strings: tuple[str, ...] = ()  # (of_state) the game's actions' strings, by action id
        if not cython.compiled:  # (compiled, _card_int as a C array: seen.pxd; NULL and 0 at first)
            self._cards_c: tuple[int, ...] = ()
            self._cards_size = 0
        self._suffixes: tuple[str, ...] = ()  # (of_state) the game's card suffixes, by an action id modulo _width
        self._width = 1
        # (of_state) the cards of the finished tricks, as of the dealing _played_dealing and its first _played_count
        self._played_mask, self._played_dealing, self._played_count = 0, -1, 0
        self._read: dict[str, Any] | None = None  # (SeenInObservation) the facts read so far
        self._phase: str | None = None
        self._trump = NO_TRUMP
        self._trick: list[tuple[int, int]] = []
        self._legal_cards: list[int | None] | None = []
        if self._LAZY:
            self._read = {}
        else:
            self._phase, self._trump = _OBS_FACTS["phase"](obs), _OBS_FACTS["trump"](obs)
            self._trick, self._legal_cards = _OBS_FACTS["trick"](obs), _OBS_FACTS["legal_cards"](obs)

    def _fact(self, name: str) -> Any:
        """(SeenInObservation) The fact ``name``, read from the observation at its first use and kept."""
        known = self._read
        assert known is not None
        if name in known:
            return known[name]
        known[name] = value = _OBS_FACTS[name](self.obs)
        return value

    @property
    def phase(self) -> str | None:
        """The deal's phase."""
        return self.current_phase()

    def current_phase(self) -> str | None:
        """The deal's phase (:attr:`phase`, a C method: seen.pxd)."""
        if self._state is not None:
            return self._state.phase
        return self._phase if self._read is None else self._fact("phase")

    @property
    def trump(self) -> int:
        """The trump suit the seat sees, NO_TRUMP when there is none (or none shown)."""
        return self._trump if self._read is None else self._fact("trump")

    @property
    def trick(self) -> list[tuple[int, int]]:
        """The cards of the trick in play the seat sees, (seat, card) in the order played (none played face
        down)."""
        return self._trick if self._read is None else self._fact("trick")

    @property
    def legal_cards(self) -> list[int | None]:
        """The card each legal action plays (``KH`` and ``KH:belote`` play the king of hearts), None for the rest
        (words, and German Whist's face-down ``down:<slot>`` cards, which the seat does not know)."""
        return self.cards()

    @classmethod
    def of_state(cls, state: TrickGame, seat: int, history: bool = False) -> Seen:
        """The facts ``seat``'s observation shows (``state.observation(seat, history=history)`` builds it, asked only
        for ``obs``), read from ``state``: only for a trick game that shows the seat its hand, the trump, the trick
        and the tricks played as it holds them (no card played face down). The seat's view keeps it
        (:class:`engine.bots.view.SeatObserver`), and :meth:`at` brings it to each of the seat's turns."""
        return cls.__new__(cls)._of_state(state, seat, history)

    def _of_state(self, state: TrickGame, seat: int, history: bool) -> Seen:
        self._seat, self._history = seat, history
        observed, actions = state.OBSERVED, state.ACTIONS
        self._face_up_shown, self._tricks_shown = "face_up" in observed, "tricks" in observed
        self._card_of, self._suffixes, self._width = actions.card_of, actions.suffixes, actions.width
        self._strings = actions.strings
        self._card_int = card_ints(actions.card_of)
        self._card_array()
        return self._bind(state)

    def __dealloc__(self) -> None:
        if cython.compiled:
            free(self._cards_c)

    @cython.locals(grown=cython.p_int, k=cython.Py_ssize_t, n=cython.Py_ssize_t, table=tuple)
    def _card_array(self) -> int:
        """``_cards_c``: ``_card_int`` as a C array compiled (what card_at reads: one C read, no int object)."""
        table = self._card_int
        n = len(table)
        if cython.compiled:
            if n > self._cards_size:
                grown = cython.cast(cython.p_int, realloc(self._cards_c, n * cython.sizeof(cython.int)))
                if not grown:
                    raise MemoryError()
                self._cards_c, self._cards_size = grown, n
            for k in range(n):
                self._cards_c[k] = table[k]  # type: ignore[index]
        else:
            self._cards_c, self._cards_size = table, n
        return n

    def _bind(self, state: TrickGame) -> Seen:
        """This view of ``state``, whose class (its observed facts, its actions) it has read already."""
        self._obs = self._legal = self._read = None
        self._phase, self._trump, self._trick, self._legal_cards = None, NO_TRUMP, [], []
        self._state, self._players = state, state.n_players
        self._played_mask, self._played_dealing, self._played_count = 0, -1, 0
        return self.at(())

    def rebind(self, state: TrickGame) -> None:
        """This view (of :meth:`of_state`) now of ``state``, a state of the same game, for the same seat: as
        ``of_state`` would make it (the class's facts read again only for another class)."""
        seat = self._seat
        assert seat is not None
        if type(state) is type(self._state):
            self._bind(state)
        else:
            self._of_state(state, seat, self._history)

    def at(self, legal_ids: Sequence[int]) -> Seen:
        """This view (of :meth:`of_state`) now, the seat being to act with ``legal_ids``: good until the next."""
        state = self._state
        assert state is not None
        self._obs = self._legal = None
        self._legal_ids = legal_ids
        self._trick, self._trump = state.trick, state.trump  # (the phase is read from the state when asked)
        self._legal_cards = None  # (made at its first use: cards)
        return self

    # The facts a ranker reads at every turn, as C methods (seen.pxd): a ranker compiled with Seen cimported calls
    # them in C; they read what the properties above give.

    def trump_suit(self) -> int:
        """The trump suit (:attr:`trump`)."""
        return self._trump if self._read is None else self._fact("trump")

    def lead_card(self) -> int:
        """The card led to the trick in play, -1 when none is played yet."""
        trick = self._trick if self._read is None else self._fact("trick")
        return trick[0][1] if trick else -1

    @cython.locals(top=cython.Py_ssize_t)
    def face_up_card(self) -> int:
        """The stock's face-up card (:meth:`face_up`), -1 when there is none."""
        state = self._state
        if state is not None and self._face_up_shown:
            stock, top = state.stock, state.stock_top
            return stock[top] if top < len(stock) else -1
        card = self.face_up()
        return -1 if card is None else card

    def legal_count(self) -> int:
        """How many legal actions the seat has."""
        if self._read is None and self._legal_cards is None:
            return len(self._legal_ids)
        return len(self.cards())

    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(a=cython.Py_ssize_t, ids=list)
    def card_at(self, i: int) -> int:
        """The card the ``i``-th legal action plays (:attr:`legal_cards`), -1 for none: read from the action's id
        where the seat's turn is read from the state (no list made). (``i`` is below :meth:`legal_count`: compiled,
        no index is checked.)"""
        if self._read is None and self._legal_cards is None:
            if type(self._legal_ids) is list:  # (the rollout loops' legal ids: compiled, a C read of the list)
                ids = self._legal_ids
                a = ids[i]
            else:
                a = self._legal_ids[i]
            return self._cards_c[a]  # (compiled: a C read of a C array)
        card = self.cards()[i]
        return -1 if card is None else card

    def legal_id(self, i: int) -> int:
        """The action id of the ``i``-th legal action where the seat's turn is read from the state (of_state; its
        string is ``words()[legal_id(i)]``), -1 for a Seen read from an observation (whose :attr:`legal` are
        strings only). (``i`` is below :meth:`legal_count`.)"""
        if self._state is None:
            return -1
        return self._legal_ids[i]

    def words(self) -> tuple[str, ...]:
        """(of_state) The game's actions' strings, by action id (:meth:`legal_id`); empty for a Seen read from an
        observation."""
        return self._strings

    @cython.locals(card_of=tuple, i=cython.Py_ssize_t, n=cython.Py_ssize_t, cards=list)
    def cards(self) -> list[int | None]:
        """The card each legal action plays (:attr:`legal_cards`)."""
        if self._read is not None:
            return self._fact("legal_cards")  # type: ignore[no-any-return]
        cards = self._legal_cards
        if cards is None:
            card_of, ids = self._card_of, self._legal_ids
            n = len(ids)
            cards = [card_of[ids[i]] for i in range(n)]  # (compiled: the table a tuple indexed by a C int)
            self._legal_cards = cards
        return cards

    @property
    def seat(self) -> int:
        """The seat."""
        return self.obs["seat"] if self._seat is None else self._seat

    @property
    def players(self) -> int:
        """How many seats play."""
        return self.obs["players"] if self._players is None else self._players

    @property
    def obs(self) -> Observation:
        """The seat's whole observation (without the history)."""
        if self._obs is None:
            assert self._state is not None and self._seat is not None
            self._obs = self._state.observation(self._seat, history=self._history)
        return self._obs

    @property
    @cython.locals(i=cython.Py_ssize_t)
    def legal(self) -> list[str]:
        """The seat's legal actions (empty when it is not to act)."""
        if self._legal is None:
            if self._state is not None:
                strings, ids = self._state.ACTIONS.strings, self._legal_ids
                self._legal = [strings[ids[i]] for i in range(len(ids))]
            else:
                self._legal = self.obs["legal_actions"]
        return self._legal

    @cython.locals(k=cython.Py_ssize_t, card=cython.int, best=cython.int)
    def winning(self, trump: int, power: Sequence[int]) -> tuple[int, int]:
        """The seat and card winning the trick in play so far (it holds a card): the best trump, else the best card
        of the led suit, ``power`` ranking the cards under ``trump``."""
        trick = self._trick if self._read is None else self._fact("trick")
        best_seat, best = trick[0]
        for k in range(1, len(trick)):  # (an index loop: no slice of the trick)
            seat, card = trick[k]
            if beats(card, best, trump, power):
                best_seat, best = seat, card
        return best_seat, best

    @cython.locals(a=cython.Py_ssize_t)
    def plays_with(self, i: int, suffix: str) -> bool:
        """Whether the ``i``-th legal action plays its card with ``suffix`` (``:belote``: ``KH:belote``)."""
        if self._state is not None:
            a = self._legal_ids[i]
            return self._cards_c[a] >= 0 and self._suffixes[a % self._width] == suffix
        return self.legal[i].endswith(suffix)

    def _played(self) -> Iterable[Sequence[tuple[int, int]]]:
        """The finished tricks of the deal the observation shows, as (seat, card) in the order played."""
        if self._state is not None and self._tricks_shown:
            return self._state.tricks
        return [[(seat, CARD_OF_CODE[code]) for seat, code in played] for played in self.obs["tricks"]]

    @cython.cfunc
    @cython.locals(played=cython.ulonglong, card=cython.Py_ssize_t, counted=cython.Py_ssize_t, n=cython.Py_ssize_t,
                   k=cython.Py_ssize_t)
    def _played_cards(self) -> int:
        """The cards of the deal's finished tricks, as a mask (of :meth:`of_state`), brought up to date trick by trick
        (the state only moves on). (Compiled, the mask and the count are C fields: no tuple, no int object.)"""
        state = self._state
        assert state is not None
        tricks, dealing = state.tricks, state.dealings
        n = len(tricks)
        counted = self._played_count
        if dealing != self._played_dealing or counted > n:  # another deal
            self._played_mask, self._played_dealing, counted = 0, dealing, 0
        if counted < n:  # add the tricks finished since
            played = self._played_mask
            for k in range(counted, n):
                for seat_card in tricks[k]:  # (no unpacking of each (seat, card): compiled, a C read of it)
                    card = seat_card[1]
                    played |= _ONE << card
            self._played_mask = played
        self._played_count = n
        return self._played_mask

    def tricks_played(self) -> int:
        """How many tricks of the deal are finished (a game whose observation shows its ``tricks``)."""
        if self._state is not None and self._tricks_shown:
            return len(self._state.tricks)
        return len(self.obs["tricks"])

    def partner(self) -> int | None:
        """The seat's partner (None without one): the state's, or its observation's ``partners`` (Botifarra's, whose
        partners change with three_game_rotation); a Seen read from an observation that shows none has none."""
        if self._state is not None:
            return self._state.partner_of(self.seat)
        partners = self.obs.get("partners")
        return None if partners is None else partners[self.seat]

    def hand(self) -> list[int]:
        """The seat's cards."""
        if self._state is not None:
            return cards_in(self._state.hands[self.seat])
        return [CARD_OF_CODE[code] for code in self.obs["hand"]]

    def unseen(self, deck: Iterable[int], also: Iterable[str] = ()) -> set[int]:
        """The cards of ``deck`` the seat has not seen: not in its hand, not played this deal, none of ``also``
        (codes of the game's other shown cards: Trappola's dead cards)."""
        mask = self._seen_mask(also)
        if mask is not None:
            return {card for card in deck if not mask >> card & 1}
        seen = set(self.hand())
        seen.update(card for played in self._played() for _seat, card in played)
        seen.update(card for _seat, card in self.trick)
        seen.update(CARD_OF_CODE[code] for code in also)
        return set(deck) - seen

    @cython.cfunc
    @cython.locals(mask=cython.ulonglong, card=cython.Py_ssize_t)
    def _seen_mask(self, also: Iterable[str]) -> int | None:
        """(of_state, where the tricks are shown) The cards the seat has seen as a mask: its hand, the cards played
        this deal and ``also``; None for a Seen read from an observation."""
        state = self._state
        if state is None or not self._tricks_shown:
            return None
        seat = self._seat  # (of_state knows it)
        assert seat is not None
        mask = state.hands[seat] | self._played_cards()
        for _seat, card in state.trick:
            mask |= _ONE << card
        for code in also:
            mask |= _ONE << CARD_OF_CODE[code]
        return mask

    @cython.locals(seen_cards=cython.ulonglong, card=cython.Py_ssize_t, suit=cython.Py_ssize_t, p=cython.int,
                   k=cython.Py_ssize_t, cards=tuple, powers=tuple, top=cython.int[4])
    def highest_unseen(self, deck: Iterable[int], power: Sequence[int], also: Iterable[str] = ()) -> list[int]:
        """Per suit, the highest ``power`` of the cards of ``deck`` the seat has not seen (:meth:`unseen`), NONE_LEFT
        where it has seen them all: a card is master of its suit when its power is at least its suit's."""
        mask = self._seen_mask(also)
        if mask is not None:  # (the same cards as unseen's, without making their set)
            seen_cards = mask
            if type(deck) is tuple and type(power) is tuple:  # (compiled: C reads of the tables, a C array's maxima)
                if not cython.compiled:
                    top = [0] * 4
                for suit in range(4):
                    top[suit] = NONE_LEFT
                cards, powers = deck, power
                for k in range(len(cards)):
                    card = cards[k]
                    if not seen_cards >> card & 1:
                        suit, p = _SUIT[card], powers[card]
                        if p > top[suit]:
                            top[suit] = p
                return [top[0], top[1], top[2], top[3]]
            highest = [NONE_LEFT] * 4
            for card in deck:
                if not seen_cards >> card & 1:
                    suit = SUIT[card]
                    if power[card] > highest[suit]:
                        highest[suit] = power[card]
            return highest
        highest = [NONE_LEFT] * 4
        for card in self.unseen(deck, also):
            suit = SUIT[card]
            if power[card] > highest[suit]:
                highest[suit] = power[card]
        return highest

    def voids(self) -> dict[int, set[int]]:
        """Per seat that showed some, the suits it lacks: the led suits of the finished tricks it did not follow."""
        voids: dict[int, set[int]] = {}
        for played in self._played():
            led = SUIT[played[0][1]]
            for seat, card in played[1:]:
                if SUIT[card] != led:
                    voids.setdefault(seat, set()).add(led)
        return voids

    def voids_of_others(self) -> set[int]:
        """The suits some other seat showed it lacks."""
        me = self.seat
        return {suit for seat, suits in self.voids().items() if seat != me for suit in suits}

    def face_up(self) -> int | None:
        """The stock's face-up top card the seat sees (the observation's ``face_up``: German Whist's), None when
        there is none."""
        state = self._state
        if state is not None and self._face_up_shown:
            stock, top = state.stock, state.stock_top
            return stock[top] if top < len(stock) else None
        code = self.obs.get("face_up")
        return CARD_OF_CODE[code] if isinstance(code, str) else None



_CARD_INTS: dict[int, tuple[tuple[int | None, ...], tuple[int, ...]]] = {}  # card_ints's, by card_of's identity


def card_ints(card_of: tuple[int | None, ...]) -> tuple[int, ...]:
    """The card each action id plays, -1 for none (a word): what Seen.card_at reads, one look-up without a test of
    None (made once per game's actions, kept by the identity of their ``card_of``).

    >>> card_ints((0, 51, None))
    (0, 51, -1)
    """
    kept = _CARD_INTS.get(id(card_of))
    if kept is not None and kept[0] is card_of:
        return kept[1]
    table = tuple(-1 if card is None else card for card in card_of)
    _CARD_INTS[id(card_of)] = (card_of, table)
    return table


class SeenInObservation(Seen):
    """A Seen read from an observation whose facts (phase, trump, trick, legal_cards) are read at their first use
    and kept: a ranker that reads the observation itself (Two-Ten-Jack's, the fishing games') parses nothing."""

    _LAZY = True


def _obs_trump(obs: Observation) -> int:
    trump = obs.get("trump")
    return SUITS.index(trump) if isinstance(trump, str) and trump in SUITS else NO_TRUMP


# How a Seen read from an observation reads each of its facts (at their first use).
_OBS_FACTS: dict[str, Callable[[Observation], Any]] = {
    "phase": lambda obs: obs.get("phase"),
    "trump": _obs_trump,
    "trick": lambda obs: [(seat, CARD_OF_CODE[code]) for seat, code in obs.get("trick", ()) if code in CARD_OF_CODE],
    "legal_cards": lambda obs: [CARD_OF_CODE.get(action.split(":", 1)[0]) for action in obs.get("legal_actions", ())],
}
