"""The phases of a deal as components (issue 29): a game declares its phases in order, ``DEAL_PHASES``, and the
state base drives what the phases share through one loop over them.

A :class:`Phase` owns its part of a position: the keys it writes (``KEYS``, as the game's rules file documents them),
and how they are loaded back and checked. ``State.to_position`` writes every phase's keys; ``from_position`` runs every
phase's ``load`` in order (the keys read before the deal is replayed: an auction replayed, the cards of a pile set
aside), then every phase's ``check`` in order (what the replayed deal decides). A phase's ``load`` may hand the trick
play its cards outside the hands and tricks (``Loading.piles``), which must hold the deck once each with them. It
also adds what each seat sees of it to that seat's observation (``observe``).

A :class:`DecisionPhase` is a phase with moves of its own outside the trick play (an auction, a trump choice, an
exchange): it names the values of ``State.phase`` it acts in (``NAMES``) and gives their legal moves, applies them and
says which seat a loaded position must have to act; a trick game asks it whenever its phase is not the play.

The phases also carry what is theirs beyond the position: one of them deals (``deal``, the deal itself); a phase
says the trump it decides and deals a loaded deal again up to the play (``trump``, ``deal_again``), who leads the
first trick (``leader``) and what of the match so far a deal is dealt with (``carry``: its carried keys); what it keeps
of its moves from the other seats (``seen_as``, ``secret_from``); and for determinization what a seat knows through
it, what it hides, what a sample must keep of a hand, and how a sample renames its cards (``known``, ``hidden``,
``hand_check``, ``relabel``). The base asks only the phases that answer (tables set per class).

Phase objects hold no match state: they act on the game they are given (whose rules stay data on its class), so
cloning a state copies nothing of them.

>>> import engine
>>> state = engine.new_match("botifarra", seed=3)
>>> [phase.KEYS for phase in state.DEAL_PHASES][:3]
[(), ('game_index', 'game_points_0', 'game_points_1'), ('choice', 'doubling')]
>>> type(state._dealing).__name__, [type(phase).__name__ for phase in state._hiding['known']]
('Deal', [])
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from .determinize import Slot
    from .rng import Rng
    from .state import State

G = TypeVar("G", bound="State")


@dataclass
class Loading:
    """A position being loaded, handed from phase to phase: the position, the cards the phases read outside the
    hands and tricks (position key -> cards) and the seat the replayed tricks give the turn (trick play's)."""

    position: Mapping[str, Any]
    piles: dict[str, Sequence[int]] = field(default_factory=dict)
    to_play: int | None = None


class Phase(ABC, Generic[G]):
    """One phase of a deal, as a component of the game that declares it: its part of a position."""

    # The position keys this phase writes (and only it): documented in the game's rules file.
    KEYS: ClassVar[tuple[str, ...]] = ()

    def keys(self, game: G) -> tuple[str, ...]:
        """The position keys the phase writes for ``game``: ``KEYS`` (a phase whose keys are also data of the game,
        such as trick play's facts, adds those)."""
        return self.KEYS

    def save(self, game: G) -> dict[str, Any]:
        """The phase's position keys, JSON-ready (a phase without keys writes none)."""
        return {}

    def load(self, game: G, loading: Loading) -> None:
        """Before the deal is replayed: set what the phase's keys say (PositionError on a bad value)."""

    def check(self, game: G, loading: Loading) -> None:
        """After the deal is replayed (the phases' ``load`` done, in order): the keys the replay decides must say
        what it says (PositionError)."""

    def observe(self, game: G, seat: int, obs: dict[str, Any]) -> None:
        """Add what ``seat`` sees of this phase to its observation (a phase everyone sees nothing of adds nothing)."""

    # ---- the deal itself ------------------------------------------------------------------------------------------

    def deal(self, game: G, deck: list[int]) -> None:
        """Only the phase that deals (a game declares one): deal ``deck`` (top first) and open the deal's first
        phase (``phase`` and ``current_player``)."""
        raise AssertionError(f"{type(self).__name__} does not deal")

    def first_dealer(self, game: G) -> int:
        """Only the phase that deals: the first dealer, drawn with ``game.rng`` (by default a seat at random)."""
        return game.rng.below(game.n_players)

    def deck(self, game: G) -> list[int]:
        """Only the phase that deals: the cards of the deal's deck in canonical order (by default the game's
        ``DECK``; a deck that depends on the players or an option is the phase's)."""
        return list(game.DECK)

    def next_dealer(self, game: G) -> int:
        """Only the phase that deals: the next deal's dealer (by default the next seat)."""
        return (game.dealer + 1) % game.n_players

    def misdeal(self, game: G, new: Sequence[int] | None = None) -> str | None:
        """Only the phase that deals (a trick game's): what makes the deal dealt from ``deal_deck`` (its cards
        relabeled by ``new``, when given) one the rules deal again at once (Two-Ten-Jack 3.6's void deal), or None:
        such a deal is dealt again, refused in a position and never sampled."""
        return None

    def face_up(self, game: G, seat: int) -> int:
        """The single face-up cards (a mask) this phase shows ``seat`` in its observation beside a face-up stock (a
        turned-up card, a card removed from the pack), as numeric encoders read them (``TrickGame.shown_cards``)."""
        return 0

    # ---- what the other seats see of the phase's moves (State.action_seen_by) ----------------------------------------

    def seen_as(self, game: G, viewer: int | None, actor: int, action: str) -> str:
        """How ``viewer`` (a seat, or None: anyone) sees ``action``, a move ``actor`` played: the action itself,
        unless it is one of this phase's moves that the phase keeps in part from the other seats (a discard laid
        face down); a phase that does says from which move on (``secret_from``)."""
        return action

    def secret_from(self, game: G) -> int:
        """The index in ``game.moves`` from which this phase's moves may be seen in part (``seen_as``): by default
        0, for the whole match."""
        return 0

    # ---- a position's deal dealt again (TrickPlay's load) ------------------------------------------------------------

    def trump(self, game: G) -> tuple[int, str] | None:
        """The trump a loaded deal must have when this phase decides it (the suit an auction took, NO_TRUMP before),
        with the rule that says so; None: the phase decides no trump."""
        return None

    def leader(self, game: G) -> int | None:
        """The seat that leads the deal's first trick when this phase decides it (an auction's declarer); None: the
        phase does not (the dealer's left leads, ``TrickGame._first_leader``)."""
        return None

    def carry(self, game: G, position: Mapping[str, Any]) -> None:
        """Set what the phase's keys among the game's ``CARRIED`` say of the match so far (PositionError on a bad
        value), before a deal is dealt from a position's ``deal_deck``: the unplayed deal of a match that ended at its
        length, and the start of a later deal (``State.deal_start_position``), when the deal depends on them."""

    def deal_again(self, game: G, trump: int) -> bool:
        """Loading a position, when this phase decides how the deal before the play is dealt (a second dealing
        after the taking rounds, the exchanges made): set the deal as ``deal_deck`` dealt it up to the first card
        played, with ``trump``, and return True; False leaves it to a later phase, else to a fresh deal
        (``_start_deal``)."""
        return False

    # ---- determinization (engine/determinize.py): what the phase hides from a seat and how a sample renames it --

    def known(self, game: G, seat: int) -> int:
        """The cards (a mask) in other seats' hands whose place ``seat`` knows through this phase (a turn-up taken,
        a combination shown)."""
        return 0

    def hidden(self, game: G, seat: int) -> list[list[int]]:
        """The cards of this phase's own piles that ``seat`` has not seen (a set-aside stock, face-down cards): a
        sample deals them again with the hands' unseen cards."""
        return []

    def hand_check(self, game: G, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """A fact of ``seat``'s whole hand that this phase showed (a declaration, an answer to a redeal question),
        which a new deal of its unseen cards must keep; None when it showed none."""
        return None

    def relabel(self, game: G, new: Sequence[int]) -> None:
        """After a sample renamed the deal's cards (``new[card]``, hands and deal_deck done): rename the cards of
        this phase's own piles and records, and redo what depends on the hands."""

    def narrow(self, game: G, seat: int, slots: list[Slot]) -> None:
        """Narrow the slots of what ``seat`` has not seen by what this phase showed it (a card it saw that may lie
        in some places only): add to their ``forbidden`` cards."""

    def sample(self, game: G, seat: int, rng: Rng, memo: dict[str, Any]) -> bool:
        """Deal ``seat``'s sample of the game here when this phase knows a better way than dealing the unseen slots
        again (a deal cut from a pack every seat saw, a deal whose moves must replay) and return True; the first
        phase that does deals it. ``memo`` keeps what every sample of the position shares."""
        return False

    def redealt(self, game: G, seat: int, slots: list[Slot], contents: list[list[int]], rng: Rng) -> bool:
        """Give ``seat``'s unseen ``slots`` their new ``contents`` when this phase's records must be made again to
        fit them (exchanges whose cards moved), returning True; else the cards are renamed (``relabel``)."""
        return False

    def sampled(self, game: G, seat: int, rng: Rng) -> None:
        """After a sample is dealt: redo what this phase keeps of the hands (with ``rng`` for what the sample draws
        beyond the cards)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {', '.join(self.KEYS)}>"


class DecisionPhase(Phase[G]):
    """A phase with moves of its own (in ``State.phase`` one of ``NAMES``): its legal moves, their effect, and the
    seat a loaded position gives the turn."""

    NAMES: ClassVar[tuple[str, ...]]

    @abstractmethod
    def legal(self, game: G) -> list[int]:
        """The legal action ids of the seat to act, in the plain string order of their action strings."""

    @abstractmethod
    def apply(self, game: G, action: int) -> None:
        """Play ``action``, a legal move of the seat to act (``State.apply_id`` checked and recorded it)."""

    def speaker(self, game: G) -> int | None:
        """The seat the loaded deal gives the turn in this phase (a position's ``current_player`` must be it), or
        None to leave it to the phase's own checks."""
        return None


def decision_phases(phases: tuple[Phase[Any], ...]) -> dict[str, DecisionPhase[Any]]:
    """The decision phases of a game's ``DEAL_PHASES`` by the ``State.phase`` values they act in."""
    named: dict[str, DecisionPhase[Any]] = {}
    for phase in phases:
        if isinstance(phase, DecisionPhase):
            for name in phase.NAMES:
                assert name not in named, f"two phases act in phase {name!r}"
                named[name] = phase
    return named


def dealing_phase(phases: tuple[Phase[Any], ...]) -> Phase[Any] | None:
    """Of a game's ``DEAL_PHASES``, the one that deals (``deal``), if it declares one."""
    dealing = [phase for phase in phases if type(phase).deal is not Phase.deal]
    assert len(dealing) <= 1, f"two phases deal: {dealing}"
    return dealing[0] if dealing else None


def face_up_phases(phases: tuple[Phase[Any], ...]) -> tuple[Phase[Any], ...]:
    """Of a game's ``DEAL_PHASES``, those that show single face-up cards (``face_up``)."""
    return tuple(phase for phase in phases if type(phase).face_up is not Phase.face_up)


def seeing_phases(phases: tuple[Phase[Any], ...]) -> tuple[Phase[Any], ...]:
    """Of a game's ``DEAL_PHASES``, those that keep part of their moves from the other seats (``seen_as``)."""
    return tuple(phase for phase in phases if type(phase).seen_as is not Phase.seen_as)


def hiding_phases(phases: tuple[Phase[Any], ...]) -> dict[str, tuple[Phase[Any], ...]]:
    """Of a game's ``DEAL_PHASES``, by each hook of ``HIDING``, those that answer it, in declared order: a game's
    determinization asks only those."""
    return {name: tuple(phase for phase in phases if getattr(type(phase), name) is not getattr(Phase, name))
            for name in HIDING}


# The determinization hooks of a phase: the keys of a game's ``_hiding`` table.
HIDING = ("known", "hidden", "hand_check", "relabel", "narrow", "sample", "redealt", "sampled")


def all_checks(checks: list[Callable[[list[int]], bool]]) -> Callable[[list[int]], bool] | None:
    """One hand check that keeps every fact of ``checks`` (None for none)."""
    if len(checks) < 2:
        return checks[0] if checks else None
    return lambda cards: all(check(cards) for check in checks)


def load_phases(game: State, position: Mapping[str, Any]) -> None:
    """Load a position's keys into ``game`` through its declared phases: every ``load``, then every ``check``."""
    loading = Loading(position)
    phases = game.DEAL_PHASES
    for phase in phases:
        phase.load(game, loading)
    for phase in phases:
        phase.check(game, loading)


def save_phases(game: State) -> dict[str, Any]:
    """Every declared phase's position keys, in the order the phases are declared."""
    keys: dict[str, Any] = {}
    for phase in game.DEAL_PHASES:
        keys.update(phase.save(game))
    return keys
