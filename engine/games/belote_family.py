"""What Belote and Belote contrée share: ranks and card points, the legal-card rule, belote / rebelote, trick play.

Both rules files state the same ranking and points (belote_contree.md 2, belote.md 2), the same legal-card rule
(belote_contree.md 5.2, belote.md 5.2) and the same belote action form (``KH`` or ``KH:belote``, 6.1 / 6.4). A game
subclasses :class:`BelotePlay`, deals, runs its own auction and scores; the play of the 8 tricks lives here once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from ..cards import BIT, CODES, RANK_CHAR, SUIT, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ..clone import LIST, SHARED
from ..dealing import draw_for_dealer
from ..errors import PositionError
from ..scoring import point_table
from ..state import State
from ..tricks import (
    NO_TRUMP,
    CardActions,
    FollowRule,
    Ranking,
    beaters_mask,
    check_cards_once,
    check_play_order,
    cut,
    legal_mask,
    position_cards,
    position_trick,
    suit_of_code,
    trick_winner,
)

DECK_RANKS = "789TJQKA"
NATURAL_ORDER = "AKQJT987"  # for drawing the dealer and for declarations (2.4)
RANKING = Ranking("ATKQJ987", "J9ATKQ87")
POWER = RANKING.power
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
POINTS = point_table(PLAIN_POINTS, TRUMP_POINTS)  # POINTS[NO_TRUMP] values every card as a plain card
LAST_TRICK = 10  # dix de der
BELOTE_POINTS = 20
TRICKS = 8
FEWEST_CUT = 3  # a cut leaves at least 3 cards in each packet (belote_contree.md 3.5, belote.md 8)
RULE = FollowRule(must_trump=True, partner_exempts=True, must_overtrump=True)
BELOTE_SUFFIX = 1  # the action id offset of "<card>:belote"
# BEATERS[trump][card]: the trumps that beat a trump card (all trumps for a plain card).
BEATERS = tuple(
    tuple(beaters_mask(RANKING, t, c if SUIT[c] == t else None) for c in range(52)) for t in range(4)
)
KING_QUEEN = tuple((parse_card("K" + s), parse_card("Q" + s)) for s in SUITS)
KQ_MASK = tuple(BIT[k] | BIT[q] for k, q in KING_QUEEN)


def belote_actions(words: list[str]) -> CardActions:
    return CardActions(suffixes=("belote",), words=words)


class BelotePlay(State):
    """The play of a Belote deal: 8 tricks under the belote legal-card rule, with belote / rebelote."""

    ACTIONS: ClassVar[CardActions]
    COPY = {"hands": LIST, "trick": LIST, "tricks": LIST, "card_points": LIST, "tricks_won": LIST,
            "next_pack": SHARED}  # a finished trick is never changed; a gathered pack is only cut into a new list
    PHASES: ClassVar[tuple[str, ...]]

    def _deck_cards(self) -> list[int]:
        return make_deck(DECK_RANKS)

    def _draw_first_dealer(self) -> int:
        # 3.1: the lowest card in natural order deals; tied seats draw again from a fresh shuffle
        return draw_for_dealer(self.rng, self.n, lambda card: -NATURAL_ORDER.index(RANK_CHAR[card]), lowest_deals=True,
                               pack=self._deck_cards(), fresh_pack_for_ties=True)

    def _reset_play(self) -> None:
        self.trump = NO_TRUMP
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[list[tuple[int, int]]] = []
        self.best_seat = self.best_card = -1
        self.over = 0
        sides = max(self.side_of) + 1
        self.card_points = [0] * sides
        self.tricks_won = [0] * sides
        self.last_trick_side: int | None = None
        self.belote_seat: int | None = None
        self.rebelote = False

    # ---- legal cards (5.2) and belote (6.1 / 6.4) ---------------------------------------------------------------

    def _card_ids(self) -> list[int]:
        seat = self.current_player
        hand = self.hands[seat]
        trump = self.trump
        if self.trick:
            partner_winning = self.n == 4 and self.best_seat == (seat + 2) % 4
            playable = legal_mask(RULE, hand, SUIT[self.trick[0][1]], trump, self.over, partner_winning)
        else:
            playable = hand
        ids = self.ACTIONS.ids(playable)
        kq = KQ_MASK[trump]
        if hand & kq == kq and playable & kq:
            ids = sorted(ids + [self.ACTIONS.plain_id[c] + BELOTE_SUFFIX for c in cards_in(playable & kq)])
        return ids

    def _play_card(self, action: int) -> None:
        seat = self.current_player
        card = self.ACTIONS.card_of[action]
        if action % self.ACTIONS.width == BELOTE_SUFFIX:
            self.belote_seat = seat
        elif self.belote_seat == seat and card in KING_QUEEN[self.trump]:
            self.rebelote = True  # 6.2: announced automatically with the other card
        self.hands[seat] ^= BIT[card]
        self._add_to_trick(seat, card)

    def _add_to_trick(self, seat: int, card: int, score: bool = True) -> None:
        trick = self.trick
        trick.append((seat, card))
        trump = self.trump
        if len(trick) == 1 or (POWER[trump][card] > POWER[trump][self.best_card]
                               and (SUIT[card] == SUIT[self.best_card] or SUIT[card] == trump)):
            self.best_card, self.best_seat = card, seat
            self.over = BEATERS[trump][card]
        if len(trick) < self.n:
            self.current_player = (seat + 1) % self.n
            return
        side = self.side_of[self.best_seat]  # 5.3: the trick goes to the winner's side
        points = POINTS[trump]
        self.card_points[side] += sum(points[c] for _s, c in trick)
        self.tricks_won[side] += 1
        self.tricks.append(trick)
        self.trick = []
        self.current_player = self.best_seat
        if len(self.tricks) == TRICKS:
            self.last_trick_side = side  # 5.4: dix de der
            if score:
                self._score_deal()

    def _cut(self, pack: list[int]) -> list[int]:
        """The pack cut at a seeded position, at least FEWEST_CUT cards from either end (3..29 of 32)."""
        return cut(pack, FEWEST_CUT + self.rng.below(len(pack) - 2 * FEWEST_CUT + 1))

    def _throw_in(self) -> None:
        """All passed (belote_contree.md 4.8, belote.md 4.3): no score; the next dealer deals the gathered hands."""
        self.next_pack = self._hands_pack()
        self.dealer = self._next_dealer()
        self._begin_deal(None)

    @abstractmethod
    def _hands_pack(self) -> list[int]:
        """This deal's cards gathered without play (a thrown-in deal), top first."""

    @abstractmethod
    def _score_deal(self) -> None:
        """Score the finished deal (each game its own way) and call ``_deal_over``."""

    def belote_side(self) -> int | None:
        return None if self.belote_seat is None else self.side_of[self.belote_seat]

    def trick_totals(self) -> list[int]:
        """Each side's card points plus the last-trick bonus (plus 90 for a capot is the game's business)."""
        return [p + (LAST_TRICK if side == self.last_trick_side else 0) for side, p in enumerate(self.card_points)]

    # ---- observations and positions -----------------------------------------------------------------------------

    def _observe_play(self, seat: int, obs: dict) -> None:
        obs["hand"] = codes_of(cards_in(self.hands[seat]))
        obs["trump"] = None if self.trump == NO_TRUMP else SUITS[self.trump]
        obs["trick"] = [[s, CODES[c]] for s, c in self.trick]
        obs["tricks"] = [[[s, CODES[c]] for s, c in trick] for trick in self.tricks]
        obs["card_points"] = list(self.card_points)
        obs["tricks_won"] = list(self.tricks_won)
        obs["belote"] = self.belote_seat

    def _play_position(self) -> dict:
        return {
            "trump": None if self.trump == NO_TRUMP else SUITS[self.trump],
            "hands": [codes_of(cards_in(h)) for h in self.hands],
            "trick": [[s, CODES[c]] for s, c in self.trick],
            "tricks": [[[s, CODES[c]] for s, c in trick] for trick in self.tricks],
            "belote": self.belote_seat,
        }

    def _load_play(self, p: Mapping[str, Any]) -> None:
        """Hands, trump and the tricks so far, checked against the rules: the 32 cards once each, tricks played in
        turn (the dealer's left leads the first, 5.1; each winner the next, 5.3), the hand sizes they leave, the seat
        to act and the belote. The trick state is rebuilt by replaying the played cards."""
        self._reset_play()
        if self.phase not in self.PHASES:
            raise PositionError(f"phase must be one of {self.PHASES}, got {self.phase!r}")
        over = self.phase == "over"
        hands = p["hands"]
        if not isinstance(hands, list) or len(hands) != self.n:
            raise PositionError(f"hands must list {self.n} seats")
        hand_cards = [position_cards(hand, f"hands[{seat}]") for seat, hand in enumerate(hands)]
        self.hands = [mask_of(cards) for cards in hand_cards]
        self.trump = NO_TRUMP if p["trump"] is None else suit_of_code(p["trump"])
        belote = p["belote"]
        if belote is not None and (type(belote) is not int or belote not in range(self.n)):
            raise PositionError(f"belote must be a seat or null, got {belote!r}")
        self.belote_seat = belote
        if not isinstance(p["tricks"], list) or len(p["tricks"]) > TRICKS:
            raise PositionError(f"tricks must list at most {TRICKS} finished tricks")
        tricks = [position_trick(t, f"tricks[{k}]", self.n) for k, t in enumerate(p["tricks"])]
        trick = position_trick(p["trick"], "trick", self.n, most=self.n - 1)
        in_play = self.phase == "play" or over
        if (tricks or trick) and not in_play:
            raise PositionError(f"no card is played in phase {self.phase!r}")
        if over != (len(tricks) == TRICKS):
            raise PositionError("a deal in play has fewer than 8 finished tricks; a match is over after the 8th")
        self._check_cards_once(hand_cards, tricks, trick)
        trump = self.trump
        to_play = check_play_order(tricks, trick, (self.dealer + 1) % self.n, self.n,
                                   lambda cards: trick_winner(cards, trump, RANKING))
        for played in [*tricks, trick]:
            for seat, card in played:
                self._add_to_trick(seat, card, score=False)
        self._check_hand_sizes(tricks, trick)
        if self.phase == "play" and p["current_player"] != to_play:
            raise PositionError(f"current_player must be {to_play}, the seat to play to the trick")
        self._check_belote([c for played in [*tricks, trick] for c in played])
        self.current_player = p["current_player"]

    def _check_cards_once(self, hands: list[list[int]], tricks: list, trick: list) -> None:
        piles = {f"hands[{seat}]": cards for seat, cards in enumerate(hands)}
        piles["tricks"] = [c for played in tricks for _s, c in played]
        piles["trick"] = [c for _s, c in trick]
        piles.update(self._other_piles())
        check_cards_once(piles, self._deck_cards())

    def _check_hand_sizes(self, tricks: list, trick: list) -> None:
        for seat in range(self.n):
            if self.phase in ("play", "over"):
                due = TRICKS - len(tricks) - any(s == seat for s, _c in trick)
            else:
                due = self._hand_size_before_play()
            if self.hands[seat].bit_count() != due:
                raise PositionError(f"seat {seat} must hold {due} cards here, not {self.hands[seat].bit_count()}")

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

    @abstractmethod
    def _hand_size_before_play(self) -> int:
        """How many cards each seat holds during the auction."""

    def _other_piles(self) -> dict[str, list[int]]:
        """Cards of the position outside the hands and tricks (a turn-up, a stock), by position key."""
        return {}

