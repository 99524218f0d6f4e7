"""What Belote and Belote contrée share: ranks and card points, the legal-card rule, belote / rebelote, trick play.

Both rules files state the same ranking and points (belote_contree.md 2, belote.md 2), the same legal-card rule
(belote_contree.md 5.2, belote.md 5.2) and the same belote action form (``KH`` or ``KH:belote``, 6.1 / 6.4). A game
subclasses :class:`BelotePlay`, deals, runs its own auction and scores; the play of the 8 tricks lives here once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from ..cards import BIT, CODES, SUIT, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ..declarations import holds_pair
from ..errors import PositionError
from ..scoring import point_table
from ..state import State
from ..tricks import NO_TRUMP, CardActions, FollowRule, Ranking, beaters_mask, draw_lowest_card, legal_mask

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
    PHASES: ClassVar[tuple[str, ...]]

    def _deck_cards(self) -> list[int]:
        return make_deck(DECK_RANKS)

    def _draw_first_dealer(self) -> int:
        return draw_lowest_card(self.rng, self._deck_cards(), range(self.n), NATURAL_ORDER)  # 3.1

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
        """Hands, trump and the tricks so far; the trick state is rebuilt by replaying the played cards."""
        self._reset_play()
        hands = p["hands"]
        if not isinstance(hands, list) or len(hands) != self.n:
            raise PositionError(f"hands must list {self.n} seats")
        self.hands = [mask_of(parse_card(c) for c in hand) for hand in hands]
        self.trump = NO_TRUMP if p["trump"] is None else SUITS.index(p["trump"])
        belote = p["belote"]
        if belote is not None and belote not in range(self.n):
            raise PositionError(f"belote must be a seat or null, got {belote!r}")
        self.belote_seat = belote
        over = self.phase == "over"
        if self.phase not in self.PHASES:
            raise PositionError(f"phase must be one of {self.PHASES}, got {self.phase!r}")
        if over and p.get("winners") is None:
            raise PositionError("a match that is over names its winners")
        if len(p["tricks"]) > TRICKS or (len(p["tricks"]) == TRICKS and not over):
            raise PositionError("a deal in play has fewer than 8 finished tricks")
        played = [*p["tricks"], p["trick"]] if p["trick"] else list(p["tricks"])
        current = self.current_player
        for trick in played:
            if not isinstance(trick, list) or not 1 <= len(trick) <= self.n:
                raise PositionError(f"a trick lists 1 to {self.n} [seat, card] pairs, got {trick!r}")
            for seat, code in trick:
                if seat not in range(self.n):
                    raise PositionError(f"not a seat: {seat!r}")
                self._add_to_trick(seat, parse_card(code), score=False)
        self.current_player = current
        if self.belote_seat is not None:
            king, queen = KING_QUEEN[self.trump]
            played_cards = {c for trick in played for _s, c in trick}
            self.rebelote = king in played_cards and queen in played_cards
        self._check_cards([parse_card(c) for hand in hands for c in hand]
                          + [parse_card(code) for t in played for _s, code in t] + self._other_cards())

    def _other_cards(self) -> list[int]:
        """Cards of the position outside the hands and tricks (a turn-up, a stock), for the duplicate check."""
        return []

    def _check_cards(self, cards: list[int]) -> None:
        if len(cards) != len(set(cards)):
            raise PositionError("a card appears twice in the position")
        if not set(cards) <= set(self._deck_cards()):
            raise PositionError("a card is not in the 32-card deck")


def holds_belote(hand: int, trump: int) -> bool:
    return trump != NO_TRUMP and holds_pair(hand, *KING_QUEEN[trump])
