"""What Belote and Belote contrée share: ranks and card points, the legal-card rule, belote / rebelote, trick play.

Both rules files state the same ranking and points (belote_contree.md 2, belote.md 2), the same legal-card rule
(belote_contree.md 5.2, belote.md 5.2) and the same belote action form (``KH`` or ``KH:belote``, 6.1 / 6.4). A game
subclasses :class:`BelotePlay`, deals, runs its own auction and scores; the play of the 8 tricks lives here once.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from ...auction import ContractAuction, TakeRounds
from ...cards import BIT, RANK_CHAR, SUITS, cards_in, make_deck, mask_of, parse_card
from ...clone import SHARED, UNTIL_OVER
from ...dealing import deal_rounds, draw_for_dealer
from ...errors import PositionError
from ...phases import Loading, Phase
from ...rng import Rng
from ...scoring import point_table
from ...state import Partnerships
from ...trickgame import PlayPart, TrickGame, TrickRules
from ...tricks import NO_TRUMP, CardActions, FollowRule, Ranking, cut

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

DECK_RANKS = "789TJQKA"
DECK = tuple(make_deck(DECK_RANKS))
NATURAL_ORDER = "AKQJT987"  # for drawing the dealer and for declarations (2.4)
DRAW_STRENGTH = tuple(-NATURAL_ORDER.index(RANK_CHAR[c]) if RANK_CHAR[c] in NATURAL_ORDER else 0 for c in range(52))
RANKING = Ranking("ATKQJ987", "J9ATKQ87")
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
POINTS = point_table(PLAIN_POINTS, TRUMP_POINTS)  # POINTS[NO_TRUMP] values every card as a plain card
LAST_TRICK = 10  # dix de der
BELOTE_POINTS = 20
TRICKS = 8
FEWEST_CUT = 3  # a cut leaves at least 3 cards in each packet (belote_contree.md 3.5, belote.md 8)
# 5.2: follow suit; void, trump (overtrumping when able) unless the partner is winning the trick; 5.3, 5.4
RULES = TrickRules(RANKING, FollowRule(must_trump=True, partner_exempts=True, must_overtrump=True), tricks=TRICKS,
                   points=POINTS, last_trick=LAST_TRICK, extras=True)  # 6.4: a belote is announced with its card
BELOTE_SUFFIX = 1  # the action id offset of "<card>:belote"
KING_QUEEN = tuple((parse_card("K" + s), parse_card("Q" + s)) for s in SUITS)
KQ_MASK = tuple(BIT[k] | BIT[q] for k, q in KING_QUEEN)


def belote_actions(words: list[str]) -> CardActions:
    return CardActions(suffixes=("belote",), words=words)


KING_QUEEN_IDS = tuple((belote_actions([]).plain_id[k], belote_actions([]).plain_id[q]) for k, q in KING_QUEEN)


class BeloteAnnounced(PlayPart["BelotePlay"]):
    """Belote and rebelote in the play (6.1, 6.4): a seat holding the trump king and queen may announce a belote with
    the first of them it plays (``KH:belote``), and the other is its rebelote; in a position, ``belote``, the seat
    that announced it (null before), checked against the replayed tricks."""

    KEYS = ("belote",)

    def save(self, game: BelotePlay) -> dict[str, Any]:
        return {"belote": game.belote_seat}

    def observe(self, game: BelotePlay, seat: int, obs: dict[str, Any]) -> None:
        obs["belote"] = game.belote_seat  # announced: every seat sees it

    def load(self, game: BelotePlay, loading: Loading) -> None:
        game.belote_seat = game._load_seat(loading.position["belote"], "belote")  # (after the replay: as given)
        game.rebelote = False

    def check(self, game: BelotePlay, loading: Loading) -> None:
        game._check_belote([c for played in [*game.tricks, game.trick] for c in played])

    def known(self, game: BelotePlay, seat: int) -> int:
        """The trump king and queen of an announced belote (6.4: its announcer holds both until played)."""
        return KQ_MASK[game.trump] if game.belote_seat is not None else 0

    @cython.locals(kq=cython.ulonglong, hand=cython.ulonglong)
    def moves(self, game: BelotePlay, seat: int, ids: list[int]) -> list[int]:
        """6.4: with both in hand, each legal play of the trump king or queen may announce the belote."""
        kq = KQ_MASK[game.trump]
        hand = game.hands[seat]  # (compiled: the masks tested in C)
        if hand & kq == kq:
            pair = KING_QUEEN_IDS[game.trump]
            belotes = [a + BELOTE_SUFFIX for a in ids if a in pair]
            if belotes:
                return sorted(ids + belotes)
        return ids

    def moving(self, game: BelotePlay) -> int:
        """Only a hand with the trump king or queen may have a belote to announce."""
        return 0 if game.trump == NO_TRUMP else KQ_MASK[game.trump]

    def plays(self, game: type[BelotePlay]) -> tuple[int, ...]:
        actions = game.ACTIONS
        return tuple(a for a in range(actions.first_word) if a % actions.width == BELOTE_SUFFIX)

    def play(self, game: BelotePlay, seat: int, action: int) -> int | None:
        card = game.ACTIONS.card_of[action]  # <card>:belote (6.4)
        assert card is not None  # a belote is announced with a card
        game.belote_seat = seat
        game.hands[seat] ^= BIT[card]
        return card

    def watched(self, game: BelotePlay) -> int:
        return 0 if game.trump == NO_TRUMP else KQ_MASK[game.trump]

    def card_played(self, game: BelotePlay, seat: int, card: int) -> None:
        if game.belote_seat == seat:
            game.rebelote = True  # 6.2: announced automatically with the other card


BELOTE_ANNOUNCED = BeloteAnnounced()


class GatheredPack(Phase["BelotePlay"]):
    """A deal cut from the previous deal's tricks gathered in play order (belote_contree.md 3.4, 3.5; belote.md 8
    with 4 players) comes from a pack every seat has seen; only the cut is unknown: a sample is dealt from a cut that
    fits everything shown."""

    def sample(self, game: BelotePlay, seat: int, rng: Rng, memo: dict[str, Any]) -> bool:
        fits = memo.get("fits")
        if fits is None:
            if "fits" in memo:  # (the position's deal was not cut from a pack it shows, as found at its first sample)
                return False
            pack = game._gathered_pack()
            if pack is None:
                memo["fits"] = None
                return False
            cuts = (cut(pack, c) for c in range(FEWEST_CUT, len(pack) - FEWEST_CUT + 1))
            fits = memo["fits"] = [deck for deck in cuts if game._dealt_from(deck, seat) is not None]
        deck = fits[rng.below(len(fits))]
        hands = game._dealt_from(deck, seat)
        assert hands is not None  # a cut that fits
        new = list(range(52))  # each card of the deck the card the cut puts in its place (the stock's, deal_deck)
        for i, card in enumerate(game.deal_deck):
            new[card] = deck[i]
        game._relabel(new)
        game.hands = hands  # (a seat's played cards may trade places among themselves: not a relabeling)
        return True


GATHERED_PACK = GatheredPack()


class BelotePlay(TrickGame):
    """The play of a Belote deal: 8 tricks under the belote legal-card rule, with belote / rebelote."""

    RULES = RULES
    DOUBLE_DUMMY = True  # card points (double_dummy_points: a contract's)
    DECK = DECK
    COPY = {"next_pack": SHARED, "auction": UNTIL_OVER}  # a gathered pack is only cut into a new list
    next_pack: list[int] | None = None  # the gathered pack the next deal is cut from, when it is not shuffled
    auction: ContractAuction | TakeRounds  # the deal's bidding (contrée's contracts, Belote's taking rounds)
    OBSERVED = ("tricks", "card_points", "tricks_won")
    CUT_SHUFFLED = False  # whether a shuffled deck is cut too (belote_contree.md 3.5)
    PARTNERSHIPS = Partnerships()  # belote_contree.md 1.2; belote.md 1.3, with 4 players
    FIRST_PACKETS: tuple[int, ...]  # the packets of the deal's first dealing round by round

    def _draw_first_dealer(self) -> int:
        # 3.1: the lowest card in natural order deals; tied seats draw again from a fresh shuffle
        return draw_for_dealer(self.rng, self.n_players, DRAW_STRENGTH.__getitem__, lowest_deals=True, pack=DECK,
                               fresh_pack_for_ties=True)

    def _keeps_pack(self) -> bool:
        """Whether the next deal is cut from the gathered pack (``next_pack``) rather than shuffled."""
        return True

    def _begin_deal(self, deck: list[int] | None) -> None:
        """The deck, unless given: the gathered pack cut (``_keeps_pack``), else shuffled (and cut, CUT_SHUFFLED)."""
        if deck is None:
            if self.next_pack is not None and self._keeps_pack():
                deck = self._cut(self.next_pack)
            elif self.CUT_SHUFFLED:
                deck = self._cut(self._shuffled_deck())
        self.next_pack = None
        super()._begin_deal(deck)

    def _reset_play(self, hands: list[int]) -> None:
        self._reset_tricks(hands, NO_TRUMP)
        self.belote_seat: int | None = None
        self.rebelote = False

    def _cut(self, pack: list[int]) -> list[int]:
        """The pack cut at a seeded position, at least FEWEST_CUT cards from either end (3..29 of 32)."""
        return cut(pack, FEWEST_CUT + self.rng.below(len(pack) - 2 * FEWEST_CUT + 1))

    def _throw_in(self) -> None:
        """All passed (belote_contree.md 4.8, belote.md 4.3): no score; the next dealer deals the gathered hands."""
        self.next_pack = self._hands_pack()
        self.dealer = self._next_dealer()
        self._begin_deal(None)

    def _hands_pack(self) -> list[int]:
        """A deal gathered without play (belote_contree.md 3.4, belote.md 8): the hands from the dealer's left, each
        in dealt order, then the undealt cards (Belote's turn-up and stock)."""
        order = self.seats_from_dealer()
        hands, used = deal_rounds(self.deal_deck, order, self.FIRST_PACKETS)
        return [c for seat in order for c in hands[seat]] + self.deal_deck[used:]

    def _bid(self, word: str) -> None:
        """A bidding word: the next seat speaks; all passed (belote_contree.md 4.8, belote.md 4.3) and the deal is
        thrown in; or the auction is won (``_auction_won``) and the dealer's left leads the first trick (5.1)."""
        auction = self.auction
        auction.apply(word)
        if not auction.over:
            self.current_player = auction.turn
        elif auction.thrown_in:
            self._throw_in()
        else:
            self._auction_won()
            self.phase, self.current_player = "play", self.seats_from_dealer()[0]

    @abstractmethod
    def _auction_won(self) -> None:
        """The auction is over with a winner: set the trump and whatever the game deals or records then."""

    def belote_side(self) -> int | None:
        return None if self.belote_seat is None else self.side_of[self.belote_seat]

    def belote_points(self) -> list[int]:
        """Per side, the belote's 20 (6.1 / 6.4) or 0."""
        points = [0] * len(self.card_points)  # (no comprehension: every rollout's deal is scored)
        if self.belote_seat is not None:
            points[self.side_of[self.belote_seat]] = BELOTE_POINTS
        return points

    def capot_side(self) -> int | None:
        """The side that won all 8 tricks (a capot), if one did."""
        return self.tricks_won.index(TRICKS) if TRICKS in self.tricks_won else None

    # ---- determinization ----------------------------------------------------------------------------------------

    def _cut_from_tricks(self) -> bool:
        """Whether this deal's deck is the previous deal's tricks gathered and cut, when one was played."""
        return False

    def _gathered_pack(self) -> list[int] | None:
        """The pack this deal was cut from when the match's moves show it (the previous deal's cards in play order),
        else None (a first or shuffled deal, a deal after a redeal or a throw-in, a match loaded mid-way)."""
        if not self._cut_from_tricks():
            return None
        cards: list[int] = []
        for _s, action in reversed(self.moves[:self.dealing_start]):
            card = self.ACTIONS.card_of[action]
            if card is None and self.ACTIONS.strings[action] not in ("declare", "nodeclare"):
                return None
            if card is not None:
                cards.append(card)
            if len(cards) == len(self.deal_deck):
                return cards[::-1]
        return None

    def _dealt_from(self, deck: list[int], seat: int) -> list[int] | None:
        """The hands now if ``deck`` had been dealt, when that fits everything ``seat`` has seen (its own hand, the
        cards played and who played them, what the plays showed lacking, the cards of known place, each hand's
        facts), else None."""
        where = {card: i for i, card in enumerate(self.deal_deck)}
        if any(deck[where[c]] != c for c in self._public_places()):
            return None
        known = self.hands[seat] | self._known_cards(seat)
        lacks = self._shown_lacking()
        hands = []
        for s in range(self.n_players):
            played = self._played_since(s)
            dealt = mask_of(deck[where[c]] for c in cards_in(self.hands[s] | played))
            hand = dealt & ~played
            forbidden = 0
            for _k, mask in lacks[s]:
                forbidden |= mask
            check = self._hand_check(s, known)
            if dealt & played != played or hand & known != self.hands[s] & known or hand & forbidden or (
                    s == seat and hand != self.hands[s]) or (check is not None and not check(cards_in(hand & ~known))):
                return None
            hands.append(hand)
        return hands

    def _public_places(self) -> list[int]:
        """Cards whose deck index every seat saw (a turn-up)."""
        return []

    # ---- observations and positions -----------------------------------------------------------------------------

    def _check_belote(self, played: list[tuple[int, int]]) -> None:
        """6.4: a belote is announced with the first of the trump king and queen, both held by the announcer."""
        if self.belote_seat is None:
            return
        seat = self.belote_seat
        pair = KING_QUEEN[self.trump] if self.trump != NO_TRUMP else ()
        by_seat = {c for s, c in played if s == seat}
        if not pair or not any(c in by_seat for c in pair) or not all(
                c in by_seat or self.hands[seat] & BIT[c] for c in pair):
            raise PositionError(f"belote: seat {seat} must hold the trump king and queen and have played one of them")
        self.rebelote = all(c in by_seat for c in pair)

    def _auction_list(self) -> list[list[Any]]:
        """The bidding so far as observations and positions write it: ``[[seat, word], ...]``."""
        return [[s, w] for s, w in self.auction.actions]

