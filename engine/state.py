"""The generic match state: the contract every game implements (see ARCHITECTURE.md, "Engine contract").

A game subclasses :class:`State`, declares itself as data in ``INFO`` and its phases (``DEAL_PHASES``,
engine/phases.py: one of them deals from a deck order, they own the position keys beyond the common ones and say what
the other seats see of their moves) and implements a handful of methods: ``_legal_ids`` (legal actions as ints, in
string order), ``_apply``, ``action_string``, ``_observe``. The base class runs the match: dealer rotation, deal
results, match scores, the end of the match, legality checks, history, positions and observations.

Actions have two forms: strings at the edges (``"QS:3C,TD"``) and ints in hot loops. An action int is context free:
``action_string(a)`` depends on nothing but ``a``. ``legal_action_ids()`` lists the same actions, in the same order,
as ``legal_actions()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, overload

from .cards import CODES, parse_deck
from .clone import LIST, SHARED, SHARED_UNTIL_WRITTEN, Copier, copy_declared, copy_plan
from .dealing import seats_from
from .errors import IllegalAction, PositionError, UnsupportedPlayers
from .options import Option, OptionRule, resolve_options
from .pairs import pair
from .phases import Phase, dealing_phase, load_phases, save_phases, seeing_phases
from .rng import Rng, fresh_seed
from .scoring import leaders

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

# Picks a move: (the legal action ids, a function returning the observation of the seat to act) -> an action id.
Chooser = Callable[[Sequence[int], Callable[[], dict[str, Any]]], int]


def draws_only(chooser: Chooser) -> bool:
    """Whether a seat's chooser is a generator's own ``pick`` (the random policy's): it reads neither its observation
    nor the state, so a rollout loop need not write the legal moves to the state for it (``State.play_to_end``,
    ``TrickGame._play_cards``)."""
    return isinstance(getattr(chooser, "__self__", None), Rng) and getattr(chooser, "__name__", "") == "pick"

MAX_DEALS = Option(
    "max_deals", int, 0, "stop the match after this many deals (0 = play to the game's own end)", minimum=0
)


@dataclass(frozen=True)
class GameLength:
    """The most a match can take, like OpenSpiel's ``max_game_length``: ``deals`` dealt (every dealing counts, also
    one thrown in after an all-pass auction or dealt again on a player's request) of at most ``moves_per_deal`` moves.

    The engine enforces ``deals``: a match whose own end has not come by then ends after that many dealings, won by
    the side(s) with the highest score, as with ``max_deals``. ``moves_per_deal`` follows from the rules.

    >>> GameLength(deals=3, moves_per_deal=52).moves
    156
    """

    deals: int
    moves_per_deal: int

    @property
    def moves(self) -> int:
        return self.deals * self.moves_per_deal

    def to_dict(self) -> dict[str, Any]:
        return {"deals": self.deals, "moves_per_deal": self.moves_per_deal, "moves": self.moves}


@dataclass(frozen=True)
class GameInfo:
    """What a game is, as data: its id, names, player counts and options."""

    id: str
    name: str
    player_counts: tuple[int, ...]
    default_players: int
    options: tuple[Option, ...]
    summary: str
    deck_size: int = 0  # the cards of a deal; 0: the game's DECK counted when it registers
    aliases: tuple[str, ...] = field(default=())
    # Rules across the options, checked as a match starts (each option's own values are checked by the option).
    option_rules: tuple[OptionRule, ...] = ()
    # The longest match with the default options, per player count (filled in when the game registers).
    max_length: Mapping[int, GameLength] = field(default_factory=dict)
    # Player counts whose deck is not ``deck_size`` cards (Two-Ten-Jack removes 52 mod n cards).
    deck_sizes: Mapping[int, int] = field(default_factory=dict)
    # The phases a deal goes through (the game's ``PHASES``, filled in when the game registers): beyond "play" and
    # "over", its auctions, exchanges, trump choices and special calls.
    phases: tuple[str, ...] = ()
    # What the seats see and when (the observation encoders of envs/ read these):
    # some moves show their actor cards the other seats do not see (cards played or laid face down, discards);
    face_down: bool = False
    # face-up or known cards may change at any move, not only with the stock, the deal or a phase (a trump turned
    # up during the play, cards declared and played);
    shown_every_move: bool = False
    # face-up or known cards stop showing when they are played (a face-up stock drawn from, a bottom card shown).
    shown_until_played: bool = False

    def all_options(self) -> list[Option]:
        return [*self.options, MAX_DEALS]

    def deck_size_for(self, players: int) -> int:
        """The cards of one deal's deck with ``players`` players."""
        return self.deck_sizes.get(players, self.deck_size)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "player_counts": list(self.player_counts),
            "default_players": self.default_players,
            "deck_size": self.deck_size,
            "options": [o.to_dict(counts=self.player_counts) for o in self.all_options()],
            "max_length": {str(n): length.to_dict() for n, length in self.max_length.items()},
        }


# Dealings a match may take beyond its played deals (all-pass throw-ins, weak-hand redeals): 3 per played deal and 10.
SPARE_DEALINGS_PER_DEAL = 3
SPARE_DEALINGS = 10


@dataclass(frozen=True)
class MatchLength:
    """A game's longest match, declared (``State.LENGTH``): at most ``deals`` played deals (fewer with ``max_deals``)
    of at most ``moves`` moves each, each a number or a function of the player count and the options. A game that can
    deal a deal again without playing it (``redeals``: a throw-in, a weak hand's redeal) may also deal spare dealings
    for those.

    >>> whist = MatchLength(deals=lambda n, options: 2 * options["target"] - 1, moves=52)
    >>> whist.of(4, {"target": 5, "max_deals": 0}), whist.of(4, {"target": 5, "max_deals": 2}).deals
    (GameLength(deals=9, moves_per_deal=52), 2)
    """

    deals: int | Callable[[int, Mapping[str, Any]], int]
    moves: int | Callable[[int, Mapping[str, Any]], int]
    redeals: bool = False

    def of(self, players: int, options: Mapping[str, Any]) -> GameLength:
        """The GameLength with ``players`` players and these (resolved) options."""
        played = self.deals(players, options) if callable(self.deals) else self.deals
        moves = self.moves(players, options) if callable(self.moves) else self.moves
        if options["max_deals"]:
            played = min(played, options["max_deals"])
        spare = played * SPARE_DEALINGS_PER_DEAL + SPARE_DEALINGS if self.redeals else 0
        return GameLength(played + spare, moves)


@dataclass(frozen=True)
class Partnerships:
    """Seats in two partnerships sitting alternately (0 and 2 against 1 and 3; with six players 0, 2 and 4 against
    1, 3 and 5) whenever the players are an even number, four or more: a game's ``PARTNERSHIPS``. ``option``: only
    while that bool option is on; ``apart``: while that bool option is on, partners score apart, each seat its own
    side (Botifarra's three_game_rotation, whose partnerships change from game to game).

    >>> Partnerships().sides(4, {}), Partnerships().sides(3, {})
    ((0, 1, 0, 1), (0, 1, 2))
    >>> Partnerships(option="partnerships").teams(4, {"partnerships": False})
    (0, 1, 2, 3)
    """

    option: str | None = None
    apart: str | None = None

    def teams(self, players: int, options: Mapping[str, Any]) -> tuple[int, ...]:
        """Seat -> team: who plays as partners."""
        if players % 2 or players < 4 or (self.option is not None and not options[self.option]):
            return tuple(range(players))
        return tuple(seat % 2 for seat in range(players))

    def sides(self, players: int, options: Mapping[str, Any]) -> tuple[int, ...]:
        """Seat -> side: who pools points."""
        if self.apart is not None and options[self.apart]:
            return tuple(range(players))
        return self.teams(players, options)


# How a game derives a setting of the match from the player count and the options (``State.SETTINGS``): an option's
# name (the setting is its value), (an option's name, a table or a function that converts its value), or a function
# of the player count and the options.
Setting = str | tuple[str, Mapping[Any, Any] | Callable[[Any], Any]] | Callable[[int, Mapping[str, Any]], Any]


@cython.locals(items=list, k=cython.Py_ssize_t)
def listed(action: object, legal: Sequence[int]) -> bool:
    """``action in legal`` (``apply_id``'s and the trick loop's check of a chosen move). Compiled, a list is first
    scanned by identity in C: a policy returns one of the ints listed, which Python's ``in`` finds only after comparing
    each int before it as a number."""
    if cython.compiled and type(legal) is list:
        items = legal  # (a list: checked above)
        for k in range(len(items)):
            if items[k] is action:
                return True
    return action in legal


def derive(setting: Setting, players: int, options: Mapping[str, Any]) -> Any:
    """The value of one setting.

    >>> options = {"play_rules": "seed", "target": None}
    >>> derive("target", 4, options), derive(("play_rules", {"seed": 5}), 4, options), derive(lambda n, o: n, 4, {})
    (None, 5, 4)
    """
    if isinstance(setting, str):
        return options[setting]
    if isinstance(setting, tuple):
        name, convert = setting
        return convert[options[name]] if isinstance(convert, Mapping) else convert(options[name])
    return setting(players, options)


# Match settings already resolved (State._match_settings), by game class, player count and given options: the
# options, the GameLength and the attributes a match starts with (SETTINGS and the sides), each with how a match copies
# it (None: shared).
Resolved = tuple[dict[str, Any], GameLength, tuple[tuple[str, Any, Copier | None], ...]]
_SETTINGS: dict[tuple[Any, ...], Resolved] = {}
MOST_SETTINGS = 1024


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise PositionError(message)


class State(ABC):
    """A match in progress. Create one with ``engine.new_match`` or ``engine.from_position``."""

    INFO: ClassVar[GameInfo]
    # How clone() copies each attribute (engine/clone.py); every game class declares its own attributes the same way.
    COPY: ClassVar[Mapping[str, Copier | None]] = {
        "_rng": SHARED_UNTIL_WRITTEN, "moves": LIST,
        # changed only as a deal ends (or a sweep scores), each time replaced whole (a match being loaded from a
        # position, which nobody has cloned yet, sets its own in place); a finished deal's record is never changed
        "side_scores": SHARED, "deal_results": SHARED,
        "options": SHARED, "deal_deck": SHARED, "winners": SHARED, "length": SHARED,
        "_legal": SHARED,  # legal-id lists are never changed in place (games hand out cached tables)
    }
    # Position keys of what a later deal inherits from the deals before it, besides scores, dealer and RNG: a replay
    # of that deal alone carries them (replay.record.header_at_start). Each game appends its own.
    CARRIED: ClassVar[tuple[str, ...]] = ("redealt",)
    # The deck in canonical order (INFO.deck_size counts it); a game whose deck depends on the match (its players,
    # an option) overrides _deck_cards instead.
    DECK: ClassVar[tuple[int, ...]]
    # The position keys of the game's own that hold cards (a face-up card, a pile set aside), besides the common
    # ``hands``, ``captured``, ``table``, ``stock``, ``trick`` and ``tricks``: the generic suites count the deck's
    # cards over all of them (every card once, in every position).
    POSITION_CARD_PILES: ClassVar[tuple[str, ...]] = ()
    # Whether a match can end with no winner (``winners == []``: Boonaken's loser, 8.2); every other game's finished
    # match names at least one winning side.
    NO_WINNER_POSSIBLE: ClassVar[bool] = False
    # The longest match (a MatchLength: its most dealings and the most moves of one dealing).
    LENGTH: ClassVar[MatchLength]
    # Seats in partnerships (a Partnerships), or None: every seat plays and scores on its own.
    PARTNERSHIPS: ClassVar[Partnerships | None] = None
    # What a match starts with, derived from its player count and options: attribute -> Setting (see ``derive``).
    # Worked out once per game, player count and options and shared by their matches: an attribute a match changes in
    # place (declared in COPY) is copied for each. A subclass's table adds to its bases'.
    SETTINGS: ClassVar[Mapping[str, Setting]] = {}
    side_of: tuple[int, ...]  # seat -> side; sides pool their points (PARTNERSHIPS)
    teams: tuple[int, ...]  # seat -> team: who plays as partners (``partners``); the sides unless partners score apart
    # What every match holds (set by create and by from_position; each game adds its own).
    n_players: int  # the number of players
    options: dict[str, Any]
    length: GameLength
    dealings: int  # deals dealt, redeals included
    seed: int
    _rng: Rng  # the match's generator, perhaps still shared with a clone (read it as ``rng``)
    side_scores: list[int]
    deal_index: int
    deal_results: list[dict[str, Any]]
    winners: list[int] | None
    moves: list[tuple[int, int]]  # (seat, action int) since the match began
    dealing_start = 0  # the index in moves of this dealing's first move (a loaded position's moves begin there)
    _legal: list[int] | None  # the legal action ids, while they are known
    first_dealer: int
    dealer: int
    deal_deck: list[int]
    phase: str
    current_player: int | None
    PHASES: ClassVar[tuple[str, ...]] = ("play", "over")  # the phases of a deal; a game with more names them
    # The phases of a deal as components, in order (engine/phases.py): their keys are the position's own keys.
    DEAL_PHASES: ClassVar[tuple[Phase[Any], ...]] = ()
    # The declared phases that keep part of their moves from the other seats (set for each class).
    _seeing: ClassVar[tuple[Phase[Any], ...]] = ()
    # The declared phase that deals (set for each class).
    _dealing: ClassVar[Phase[Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._seeing = seeing_phases(cls.DEAL_PHASES)
        cls._dealing = dealing_phase(cls.DEAL_PHASES)

    # ---- construction -------------------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        seed: int | None = None,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        first_dealer: int | None = None,
        deck: list[str] | None = None,
    ) -> State:
        if options is not None and type(options) is not dict and not isinstance(options, Mapping):
            raise ValueError(f"options must be a mapping of option names to values, got {type(options).__name__}")
        options = dict(options) if options else {}
        alias = options.pop("num_players", None) if "num_players" in options else None
        if "players" in options:  # (the options table of boonaken.md and thunee.md names it ``players``)
            named = options.pop("players")
            if alias is not None and named is not None and named != alias:
                raise ValueError(f"players given twice with different values (players={named} and num_players={alias})")
            alias = alias if alias is not None else named
        players = cls._resolve_players(players, alias)
        if "first_dealer" in options:
            alias = options.pop("first_dealer")
            if first_dealer is not None and alias is not None and alias != first_dealer:
                raise ValueError(f"first_dealer given twice with different values ({first_dealer} and {alias})")
            first_dealer = first_dealer if first_dealer is not None else alias
        if seed is None:
            seed = fresh_seed()
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self = cls._new_match(players, cls._match_settings(players, options), seed)
        if first_dealer is not None:
            if not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or not 0 <= first_dealer < players:
                raise ValueError(f"first_dealer must be a seat 0..{players - 1}, got {first_dealer!r}")
            self.dealer = first_dealer
        else:
            self.dealer = self._draw_first_dealer()
        self.first_dealer = self.dealer
        deck_order = parse_deck(deck, self._deck_cards()) if deck is not None else None
        self._begin_deal(deck_order)
        return self

    @classmethod
    def _new_match(cls, players: int, resolved: Resolved, seed: int) -> Self:
        """A match before anything is dealt: the attributes every match holds, set in this one place (``create`` then
        draws the dealer and deals; ``from_position`` sets what the position says)."""
        options, length, settings = resolved
        self = cls.__new__(cls)  # (attributes set one by one: reading __dict__ would make later reads slower)
        self.n_players = players
        self.options, self.length = dict(options), length
        self.seed = seed
        self._rng = Rng(seed)
        for name, value, copy in settings:  # the game's SETTINGS, the teams and the sides
            setattr(self, name, value if copy is None else copy(value))
        self.side_scores = [0] * (max(self.side_of) + 1)
        self.dealings = self.deal_index = 0
        self.deal_results = []
        self.winners = None
        self.moves = []
        self._legal = None
        return self

    @classmethod
    def _match_settings(cls, players: int, given: Mapping[str, Any]) -> Resolved:
        """The options resolved and checked (the rules across them, ``INFO.option_rules``, included), the GameLength
        and the attributes a match starts with: remembered per game, player count and given options (rollouts start
        a match with the same ones again and again)."""
        key: tuple[Any, ...] | None = None
        known = None
        try:
            # (no options given, as in most rollouts: the same key without a generator's set-up)
            key = (cls, players, *((k, type(v), v) for k, v in sorted(given.items()))) if given else (cls, players)
            known = _SETTINGS.get(key)
        except TypeError:  # a value that is no option value (unhashable): resolve_options names it
            key = None
        if known is None:
            info = cls.INFO
            options = resolve_options(info.all_options(), given, players, info.id)
            for rule in info.option_rules:
                rule.check(options)
            table: dict[str, Setting] = {}
            for klass in reversed(cls.__mro__):
                table.update(klass.__dict__.get("SETTINGS", {}))
            settings = {name: derive(setting, players, options) for name, setting in table.items()}
            partnerships = cls.PARTNERSHIPS
            if partnerships is None:
                settings["teams"] = settings["side_of"] = tuple(range(players))
            else:
                settings["teams"] = partnerships.teams(players, options)
                settings["side_of"] = partnerships.sides(players, options)
            copies = dict(copy_plan(cls))
            known = (options, cls.LENGTH.of(players, options),
                     tuple((name, value, copies.get(name)) for name, value in settings.items()))
            if key is not None and len(_SETTINGS) < MOST_SETTINGS:
                _SETTINGS[key] = known
        return known

    @classmethod
    def game_length(cls, players: int | None = None, options: Mapping[str, Any] | None = None) -> GameLength:
        """The longest match with these players and options (the game's defaults where not given)."""
        n = cls._resolve_players(players, None)
        return cls.LENGTH.of(n, resolve_options(cls.INFO.all_options(), options, n, cls.INFO.id))

    @classmethod
    def _resolve_players(cls, players: int | None, alias: int | None) -> int:
        info = cls.INFO
        if players is not None and alias is not None and players != alias:
            raise ValueError(f"players given twice with different values ({players} and num_players={alias})")
        n = players if players is not None else alias if alias is not None else info.default_players
        if not isinstance(n, int) or isinstance(n, bool) or n not in info.player_counts:
            raise UnsupportedPlayers(info.id, n, tuple(info.player_counts))
        return n

    # ---- what a game implements ---------------------------------------------------------------------------------

    def _deck_cards(self) -> list[int]:
        """The cards of one deal's deck, in canonical order: ``DECK``, or the dealing phase's ``deck``."""
        dealing = self._dealing
        return list(self.DECK) if dealing is None else dealing.deck(self)

    def _draw_first_dealer(self) -> int:
        """The game's own rule for drawing the first dealer, using ``self.rng``: its dealing phase's."""
        dealing = self._dealing
        return self.rng.below(self.n_players) if dealing is None else dealing.first_dealer(self)

    def _start_deal(self, deck: list[int]) -> None:
        """Deal from ``deck`` (top first) and set ``phase`` and ``current_player``: the phase that deals does
        (``Phase.deal``)."""
        dealing = self._dealing
        assert dealing is not None, f"{type(self).__name__} declares no phase that deals"
        dealing.deal(self, deck)

    @abstractmethod
    def _legal_ids(self) -> list[int]:
        """The legal actions as ints, listed in the plain string order of their action strings."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Play a legal action (already checked) for ``current_player``."""

    @abstractmethod
    def action_string(self, action: int) -> str:
        """The action string of an action int (a pure function of the int)."""

    def _match_winners(self) -> list[int] | None:
        """After a deal: the winning sides if the match is over (an empty list only if NO_WINNER_POSSIBLE), else
        None."""
        return None

    def _observe(self, seat: int, obs: dict[str, Any]) -> None:
        """Add what ``seat`` may know of the deal to ``obs``."""

    def _position_keys(self) -> dict[str, Any]:
        """The game's own position keys (hands, table, ...): its phases' keys."""
        return save_phases(self)

    # ---- the match ----------------------------------------------------------------------------------------------

    def _begin_deal(self, deck: list[int] | None) -> None:
        dealings = self.dealings = self.dealings + 1
        # deal_deck is a copy of a given deck; a shuffled one is the match's own already
        self.deal_deck = self._shuffled_deck() if deck is None else list(deck)
        self._legal = None
        self.dealing_start = len(self.moves)
        self._start_deal(list(self.deal_deck))
        if dealings > self.length.deals:  # (cut_short, without a property's call)
            self._finish_match(leaders(self.side_scores))

    @property
    def cut_short(self) -> bool:
        """The match ended at its GameLength as a deal was dealt again (after a throw-in or redeal): unplayed."""
        return self.dealings > self.length.deals

    def _shuffled_deck(self) -> list[int]:
        deck = self._deck_cards()
        self.rng.shuffle(deck)
        return deck

    def _next_dealer(self) -> int:
        dealing = self._dealing
        return (self.dealer + 1) % self.n_players if dealing is None else dealing.next_dealer(self)

    def seats_from_dealer(self) -> list[int]:
        """The seats in order of play from the dealer's left (who is dealt to, speaks and leads first)."""
        return seats_from(self.dealer + 1, self.n_players)

    def partners(self, a: int, b: int) -> bool:
        """Whether two different seats play as partners (on one team)."""
        return a != b and self.teams[a] == self.teams[b]

    def partner_of(self, seat: int) -> int | None:
        """The seat's partner, the one other seat on its side (None without partnerships)."""
        teams, found, count = self.teams, None, 0  # (a loop: compiled, no comprehension's call per seat)
        for other in range(len(teams)):
            if other != seat and teams[other] == teams[seat]:
                found, count = other, count + 1
        return found if count == 1 else None

    def _record_deal(self, points: list[int], counters: dict[str, Any]) -> None:
        _record(self, points, counters)

    @cython.locals(side=cython.Py_ssize_t)
    def _deal_over(self, points: list[int], scored_during_deal: list[int] | None = None, **counters: Any) -> None:
        """Record a finished deal's points (per side) and either end the match or deal the next one.

        ``points`` is the whole deal's score per side; ``scored_during_deal`` is the part of it already added to the
        match score as it happened (Tablanette's sweeps).
        """
        scores = self.side_scores = self.side_scores[:]  # (shared with clones: replaced whole)
        if scored_during_deal:
            for side, p in enumerate(points):
                scores[side] += p - scored_during_deal[side]
        else:
            for side, p in enumerate(points):
                scores[side] += p
        _record(self, points, counters)  # (_record_deal's and _finish_match's C functions: no method look-up)
        winners = self._match_winners()
        if winners is None:  # (the options and the length read only while the game's own end has not come)
            limit = self.options["max_deals"]
            if (limit and self.deal_index + 1 >= limit) or self.dealings >= self.length.deals:
                winners = leaders(self.side_scores)
        if winners is not None:
            _finish(self, winners)
            return
        self.deal_index += 1
        self.dealer = self._next_dealer()
        self._begin_deal(None)

    def _finish_match(self, winning_sides: list[int]) -> None:
        _finish(self, winning_sides)

    # ---- the public contract ------------------------------------------------------------------------------------

    @property
    def game_id(self) -> str:
        return self.INFO.id

    @property
    def players(self) -> int:
        return self.n_players

    @property
    def is_terminal(self) -> bool:
        return self.current_player is None

    @property
    def scores(self) -> list[int]:
        """Match scores per seat; partners share their side's score."""
        return [self.side_scores[self.side_of[seat]] for seat in range(self.n_players)]

    @property
    def max_moves_left(self) -> int:
        """The most moves the match can still take from the start of the current dealing (see GameLength)."""
        return (self.length.deals - self.dealings + 1) * self.length.moves_per_deal

    @property
    def history(self) -> list[tuple[int, str]]:
        return [(seat, self.action_string(a)) for seat, a in self.moves]

    def legal_action_ids(self) -> list[int]:
        if self._legal is None:
            self._legal = [] if self.current_player is None else self._legal_ids()
        return self._legal

    def legal_actions(self) -> list[str]:
        return [self.action_string(a) for a in self.legal_action_ids()]

    def turn_choices(self) -> list[str]:
        """The moves a person chooses among now, each a whole turn in the rules' notation: ``legal_actions()``,
        except in a game whose turn the engine decides in several steps (a fishing game's capture: ``KS:4C,TD``,
        not ``KS:``, ``+4C``, ``+TD``). ``apply`` takes each of them (see ``action_ids``)."""
        return self.legal_actions()

    def action_id(self, action: str) -> int:
        """The int of a legal action string; IllegalAction if it is not legal now."""
        for a in self.legal_action_ids():
            if self.action_string(a) == action:
                return a
        raise IllegalAction(action, self.legal_actions(), self._where())

    def action_ids(self, action: str) -> list[int]:
        """The ints that play ``action``: one legal action, or (a fishing game's whole turn such as ``"KS:4C,TD"``)
        the decisions that make it up; IllegalAction if it is not legal now."""
        return [self.action_id(action)]

    def apply_id(self, action: int) -> None:
        legal = self._legal
        if legal is None:
            legal = self.legal_action_ids()
        if not listed(action, legal):
            raise IllegalAction(self._describe_id(action), self.legal_actions(), self._where())
        seat = self.current_player
        assert seat is not None  # a legal action has a seat to play it
        self.moves.append(pair(seat, action))
        self._legal = None
        self._apply(action)

    @cython.locals(recorded=list, blind=cython.bint, moves=cython.Py_ssize_t, seat=cython.Py_ssize_t)
    def play_to_end(self, choose: Sequence[Chooser], observe: Sequence[Callable[[], dict[str, Any]]]) -> int:
        """Play the match to its end, ``choose[seat](legal_ids, observe[seat])`` picking each move of ``seat`` (a
        policy's ``choose_id``); return the number of moves. The engine's own rollout loop (bots' ``play_out``,
        search rollouts): the same moves as ``legal_action_ids`` and ``apply_id`` one at a time, with less per move
        (the legal ids are listed once, not cached). A chosen id that is not legal raises IllegalAction before
        anything changes, as ``apply_id`` does.

        >>> import engine
        >>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
        >>> state.play_to_end([lambda ids, observe: ids[0]] * 2, [lambda: {}] * 2), state.is_terminal
        (52, True)
        """
        legal_ids, apply, recorded = self._legal_ids, self._apply, self.moves  # (compiled: a C append, typed)
        # While every seat's choice is the generator's own draw (it reads neither the observation nor the state), the
        # legal moves are not written to the state (``_legal``, which an observation lists) but where a choice fails.
        blind = all(map(draws_only, choose))
        moves = 0
        self._legal = None
        while True:
            player = self.current_player
            if player is None:
                self._legal = None
                return moves
            seat = player  # (compiled: a C integer, the seat's chooser and observer found without a Python index)
            legal = legal_ids()
            if not blind:
                self._legal = legal  # known while the seat chooses (its observation lists them)
            action = choose[seat](legal, observe[seat])
            if action not in legal:
                self._legal = legal
                raise IllegalAction(self._describe_id(action), self.legal_actions(), self._where())
            recorded.append(pair(seat, action))
            if not blind:
                self._legal = None
            apply(action)
            moves += 1

    def apply(self, action: str | int) -> None:
        """Play an action string (or its int); IllegalAction leaves the state unchanged.

        A string may also be a whole move made of several actions (see ``action_ids``).
        """
        if isinstance(action, int) and not isinstance(action, bool):
            self.apply_id(action)
        elif isinstance(action, str):
            for action_id in self.action_ids(action):
                self.apply_id(action_id)
        else:
            raise IllegalAction(action, self.legal_actions(), self._where())

    def _describe_id(self, action: int) -> str:
        try:
            return self.action_string(action)
        except (IndexError, KeyError, ValueError, TypeError):
            return f"action id {action!r}"

    def _where(self) -> str:
        if self.current_player is None:
            return f"{self.game_id}: the match is over"
        # deals counted from 1, as people count them (the page, the CLI, the exports): deal_index is 0 in the first
        return f"{self.game_id} deal {self.deal_index + 1}, {self.phase}, seat {self.current_player} to act"

    @property
    def rng(self) -> Rng:
        """The match's generator (shuffles, cuts, the first dealer), its own: one still shared with a clone or the
        original (``clone`` shares it, marked shared) is copied first."""
        rng = self._rng
        if rng.shared:
            rng = self._rng = rng.copy()
        return rng

    @rng.setter
    def rng(self, rng: Rng) -> None:
        self._rng = rng

    def clone(self) -> Self:
        """An independent copy: each mutable attribute copied once (as ``COPY`` declares), the rest shared."""
        return copy_declared(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._where()} scores={self.scores}>"

    # ---- observations -------------------------------------------------------------------------------------------

    def observation(self, seat: int, history: bool = True) -> dict[str, Any]:
        """A JSON-ready dict of what ``seat`` may know: own hand, public cards, public history, scores.

        ``history=False`` leaves the history out, so the cost does not grow with the match (bots, live servers).
        """
        if not isinstance(seat, int) or not 0 <= seat < self.n_players:
            raise ValueError(f"seat must be 0..{self.n_players - 1}, got {seat!r}")
        obs = {
            "game": self.game_id,
            "seat": seat,
            "players": self.n_players,
            "options": dict(self.options),
            "deal_index": self.deal_index,
            "dealer": self.dealer,
            "phase": self.phase,
            "current_player": self.current_player,
            "scores": self.scores,
            "legal_actions": self.legal_actions() if seat == self.current_player else [],
        }
        if history:
            obs["history"] = self._public_history(seat)
        if self.winners is not None:
            obs["winners"] = list(self.winners)
        self._observe(seat, obs)
        return obs

    def _public_history(self, seat: int) -> list[list[Any]]:
        """The moves ``seat`` may see: each as played, from ``_secret_moves_start()`` on as ``action_seen_by`` shows
        it."""
        start, moves = self._secret_moves_start(), self.moves
        return [[s, self.action_string(a)] for s, a in moves[:start]] + [
            [s, self.action_seen_by(seat, s, self.action_string(a))] for s, a in moves[start:]]

    def _secret_moves_start(self) -> int:
        """The index in ``moves`` from which the history may keep part of a move from the other seats
        (``action_seen_by``): by default none (len(moves)); 0 when a move stays secret for the whole match. The
        phases that keep some say (``Phase.secret_from``)."""
        start = len(self.moves)
        for phase in self._seeing:
            start = min(start, phase.secret_from(self))
        return start

    def action_seen_by(self, viewer: int | None, actor: int, action: str) -> str:
        """How ``viewer`` (a seat, or None: anyone) sees ``action``, a move ``actor`` has just played: the action
        itself, unless a phase keeps part of it from the other seats (``Phase.seen_as``: Trappola's sets declared by
        their size)."""
        for phase in self._seeing:
            action = phase.seen_as(self, viewer, actor, action)
        return action

    # ---- positions ----------------------------------------------------------------------------------------------

    def to_position(self) -> dict[str, Any]:
        """A JSON document that describes the state completely enough to continue play (like FEN)."""
        position = {
            "game": self.game_id,
            "players": self.n_players,
            "options": dict(self.options),
            "seed": self.seed,
            "rng": self._rng.state,
            "first_dealer": self.first_dealer,
            "dealer": self.dealer,
            "deal_index": self.deal_index,
            "phase": self.phase,
            "current_player": self.current_player,
            "scores": self.scores,
            "deal_deck": [CODES[c] for c in self.deal_deck],
        }
        if self.winners is not None:
            position["winners"] = list(self.winners)
        if self.dealings > self.deal_index + 1:  # deals dealt again without play count toward the GameLength
            position["redealt"] = self.dealings - self.deal_index - 1
        position.update(self._position_keys())
        return position

    @classmethod
    def deal_start_position(cls, position: dict[str, Any]) -> dict[str, Any]:
        """A position at the start of a later deal, made from a new match's first position given that deal's dealer,
        deck, scores and carried keys (a replay of that deal alone): the same, unless a phase's carried keys make the
        deal (``Phase.carry``: Boonaken 8.3's seats still at the table); then the deal is dealt again from
        ``deal_deck`` with them."""
        carrying = [phase for phase in cls.DEAL_PHASES if type(phase).carry is not Phase.carry]
        if not carrying:
            return position
        state = cls.create(seed=position["seed"], players=position["players"], options=position["options"],
                           first_dealer=position["dealer"], deck=position["deal_deck"])
        for seat, score in enumerate(position["scores"]):
            state.side_scores[state.side_of[seat]] = score
        state.deal_index = position_count(position["deal_index"], "deal_index")
        for phase in carrying:
            phase.carry(state, position)
        state._start_deal(list(state.deal_deck))
        return {**position, **state._position_keys(), "current_player": state.current_player}

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> State:
        if not isinstance(position, Mapping):
            raise PositionError(f"a position is a JSON object, got {type(position).__name__}")
        try:
            return cls._from_position(position)
        except PositionError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise PositionError(f"bad {cls.INFO.id} position: {what}") from None

    @classmethod
    def _from_position(cls, p: Mapping[str, Any]) -> State:
        _check(p["game"] == cls.INFO.id, f"position is for game {p['game']!r}, not {cls.INFO.id!r}")
        players = cls._resolve_players(p["players"], None)
        _check(isinstance(p["options"], Mapping), f"options must be a JSON object, got {p['options']!r}")
        self = cls._new_match(players, cls._match_settings(players, p["options"]), _int(p, "seed"))
        self.rng.state = _int(p, "rng")
        self.first_dealer = _seat(p, "first_dealer", self.n_players)
        self.dealer = _seat(p, "dealer", self.n_players)
        self.deal_index = _int(p, "deal_index")
        self.dealings = self.deal_index + 1 + (_int(p, "redealt") if "redealt" in p else 0)
        _check(self.dealings <= self.length.deals + 1,
               f"deal_index + 1 + redealt may be at most {self.length.deals + 1} (the game's longest match and the "
               f"deal it ended at), got {self.dealings}")
        self.deal_deck = parse_deck(p["deal_deck"], self._deck_cards())
        scores = p["scores"]
        n = self.n_players
        _check(isinstance(scores, list) and len(scores) == n, f"scores must list {n} integers")
        for seat, score in enumerate(scores):
            _check(isinstance(score, int) and not isinstance(score, bool), f"score {score!r} is not an integer")
            side = self.side_of[seat]
            _check(seat == self.side_of.index(side) or self.side_scores[side] == score,
                   f"partners' scores differ: {scores}")
            self.side_scores[side] = score
        self.phase = p["phase"]
        self.current_player = p["current_player"]
        self.winners = p.get("winners")
        if self.phase == "over" or self.winners is not None:
            _check(self.phase == "over" and self.current_player is None,
                   "a finished match has phase 'over', current_player null and its winners")
            _check_winners(self.winners, self.side_of, self.NO_WINNER_POSSIBLE)
        else:
            _seat(p, "current_player", self.n_players)
        if self.cut_short:
            self._load_cut_short(p)
        else:
            load_phases(self, p)
        return self

    def _load_cut_short(self, p: Mapping[str, Any]) -> None:
        """A match ended at its GameLength as a deal was dealt: that deal as dealt from ``deal_deck``, unplayed."""
        _check(self.phase == "over", "a match past its longest length (redealt) is over")
        for phase in self.DEAL_PHASES:
            phase.carry(self, p)
        self._start_deal(list(self.deal_deck))
        self._finish_match(leaders(self.side_scores))
        keys = self._position_keys()
        _check(keys == {key: p.get(key) for key in keys}, "a match that ended at its longest length holds the deal "
               "dealt from deal_deck, unplayed")


# The deal's end, run at the end of every play-out of a search: State._record_deal and State._finish_match, which
# no game overrides, as C functions when compiled (State._deal_over calls them without a method's look-up).


@cython.cfunc
def _record(state: State, points: list[int], counters: dict[str, Any]) -> None:
    """Append the finished deal's record to ``deal_results`` (shared with clones: replaced whole)."""
    state.deal_results = [*state.deal_results,
                          {"deal": state.deal_index, "dealer": state.dealer, "points": list(points), **counters}]


@cython.cfunc
@cython.locals(seat=cython.Py_ssize_t)
def _finish(state: State, winning_sides: list[int]) -> None:
    """End the match: the winners are the seats of ``winning_sides``."""
    assert winning_sides or state.NO_WINNER_POSSIBLE, "only a game that declares NO_WINNER_POSSIBLE ends unwon"
    side_of = state.side_of  # (read once, not at each seat)
    state.winners = [seat for seat in range(len(side_of)) if side_of[seat] in winning_sides]
    state.current_player = None
    state.phase = "over"
    state._legal = None


def _int(p: Mapping[str, Any], key: str) -> int:
    return position_count(p[key], key)


def position_count(value: object, key: str) -> int:
    """A position's non-negative integer, else PositionError naming ``key``.

    >>> position_count(3, "pot")
    3
    >>> position_count(-1, "pot")
    Traceback (most recent call last):
    engine.errors.PositionError: pot must be a non-negative integer, got -1
    """
    _check(type(value) is int and value >= 0, f"{key} must be a non-negative integer, got {value!r}")
    return value  # type: ignore[return-value]


def position_list(value: object, key: str, length: int | None = None) -> list[Any]:
    """A position's list (of ``length`` items when given: one per seat, ...), else PositionError naming ``key``.

    >>> position_list([None, None], "declared", 2)
    [None, None]
    >>> position_list([None], "declared", 2)
    Traceback (most recent call last):
    engine.errors.PositionError: declared must be a list of 2 items, got [None]
    """
    _check(isinstance(value, list) and (length is None or len(value) == length),
           f"{key} must be a list{'' if length is None else f' of {length} items'}, got {value!r}")
    return value  # type: ignore[return-value]


def _seat(p: Mapping[str, Any], key: str, n: int) -> int:
    value = position_seat(p[key], key, n)
    assert value is not None
    return value


@overload
def position_seat(value: object, key: str, n: int, nullable: Literal[False] = False) -> int: ...


@overload
def position_seat(value: object, key: str, n: int, nullable: bool) -> int | None: ...


def position_seat(value: object, key: str, n: int, nullable: bool = False) -> int | None:
    """A position's seat (an int 0..n-1, or None when ``nullable``); PositionError naming ``key`` for anything else.

    >>> position_seat(2, "dealer", 4), position_seat(None, "belote", 4, nullable=True)
    (2, None)
    >>> position_seat(True, "dealer", 4)
    Traceback (most recent call last):
    engine.errors.PositionError: dealer must be a seat 0..3, got True
    """
    if value is None and nullable:
        return None
    _check(type(value) is int and 0 <= value < n, f"{key} must be a seat 0..{n - 1}{' or null' if nullable else ''}, "
           f"got {value!r}")
    return value  # type: ignore[return-value]


def _check_winners(winners: Any, side_of: Sequence[int], none_possible: bool = False) -> None:
    """A finished match's ``winners``: every seat of one or more whole sides, in seat order (no seat at all only in a
    game that can end with no winner)."""
    seats = range(len(side_of))
    _check(isinstance(winners, list) and (bool(winners) or none_possible)
           and all(type(s) is int and s in seats for s in winners),
           f"winners must list the winning seats, got {winners!r}")
    sides = {side_of[s] for s in winners}
    _check(winners == [s for s in seats if side_of[s] in sides],
           f"winners must list every seat of the winning sides in seat order, got {winners!r}")
