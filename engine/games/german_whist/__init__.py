"""German Whist (``german_whist``), exactly as ``shared/rules/german_whist.md`` says; section numbers cite it.

Two players, 13 cards each; the turned-up stock card names trump (4.1). Phase 1: 13 tricks, after each the winner
takes the face-up stock card and the loser the next one (5.5). Phase 2: 13 tricks without drawing (5.6). By default
only phase-2 tricks score (7.1). Option ``face_down_four`` plays the seed's 11 + 4 face-down variant (8.1).

>>> import engine
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
>>> state.phase, state.current_player, len(state.legal_actions())
('play', 1, 13)
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...cards import CODES, SUIT, make_deck, mask_of
from ...dealing import deal_round, deal_rounds
from ...errors import PositionError
from ...options import Option
from ...phases import Loading, Phase
from ...registry import register
from ...scoring import leaders, single_leader
from ...state import GameInfo, MatchLength, position_count
from ...trickgame import TRICK_PLAY, TrickRules
from ...tricks import CardActions, Ranking
from .facedown import SLOT_CARDS, FaceDownSlots

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

_ONE = cython.declare(cython.ulonglong, 1)  # (compiled, a card's bit is _ONE << card: a C shift, no table)

RANKING = Ranking("AKQJT98765432")  # 2.1: the same order in trump and plain suits
SLOTS = 4
DECK = tuple(make_deck())
TRICKS_PER_DEAL = 26  # each player plays his 13 (or 11 + 4 face-down) cards and 13 (or 11) drawn ones
# 5.3: follow suit, else play any card; 5.5: after each phase-1 trick the winner draws first
RULES = TrickRules(RANKING, tricks=TRICKS_PER_DEAL, draw_after_trick=True)
FACE_DOWN_RULES = replace(RULES, extras=True)  # 8.1c: a face-down card played when void
ACTIONS = CardActions(words=[f"down:{slot}" for slot in range(SLOTS)])
DOWN_IDS = tuple(ACTIONS.word_id(f"down:{slot}") for slot in range(SLOTS))

OPTIONS = (
    Option("score_all_tricks", bool, False, "all 26 tricks score (seed variant), else only phase-2 tricks (7.1)"),
    Option("deal_scoring", str, "per_trick", "per_trick: 1 point per counted trick; difference: the winner scores "
           "the difference (7.2, 7.3)", choices=("per_trick", "difference")),
    Option("target_score", int, 0, "0 = a single deal; N > 0 = play to N, raised by 10 when both reach it (with "
           "score_all_tricks and per_trick scoring the higher total wins instead) (7.4)",
           minimum=0, maximum=1000),
    Option("face_down_four", bool, False, "the seed's 11 + 4 face-down cards variant (8.1)"),
)


class Tally(Phase["GermanWhist"]):
    """What the deal's play counts toward the score: the tricks each seat won per phase (7.1) and the face-up cards
    taken (5.5), which the replayed tricks decide, and the target in force (7.4b), loaded after the replay (the deal
    dealt again sets the first deal's)."""

    KEYS = ("won", "taken_face_up", "target")

    def save(self, game: GermanWhist) -> dict[str, Any]:
        return {
            "won": game._won_dict(),
            "taken_face_up": [[s, CODES[c]] for s, c in game.taken_face_up()],
            "target": game.target,
        }

    def observe(self, game: GermanWhist, seat: int, obs: dict[str, Any]) -> None:
        obs["won"] = game._won_dict()
        taken = game.taken_face_up()
        obs["taken_face_up"] = [[s, CODES[c]] for s, c in taken]
        obs["known_cards"] = [CODES[c] for s, c in taken if s != seat]  # public draws (5.8)
        obs["target"] = game.target

    def load(self, game: GermanWhist, loading: Loading) -> None:
        game.target = game._load_target(loading.position["target"])

    def known(self, game: GermanWhist, seat: int) -> int:
        return mask_of(c for _s, c in game.taken_face_up())  # 5.8: taken in view of both


class Deal(Phase["GermanWhist"]):
    """The deal itself: the hands, the face-down slots and the stock (3.4, 3.5, 8.1a), then the play."""

    def deal(self, game: GermanWhist, deck: list[int]) -> None:
        order = game.seats_from_dealer()
        hands = [0, 0]
        used = deal_round(deck, 0, hands, order, (1,) * (11 if game.options["face_down_four"] else 13))  # 3.4
        game.down = [[], []]
        if game.options["face_down_four"]:
            downs, used = deal_rounds(deck, order, [SLOTS], start=used)  # 8.1a
            game.down = [list(downs[0]), list(downs[1])]
        game.stock = deck[used:]  # 3.5: the top stock card is face up and names trump
        game.stock_top = 0
        game._reset_tricks(hands, SUIT[game.stock[0]])
        if game.deal_index == 0:
            game.target = game.options["target_score"]
        game.phase = "play"
        game.current_player = order[0]  # 5.1: the non-dealer leads

    def trump(self, game: GermanWhist) -> tuple[int, str]:
        first = len(game.deal_deck) - 2 * game.phase1_tricks  # 3.5, 8.1a: the first turned-up card
        return SUIT[game.deal_deck[first]], f"trump must be the suit of the first turned-up card, deal_deck[{first}]"


@register
class GermanWhist(FaceDownSlots):
    RULES = RULES
    DOUBLE_DUMMY = True  # tricks (those 7.1 counts: _trick_counts)
    ACTIONS = ACTIONS
    target: int  # the target score in force (7.4b: raised by 10 when both seats reach it)
    DECK = DECK
    STOCK_SHOWN = 1  # 3.5: the top stock card is face up
    OBSERVED = ("face_up", "stock_size", "tricks_played")
    POSITIONED = ("face_up", "stock", "tricks_played")
    KEY_RULES = {  # the keys a replay of the tricks decides, with what each must say
        "won": "won must count the tricks each seat won per phase",
        "taken_face_up": "taken_face_up must list who took each face-up card",
        "face_down": "face_down holds the dealt face-down cards not yet played",
        "face_down_seen": "face_down_seen: a seat sees its face-down cards once it won a trick",
    }
    SLOT_IDS = DOWN_IDS  # 8.1c: down:<slot>
    DEAL_PHASES = (Deal(), SLOT_CARDS, TRICK_PLAY, Tally())
    POSITION_CARD_PILES = ("face_up", "face_down")  # position keys of this game that hold cards
    INFO = GameInfo(
        id="german_whist",
        name="German Whist",
        player_counts=(2,),
        default_players=2,
        options=OPTIONS,
        summary="Two-player whist: win the turned-up stock card in 13 tricks, then the 13 tricks that score.",
    )

    SETTINGS = {"RULES": ("face_down_four", {False: RULES, True: FACE_DOWN_RULES})}  # (an immutable record)
    # Difference scoring may give nobody a point, and 7.4b raises the target: 20 + 4 x target deals at most.
    LENGTH = MatchLength(deals=lambda n, o: 1 if o["target_score"] == 0 else 20 + 4 * o["target_score"],
                         moves=2 * TRICKS_PER_DEAL)

    # ---- play (5.4 - 5.6) ---------------------------------------------------------------------------------------

    @property
    def phase1_tricks(self) -> int:
        """The tricks of phase 1, each followed by a draw from the stock (5.5): 13, or 11 with face_down_four."""
        return 11 if self.options["face_down_four"] else 13

    def _phase1_winners(self) -> list[int]:
        """The winner of each finished phase-1 trick (5.5), who leads the next trick."""
        leader = self.trick[0][0] if self.trick else self.current_player  # (None: the match is over, phase 2 too)
        return self.trick_winner_seats(-1 if leader is None else leader, self.phase1_tricks)

    def taken_face_up(self) -> list[tuple[int, int]]:
        """(seat, card) for each face-up stock card taken: 5.5, by the winner of each phase-1 trick."""
        return list(zip(self._phase1_winners(), self.stock[::2], strict=False))

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    @cython.locals(first=cython.Py_ssize_t, k=cython.Py_ssize_t, zero=cython.Py_ssize_t, one=cython.Py_ssize_t)
    def won(self) -> list[list[int]]:
        """The tricks each seat won, per phase: [phase 1 (while the stock lasts), phase 2]."""
        tricks, first, tricks_won = self.tricks, self.phase1_tricks, self.tricks_won
        if len(tricks) <= first:  # phase 1 still on: its last trick's winner is the leader now
            winners = self._phase1_winners()
            zero, one = winners.count(0), winners.count(1)
        else:  # (every deal's end: each phase-1 trick's winner led the next trick, counted without a list of them)
            zero = one = 0
            for k in range(1, first + 1):
                seat = tricks[k][0][0]
                if seat == 0:
                    zero += 1
                elif seat == 1:
                    one += 1
        return [[zero, one], [tricks_won[0] - zero, tricks_won[1] - one]]

    def counted_tricks(self, won: list[list[int]] | None = None) -> list[int]:
        """Each seat's counted tricks so far: phase 2 only, or all tricks with ``score_all_tricks`` (7.1); ``won``:
        what ``won()`` says, when known."""
        return list(self.tricks_won) if self.options["score_all_tricks"] else (won or self.won())[1]

    def _trick_counts(self, index: int) -> bool:
        """Whether the deal's trick ``index`` (from 0) scores (7.1): a phase-2 trick, or any with score_all_tricks
        (the double-dummy search reads it)."""
        return bool(self.options["score_all_tricks"]) or index >= self.phase1_tricks

    def _score_deal(self) -> None:
        won = self.won()
        counted = self.counted_tricks(won)
        if self.options["deal_scoring"] == "difference":  # 7.3
            diff = counted[0] - counted[1]
            points = [max(diff, 0), max(-diff, 0)]
        else:  # 7.2
            points = counted
        # 7.4b: both reach the target in force: it is raised by 10 (unless fixed), checked again after the next deal
        scores, target = self.side_scores, self.target  # (no zip(..., strict=True): a keyword call, compiled too)
        raised = (target != 0 and not self._target_fixed()
                  and scores[0] + points[0] >= target and scores[1] + points[1] >= target)
        self._deal_over(points, counted_tricks=counted, phase1_tricks=won[0])
        if raised:
            self.target += 10

    def _match_winners(self) -> list[int] | None:
        scores = self.side_scores
        if self.target == 0:  # 7.4a: a single deal, a tie is a draw
            return leaders(self.deal_results[-1]["counted_tricks"])
        reached = [seat for seat in (0, 1) if scores[seat] >= self.target]
        if len(reached) == 2:
            # 7.4b exception: with the target fixed the higher total wins, a tie plays another deal; otherwise the
            # deal's scoring raises the target and the match goes on
            return single_leader(scores) if self._target_fixed() else None
        return reached or None

    def _target_fixed(self) -> bool:
        """7.4b: with score_all_tricks and per_trick scoring together the target is never raised (both seats gain
        more than 10 in almost every deal, so raising it could go on forever)."""
        return bool(self.options["score_all_tricks"]) and self.options["deal_scoring"] == "per_trick"

    # ---- what a seat sees (5.8) ---------------------------------------------------------------------------------

    @cython.locals(tricks=list, known=cython.ulonglong, k=cython.Py_ssize_t, count=cython.Py_ssize_t,
                   upto=cython.Py_ssize_t, top=cython.Py_ssize_t, card=cython.int)
    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """``face_up``, ``known_cards`` and ``stock_size`` of the observation, as masks (TrickGame.shown_cards)."""
        stock, top, tricks = self.stock, self.stock_top, self.tricks
        face_up = 1 << stock[top] if top < len(stock) else 0
        known = 0
        # taken_face_up, without its lists (an environment asks after every trick): the winner of phase-1 trick k,
        # who took stock[2k], leads trick k + 1; the last finished trick's winner leads the one in progress.
        count = len(tricks)
        upto = min(count, self.phase1_tricks)
        for k in range(min(upto, count - 1)):
            if tricks[k + 1][0][0] != seat:
                card = stock[2 * k]
                known |= _ONE << card
        if upto == count and upto and (self.trick[0][0] if self.trick else self.current_player) != seat:
            card = stock[2 * upto - 2]
            known |= _ONE << card
        return face_up, known, len(stock) - top

    def _won_dict(self) -> dict[str, Any]:
        won = self.won()
        return {"phase1": won[0], "phase2": won[1]}

    # ---- determinization: the loser's draws and face-down cards are unseen, the face-up cards taken are not -------

    def slots_dealt_at(self, seat: int) -> int:
        return 2 * self.phase1_tricks + (SLOTS if seat == self.dealer else 0)  # 8.1a: non-dealer's four first

    # ---- positions (docs/positions/german_whist.md) -------------------------------------------------------------

    def _load_target(self, value: Any) -> int:
        """7.4b: the target in force is target_score, raised by 10 for each deal after which both seats reached it
        (never with score_all_tricks and per_trick scoring)."""
        target = position_count(value, "target")
        base = self.options["target_score"]
        if self._target_fixed() and target != base:
            raise PositionError(f"target must be target_score ({base}): with score_all_tricks and per_trick scoring "
                                "it is never raised (7.4b)")
        if (base == 0 and target != 0) or target < base or (target - base) % 10:
            raise PositionError(f"target must be target_score ({base}) raised by tens (0 for a single deal)")
        return target
