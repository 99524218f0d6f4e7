"""The trick game, written once: a :class:`TrickGame` is a :class:`engine.state.State` configured by a
:class:`TrickRules` record, as a fishing game is one configured by its capture rules.

The base runs the play of a deal: the trick in play and the finished tricks, who is winning (and the trumps that
would beat him), the legal cards under the game's :class:`engine.tricks.FollowRule`, the stock drawn after each trick
(German Whist), the tricks and card points each side won and the last trick's bonus; it writes the hands, trump and
tricks into observations and positions, and loads them back checked: every card of the deck once, tricks played in
turn and under the follow rule, the seat to play. A game module deals, runs its own auction, declares what happens
in the play (its :class:`PlayPart` phases) and scores the deal (``_score_deal``).

Card play has one path, the trick loop (``_play_cards``): ``apply_id`` plays one move of the play through it and
``play_to_end`` plays on in it. It calls the game only at declared events: its own legal-card rule (``_card_ids``) and
trick winner (``_won_by``), and the events its declared play parts answer (:class:`PlayPart`): moves beside the plain
cards (``moves``, played by ``play``: a belote, a face-down card, a call before the card), the cards a part watches
(``watched``, ``card_played``), the trick's end (``trick_taken``); then the deal's end.

A game declares the rest as data: ``RULES`` (a :class:`TrickRules`), ``ACTIONS``, ``DECK``, ``STOCK_SHOWN`` (a stock,
and how many of its top cards everyone sees), ``OBSERVED`` / ``POSITIONED`` (which of the base's ``PLAY_FACTS`` its
observations and positions show), ``KEY_RULES`` (its own position keys that the replayed deal decides), ``PHASES``
and ``DEAL_PHASES``: its phases in order, :data:`TRICK_PLAY` among them, which loads the play with ``_load_deal`` and
checks it with ``_check_deal`` (a phase declared before it may hand it the cards of its own piles);
``_dealt_trump`` and ``_seat_to_speak`` say what a position's trump and seat to act must be. Determinization deals the
unseen cards again under the voids the play showed; each phase says what else a seat knows, what it hides and how a
sample renames its cards (``Phase.known``, ``hand_check``, ``hidden``, ``relabel``). A deal the rules deal again at
once (a void deal) is a ``_misdeal``; a game where a card may be played face down is a :class:`FaceDownPlays`.

>>> import engine
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
>>> state.RULES.tricks, state.RULES.follow.must_trump, state.trick, len(state.legal_actions())
(26, False, [], 13)
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from operator import or_
from types import FunctionType
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from .cards import BIT, CODES, SUIT, SUIT_MASK, SUITS, cards_in, codes_of, mask_of, parse_card
from .clone import LIST, SHARED, Copier, field_copy
from .determinize import (
    SWEEPS,
    WHOLE_SWEEPS,
    Slot,
    in_deck_order,
    known_start,
    redeal,
    redeal_consistent,
    relabel_cards,
    relabel_masks,
    relabeling,
)
from .errors import IllegalAction, PositionError
from .pairs import pair
from .phases import (
    HIDING,
    DecisionPhase,
    Loading,
    Phase,
    all_checks,
    decision_phases,
    face_up_phases,
    hiding_phases,
)
from .rng import Rng
from .state import Chooser, Resolved, State, draws_only, listed, position_seat
from .tricks import (
    FOLLOW_SUIT,
    NO_TRUMP,
    STRING_SPREAD,
    CardActions,
    FollowRule,
    IdTables,
    MustWinRule,
    Ranking,
    beaters_mask,
    check_cards_once,
    check_play_order,
    legal_mask,
    position_cards,
    position_trick,
    suit_of_code,
    trick_winner,
)

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython


@dataclass(frozen=True)
class TrickRules:
    """A trick game's play as data.

    ``ranking`` orders the cards (plain and trump), ``follow`` is the legal-card rule (``must_win``, when given, the
    Manille family's in its place: Botifarra's), ``tricks`` the tricks of a deal; ``points[trump][card]`` is what a
    won card is worth (None: only tricks count) and ``last_trick`` the bonus of the last trick's winner; with
    ``draw_after_trick`` each seat takes a stock card after a trick, winner first, while the stock lasts.
    ``trick_cards`` is the cards of a trick (0: one from each seat); seats play in turn from
    the leader, round again when a trick holds more cards than there are seats (Très: leader, follower, leader). With
    ``lead_passes`` the lead passes to the next seat every trick, whoever wins (Très 5.1); else the winner leads. With
    ``extras`` the play has moves beside the plain card plays: those its declared play parts list
    (:meth:`PlayPart.moves`: a belote announced with its card, a face-down card, a call or a declaration before the
    card).

    >>> rules = TrickRules(Ranking("AKQJT98765432"), tricks=13)
    >>> rules.follow.must_trump, rules.points is None
    (False, True)
    """

    ranking: Ranking
    follow: FollowRule = FOLLOW_SUIT
    tricks: int = 13
    points: tuple[tuple[int, ...], ...] | None = None
    last_trick: int = 0
    draw_after_trick: bool = False
    trick_cards: int = 0
    lead_passes: bool = False
    extras: bool = False
    must_win: MustWinRule | None = None
    # beaters[trump][card]: the trumps that beat ``card`` when it is the best trump of a trick (every trump for a
    # plain card); the must-overtrump rule reads it.
    beaters: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    # by_trump[trump]: (beaters[trump], ranking.beat[trump]), what the trick loop reads as it starts
    by_trump: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = field(init=False, repr=False)
    # (points, lead_passes, draw_after_trick, tricks): what a full trick's gathering reads (_gathered), in one look-up
    gathering: tuple[tuple[tuple[int, ...], ...] | None, bool, bool, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "beaters", tuple(
            tuple(beaters_mask(self.ranking, t, c if SUIT[c] == t else None) for c in range(52)) for t in range(5)))
        object.__setattr__(self, "by_trump", tuple((self.beaters[t], self.ranking.beat[t]) for t in range(5)))
        object.__setattr__(self, "gathering", (self.points, self.lead_passes, self.draw_after_trick, self.tricks))


FULL_MASK = (1 << 52) - 1
NEXT_SEATS = tuple(tuple((seat + 1) % n for seat in range(n)) for n in range(9))  # [n][seat]: the seat after it


_ONE = cython.declare(cython.ulonglong, 1)  # (compiled, a card's bit is _ONE << card: a C shift, no table)


@cython.cfunc
@cython.locals(mask=cython.ulonglong, ranked=tuple, s=tuple, r=cython.ulonglong, a=cython.ulonglong,
               b=cython.ulonglong, c=cython.ulonglong, d=cython.ulonglong, ids=list)
def _ids_of(mask: int, ranked: IdTables) -> list[int]:
    """``CardActions.ids(mask)`` for the trick loop (``ranked``: the actions' ``string_tables``), with no Python call
    compiled: the plain play ids of the cards of ``mask``, in order, a new list (its string ranks ORed in C)."""
    s = STRING_SPREAD
    a, b = s[0][mask & 0x1FFF], s[1][(mask >> 13) & 0x1FFF]
    c, d = s[2][(mask >> 26) & 0x1FFF], s[3][mask >> 39]
    r = a | b | c | d
    ids = list(ranked[0][r & 0x1FFF])
    ids.extend(ranked[1][(r >> 13) & 0x1FFF])
    if r >> 26:  # (compiled: extended in C, the list typed)
        ids.extend(ranked[2][(r >> 26) & 0x1FFF])
        ids.extend(ranked[3][r >> 39])
    return ids


@cython.cfunc
@cython.locals(mask=cython.ulonglong, ranked=tuple, s=tuple, r=cython.ulonglong, w=cython.ulonglong,
               x=cython.ulonglong, y=cython.ulonglong, z=cython.ulonglong, rng=Rng, a=tuple, b=tuple, c=tuple,
               d=tuple, k=cython.Py_ssize_t)
def _picked_id(mask: int, ranked: IdTables, rng: Rng) -> int:
    """``rng.pick(_ids_of(mask, ranked))`` without the list: the random policy's choice among the plain play ids of
    the cards of ``mask``, the same draw and the same id (its index found in the four suits' lists in turn)."""
    s = STRING_SPREAD
    w, x = s[0][mask & 0x1FFF], s[1][(mask >> 13) & 0x1FFF]
    y, z = s[2][(mask >> 26) & 0x1FFF], s[3][mask >> 39]
    r = w | x | y | z
    a, b = ranked[0][r & 0x1FFF], ranked[1][(r >> 13) & 0x1FFF]
    c, d = ranked[2][(r >> 26) & 0x1FFF], ranked[3][r >> 39]
    k = rng.pick_index(len(a) + len(b) + len(c) + len(d))
    if k < len(a):
        return a[k]
    k -= len(a)
    if k < len(b):
        return b[k]
    k -= len(b)
    return c[k] if k < len(c) else d[k - len(c)]


def follow_ids(actions: CardActions, follow: FollowRule, hand: int, led: int, trump: int, over: int,
               partner_winning: bool) -> list[int]:
    """The legal card plays (ids, in string order) of ``hand`` to a trick led in suit ``led`` under the rule
    ``follow`` (``over`` and ``partner_winning`` as :func:`engine.tricks.legal_mask` takes them).

    >>> from engine.cards import mask_of, parse_cards
    >>> from engine.tricks import HEARTS, SPADES
    >>> acts, hand = CardActions(), mask_of(parse_cards(["2H", "KH", "3S"]))
    >>> [acts.string(a) for a in follow_ids(acts, FOLLOW_SUIT, hand, HEARTS, SPADES, 0, False)]
    ['2H', 'KH']
    """
    return _follow_ids(actions, follow, hand, led, trump, over, partner_winning)


@cython.cfunc
@cython.locals(hand=cython.ulonglong, led=cython.Py_ssize_t, trump=cython.Py_ssize_t, same=cython.ulonglong,
               partner_winning=cython.bint)
def _follow_ids(actions: CardActions, follow: FollowRule, hand: int, led: int, trump: int, over: int,
                partner_winning: bool) -> list[int]:
    """``follow_ids``, a C call for the trick machinery (``_card_ids``)."""
    same = (hand >> 13 * led) & 0x1FFF  # the hand's ranks in the led suit
    if same and not (led == trump and follow.must_overtrump):
        return list(actions.suit_tables[led][same])  # suit_ids, inlined: following suit
    return _ids_of(legal_mask(follow, hand, led, trump, over, partner_winning), actions.string_tables)


# shown_cards: a class whose observations show no card beside the hand and trick, and no stock size
Showing = tuple[bool, tuple[Phase[Any], ...], Callable[[Any, int], int] | None, bool]
SHOWS_NOTHING: Showing = (False, (), None, False)
NOTHING_SHOWN = (0, 0, 0)
MISDEAL_TRIES = 1000  # determinization: samples drawn before a chain looks for a deal that is no misdeal


T = TypeVar("T", bound="TrickGame")


class PlayPart(Phase[T]):
    """A declared phase's part in the trick play: the game's own events of card play, which the trick loop calls (and
    only those a part of the game answers, in declared order; tables set per class). A game lists such phases in its
    ``DEAL_PHASES`` (a belote announced with its card, a face-down card, a call or a declaration before the card, what
    a trick's end records).

    - ``moves``: the moves of the seat to play beside (or instead of) its legal card plays, asked at every turn while
      the rules declare extras (``TrickRules.extras``); ``plays`` names the ones the part plays, ``play`` plays one;
    - ``watched`` and ``card_played``: the plain cards whose play the part watches, and what it does after one (one
      part of a game watches cards);
    - ``trick_taken``: after a trick, before the stock is drawn;
    - ``card_action`` and ``played_blind``: how a loaded position's card is played again (a face-down slot), and
      whether a card came from outside the hand (determinization reads no void from it)."""

    def moves(self, game: T, seat: int, ids: list[int]) -> list[int]:
        """The legal moves of ``seat`` given those so far (``ids``: its legal card plays, or what the parts declared
        before this one made of them; a list never changed in place): the part adds its own or puts them in their
        place."""
        return ids

    def moving(self, game: T) -> int:
        """The cards (a mask) one of which a hand must hold for ``moves`` to change its ids (-1: any hand, always
        asked): the trick loop asks ``moves`` only of such a hand. Read as the loop starts and again after each call
        into the game's parts (``play``, ``card_played``, ``trick_taken``)."""
        return -1

    def plays(self, game: type[T]) -> tuple[int, ...]:
        """The action ids this part plays (``play``): moves of its own that are no plain card play."""
        return ()

    def play(self, game: T, seat: int, action: int) -> int | None:
        """Play ``seat``'s legal move ``action`` (one of ``plays``): return the card it puts into the trick, taken
        from where it lay, or None when it plays no card (a call, a declaration: the seat to act moves next)."""
        raise AssertionError(f"{type(self).__name__} lists {game.action_string(action)!r} without playing it")

    def watched(self, game: T) -> int:
        """The cards (a mask) whose plain play the part watches (``card_played``), read as the trick loop starts
        and again after each of the game's own moves."""
        return 0

    def card_played(self, game: T, seat: int, card: int) -> None:
        """After a watched card is put into the trick, before the trick is gathered: the part's effects (a
        rebelote, the trump a first card names)."""

    def trick_taken(self, game: T, winner: int) -> None:
        """After a trick is gathered and its leader set, before the stock is drawn."""

    def card_action(self, game: T, seat: int, card: int) -> int | None:
        """The action that plays ``card`` for ``seat`` when the part plays it its own way (a face-down card), else
        None."""
        return None

    def played_blind(self, game: T, seat: int, card: int) -> bool:
        """Whether ``seat`` played ``card`` from outside its hand (German Whist's face-down slots)."""
        return False


def play_parts(phases: tuple[Phase[Any], ...], name: str) -> tuple[PlayPart[Any], ...]:
    """Of a game's ``DEAL_PHASES``, the play parts that answer the event ``name`` (their own method of
    :class:`PlayPart`'s), in order."""
    return tuple(phase for phase in phases
                 if isinstance(phase, PlayPart) and getattr(type(phase), name) is not getattr(PlayPart, name))


def _chained_moves(parts: tuple[PlayPart[Any], ...]) -> Callable[[Any, int, list[int]], list[int]] | None:
    """One ``moves`` call for the parts that declare moves: each given what the one before made of the ids."""
    if len(parts) < 2:
        return parts[0].moves if parts else None
    first, rest = parts[0].moves, _chained_moves(parts[1:])
    assert rest is not None

    def moves(game: Any, seat: int, ids: list[int]) -> list[int]:
        return rest(game, seat, first(game, seat, ids))  # (no loop: asked at every turn)
    return moves


def _any_moving(parts: tuple[PlayPart[Any], ...]) -> Callable[[Any], int] | None:
    """One ``moving`` call for the parts that declare moves: the cards of them all; None when a part declares none
    (it is asked always, and the loop makes no call to learn it)."""
    if not parts or any(type(part).moving is PlayPart.moving for part in parts):
        return None
    if len(parts) == 1:
        return parts[0].moving
    calls = tuple(part.moving for part in parts)

    def moving(game: Any) -> int:
        cards = 0
        for call in calls:
            cards |= call(game)
        return cards
    return moving


def _chained(calls: tuple[Callable[..., Any], ...]) -> Callable[..., None] | None:
    """One call for several parts' event methods, made in order (None for none)."""
    if len(calls) < 2:
        return calls[0] if calls else None

    def each(*args: Any) -> None:
        for call in calls:
            call(*args)
    return each


@dataclass(frozen=True)
class PlayHooks:
    """A trick game class's play parts, by event (``TrickGame._playing``): ``moves`` and ``trick_taken`` as one call
    each, ``watching`` as (watched, card_played), ``play`` by the action it plays, and the parts that answer
    ``card_action`` and ``played_blind``; None or empty where no part answers. ``moving``: the cards that call for
    ``moves`` (``PlayPart.moving``, of every part that lists moves; None: always asked)."""

    moves: Callable[[Any, int, list[int]], list[int]] | None = None
    moving: Callable[[Any], int] | None = None
    play: Mapping[int, Callable[[Any, int, int], int | None]] = field(default_factory=dict)
    watching: tuple[Callable[[Any], int], Callable[[Any, int, int], None]] | None = None
    trick_taken: Callable[[Any, int], None] | None = None
    card_action: tuple[PlayPart[Any], ...] = ()
    played_blind: tuple[PlayPart[Any], ...] = ()

    @classmethod
    def of(cls, game: type[TrickGame]) -> PlayHooks:
        phases = game.DEAL_PHASES
        play: dict[int, Callable[[Any, int, int], int | None]] = {}
        for part in play_parts(phases, "play"):
            for action in part.plays(game):
                assert action not in play, f"{game.__name__}: two parts play action {action}"
                play[action] = part.play
        watchers = play_parts(phases, "watched")
        assert len(watchers) <= 1, f"{game.__name__}: two parts watch cards ({watchers})"
        watching = (watchers[0].watched, watchers[0].card_played) if watchers else None
        movers = play_parts(phases, "moves")
        return cls(moves=_chained_moves(movers), moving=_any_moving(movers), play=play, watching=watching,
                   trick_taken=_chained(tuple(part.trick_taken for part in play_parts(phases, "trick_taken"))),
                   card_action=play_parts(phases, "card_action"), played_blind=play_parts(phases, "played_blind"))


class TrickPlay(Phase["TrickGame"]):
    """The play of a deal's tricks, as a phase: its position keys are the hands, trump, the trick in play, the
    finished tricks and the game's ``POSITIONED`` facts of the play; loading replays the tricks from the deal
    (``_load_deal``, with the piles of the phases before it) and checks what the replay decides (``_check_deal``)."""

    KEYS = ("trump", "hands", "trick", "tricks")

    def keys(self, game: TrickGame) -> tuple[str, ...]:
        return self.KEYS + game.POSITIONED

    def save(self, game: TrickGame) -> dict[str, Any]:
        return {
            "trump": game._trump_code(),
            "hands": [codes_of(cards_in(h)) for h in game.hands],
            "trick": [[s, CODES[c]] for s, c in game.trick],
            "tricks": game._tricks_codes(),
            **{key: PLAY_FACTS[key][0](game) for key in game.POSITIONED},
        }

    def load(self, game: TrickGame, loading: Loading) -> None:
        loading.to_play = game._load_deal(loading.position, loading.piles)

    def check(self, game: TrickGame, loading: Loading) -> None:
        assert loading.to_play is not None  # (load set it)
        game._check_deal(loading.position, loading.to_play)


TRICK_PLAY = TrickPlay()


_TRICK_FIELDS = (
    "current_player", "phase", "moves", "_legal", "n_players", "side_of", "hands", "trump", "trick", "tricks",
    "trick_size", "best_seat", "best_card", "overtrumps", "card_points", "tricks_won", "last_trick_side", "stock",
    "stock_top",
)


@cython.cclass
class TrickCore:
    """What the trick loop reads and writes at every move, as fixed fields of a C struct in the compiled build (a
    trick game's base, beside :class:`engine.state.State`): the seat to act, the phase, the moves and legal ids, the
    hands, trump, the trick in play and who is winning it, the finished tricks and what each side took. Compiled, the
    loop reaches them without a dictionary look-up and ``clone`` copies them field by field (``_copy_fields``); from
    source this is a plain class and they are ordinary instance attributes. Python code reads and writes them as
    attributes either way (an attribute not set yet reads None when compiled)."""

    # The fields are declared in engine/trickgame.pxd (so that other compiled modules that cimport TrickCore read
    # them as C struct fields); these annotations are for mypy alone (annotation_typing is off), and from source each
    # field reads None until it is set, as compiled (after the class).
    current_player: Any
    phase: Any
    moves: Any
    _legal: Any
    n_players: Any
    side_of: Any
    hands: Any
    trump: Any
    trick: Any
    tricks: Any
    trick_size: Any
    best_seat: Any
    best_card: Any
    overtrumps: Any
    card_points: Any
    tricks_won: Any
    last_trick_side: Any
    stock: Any
    stock_top: Any

    # The fields, in _copy_fields' order, for engine.clone (compiled; from source they are in the instance's
    # __dict__ and copied with it).
    FIELDS: ClassVar[tuple[str, ...]] = _TRICK_FIELDS if cython.compiled else ()

    @cython.locals(c=tuple)
    def _copy_fields(self, new: TrickCore, copiers: tuple[Copier | None, ...]) -> None:
        """Give ``new`` these fields, each copied as ``copiers`` (aligned with FIELDS: a class's COPY) says."""
        twin = cython.declare(TrickCore, new)
        c = copiers
        twin.current_player = field_copy(self.current_player, c[0])
        twin.phase = field_copy(self.phase, c[1])
        twin.moves = field_copy(self.moves, c[2])
        twin._legal = field_copy(self._legal, c[3])
        twin.n_players = field_copy(self.n_players, c[4])
        twin.side_of = field_copy(self.side_of, c[5])
        twin.hands = field_copy(self.hands, c[6])
        twin.trump = field_copy(self.trump, c[7])
        twin.trick = field_copy(self.trick, c[8])
        twin.tricks = field_copy(self.tricks, c[9])
        twin.trick_size = field_copy(self.trick_size, c[10])
        twin.best_seat = field_copy(self.best_seat, c[11])
        twin.best_card = field_copy(self.best_card, c[12])
        twin.overtrumps = field_copy(self.overtrumps, c[13])
        twin.card_points = field_copy(self.card_points, c[14])
        twin.tricks_won = field_copy(self.tricks_won, c[15])
        twin.last_trick_side = field_copy(self.last_trick_side, c[16])
        twin.stock = field_copy(self.stock, c[17])
        twin.stock_top = field_copy(self.stock_top, c[18])


if not cython.compiled:
    for _name in _TRICK_FIELDS:
        setattr(TrickCore, _name, None)


class TrickGame(State, TrickCore):
    """A deal played in tricks under ``RULES``; card plays are ``ACTIONS`` ids."""

    RULES: ClassVar[TrickRules]
    ACTIONS: ClassVar[CardActions]
    # The stock, when the game deals one (``stock`` from ``stock_top`` on): how many of its top cards every seat sees
    # (1: a face-up card, German Whist's and Two-Ten-Jack's; 0: an unseen stock), None without a stock. The base then
    # hides the rest of it in determinization, relabels it and writes its position and observation keys.
    STOCK_SHOWN: ClassVar[int | None] = None
    # Whether every card drawn from the stock is drawn in view of all (Two-Ten-Jack 3.5, 5.7): every seat knows
    # where each of them went.
    STOCK_DRAWN_SHOWN: ClassVar[bool] = False
    # The facts of the play (PLAY_FACTS) the base writes into every seat's observation and into positions (position
    # keys are checked against the replayed deal), and the game's own position keys that the replay decides, each
    # with the rule it states (``_check_deal``).
    OBSERVED: ClassVar[tuple[str, ...]] = ()
    POSITIONED: ClassVar[tuple[str, ...]] = ()
    KEY_RULES: ClassVar[Mapping[str, str]] = {}
    PHASES: ClassVar[tuple[str, ...]] = ("play", "over")  # the phases a position may be in
    DEAL_PHASES: ClassVar[tuple[Phase[Any], ...]] = (TRICK_PLAY,)
    # Whether the double-dummy search (engine.search.double_dummy) counts what this game's deal counts: its tricks or
    # card points under RULES, or what ``double_dummy_points`` makes of them.
    DOUBLE_DUMMY: ClassVar[bool] = False
    # (a stock is read from stock_top on or replaced whole, never changed in place; so is the record of its draws)
    COPY = {"hands": LIST, "trick": LIST, "tricks": LIST, "card_points": LIST, "tricks_won": LIST,
            "stock": SHARED, "_draws": SHARED}
    _loading = False  # a position's tricks are being replayed: the last one is not scored
    # Which of the trick loop's hooks a game class overrides (set for each class): _card_ids, _won_by and
    # _next_seats, in that order; the loop calls only those.
    _own_hooks: ClassVar[tuple[bool, ...]] = (False,) * 3
    # The declared play parts (PlayPart) that answer each of their events (set for each class): the trick loop
    # calls only those.
    _playing: ClassVar[PlayHooks] = PlayHooks()
    # What the trick loop reads of the class as it starts, in one look-up: ACTIONS.plain_card, _own_hooks, then the
    # parts' trick_taken, (watched, card_played) and moves, each None when no part answers it.
    _loop_class: ClassVar[tuple[Any, ...]] = ((),) + _own_hooks + (None, None, None)
    # The game's decision phases (engine.phases.DecisionPhase) by the phase they act in (set for each class).
    _deciding: ClassVar[Mapping[str, DecisionPhase[Any]]] = {}
    # The declared phases that answer determinization's known, hidden, hand_check and relabel (set for each class).
    _hiding: ClassVar[Mapping[str, tuple[Phase[Any], ...]]] = dict.fromkeys(HIDING, ())
    # The declared phases that add to an observation (whose ``observe`` is their own), in order (set for each class).
    _observing: ClassVar[tuple[Phase[Any], ...]] = ()
    # The declared phases that may say who leads the first trick (whose ``leader`` is their own; set for each class).
    _leading: ClassVar[tuple[Phase[Any], ...]] = ()
    # What shown_cards reads (set for each class): None when the observation decides (GameInfo.shown_every_move),
    # else whether the stock's top card is face up, the phases that show single face-up cards (Phase.face_up),
    # what tells the cards of other hands a seat knows, if it may know any (_known_cards, or _stock_drawn when the
    # stock's draws are all it knows: Two-Ten-Jack's, at almost every move) and whether OBSERVED shows the stock's size.
    _showing: ClassVar[Showing | None] = SHOWS_NOTHING

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._deciding = decision_phases(cls.DEAL_PHASES)
        cls._hiding = hiding_phases(cls.DEAL_PHASES)
        cls._observing = tuple(phase for phase in cls.DEAL_PHASES if type(phase).observe is not Phase.observe)
        cls._leading = tuple(phase for phase in cls.DEAL_PHASES if type(phase).leader is not Phase.leader)
        info = getattr(cls, "INFO", None)
        knows: Callable[[Any, int], int] | None = None
        if cls._hiding["known"] or cls._known_cards is not TrickGame._known_cards:
            knows = cls._known_cards
        elif cls.STOCK_DRAWN_SHOWN:
            knows = TrickGame._stock_drawn
        showing: Showing = (bool(cls.STOCK_SHOWN), face_up_phases(cls.DEAL_PHASES), knows, "stock_size" in cls.OBSERVED)
        cls._showing = None if info is not None and info.shown_every_move else \
            SHOWS_NOTHING if showing == SHOWS_NOTHING else showing
        cls._own_hooks = tuple(getattr(cls, name) is not getattr(TrickGame, name)
                               for name in ("_card_ids", "_won_by", "_next_seats"))
        cls._playing = playing = PlayHooks.of(cls)
        actions = getattr(cls, "ACTIONS", None)
        cls._loop_class = (() if actions is None else actions.plain_card,) + cls._own_hooks + (
            playing.trick_taken, playing.watching, playing.moves)
        cls._pick_move_path(playing)
        inherited = getattr(cls, "action_string")  # noqa: B009
        if actions is not None and (inherited is TrickGame.action_string or not isinstance(inherited, FunctionType)):
            # the strings' own look-up as the method, no Python call: a seat's history names every move
            setattr(cls, "action_string", actions.strings.__getitem__)  # noqa: B010 (mypy refuses it)

    @classmethod
    def _new_match(cls, players: int, resolved: Resolved, seed: int) -> Self:
        self = super()._new_match(players, resolved, seed)
        self.stock_top = 0  # (a TrickCore field: no class-level default)
        return self

    @classmethod
    def _pick_move_path(cls, playing: PlayHooks) -> None:
        """Set the class's ``_legal_ids`` and ``_apply``, which no game defines: with decision phases the base's,
        which ask the phase in play; without, every move is the play's, listed by ``_card_ids`` (``_turn_ids`` when
        the play has moves beside the cards) and played by the trick loop itself, with no phase to ask."""
        for name in ("_legal_ids", "_apply"):
            if name in vars(cls):
                raise TypeError(f"{cls.__name__} defines {name}: a trick game's moves are its decision phases' and "
                                "the trick loop's, and TrickGame picks the path")
        if cls._deciding:
            legal_ids, apply = TrickGame._legal_ids, TrickGame._apply
        else:
            # (the parts' moves too: a match's RULES, from its SETTINGS, may declare extras its class's RULES do not,
            # German Whist's with face_down_four)
            extras = getattr(getattr(cls, "RULES", None), "extras", False) or playing.moves is not None
            legal_ids, apply = cls._turn_ids if extras else cls._card_ids, TrickGame._play_action
        setattr(cls, "_legal_ids", legal_ids)  # noqa: B010 (mypy refuses an assignment to a method)
        setattr(cls, "_apply", apply)  # noqa: B010

    hands: list[int]
    trump: int
    # (set as a deal's play begins, _reset_tricks: TrickCore's fields)
    trick: list[tuple[int, int]]
    tricks: list[list[tuple[int, int]]]
    best_seat: int
    best_card: int
    overtrumps: int
    card_points: list[int]
    tricks_won: list[int]
    last_trick_side: int | None
    stock: list[int]
    stock_top: int  # (0 from the match's start, _new_match: a stock only ever replaced whole, Belote's, is read
    # from its first card)
    # With STOCK_DRAWN_SHOWN: a stock and the cards drawn from it by each stock_top k (the mask of stock[:k]) for
    # _known_cards, read at almost every observation: worked out once for each stock it reads (a deal's, a loaded
    # position's, a sample's relabelled one), never by the trick loop.
    _draws: tuple[Sequence[int], tuple[int, ...]] = ((), (0,))
    trick_size: int  # the cards of a trick (TrickRules.trick_cards, or one from each seat)

    # ---- what a game implements ---------------------------------------------------------------------------------

    def double_dummy_points(self, side: int, taken: int) -> list[int] | None:
        """The deal's points per side (as ``_score_deal`` records them) if ``side`` takes ``taken`` of what the
        double-dummy search counts from here on (:mod:`engine.search.double_dummy`: tricks or card points) and the
        other side the rest, for a game whose deal score is not simply that count (a contract made or not); None when
        the count itself measures the deal. The points never fall as ``taken`` grows, so best play for the count is
        best play for the deal."""
        return None

    @abstractmethod
    def _score_deal(self) -> None:
        """Score the finished deal and call ``_deal_over``."""

    def _first_leader(self) -> int:
        """The seat that leads the first trick: the phase's that decides it (``Phase.leader``), else the dealer's
        left."""
        for phase in self._leading:
            leader = phase.leader(self)
            if leader is not None:
                return leader
        return (self.dealer + 1) % self.n_players

    def _won_by(self, trick: list[tuple[int, int]]) -> int:
        """The seat that won the full ``trick``, for a game whose winner is not the best card under ``RULES`` (special
        cards): asked when the trick is gathered, only of a game that overrides it (the loop keeps the best card as
        it goes)."""
        return trick[trick_winner([c for _s, c in trick], self.trump, self.RULES.ranking)][0]

    def _next_seats(self) -> Sequence[int]:
        """Per seat, the seat that plays after it in a trick: the next seat clockwise (a game where some seats sit
        the deal out skips them)."""
        return NEXT_SEATS[self.n_players]

    def _check_dealt(self, trump: int, hands: list[list[int]]) -> None:
        """Checks of a position's cards against ``deal_deck`` (PositionError), run before the tricks are replayed."""

    def _misdeal(self, new: Sequence[int] | None = None) -> str | None:
        """What makes the deal dealt from ``deal_deck`` (its cards relabeled by ``new``, when given) one the rules
        deal again at once (Two-Ten-Jack 3.6's void deal), or None: such a deal is dealt again, refused in a
        position and never sampled. The phase that deals says (``Phase.misdeal``)."""
        dealing = self._dealing
        return None if dealing is None else dealing.misdeal(self, new)

    def _begin_deal(self, deck: list[int] | None) -> None:
        State._begin_deal(self, deck)
        while self.current_player is not None and self._misdeal() is not None:
            State._begin_deal(self, None)

    def _deal_again(self, trump: int) -> None:
        """Set the deal as ``deal_deck`` dealt it, up to the first card played (with ``trump``): the hands and the
        game's own dealt piles (``_reset_tricks`` included). The first phase that decides the deal before the play
        (an auction, exchanges) sets it (``Phase.deal_again``); with none the deal is dealt again."""
        for phase in self.DEAL_PHASES:
            if phase.deal_again(self, trump):
                return
        self._start_deal(list(self.deal_deck))

    def action_string(self, action: int) -> str:
        return self.ACTIONS.strings[action]

    def _dealt_trump(self) -> tuple[int, str] | None:
        """The trump a position's deal must have (NO_TRUMP: none yet), with the rule that says so, or None to accept
        any: checked when a position is loaded. The phase that decides it says it (``Phase.trump``)."""
        for phase in self.DEAL_PHASES:
            dealt = phase.trump(self)
            if dealt is not None:
                return dealt
        return None

    def _seat_to_speak(self) -> int | None:
        """Outside the play (an auction, a redeal question, an exchange): the seat the loaded deal gives the turn
        (its decision phase's ``speaker``), or None to leave it unchecked."""
        acting = self._deciding.get(self.phase)
        return None if acting is None else acting.speaker(self)

    # ---- the trick loop -----------------------------------------------------------------------------------------

    @cython.locals(me=TrickCore, sides=cython.Py_ssize_t)
    def _reset_tricks(self, hands: list[int], trump: int) -> None:
        """A deal's play begins: ``hands`` (masks) and ``trump`` (NO_TRUMP until it is named)."""
        me = self  # (compiled: TrickCore's fields written in the C struct)
        me.hands = hands
        me.trump = trump
        me.trick_size = self.RULES.trick_cards or me.n_players
        me.trick = []
        me.tricks = []
        me.best_seat = me.best_card = -1
        me.overtrumps = 0  # the trumps that beat best_card (every trump while it is a plain card)
        sides = max(me.side_of) + 1
        me.card_points = [0] * sides
        me.tricks_won = [0] * sides
        me.last_trick_side = None

    def _playable(self, seat: int) -> int:
        """The cards of ``seat``'s hand (a mask) that the follow rule lets it play now."""
        hand, trick, rules = self.hands[seat], self.trick, self.RULES
        if not trick:
            return hand
        if rules.must_win is not None:  # (partners: teams, who differ from the sides where partners score apart)
            teams = self.teams
            return rules.must_win.legal(hand, SUIT[trick[0][1]], self.trump, self.best_card,
                                        teams[self.best_seat] == teams[seat], len(trick) == 1)
        partner_winning = self.side_of[self.best_seat] == self.side_of[seat]
        return legal_mask(rules.follow, hand, SUIT[trick[0][1]], self.trump, self.overtrumps, partner_winning)

    def _card_ids(self) -> list[int]:
        """The legal card plays of the seat to play (all of them while a game asks for nothing else first)."""
        return _rule_card_ids(self)

    @cython.locals(me=TrickCore)
    def _legal_ids(self) -> list[int]:
        """In the play the trick loop's moves (``_turn_ids``, inlined: one call less per move), else those of the
        decision phase in play."""
        me = self
        if me.phase == "play":
            seat = me.current_player
            assert seat is not None  # legal actions are listed only while someone is to act
            ids = self._card_ids() if self._own_hooks[0] else _rule_card_ids(self)  # (the base's: a C call)
            if not self.RULES.extras:
                return ids
            extras = self._playing.moves
            assert extras is not None  # the rules declare moves that a part lists
            return extras(self, seat, ids)
        return self._deciding[me.phase].legal(self)

    @cython.locals(me=TrickCore)
    def _apply(self, action: int) -> None:
        """In the play the trick loop's move (``_play_action``), else the decision phase's."""
        me = self
        if me.phase == "play":
            self._play_action(action)
        else:
            self._deciding[me.phase].apply(self, action)

    @cython.locals(me=TrickCore)
    def _turn_ids(self) -> list[int]:
        """The legal moves of the seat to play in the play: its card plays (``_card_ids``) with the declared parts'
        ``moves``, as the trick loop lists them."""
        me = self
        ids = self._card_ids() if self._own_hooks[0] else _rule_card_ids(self)  # (the base's: a C call)
        if not self.RULES.extras:
            return ids
        seat, extras = me.current_player, self._playing.moves
        assert seat is not None and extras is not None  # (extras: the rules declare moves that a part lists)
        return extras(self, seat, ids)

    @cython.locals(me=TrickCore)
    def _card_action(self, seat: int, card: int) -> int | None:
        """The action that plays ``card`` for ``seat`` (a part's own, ``PlayPart.card_action``, else the plain play),
        None if the seat does not hold it."""
        me = self
        for part in self._playing.card_action:
            action = part.card_action(self, seat, card)
            if action is not None:
                return action
        return self.ACTIONS.plain_id[card] if me.hands[seat] & BIT[card] else None

    @cython.locals(me=TrickCore)
    def play_to_end(self, choose: Sequence[Chooser], observe: Sequence[Callable[[], dict[str, Any]]]) -> int:
        """``State.play_to_end`` with the turns of the play taken by the trick loop (``_play_cards``), through which
        ``apply_id`` plays a card too, and the other phases' moves by their decision phases (``_decide``).

        >>> import engine
        >>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
        >>> state.play_to_end([lambda ids, observe: ids[-1]] * 2, [lambda: {}] * 2), state.is_terminal
        (52, True)
        """
        me = self
        start = len(me.moves)
        while me.current_player is not None:
            if me.phase == "play":
                self._play_cards(-1, choose, observe)
                me._legal = None  # (the loop leaves the last turn's)
            else:
                self._decide(choose, observe)
        me._legal = None
        return len(me.moves) - start

    @cython.locals(me=TrickCore, rng=Rng)
    def _decide(self, choose: Sequence[Chooser], observe: Sequence[Callable[[], dict[str, Any]]]) -> None:
        """``play_to_end``'s moves outside the play (an auction, a trump choice, an exchange) until the play begins or
        the match ends: each listed and applied by the decision phase in play itself, as ``_legal_ids`` and ``_apply``
        would (without their call in between), checked and recorded as ``apply_id`` does. A seat whose choice is its
        generator's own draw (``Rng.pick``, as in the trick loop) is drawn for here (``pick_index``: compiled, a C
        call), not called."""
        me = self
        deciding, record = self._deciding, me.moves.append
        seat = me.current_player
        # each seat's generator when its chooser is that generator's pick, else None
        rngs = [getattr(chooser, "__self__") if draws_only(chooser) else None for chooser in choose]  # noqa: B009
        while seat is not None:
            phase = me.phase
            if phase == "play":
                return
            acting = deciding[phase]
            me._legal = legal = acting.legal(self)  # known while the seat chooses (its observation lists them)
            drawing = rngs[seat]
            if drawing is not None:  # (drawn from the list: legal)
                rng = drawing
                action = legal[rng.pick_index(len(legal))]
            else:
                action = choose[seat](legal, observe[seat])
                if not listed(action, legal):
                    raise IllegalAction(self._describe_id(action), self.legal_actions(), self._where())
            record(pair(seat, action))
            me._legal = None
            acting.apply(self, action)
            seat = me.current_player

    # Compiled, the loop's seats, suits, card and counts are C integers (its tables indexed without a Python int), and
    # the state's fields it reads and writes are TrickCore's struct fields (``me``: ``self``, typed).
    @cython.locals(me=TrickCore, hand=cython.ulonglong, same=cython.ulonglong, beats_best=cython.ulonglong,
                   seat=cython.Py_ssize_t, played=cython.Py_ssize_t, size=cython.Py_ssize_t,
                   led=cython.Py_ssize_t, best=cython.Py_ssize_t, best_seat=cython.Py_ssize_t,
                   over_suit=cython.Py_ssize_t, c=cython.Py_ssize_t, stop=cython.bint, blind=cython.bint,
                   quiet=cython.bint,
                   winner=cython.Py_ssize_t, last=cython.Py_ssize_t, recorded=list,
                   mask=cython.ulonglong, watched=cython.longlong, rngs=list, rng=Rng,
                   picked=cython.bint, moving=cython.longlong, row=tuple, draw=cython.bint)
    def _play_cards(self, action: int, choose: Sequence[Chooser] = (),
                    observe: Sequence[Callable[[], dict[str, Any]]] = ()) -> None:
        """The trick loop, the one path of card play. From the seat to play, each turn: its legal moves (the follow
        rule's cards, or the game's own ``_card_ids``, with its parts' ``moves``) listed, ``choose[seat]`` picks one
        (``action`` -1; ``action`` >= 0: one move already chosen, checked and recorded by ``apply_id``, played alone
        and the loop returns), it is recorded and played: a plain card from the hand into the trick (a part's own
        moves by its ``play``), the best card kept; a full trick is gathered (the parts' ``trick_taken``, the stock
        drawn) and the deal scored after its last trick. The game is called only at those events and for the cards a
        part watches (``card_played``); after each the loop plays on while the play is as it read it
        (``_play_holds``), else it returns (as it does at the deal's end) and the caller plays on from the state as
        it is. While every seat's choice is the generator's own draw (``Rng.pick``, the random policy's chooser: it
        reads neither the observation nor the state) the loop draws it itself (``Rng.pick_index``, the same draw) and
        the legal moves are not written to the state (``_legal``, which an observation lists); if besides no part of
        the game is called during a trick, the loop is quiet: the card is drawn from the follow rule's mask with no
        list of ids made (``_picked_id``; so is a blind seat's card when its hand holds none of the cards that call
        for the parts' moves, ``PlayPart.moving``), and the trick's best card and the seat to play are written only
        before the game is called (a watched card, the trick's winner or end, the deal's score) and as the loop
        returns, not at every card."""
        me = self
        rules = self.RULES
        trump = me.trump
        beaters, beat = rules.by_trump[trump]
        plain_card, own, winner_rule, own_next, after_trick, watching, moves = self._loop_class
        hands = me.hands
        trick = me.trick
        size = me.trick_size
        watched = watching[0](self) if watching is not None else 0
        after = self._next_seats() if own_next else NEXT_SEATS[me.n_players]
        stop = action >= 0
        blind = quiet = False
        moving_of, moving = None, -1
        if not stop:  # what choosing takes: each turn's legal moves
            actions, follow, recorded = self.ACTIONS, rules.follow, me.moves  # (compiled: a C append to a typed list)
            ranked, suit_ids = actions.string_tables, actions.suit_tables
            own_ids = self._card_ids if own else None
            extras = moves if rules.extras else None
            # with extras, the cards that call for them (PlayPart.moving): read again after each call into a part
            moving_of = None if extras is None else self._playing.moving
            moving = -1 if moving_of is None else moving_of(self)
            over_suit = trump if follow.must_overtrump else -1  # the led suit whose cards are not all legal to follow
            # the Manille family's rule in place of follow's (no suit followed freely; partners by their teams)
            win_rule = rules.must_win
            teams = self.teams if win_rule is not None else me.side_of
            side_of, last = me.side_of, rules.tricks
            blind = all(map(draws_only, choose))
            # each seat's generator (its pick's __self__, which mypy does not know a Chooser has): it draws
            rngs = [getattr(chooser, "__self__") for chooser in choose] if blind else []  # noqa: B009
            quiet = blind and own_ids is None and extras is None
        player = me.current_player
        assert player is not None  # the caller plays only while someone is to act
        seat = player
        if stop:
            hand = hands[seat]
        played = len(trick)
        if trick:
            led, best, best_seat = SUIT[trick[0][1]], me.best_card, me.best_seat
            beats_best = beat[best]
        while True:
            if not stop:  # the seat's turn: its legal moves (follow_ids, with the hand's ids at hand), its choice
                hand = hands[seat]
                picked = False  # (draw: a card drawn from the follow rule's mask, with no list of ids made)
                # drawn so when the loop is quiet, or blind with no part's moves for this hand (PlayPart.moving)
                draw = quiet or (blind and own_ids is None and moving >= 0 and not hand & moving)
                if own_ids is not None:
                    legal = own_ids()
                elif not played:
                    if draw:
                        rng = rngs[seat]
                        action, picked = _picked_id(hand, ranked, rng), True
                    else:
                        legal = _ids_of(hand, ranked)
                else:
                    same = (hand >> 13 * led) & 0x1FFF  # the hand's ranks in the led suit
                    if same and led != over_suit and win_rule is None:  # following suit: the table's entry, listed
                        row = suit_ids[led][same]
                        if draw:  # (drawn from as it is)
                            rng = rngs[seat]
                            action, picked = row[rng.pick_index(len(row))], True
                        else:
                            legal = list(row)
                    else:
                        if win_rule is None:
                            mask = legal_mask(follow, hand, led, trump, beaters[best],
                                              side_of[best_seat] == side_of[seat])
                        else:
                            mask = win_rule.legal(hand, led, trump, best, teams[best_seat] == teams[seat], played == 1)
                        if draw:
                            rng = rngs[seat]
                            action, picked = _picked_id(mask, ranked, rng), True
                        else:
                            legal = _ids_of(mask, ranked)
                if not picked:
                    if extras is not None and (moving < 0 or hand & moving):
                        legal = extras(self, seat, legal)
                    if blind:  # the seat's generator picks (Rng.pick, its chooser: compiled, with no Python call)
                        rng = rngs[seat]
                        action = legal[rng.pick_index(len(legal))]
                    else:
                        me._legal = legal  # known while the seat chooses (its observation lists them)
                        action = choose[seat](legal, observe[seat])
                        if not listed(action, legal):
                            raise IllegalAction(self._describe_id(action), self.legal_actions(), self._where())
                recorded.append(pair(seat, action))
            card = plain_card[action]
            if card is not None:
                c = card
                hands[seat] = hand ^ (_ONE << c)
            else:  # a move of a play part's (or of the game's own _card_ids): the part that plays it plays it
                card = self._playing.play[action](self, seat, action)
                if moving_of is not None:
                    moving = moving_of(self)
                if card is None:  # no card played: the game says who moves next
                    if stop or not self._play_holds(rules, trump, trick, hands):
                        return
                    next_seat = me.current_player
                    assert next_seat is not None  # (_play_holds)
                    seat, watched = next_seat, watching[0](self) if watching is not None else 0
                    continue
                watched = -1  # (its card is not watched, the game saw it; the loop reads the play again below)
                c = card
            trick.append(pair(seat, card))
            played += 1
            if played == 1:
                led, best, best_seat = SUIT[c], c, seat
                beats_best = beat[c]
                if not quiet:
                    me.best_card, me.best_seat, me.overtrumps = card, seat, beaters[c]
            elif (beats_best >> c) & 1:
                best, best_seat = c, seat
                beats_best = beat[c]
                if not quiet:
                    me.best_card, me.best_seat, me.overtrumps = card, seat, beaters[c]
            if watched and (watched >> c) & 1:  # a watched card, or the game's own move's (-1)
                if quiet:  # (the game reads the state as the trick stands)
                    me.current_player = seat
                    me.best_card, me.best_seat, me.overtrumps = best, best_seat, beaters[best]
                if plain_card[action] is not None:
                    assert watching is not None  # (watched is set only by a watching part)
                    watching[1](self, seat, card)
                    if moving_of is not None:
                        moving = moving_of(self)
                    if me.current_player is None or me.trick is not trick:
                        return  # the game ended the deal (a void deal, Thunee 5.9), or the match
                if stop or not self._play_holds(rules, trump, trick, hands):
                    stop = True  # the loop stops after this card
                else:  # it plays on under what the game left
                    watched = watching[0](self) if watching is not None else 0
            if played < size:
                if quiet and not stop:
                    seat = after[seat]
                    continue
                seat = me.current_player = after[seat]
                if stop:
                    return
                continue
            # the trick is full: gathered (_gathered, the step apply_id's single card takes too), and the loop plays on
            # unless the deal is over or the game changed the phase, the rules or the trump
            if quiet and (winner_rule or after_trick is not None or stop or len(me.tricks) + 1 == last):
                # (the trick as it ended, as the loop writes it at every card when not quiet: the game reads it now)
                me.current_player = seat
                me.best_card, me.best_seat, me.overtrumps = best, best_seat, beaters[best]
            winner = self._won_by(trick) if winner_rule else best_seat
            seat = _gathered(self, rules, trick, winner, after, after_trick)
            if seat < 0 or stop:
                return
            trick, played = me.trick, 0
            if after_trick is not None and moving_of is not None:
                moving = moving_of(self)

    @cython.locals(me=TrickCore, seat=cython.Py_ssize_t, c=cython.Py_ssize_t, played=cython.Py_ssize_t,
                   hand=cython.ulonglong, hands=list, trick=list, beat=tuple, beaters=tuple, after=tuple,
                   winner=cython.Py_ssize_t)
    def _play_action(self, action: int) -> None:
        """Play the legal move ``action`` of the seat to play, checked and recorded (``apply_id``). A plain card that
        no part watches, in a game whose seats play in turn, takes the trick loop's step alone, with none of the
        loop's set-up: the card from the hand into the trick, the best card kept, the seat after it to play or, the
        trick full, the trick gathered by the loop's own ``_gathered``. Any other move (a part's, a watched card's)
        is played by the loop itself (``_play_cards``)."""
        me = self
        plain_card, _own, winner_rule, own_next, after_trick, watching, _moves = self._loop_class
        card = plain_card[action]
        if card is None or own_next or (watching is not None and (watching[0](self) >> card) & 1):
            self._play_cards(action)
            return
        player = me.current_player
        assert player is not None  # (a legal move has a seat to play it)
        seat, c = player, card
        hands, trick = me.hands, me.trick
        hand = hands[seat]
        hands[seat] = hand ^ (_ONE << c)
        trick.append(pair(seat, card))
        played = len(trick)
        rules = self.RULES
        beaters, beat = rules.by_trump[me.trump]
        if played == 1 or (beat[me.best_card] >> c) & 1:  # (the loop's test, its beats_best read from the state)
            me.best_card, me.best_seat, me.overtrumps = card, seat, beaters[c]
        after = NEXT_SEATS[me.n_players]
        if played < me.trick_size:
            me.current_player = after[seat]
            return
        winner = self._won_by(trick) if winner_rule else me.best_seat
        _gathered(self, rules, trick, winner, after, after_trick)

    @cython.locals(me=TrickCore)
    def _play_holds(self, rules: TrickRules, trump: int, trick: list[tuple[int, int]], hands: list[int]) -> bool:
        """After the game's own move or a watched card, whether the trick loop may play on with what it read as it
        started: the deal's play goes on under the same rules and trump, with the same trick and hands."""
        me = self
        return me.current_player is not None and me.phase == "play" and self.RULES is rules and \
            me.trump == trump and me.trick is trick and me.hands is hands

    def trick_totals(self) -> list[int]:
        """Each side's card points plus the last-trick bonus."""
        bonus = self.RULES.last_trick
        return [p + (bonus if side == self.last_trick_side else 0) for side, p in enumerate(self.card_points)]

    # ---- observations and positions -----------------------------------------------------------------------------

    def _trump_code(self) -> str | None:
        return None if self.trump == NO_TRUMP else SUITS[self.trump]

    def _observe(self, seat: int, obs: dict[str, Any]) -> None:
        obs["hand"] = codes_of(cards_in(self.hands[seat]))
        obs["trump"] = self._trump_code()
        obs["trick"] = [[s, CODES[c]] for s, c in self.trick]
        for key in self.OBSERVED:
            obs[key] = PLAY_FACTS[key][0](self)
        for phase in self._observing:  # each phase adds what the seat sees of it (the others see nothing of theirs)
            phase.observe(self, seat, obs)

    def _tricks_codes(self) -> list[list[list[Any]]]:
        return [[[s, CODES[c]] for s, c in trick] for trick in self.tricks]

    def _face_up_code(self) -> str | None:
        """The stock's face-up top card (STOCK_SHOWN), None once the stock is drawn."""
        return CODES[self.stock[self.stock_top]] if self.stock_top < len(self.stock) else None

    def _stock_codes(self) -> list[str]:
        """The stock under the cards everyone sees, top first."""
        return [CODES[c] for c in self.stock[self.stock_top + (self.STOCK_SHOWN or 0):]]

    def _load_deal(self, p: Mapping[str, Any], piles: Mapping[str, Sequence[int]] | None = None) -> int:
        """Load a position's play, returning the seat to play (``_load_tricks``): its phase one of ``PHASES``, its
        stock (``face_up`` and ``stock`` when STOCK_SHOWN) and the game's other ``piles`` with the hands and tricks
        the deck once each, the tricks replayed from deal_deck. The game's own keys the replay decides are checked
        after it (``_check_deal``)."""
        if self.phase not in self.PHASES:
            *others, last = (repr(phase) for phase in self.PHASES)
            raise PositionError(f"phase must be {', '.join(others)} or {last}, got {self.phase!r}")
        return self._load_tricks(p, {**self._position_stock(p), **(piles or {})})

    def _position_stock(self, p: Mapping[str, Any]) -> dict[str, list[int]]:
        """A position's stock, set as the stock (the replay deals it again) and returned as its card pile."""
        if self.STOCK_SHOWN is None:
            return {}
        cards = position_cards(p["stock"], "stock")
        if self.STOCK_SHOWN:
            face_up = [] if p["face_up"] is None else [parse_card(p["face_up"])]
            if cards and not face_up:
                raise PositionError("a stock with cards has its top card face up (face_up may not be null)")
            cards = face_up + cards
        self.stock, self.stock_top = cards, 0
        return {self._stock_key(): cards}

    def _stock_key(self) -> str:
        return "face_up and stock" if self.STOCK_SHOWN else "stock"

    def _check_deal(self, p: Mapping[str, Any], to_play: int) -> None:
        """After the replay (``_load_deal``): the keys it decides (POSITIONED, KEY_RULES) say what it says, the deal
        is over (phase 'over') exactly after its last trick, no card is played before phase 'play' (an auction, a
        trump choice, an exchange first), and in phase 'play' the seat to play is ``to_play``."""
        if self.phase not in ("play", "over") and (self.tricks or self.trick):
            raise PositionError(f"no card is played in phase {self.phase!r}")
        keys = self._position_keys()
        rules = {**{key: PLAY_FACTS[key][1] for key in self.POSITIONED}, **self.KEY_RULES}
        for key, rule in rules.items():
            if not same_json(p[key], keys[key]):
                raise PositionError(f"{rule}: {keys[key]!r} here, got {p[key]!r}")
        tricks, last = self.RULES.tricks, _ordinal(self.RULES.tricks)
        if self.phase == "over" and len(self.tricks) != tricks:
            raise PositionError(f"a match is over only after the {last} trick of a deal")
        if self.phase != "over" and len(self.tricks) == tricks:
            raise PositionError(f"after the {last} trick the deal is scored: phase {self.phase!r} needs a trick to "
                                "play")
        if self.phase == "play" and p["current_player"] != to_play:
            raise PositionError(f"current_player must be {to_play}, the seat to play to the trick")
        speaker = None if self.phase in ("play", "over") else self._seat_to_speak()
        if speaker is not None and p["current_player"] != speaker:
            raise PositionError(f"current_player must be {speaker}, the seat to act in phase {self.phase!r}")
        self.current_player = p["current_player"]

    def _load_tricks(self, p: Mapping[str, Any], piles: Mapping[str, Sequence[int]]) -> int:
        """Load ``hands``, ``trump``, ``trick`` and ``tricks`` and check them against the rules, returning the seat to
        play: with the game's other ``piles`` (key -> cards) they hold the deck once each; each hand is listed in
        canonical order; the tricks are played in turn, the dealer's left leading the first and each winner the
        next; replayed from the hands ``deal_deck`` dealt (``_deal_again``), every card was held by its player and
        allowed by the follow rule when played, and the hands left are the position's hands."""
        n = self.n_players
        hands = p["hands"]
        if not isinstance(hands, list) or len(hands) != n:
            raise PositionError(f"hands must list {n} seats")
        hand_cards = [position_hand(hand, f"hands[{seat}]") for seat, hand in enumerate(hands)]
        trump = NO_TRUMP if p["trump"] is None else suit_of_code(p["trump"])
        dealt = self._dealt_trump()
        if dealt is not None and trump != dealt[0]:
            raise PositionError(f"{dealt[1]}, got {p['trump']!r}")
        playing = sorted(set(self._next_seats()))  # (the seats some seat passes the turn to: those at the table)
        order = playing if len(playing) < n else None
        most, size = self.RULES.tricks, self.RULES.trick_cards or (n if order is None else len(order))
        if not isinstance(p["tricks"], list) or len(p["tricks"]) > most:
            raise PositionError(f"tricks must list at most {most} finished tricks")
        tricks = [position_trick(t, f"tricks[{k}]", n, most=size) for k, t in enumerate(p["tricks"])]
        trick = position_trick(p["trick"], "trick", n, most=size - 1)
        every = {f"hands[{seat}]": cards for seat, cards in enumerate(hand_cards)}
        every["trick"] = [c for _s, c in trick]
        every["tricks"] = [c for played in tricks for _s, c in played]
        check_cards_once({**every, **piles}, self._deck_cards())
        if self.STOCK_SHOWN is not None and self.stock and self.stock != self.deal_deck[-len(self.stock):]:
            raise PositionError(f"{self._stock_key()} must be the undrawn end of deal_deck, in order")
        misdeal = self._misdeal()
        if misdeal is not None:
            raise PositionError(f"deal_deck {misdeal}")
        self._check_dealt(trump, hand_cards)
        to_play = check_play_order(tricks, trick, self._first_leader(), n, self._winner_rule(trump),
                                   size=size, lead_passes=self.RULES.lead_passes, order=order)
        phase = self.phase
        self._deal_again(trump)
        self._loading = True
        for k, played in enumerate([*tricks, trick]):
            for seat, card in played:
                self.current_player = seat
                self._replay_card(f"tricks[{k}]" if k < len(tricks) else "trick", seat, card)
        del self._loading
        self.phase = phase
        for seat, cards in enumerate(hand_cards):
            left, given = self.hands[seat], mask_of(cards)
            if left != given:
                wrong, missing = codes_of(cards_in(given & ~left)), codes_of(cards_in(left & ~given))
                raise PositionError(f"hands[{seat}] must hold what deal_deck dealt seat {seat}, less what it played: "
                                    f"{' '.join(wrong) or 'nothing'} not its, {' '.join(missing) or 'nothing'} missing")
        return to_play

    def double_dummy_refusal(self) -> str | None:
        """Why this deal's card play is not what the double-dummy search plays (None when it is), for a game whose
        contracts change the play deal by deal."""
        return None

    def _winner_rule(self, trump: int) -> Callable[[list[int]], int]:
        """How a position's finished tricks were won, called for each in play order: its winning card's index."""
        return lambda cards: trick_winner(cards, trump, self.RULES.ranking)

    def _replay_card(self, key: str, seat: int, card: int) -> None:
        """Play a position's card again; PositionError naming it unless the seat held it and the rules allowed it."""
        action = self._card_action(seat, card)
        if action is None:
            raise PositionError(f"{key}: seat {seat} plays {CODES[card]}, which deal_deck did not deal it (or it had "
                                "played it already)")
        legal = self._card_ids()
        extras = self._playing.moves
        if self.ACTIONS.plain_card[action] is None and self.RULES.extras and extras is not None:  # (a slot's card)
            legal = extras(self, seat, legal)
        if action not in legal:
            allowed = ", ".join(self.ACTIONS.strings[a] for a in legal)
            raise PositionError(f"{key}: seat {seat} may not play {CODES[card]} there: the follow rule allows only "
                                f"{allowed}")
        self._play_action(action)

    # ---- determinization (engine/determinize.py) ----------------------------------------------------------------

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        """Deal again every card ``seat`` has not seen (``_unseen_slots``), so that the whole deal, from
        ``deal_deck`` on, is one the public play could come from (never a ``_misdeal``; when ``MISDEAL_TRIES`` samples
        are all misdeals, ``redeal_consistent``'s chain finds one, never the real deal for want of one). ``memo``
        (kept by the caller for one position and seat, see ``engine.determinize``) holds the slots and the chain's
        start from the first sample on. A phase may deal the sample its own way (``Phase.sample``); then each phase
        redoes what it keeps of the hands (``Phase.sampled``)."""
        if memo is None:
            memo = {}
        sampled = False
        for phase in self._hiding["sample"]:  # (a loop, not any() of a generator: no generator object, compiled too)
            if phase.sample(self, seat, rng, memo):
                sampled = True
                break
        if not sampled:
            if "slots" not in memo:
                memo["slots"] = slots = self._unseen_slots(seat)
                memo["start"] = known_start(slots) or [slot.cards for slot in slots]
                memo["misdeals"] = self._misdeals()
            slots, start = memo["slots"], memo["start"]
            if memo["misdeals"]:
                contents = redeal_consistent(slots, rng, lambda dealt: self._misdeal(relabeling(slots, dealt)) is None,
                                             MISDEAL_TRIES, WHOLE_SWEEPS, start)
            else:  # every deal is accepted: redeal_consistent's first draw, without its check
                contents = redeal(slots, rng, SWEEPS, start)
            self._redealt(seat, slots, contents, rng)
        for phase in self._hiding["sampled"]:
            phase.sampled(self, seat, rng)

    def _redealt(self, seat: int, slots: list[Slot], contents: list[list[int]], rng: Rng) -> None:
        """Give ``seat``'s unseen ``slots`` their new ``contents``: by default each card becomes the one dealt in its
        place; a phase whose records must be made again to fit them does it (``Phase.redealt``)."""
        for phase in self._hiding["redealt"]:
            if phase.redealt(self, seat, slots, contents, rng):
                return
        self._relabel(relabeling(slots, contents))

    def _misdeals(self) -> bool:
        """Whether some deal is a ``_misdeal`` (a game or its dealing phase says what makes one): else every sample
        is accepted as it is drawn."""
        dealing = self._dealing
        return type(self)._misdeal is not TrickGame._misdeal or (
            dealing is not None and type(dealing).misdeal is not Phase.misdeal)

    def unseen_fixed(self, seat: int) -> bool:
        """Whether everything ``seat`` has not seen is known by elimination: all of it in one other hand, none in a
        hidden pile (German Whist once the stock is drawn), so every sample of the state is the same deal."""
        known = self.hands[seat] | self._known_cards(seat)
        holders = sum(1 for other in range(self.n_players) if other != seat and self.hands[other] & ~known)
        return holders <= 1 and not any(self._hidden_piles(seat))

    def _unseen_slots(self, seat: int) -> list[Slot]:
        """The other hands' unseen cards, one slot per seat and per trick after which they came into the hand: each
        lacks the cards its player showed it did not hold from then on (a suit not followed, trumps not played when
        the rule asked for one); then the game's own hidden places (``_hidden_piles``)."""
        known = self.hands[seat] | self._known_cards(seat)
        lacks, ordered = self._shown_lacking(), in_deck_order(self.deal_deck)
        slots = []
        for other in range(self.n_players):
            if other == seat:
                continue
            entered: dict[int, list[int]] = {}
            for card in cards_in(self.hands[other] & ~known):
                entered.setdefault(self._entered(other, card), []).append(card)
            check = self._hand_check(other, known)
            for since, cards in sorted(entered.items()):
                forbidden = 0
                for k, mask in lacks[other]:
                    if k >= since:
                        forbidden |= mask
                slots.append(Slot(ordered(cards), forbidden, check))
        slots += [Slot(ordered(cards)) for cards in self._hidden_piles(seat) if cards]
        for phase in self._hiding["narrow"]:
            phase.narrow(self, seat, slots)
        return slots

    def _shown_lacking(self) -> list[list[tuple[int, int]]]:
        """Per seat, (trick number, cards) for each of its plays this deal that showed it held none of those cards:
        any card that, held with the one it played, would have made that play illegal."""
        trump, power = self.trump, self.RULES.ranking.power[self.trump]
        lacks: list[list[tuple[int, int]]] = [[] for _ in range(self.n_players)]
        for k, played in enumerate([*self.tricks, self.trick]):
            for i, (seat, card) in enumerate(played):
                if i == 0:
                    best_seat, best = seat, card
                    if self._played_blind(seat, card):
                        lacks[seat].append((k, FULL_MASK))  # a face-down card led: the hand was empty
                    continue
                led = SUIT[played[0][1]]
                if self._played_blind(seat, card):
                    lacking = SUIT_MASK[led]
                else:
                    lacking = self._lacking(played[:i], seat, card, best_seat, best)
                if lacking:
                    lacks[seat].append((k, lacking))
                if power[card] > power[best] and (SUIT[card] == SUIT[best] or SUIT[card] == trump):
                    best_seat, best = seat, card
        return lacks

    def _lacking(self, before: Sequence[tuple[int, int]], seat: int, card: int, best_seat: int, best: int) -> int:
        """The cards (a mask) ``seat`` showed it did not hold by playing ``card`` to the trick ``before`` (won so far
        by ``best``, played by ``best_seat``): any card that, held with it, would have made the play illegal."""
        follow, trump, led = self.RULES.follow, self.trump, SUIT[before[0][1]]
        over, partner = self.RULES.beaters[trump][best], self.side_of[best_seat] == self.side_of[seat]
        lacking = 0
        for x in range(52):
            if not legal_mask(follow, BIT[card] | BIT[x], led, trump, over, partner) & BIT[card]:
                lacking |= BIT[x]
        return lacking

    def shown_cards(self, seat: int) -> tuple[int, int, int] | None:
        """What ``seat``'s observation shows beside its hand and the trick, as masks for numeric encoders (envs/):
        the single face-up cards (``face_up``, ``turn_up``, ``bottom_card``, ``removed_card``), the cards of
        ``known_cards`` and ``stock_size`` (0 when not shown); None when they are read from ``observation(seat)``.
        By default derived from what the game declares: the stock's face-up top card (``STOCK_SHOWN``), each phase's
        ``face_up``, the cards of other hands ``_known_cards`` says the seat knows and the stock's size when
        ``OBSERVED`` shows it; None for a game whose shown cards change at any move (``GameInfo.shown_every_move``)
        unless it gives its own (then with ``trump_seen``, the trump as the seat knows it). A game whose observation
        shows them otherwise gives its own, equal to its observation's."""
        showing = self._showing
        if showing is None:
            return None
        if showing is SHOWS_NOTHING:
            return NOTHING_SHOWN
        top_shown, facing, knows, sized = showing
        face_up = known = size = 0
        if top_shown or sized:  # (read once: the stock's part is asked at almost every move of Two-Ten-Jack)
            stock, top = self.stock, self.stock_top
            left = len(stock) - top
            if top_shown and left:
                face_up = BIT[stock[top]]
            if sized:
                size = left
        for phase in facing:
            face_up |= phase.face_up(self, seat)
        if knows is not None:
            known = knows(self, seat)
            if known:
                hands = self.hands
                known &= sum(hands) ^ hands[seat]  # (disjoint masks: the other hands)
        return face_up, known, size

    def trump_seen(self, seat: int) -> int:
        """The trump suit as ``seat``'s observation shows it (``trump``), as numeric encoders read it beside
        ``shown_cards``: 0..3, or NO_TRUMP for none (or none known). The deal's trump by default; a game whose trump
        some seats do not know yet gives its own, equal to its observation's."""
        return self.trump

    def _known_cards(self, seat: int) -> int:
        """Cards in other hands whose place ``seat`` knows (a turn-up taken, a declaration shown): a mask, what the
        stock's draws showed (``STOCK_DRAWN_SHOWN``) and each phase's ``known``."""
        known = self._stock_drawn(seat) if self.STOCK_DRAWN_SHOWN else 0
        for phase in self._hiding["known"]:
            known |= phase.known(self, seat)
        return known

    def _stock_drawn(self, seat: int) -> int:
        """The cards drawn from the stock so far (``stock[:stock_top]``, a mask), which every seat saw drawn
        (``STOCK_DRAWN_SHOWN``)."""
        stock, drawn = self._draws
        if stock is not self.stock:
            stock = self.stock
            drawn = tuple(accumulate(map(BIT.__getitem__, stock), or_, initial=0))
            self._draws = stock, drawn
        return drawn[self.stock_top]

    def _entered(self, seat: int, card: int) -> int:
        """How many tricks were over when ``card`` came into ``seat``'s hand (0: dealt before the play): with
        ``draw_after_trick``, a stock card (the stock is the end of deal_deck) drawn after trick k entered at k + 1."""
        if not self.RULES.draw_after_trick:
            return 0
        first = len(self.deal_deck) - len(self.stock)
        index = self.deal_deck.index(card)
        return 0 if index < first else (index - first) // self.n_players + 1

    def _played_blind(self, seat: int, card: int) -> bool:
        """Whether ``seat`` played ``card`` from outside its hand (a part's ``played_blind``: German Whist's
        face-down cards)."""
        parts = self._playing.played_blind
        return bool(parts) and any(part.played_blind(self, seat, card) for part in parts)

    def _hand_check(self, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """The facts about ``seat``'s whole hand that a new deal of its unseen cards must keep, as one check (or
        None): each phase's ``hand_check``."""
        checks = []
        for phase in self._hiding["hand_check"]:
            check = phase.hand_check(self, seat, known)
            if check is not None:
                checks.append(check)
        return all_checks(checks)

    def _played_since(self, seat: int, trick: int = 0) -> int:
        """The cards (a mask) ``seat`` has played from trick ``trick`` on, the trick in play included: with its hand,
        what it held when that trick began (from 0: its dealt hand)."""
        return mask_of(c for played in [*self.tricks[trick:], self.trick] for s, c in played if s == seat)

    def _turn_in_trick(self, seat: int, k: int) -> int | None:
        """The place of ``seat``'s card in trick ``k`` (finished or in play), None if it has no turn there now."""
        played = self.tricks[k] if k < len(self.tricks) else self.trick
        for place, (s, _c) in enumerate(played):
            if s == seat:
                return place
        return len(played) if k == len(self.tricks) and seat == self.current_player else None

    def _dealt_hand_keeps(self, seat: int, known: int, fact: Callable[[int], object]) -> Callable[[list[int]], bool]:
        """A ``_hand_check`` that keeps ``fact`` of ``seat``'s dealt hand (a mask -> a value): its known cards and the
        cards it played, with the unseen cards a sample deals it (Belote's combinations, contrée's weak hand)."""
        played = self._played_since(seat)
        held, dealt = (self.hands[seat] & known) | played, fact(self.hands[seat] | played)

        # (run once per slot per sample: compiled, the hand is made in a C mask, no call; a card mask fits 64 bits)
        @cython.locals(hand=cython.ulonglong, one=cython.ulonglong, card=cython.Py_ssize_t)
        def keeps(cards: list[int]) -> bool:
            hand, one = held, 1
            for card in cards:
                hand |= one << card
            return fact(hand) == dealt

        return keeps

    def _hidden_piles(self, seat: int) -> list[list[int]]:
        """Unseen cards outside the hands (an undealt stock, face-down cards): by default the stock under the cards
        everyone sees (``STOCK_SHOWN``), then each phase's ``hidden`` piles."""
        piles = [] if self.STOCK_SHOWN is None else [self.stock[self.stock_top + self.STOCK_SHOWN:]]
        for phase in self._hiding["hidden"]:
            piles += phase.hidden(self, seat)
        return piles

    # Compiled, the relabeling is C calls that read it at C indices (engine/determinize.pxd): a sample relabels the
    # whole deck.
    @cython.locals(me=TrickCore, names=list)
    def _relabel(self, new: Sequence[int]) -> None:
        """Put ``new[card]`` wherever the deal holds ``card`` (hands, deal_deck, the stock, then each phase's own piles:
        its ``relabel``)."""
        me = self
        names = new if isinstance(new, list) else list(new)
        me.hands = relabel_masks(me.hands, names)
        self.deal_deck = relabel_cards(self.deal_deck, names)
        if self.STOCK_SHOWN is not None:
            me.stock = relabel_cards(me.stock, names)
        for phase in self._hiding["relabel"]:
            phase.relabel(self, new)

    def trick_winner_seats(self, last_winner: int, first: int | None = None) -> list[int]:
        """The seat that won each finished trick where the winner leads the next: the next trick's leader, and for
        the last one ``last_winner`` (the game's record of who leads next); of the ``first`` tricks only, if given."""
        tricks = self.tricks
        if first is not None and len(tricks) > first:  # (the first tricks' leaders alone: no list of every trick)
            return [trick[0][0] for trick in tricks[1:first + 1]]
        return [trick[0][0] for trick in tricks[1:]] + ([last_winner] if tricks else [])

    def _replay_actions(self, actions: object, key: str, over: Callable[[], bool]) -> None:
        """A position's ``key``, [seat, action] pairs in order, played again from the deal as dealt: each must be the
        turn's seat's legal action, and none may come once ``over()`` says the deal has ended (PositionError)."""
        if not isinstance(actions, list):
            raise PositionError(f"{key} must list [seat, action] pairs, got {actions!r}")
        for number, entry in enumerate(actions):
            where = f"{key}[{number}]"
            if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], str):
                raise PositionError(f"{where} must be a [seat, action] pair, got {entry!r}")
            seat = position_seat(entry[0], where, self.n_players)
            if over():
                raise PositionError(f"{where}: the deal was over before it")
            if seat != self.current_player or entry[1] not in self.legal_actions():
                raise PositionError(f"{where}: seat {seat} may not play {entry[1]!r} there (seat "
                                    f"{self.current_player} is to act, allowed: {', '.join(self.legal_actions())})")
            self.apply_id(self.ACTIONS.ids_of_string[entry[1]])

    def _load_seat(self, value: object, key: str) -> int | None:
        """A nullable seat of a position (the belote announcer, ...)."""
        return position_seat(value, key, self.n_players, nullable=True)


# The base's facts of the play, by key, for a game's OBSERVED and POSITIONED: how each is written, and the rule a
# position's value follows (checked against the replayed deal).
PLAY_FACTS: dict[str, tuple[Callable[[TrickGame], Any], str]] = {
    "tricks": (TrickGame._tricks_codes, "tricks lists the finished tricks"),
    "tricks_played": (lambda game: len(game.tricks), "tricks_played counts the finished tricks"),
    "tricks_won": (lambda game: list(game.tricks_won), "tricks_won must count the tricks each seat won"),
    "card_points": (lambda game: list(game.card_points), "card_points must add up the cards each side won"),
    "face_up": (TrickGame._face_up_code,
                "face_up is the stock's top card once the tricks have drawn theirs (null when none is left)"),
    "stock": (TrickGame._stock_codes, "stock is what the deal has not dealt or drawn of deal_deck, in order"),
    "stock_size": (lambda game: len(game.stock) - game.stock_top, "stock_size counts the stock's cards"),
}


@cython.cfunc
@cython.locals(me=TrickCore, seat=cython.Py_ssize_t, hand=cython.ulonglong)
def _rule_card_ids(game: TrickGame) -> list[int]:
    """``TrickGame._card_ids``: the legal card plays of the seat to play under the game's follow rule (or its
    ``must_win`` rule), a C call for ``_turn_ids`` and ``_legal_ids`` where the game keeps the base's."""
    me = game
    player = me.current_player
    assert player is not None  # legal actions are listed only while someone is to act
    seat = player
    trick, hand = me.trick, me.hands[seat]
    if not trick:
        return _ids_of(hand, game.ACTIONS.string_tables)  # (ACTIONS.ids, with no Python call compiled)
    rules = game.RULES
    if rules.must_win is not None:
        return _ids_of(game._playable(seat), game.ACTIONS.string_tables)
    side_of = me.side_of
    return _follow_ids(game.ACTIONS, rules.follow, hand, SUIT[trick[0][1]], me.trump, me.overtrumps,
                       side_of[me.best_seat] == side_of[seat])


@cython.cfunc
@cython.returns(cython.Py_ssize_t)
@cython.locals(me=TrickCore, winner=cython.Py_ssize_t, side=cython.Py_ssize_t, total=cython.Py_ssize_t,
               c=cython.Py_ssize_t, seat=cython.Py_ssize_t, trump=cython.Py_ssize_t, top=cython.Py_ssize_t,
               end=cython.Py_ssize_t, seats=cython.Py_ssize_t, k=cython.Py_ssize_t, drawn=cython.Py_ssize_t,
               to=cython.Py_ssize_t, held=cython.ulonglong, tricks=list, hands=list, worth=tuple,
               stop=cython.bint, passes=cython.bint, draws=cython.bint, last=cython.Py_ssize_t)
def _gathered(game: TrickGame, rules: TrickRules, trick: list[tuple[int, int]], winner: int, after: Sequence[int],
              after_trick: Callable[[Any, int], None] | None) -> int:
    """The trick loop's step at a full ``trick`` won by ``winner``, taken by the loop and by ``apply_id``'s single
    card (``TrickGame._play_action``) alike: the trick's card points and the trick to the winner's side, the next
    leader (the winner or, with lead_passes, the seat ``after`` the trick's leader), a new trick in play, the parts'
    ``after_trick``, the stock drawn in turn from the winner while it lasts, the deal scored after its last trick.
    The seat to play on, or -1 when the play stops here: the deal is over, or the game ended it or changed the play
    (its phase, rules or trump)."""
    me = game
    side = me.side_of[winner]
    points, passes, draws, last = rules.gathering
    if points is not None:
        total, worth = 0, points[me.trump]
        for _s, c in trick:
            total += worth[c]
        me.card_points[side] += total
    me.tricks_won[side] += 1
    tricks = me.tricks
    tricks.append(trick)
    seat = after[trick[0][0]] if passes else winner
    me.current_player = seat
    me.trick = []
    stop = False
    if after_trick is not None:
        trump = me.trump
        after_trick(game, winner)
        if me.current_player is None or me.tricks is not tricks:
            return -1  # the game ended the deal
        seat = me.current_player
        stop = me.phase != "play" or game.RULES is not rules or me.trump != trump
    if draws:  # each seat from the winner on, while the stock lasts
        top, stock = me.stock_top, me.stock
        end = len(stock)
        if top < end:
            hands = me.hands
            seats = len(hands)
            for k in range(seats):
                if top == end:
                    break
                drawn, to = stock[top], (winner + k) % seats
                held = hands[to]
                hands[to] = held | _ONE << drawn
                top += 1
            me.stock_top = top
    if len(tricks) == last:
        me.last_trick_side = side
        if not game._loading:
            game._score_deal()
        return -1
    return -1 if stop else seat


def _ordinal(n: int) -> str:
    """``_ordinal(26) == "26th"``, ``_ordinal(1) == "1st"``."""
    return f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def same_json(a: object, b: object) -> bool:
    """Whether two JSON values are the same (``true`` is not ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def position_hand(value: object, key: str) -> list[int]:
    """A position's hand: card codes in canonical order (as positions write them), else PositionError naming it.

    >>> position_hand(["7C", "2D"], "hands[0]")
    [5, 13]
    >>> position_hand(["2D", "7C"], "hands[0]")
    Traceback (most recent call last):
    engine.errors.PositionError: hands[0] must list its cards in canonical order: 7C 2D, got 2D 7C
    """
    cards = position_cards(value, key)
    if cards != sorted(cards):
        raise PositionError(f"{key} must list its cards in canonical order: {' '.join(codes_of(sorted(cards)))}, got "
                            f"{' '.join(CODES[c] for c in cards)}")
    return cards


FACEDOWN = "facedown:"  # the prefix of a card played face down (``facedown:7C``)


class FaceDownCards(PlayPart["FaceDownPlays"]):
    """The cards a deal's play put face down (``face_down``): declared before :data:`TRICK_PLAY`, which replays the
    deal with them played face down; in the play, it plays a card face down (``facedown:<card>``, which the game's
    ``_card_ids`` lists)."""

    KEYS = ("face_down",)

    def save(self, game: FaceDownPlays) -> dict[str, Any]:
        return {"face_down": codes_of(cards_in(game.down))}

    def load(self, game: FaceDownPlays, loading: Loading) -> None:
        game._down_given = mask_of(position_hand(loading.position["face_down"], "face_down"))

    def check(self, game: FaceDownPlays, loading: Loading) -> None:
        del game._down_given  # (the replay is over: every later card is played as its move says)

    def plays(self, game: type[FaceDownPlays]) -> tuple[int, ...]:
        return tuple(getattr(game, "DOWN_CARD", ()))  # (a game class declares DOWN_CARD)

    def play(self, game: FaceDownPlays, seat: int, action: int) -> int | None:
        card = game.DOWN_CARD[action]  # facedown:<card>
        game.down |= BIT[card]
        game.hands[seat] ^= BIT[card]
        return card

    def card_action(self, game: FaceDownPlays, seat: int, card: int) -> int | None:
        return game.DOWN_ID[card] if game.hands[seat] & BIT[card] & game._down_given else None


FACE_DOWN_CARDS = FaceDownCards()


class FaceDownPlays(TrickGame):
    """A trick game where a card may be played face down (Two-Ten-Jack 5.3): its action is ``facedown:<card>``
    (``DOWN_ID``, ``DOWN_CARD``: a game's ACTIONS list ``FACEDOWN`` + each card's code), ``down`` holds the cards so
    played this deal, and the other seats see ``facedown`` (in the trick, the moves and the history) until the trick
    is gathered.
    A sample deals the others' face-down cards of the trick in play again, none of ``DOWN_LACKS`` (what playing face
    down shows a hand lacked); positions list the deal's face-down cards under ``face_down``. A game lists them (its
    ``_card_ids``) and says which cards win; the trick loop plays them (:class:`FaceDownCards`)."""

    DOWN_ID: ClassVar[tuple[int, ...]]  # per card, the action that plays it face down
    DOWN_CARD: ClassVar[Mapping[int, int]]  # action -> the card it plays face down
    DOWN_LACKS: ClassVar[int] = 0
    DEAL_PHASES: ClassVar[tuple[Phase[Any], ...]] = (FACE_DOWN_CARDS, TRICK_PLAY)
    _down_given = 0  # loading a position: its face_down cards, replayed face down
    down: int  # the cards played face down this deal

    def _shown(self, seat: int, viewer: int, card: int) -> str:
        """A trick card as ``viewer`` sees it: a card played face down is hidden from the others until gathered."""
        if not self.down & BIT[card]:
            return CODES[card]
        return FACEDOWN + CODES[card] if seat == viewer else "facedown"

    def _observe(self, seat: int, obs: dict[str, Any]) -> None:
        super()._observe(seat, obs)
        obs["trick"] = [[s, self._shown(s, seat, c)] for s, c in self.trick]

    def action_seen_by(self, viewer: int | None, actor: int, action: str) -> str:
        """A card played face down shows the others no card when it is played (the history shows it once its trick
        is gathered)."""
        if viewer != actor and action.startswith(FACEDOWN):
            return "facedown"
        return action

    def _secret_moves_start(self) -> int:
        """The trick in play's moves while it holds a face-down card."""
        if any(self.down & BIT[c] for _s, c in self.trick):
            return max(0, len(self.moves) - len(self.trick))
        return len(self.moves)

    def _unseen_slots(self, seat: int) -> list[Slot]:
        slots = super()._unseen_slots(seat)
        return slots + [Slot([c], self.DOWN_LACKS) for s, c in self.trick if s != seat and self.down & BIT[c]]

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        if not any(self.down & BIT[c] for _s, c in self.trick):
            return
        self.trick = [(s, new[c]) for s, c in self.trick]  # a face-down card redealt: its move names the new card
        self.down = mask_of(new[c] for c in cards_in(self.down))
        moves = self.moves
        for k in range(max(0, len(moves) - len(self.trick)), len(moves)):  # (a loaded position's moves are fewer)
            s, action = moves[k]
            if action in self.DOWN_CARD:
                moves[k] = (s, self.DOWN_ID[new[self.DOWN_CARD[action]]])
