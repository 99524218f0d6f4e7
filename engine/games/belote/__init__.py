"""Belote (``belote``), the classic turn-up game, exactly as ``shared/rules/belote.md`` says; sections cite it.

Five cards each and a turned-up trump candidate; two rounds of taking (``take`` its suit, then ``take:<suit>``); the
rest of the deal; declarations (carrés, sequences) on a player's first turn; the belote legal-card rule and belote /
rebelote; made, dedans and litige; the match to 1000. Options give the 2- and 3-player variants and no-shuffle play.

>>> import engine
>>> state = engine.new_match("belote", seed=2, first_dealer=0)
>>> state.phase, state.legal_actions()
('auction', ['pass', 'take'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...auction import LegalWordIds, TakeRounds, replay_auction
from ...cards import BIT, CODES, RANKS, SUIT, SUITS, mask_of
from ...dealing import deal_masks
from ...declarations import Meld
from ...errors import PositionError
from ...options import Option
from ...phases import DecisionPhase, Loading, Phase
from ...registry import register
from ...rng import Rng
from ...scoring import highest_once_target_reached
from ...state import GameInfo, MatchLength, position_count
from ...trickgame import TRICK_PLAY, PlayPart
from ...tricks import NO_TRUMP, gather_tricks
from ..belote_family import BELOTE_ANNOUNCED, GATHERED_PACK, NATURAL_ORDER, TRICKS, BelotePlay, belote_actions
from .rules import MeldDeclaring, three_player_points, two_side_points

CARRE_VALUES = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}  # 6.1
CAPOT_BONUS = 90  # 7.2: 162 becomes 252
# The natural order 7 8 9 T J Q K A is 8 neighbouring rank bits of a suit, so a hand (a mask) holds a sequence only
# where three neighbouring bits are set, and a carré where ``hand & hand >> 13 & hand >> 26 & hand >> 39`` has its rank.
CARRE_RANKS = mask_of(RANKS.index(rank) for rank in CARRE_VALUES)
ACTIONS = belote_actions(["pass", "take", *(f"take:{s}" for s in SUITS), "declare", "nodeclare"])
TAKE_IDS = LegalWordIds(ACTIONS).of
DECLARE_IDS = [ACTIONS.word_id("declare"), ACTIONS.word_id("nodeclare")]

OPTIONS = (
    Option("target_score", int, 1000, "match target (1.5, 7.7)", minimum=1, maximum=10_000),
    Option("litige", bool, True, "a tie holds the takers' points for the next deal; false: a tie is dedans (7.3)"),
    Option("no_shuffle", bool, False, "traditional French practice: later decks are the gathered cards, cut (8)"),
)


def meld_key(meld: Meld, trump: int) -> tuple[int, ...]:
    """6.3: carrés above sequences; carrés by value then natural rank; sequences by length, top card, trump."""
    strength = len(NATURAL_ORDER) - NATURAL_ORDER.index(meld.top)
    if meld.kind == "carre":
        return (1, meld.value, strength)
    assert meld.suit is not None  # a sequence is in one suit
    return (0, min(meld.length, 5), strength, SUITS.index(meld.suit) == trump)


class TakingRoundsPhase(DecisionPhase["Belote"]):
    """The taking rounds in a position (4): ``auction`` replayed from the deal's turn-up (the card after the first
    dealing, 3.4 / 3.6), shown as ``turn_up`` until taken with 4 players, when it goes into the taker's hand (a pile
    of its own for the trick play until then)."""

    KEYS = ("auction", "turn_up")
    NAMES = ("auction",)

    def legal(self, game: Belote) -> list[int]:
        return TAKE_IDS(game.auction.key(), game.auction)  # 4.5

    def apply(self, game: Belote, action: int) -> None:
        game._bid(ACTIONS.strings[action])

    def speaker(self, game: Belote) -> int | None:
        return game.auction.turn

    def save(self, game: Belote) -> dict[str, Any]:
        return {"auction": game._auction_list(),
                "turn_up": None if game.taken and game.n_players == 4 else CODES[game.turn_up]}

    def observe(self, game: Belote, seat: int, obs: dict[str, Any]) -> None:
        obs.update(auction=game._auction_list(), turn_up=CODES[game.turn_up], taker=game.auction.taker)

    def load(self, game: Belote, loading: Loading) -> None:
        p, n = loading.position, game.n_players
        game.turn_up = game.deal_deck[5 * n]
        game.auction = TakeRounds(n, game.seats_from_dealer()[0], SUITS[SUIT[game.turn_up]])
        replay_auction(game.auction, p["auction"])
        game.taken = game.auction.over
        shown = None if game.taken and n == 4 else CODES[game.turn_up]
        if p["turn_up"] != shown:
            raise PositionError(f"turn_up must be {shown!r} here (deal_deck[{5 * n}], null once taken with 4)")
        loading.piles["turn_up"] = [] if shown is None else [game.turn_up]

    def trump(self, game: Belote) -> tuple[int, str]:
        trump = NO_TRUMP if game.auction.trump is None else SUITS.index(game.auction.trump)
        return trump, "trump must be the taken suit once the auction is over, null before"

    def deal_again(self, game: Belote, trump: int) -> bool:
        game._first_dealing(game.deal_deck)  # (the taking rounds as loaded)
        if game.taken:
            assert game.auction.taker is not None  # taken: someone took
            game._second_dealing(game.auction.taker)
        game.trump = trump
        return True

    def known(self, game: Belote, seat: int) -> int:
        return BIT[game.turn_up]  # seen by all, in the taker's hand once taken


class Pot(Phase["Belote"]):
    """The points a litige left in the pot (7.3), carried to the next deal."""

    KEYS = ("pot",)

    def save(self, game: Belote) -> dict[str, Any]:
        return {"pot": game.pot}

    def observe(self, game: Belote, seat: int, obs: dict[str, Any]) -> None:
        obs["pot"] = game.pot

    def load(self, game: Belote, loading: Loading) -> None:
        game.pot = position_count(loading.position["pot"], "pot")
        if game.pot and (game.n_players == 3 or not game.options["litige"]):
            raise PositionError("only a litige holds points in the pot (7.3; never with 3 players)")


class Declared(PlayPart["Belote"]):
    """Each seat's choice to declare its combinations or not (6.2, 6.3): made in the play, before the seat's first
    card, and resolved after the first trick; in a position, ``declared``, checked against the melds of the replayed
    deal and scored as in play."""

    KEYS = ("declared",)

    def save(self, game: Belote) -> dict[str, Any]:
        return {"declared": list(game.declared)}

    def observe(self, game: Belote, seat: int, obs: dict[str, Any]) -> None:
        obs["declared"] = list(game.declared)
        obs.update(game._declarations_shown())  # announced and compared by the end of trick 1
        obs["known_cards"] = [CODES[c] for c in [game.turn_up, *game._shown_meld_cards()]]

    def load(self, game: Belote, loading: Loading) -> None:
        game._load_declared(loading.position["declared"])
        if game.phase not in ("play" if game.taken else "auction", "over"):
            raise PositionError(f"phase {game.phase!r} does not fit the taking rounds")
        game.melds = [[] for _ in range(game.n_players)]  # (the replayed deal finds the dealt hands' own)

    def check(self, game: Belote, loading: Loading) -> None:
        game._check_declared()

    def moves(self, game: Belote, seat: int, ids: list[int]) -> list[int]:
        if not game.tricks and game._must_choose_declaration():  # (after the first trick, never: a cheap test)
            return DECLARE_IDS  # 6.2: a seat with a combination chooses first whether to declare it (no card yet)
        return ids

    def moving(self, game: Belote) -> int:
        return -1 if not game.tricks else 0  # 6.2: only before the first trick is gathered (read again after it)

    def plays(self, game: type[Belote]) -> tuple[int, ...]:
        return tuple(DECLARE_IDS)

    def play(self, game: Belote, seat: int, action: int) -> int | None:
        game.declared[seat] = ACTIONS.strings[action]
        return None

    def trick_taken(self, game: Belote, winner: int) -> None:
        if len(game.tricks) == 1 and not game._loading:  # a loaded position's are resolved once it is checked
            game._resolve_declarations()  # 6.3: after the first trick

    # determinization: the combinations declared and shown are known; each hand keeps its combinations (6.1)

    def known(self, game: Belote, seat: int) -> int:
        return mask_of(game._shown_meld_cards())

    def hand_check(self, game: Belote, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        return game._melds_kept(seat, known) if game.taken else None

    def relabel(self, game: Belote, new: Sequence[int]) -> None:
        game._find_dealt_melds()

    def sampled(self, game: Belote, seat: int, rng: Rng) -> None:
        game._find_dealt_melds()  # (a deal cut from the gathered tricks sets the hands after renaming the cards)


class Deal(Phase["Belote"]):
    """The deal itself: the first dealing and the turn-up (3.4), then the taking rounds."""

    def deal(self, game: Belote, deck: list[int]) -> None:
        order = game.seats_from_dealer()
        game._first_dealing(deck)
        game.taken = False
        game.auction = TakeRounds(game.n_players, order[0], SUITS[SUIT[game.turn_up]])
        game._reset_melds()
        game.phase, game.current_player = "auction", order[0]


@register
class Belote(MeldDeclaring, BelotePlay):
    ACTIONS = ACTIONS
    MELD_ORDER, CARRE_VALUES = NATURAL_ORDER, CARRE_VALUES  # 6.1
    STOCK_SHOWN = 0  # the stock is undealt, or set aside with 2 or 3 players: never seen
    POSITIONED = ("stock",)
    POSITION_CARD_PILES = ("turn_up",)  # position keys of this game that hold cards
    CARRIED = (*BelotePlay.CARRIED, "pot")
    PHASES = ("auction", "play", "over")
    DEAL_PHASES = (Deal(), GATHERED_PACK, TakingRoundsPhase(), Pot(), Declared(), TRICK_PLAY, BELOTE_ANNOUNCED)
    INFO = GameInfo(
        id="belote",
        name="Belote",
        player_counts=(2, 3, 4),
        default_players=4,
        options=OPTIONS,
        summary="Classic belote: take the turned-up trump or name another, declare, play 8 tricks, first to 1000.",
    )
    pot = 0  # litige points held for the next played deal (7.3)
    # A played deal gives the sides at least 81 points between them (162, or half of it held in a litige), so the
    # highest side reaches the target within target x sides / 81 deals; 10 more for ties at the top. A deal thrown in
    # after two rounds of passes (4.3) is a spare dealing. Moves: two rounds of taking, a declaration choice each, 8
    # tricks.
    LENGTH = MatchLength(deals=lambda n, o: -(-o["target_score"] * (2 if n == 4 else n) // 81) + 10,
                         moves=lambda n, o: 2 * n + n + TRICKS * n, redeals=True)

    # ---- the deck (3.3, option no_shuffle) ----------------------------------------------------------------------

    auction: TakeRounds
    FIRST_PACKETS = (3, 2)  # 3.4 / 3.6: the first dealing, 5 cards each

    def _keeps_pack(self) -> bool:
        return bool(self.options["no_shuffle"])

    def _first_dealing(self, deck: list[int]) -> None:
        hands, used = deal_masks(deck, self.seats_from_dealer(), self.FIRST_PACKETS)
        self._reset_play(hands)
        self.turn_up = deck[used]
        self.stock = deck[used + 1:]

    def _second_dealing(self, taker: int) -> None:
        order = self.seats_from_dealer()
        if self.n_players == 4:  # 3.5: three each, two to the taker, who adds the turn-up card
            hands, _ = deal_masks(self.stock, order, (tuple(2 if seat == taker else 3 for seat in order),))
            self.hands[taker] |= BIT[self.turn_up]
            self.stock = []
        else:  # 3.6: three more to everyone; the turn-up and the rest are set aside
            hands, used = deal_masks(self.stock, order, (3,))
            self.stock = self.stock[used:]
        for seat in order:
            self.hands[seat] |= hands[seat]
        self.taken = True
        self._find_melds()

    # ---- actions ------------------------------------------------------------------------------------------------

    def _auction_won(self) -> None:
        rounds = self.auction
        assert rounds.trump is not None and rounds.taker is not None  # over and not thrown in: taken
        self.trump = SUITS.index(rounds.trump)
        self._second_dealing(rounds.taker)

    # ---- declarations (6.3: MeldDeclaring) ---------------------------------------------------------------------

    def _meld_key(self, meld: Meld) -> tuple[int, ...]:
        return meld_key(meld, self.trump)

    def _hand_melds(self, hand: int) -> list[Meld]:
        if not hand & (hand >> 1) & (hand >> 2) and not hand & (hand >> 13) & (hand >> 26) & (hand >> 39) & CARRE_RANKS:
            return []  # no three neighbouring cards of a suit, no four of a rank (most hands): nothing to look for
        return super()._hand_melds(hand)

    # ---- scoring (7) --------------------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        taker = self.auction.taker
        assert taker is not None  # a deal is scored only once someone took
        attack = self.side_of[taker]
        base = self.trick_totals()
        capot = self.capot_side()
        if capot is not None:  # 7.2
            base[capot] += CAPOT_BONUS
        belote = self.belote_points()
        totals = [base[s] + self.declaration_points[s] + belote[s] for s in range(len(base))]
        if self.n_players == 3:
            points, outcome = three_player_points(attack, totals, belote, self.seats_from_dealer())
        else:
            points, outcome, held = two_side_points(attack, base, self.declaration_points, belote,
                                                    self.options["litige"])
            self.pot += held
        if outcome != "litige" and self.pot:  # 7.3: the held points go to the winner of the next played deal
            winner = attack if outcome == "made" else 1 - attack
            points[winner] += self.pot
            self.pot = 0
        if self.options["no_shuffle"]:
            self.next_pack = gather_tricks(self.tricks) + ([] if self.n_players == 4 else [self.turn_up, *self.stock])
        self._deal_over(points, taker=taker, trump=SUITS[self.trump], outcome=outcome, totals=totals,
                        card_points=self.trick_totals(), declarations=list(self.declaration_points),
                        belote=self.belote_seat, capot=capot is not None)

    def _match_winners(self) -> list[int] | None:
        return highest_once_target_reached(self.side_scores, self.options["target_score"])  # 7.7

    # ---- what a seat sees ---------------------------------------------------------------------------------------

    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """``turn_up`` and ``known_cards`` as masks (TrickGame.shown_cards); no stock is shown."""
        turn_up = BIT[self.turn_up]
        return turn_up, turn_up | mask_of(self._shown_meld_cards()), 0

    # ---- determinization (the phases' known, hand_check, relabel): a deal cut from the gathered tricks -------------

    def _cut_from_tricks(self) -> bool:
        # 8: with 2 or 3 players the set-aside cards are unseen
        return self.options["no_shuffle"] and self.n_players == 4

    def _public_places(self) -> list[int]:
        return [self.turn_up]
