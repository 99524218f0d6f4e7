"""Two-Ten-Jack (``two_ten_jack``), exactly as ``shared/rules/two_ten_jack.md`` says; section numbers cite it.

Two to seven players, each alone; hands of 4 (6 with two players) refilled from a face-up stock whose top card names
trump (3.4, 3.5, 5.7). The almighty ``AS`` wins every trick but one holding ``QH`` (2.3), a 2 wins a trick of its own
suit (same two, 5.4), and the first trick must be led with a club or a diamond, players holding none giving up the
lead with a card played face down (5.3). Plus and minus scoring cards, turned over when one player takes all six
minus cards (7.2); a match of five games (7.3).

>>> import engine
>>> state = engine.new_match("two_ten_jack", seed=1, first_dealer=0)
>>> state.current_player, state.to_position()["face_up"], state.legal_actions()
(1, '4C', ['5D', '6D', '8D', '9D', 'QD'])

"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from ..cards import BIT, CODES, SUIT, SUIT_MASK, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ..clone import LIST
from ..determinize import Slot, redeal, relabeling
from ..errors import PositionError
from ..options import Option
from ..registry import register
from ..rng import Rng
from ..scoring import PlusMinusCards, target_or_deals
from ..state import GameInfo, GameLength, match_length
from ..trickgame import TrickGame, TrickRules, position_hand
from ..tricks import (
    CLUBS,
    DIAMONDS,
    CardActions,
    Ranking,
    SpecialCards,
    special_trick_winner,
    suit_of_code,
    trick_winner,
)

RANKING = Ranking("AKQJT98765432")  # 2.1
ALMIGHTY = parse_card("AS")
SPECIALS = SpecialCards(almighty=ALMIGHTY, killer=parse_card("QH"), sweeper="2")  # 2.3, 5.4
CARDS = PlusMinusCards({  # 2.4: fixed whatever the trump suit
    "2H": 10, "TH": 10, "JH": 10, "QH": 5, "KH": 5, "AH": 5,
    **{r + s: 1 for r in "TJQKA" for s in "CD"},
    "QS": -5, "KS": -5, "2S": -10, "TS": -10, "JS": -10, "AS": -15,
})
REMOVED = tuple(parse_card(c) for c in ("3C", "3D", "3H", "3S"))  # 1.3: as many as 52 mod n, in this order
MINORS = SUIT_MASK[CLUBS] | SUIT_MASK[DIAMONDS]  # 5.3: the suits that may lead the first trick
FACEDOWN = "facedown:"
ACTIONS = CardActions(words=[FACEDOWN + code for code in CODES])
DOWN_ID = tuple(ACTIONS.word_id(FACEDOWN + code) for code in CODES)  # the action that plays a card face down
DOWN_CARD = {action: card for card, action in enumerate(DOWN_ID)}
CARD_OF = ACTIONS.card_of
VOID_TRIES = 1000  # determinization: samples drawn before keeping the real deal when all are void deals (3.6)


def deck_for(n: int) -> list[int]:
    """1.3: the 52 cards less 52 mod n of ``REMOVED``."""
    return list(DECKS[n])


DECKS = {n: tuple(c for c in make_deck() if c not in REMOVED[:52 % n]) for n in range(2, 8)}


def largest_hand(n: int) -> int:
    """The largest hand that leaves a stock whose top card can name trump (52 // n - 1)."""
    return 52 // n - 1


@cache
def rules_for(tricks: int) -> TrickRules:
    """5.2 (follow suit, nothing more), 5.7 (each seat draws after a trick, the winner first), ``tricks`` a deal."""
    return TrickRules(RANKING, tricks=tricks, draw_after_trick=True)


OPTIONS = (
    Option("hand_size", int, lambda n: 6 if n == 2 else 4, "cards per hand and refill level (3.4): 6 with 2 players, "
           "else 4", choices=tuple(range(1, largest_hand(2) + 1)),
           choices_for=lambda n: tuple(range(1, largest_hand(n) + 1))),
    Option("num_games", int, 5, "games (deals) in the match (7.3)", minimum=1, maximum=99),
    Option("must_trump", bool, False, "a player void in the led suit must trump if able, AS counting as a trump (8)"),
    Option("reversal", bool, True, "taking all six minus cards reverses every sign (7.2)"),
    Option("same_two", bool, True, "a 2 wins a trick all of its suit (5.4)"),
    Option("fixed_trump", str, "none", "a suit that is always trump (the stock's top card is then ignored), or none",
           choices=("none", *SUITS)),
)


@register
class TwoTenJack(TrickGame):
    RULES = rules_for(26)  # per match: rules_for(deck size // players), set by _configure
    ACTIONS = ACTIONS
    STOCK_SHOWN = 1  # 3.5: the stock is face up, its top card seen by all
    OBSERVED = ("face_up", "stock_size", "tricks_played")
    POSITIONED = ("face_up", "stock")
    KEY_RULES = {"face_down": "face_down lists the cards played face down in the first trick"}
    COPY = {"taken": LIST}
    POSITION_CARD_PILES = ("face_up",)
    INFO = GameInfo(
        id="two_ten_jack",
        name="Two-Ten-Jack",
        aliases=("ツーテンジャック",),
        player_counts=tuple(range(2, 8)),
        default_players=2,
        options=OPTIONS,
        summary="Take the hearts and dodge the spades, hands refilled from a face-up stock; the almighty ace of spades "
                "falls only to the queen of hearts.",
        deck_size=52,
        deck_sizes={n: len(deck_for(n)) for n in range(2, 8)},
    )

    hand_size: int
    same_two: bool  # option same_two (5.4)
    _down_given = 0  # loading a position: its face_down cards, replayed face down
    down: int  # the cards played face down this deal (5.3)
    led: int | None  # the led suit of the trick in play: its first face-up card's (None before one)
    taken: list[int]  # each seat's won cards (7.1)
    drawn: int  # the stock cards drawn this deal: every seat saw them on top of the stock (3.5)
    trumps: int  # the cards a must_trump player void in the led suit has to play: trumps and AS (8)

    def _configure(self) -> None:
        self.hand_size = self.options["hand_size"]
        self.same_two = self.options["same_two"]
        # A deal plays every card of the deck: its trick count depends on the players (an immutable record).
        self.__dict__["RULES"] = rules_for(len(deck_for(self.n)) // self.n)
        fixed = self.options["fixed_trump"]
        self.fixed_trump = None if fixed == "none" else suit_of_code(fixed)

    def _deck_cards(self) -> list[int]:
        return deck_for(self.n)

    @classmethod
    def _length(cls, n: int, options: Mapping[str, Any]) -> GameLength:
        # num_games deals of every card of the deck; void deals (3.6) are dealt again.
        return match_length(options["num_games"], len(deck_for(n)), options, redeals=True)

    # ---- the deal (3) -------------------------------------------------------------------------------------------

    def _begin_deal(self, deck: list[int] | None) -> None:
        super()._begin_deal(deck)
        while self.current_player is not None and not self._minors_dealt():  # 3.6: a void deal, dealt again
            super()._begin_deal(None)

    def _minors_dealt(self) -> bool:
        return any(hand & MINORS for hand in self.hands)

    def _start_deal(self, deck: list[int]) -> None:
        n, dealt = self.n, self.n * self.hand_size
        leader = self._first_leader()
        hands = [0] * n
        for k in range(n):  # 3.4: one card at a time from the first leader on
            hands[(leader + k) % n] = mask_of(deck[k:dealt:n])
        self.stock, self.stock_top = deck[dealt:], 0  # 3.5: face up
        trump = SUIT[self.stock[0]] if self.fixed_trump is None else self.fixed_trump
        self._reset_tricks(hands, trump)
        self.trumps = SUIT_MASK[trump] | BIT[ALMIGHTY]
        self.led, self.down, self.drawn = None, 0, 0
        self.taken = [0] * n
        self.phase, self.current_player = "play", leader  # 5.1

    def _next_dealer(self) -> int:
        """3.2: the winner of the game just played leads the next (ties: the first from the last first leader); the
        dealer is the seat before him."""
        points, first = self.deal_results[-1]["points"], self._first_leader()
        top = max(points)
        leader = next(s for s in ((first + k) % self.n for k in range(self.n)) if points[s] == top)
        return (leader - 1) % self.n

    # ---- legal actions (5.2, 5.3, 8 must_trump) -----------------------------------------------------------------

    def _card_ids(self) -> list[int]:
        seat = self.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        hand, led = self.hands[seat], self.led
        if led is None:
            if self.tricks:
                return ACTIONS.ids(hand)
            minors = hand & MINORS  # 5.3: the first trick's lead card is a club or a diamond, else a card face down
            return ACTIONS.ids(minors) if minors else sorted(DOWN_ID[c] for c in cards_in(hand))
        same = hand & SUIT_MASK[led]
        if same:
            return ACTIONS.suit_ids(same, led)
        if self.options["must_trump"] and hand & self.trumps:
            return ACTIONS.ids(hand & self.trumps)
        return ACTIONS.ids(hand)

    _legal_ids = _card_ids  # every action plays a card

    # ---- play (5.3 - 5.7) ---------------------------------------------------------------------------------------

    def _play_action(self, action: int) -> None:
        seat, card = self.current_player, CARD_OF[action]
        assert seat is not None  # State.apply_id applies only a legal action
        if card is None:  # facedown:<card>
            card = DOWN_CARD[action]
            self.down |= BIT[card]
        self.hands[seat] ^= BIT[card]
        self._add_to_trick(seat, card)

    _apply = _play_action

    def _add_to_trick(self, seat: int, card: int) -> None:
        trick = self.trick
        trick.append((seat, card))
        if self.led is None and not self.down & BIT[card]:
            self.led = SUIT[card]
        n = self.n
        if len(trick) < n:
            self.current_player = seat + 1 if seat + 1 < n else 0
            return
        cards = [c for _s, c in trick]
        if self.tricks:  # after the first trick: every card face up (the common case, without _winner's calls)
            best = SPECIALS.winner(cards, self.same_two)
            self.best_seat = trick[trick_winner(cards, self.trump, RANKING) if best is None else best][0]
        else:
            self.best_seat = trick[self._winner(True, cards, self.trump, self.down)][0]
        self._end_trick()

    def _winner(self, first: bool, cards: list[int], trump: int, down: int) -> int:
        """5.5: the index of the winning card; the first trick knows no same two, its face-down cards never win."""
        sweep = self.same_two and not first
        return special_trick_winner(cards, trump, RANKING, SPECIALS, sweep, down if first else 0)

    def _winner_rule(self, trump: int) -> Callable[[list[int]], int]:
        numbers, down = itertools.count(), self._down_given  # a position's tricks from the first, with its face_down
        return lambda cards: self._winner(next(numbers) == 0, cards, trump, down)

    def _trick_taken(self, winner: int) -> None:
        won = 0
        for _s, c in self.tricks[-1]:
            won |= BIT[c]
        self.taken[winner] |= won  # 5.6
        top = self.stock_top
        if top < len(self.stock):
            for c in self.stock[top:top + self.n]:  # 5.7: drawn next, in view of all
                self.drawn |= BIT[c]
        self.led = None

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        points, shooter = CARDS.scores(self.taken, self.options["reversal"])
        self._deal_over(points, reversal=shooter)

    def _match_winners(self) -> list[int] | None:
        return target_or_deals(self.side_scores, 0, self.deal_index + 1, self.options["num_games"])

    # ---- what a seat sees -----------------------------------------------------------------------------------------

    def _shown(self, seat: int, viewer: int, card: int) -> str:
        """A trick card as ``viewer`` sees it: a card played face down is hidden from the others until gathered."""
        if not self.down & BIT[card]:
            return CODES[card]
        return FACEDOWN + CODES[card] if seat == viewer else "facedown"

    def _observe_deal(self, seat: int, obs: dict[str, Any]) -> None:
        obs["trick"] = [[s, self._shown(s, seat, c)] for s, c in self.trick]
        obs["taken"] = [codes_of(cards_in(pile)) for pile in self.taken]
        obs["points"] = [CARDS.pile_points(pile) for pile in self.taken]
        others = 0
        for other, hand in enumerate(self.hands):
            if other != seat:
                others |= hand
        obs["known_cards"] = codes_of(cards_in(self.drawn & others))  # drawn from the face-up stock (3.5)

    def action_seen_by(self, viewer: int | None, actor: int, action: str) -> str:
        """5.3: a card played face down shows the others no card when it is played (it is gathered face down; the
        history shows it once the first trick is over)."""
        if viewer != actor and action.startswith(FACEDOWN):
            return "facedown"
        return action

    def _public_history(self, seat: int) -> list[list[Any]]:
        history = super()._public_history(seat)
        if not self.tricks and self.down:  # the first trick is in play: its last moves, some of them face down
            for entry in history[len(history) - len(self.trick):]:
                if entry[0] != seat and entry[1].startswith(FACEDOWN):
                    entry[1] = "facedown"
        return history

    # ---- determinization: the hands' dealt cards and the stock under its top card are unseen --------------------

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        """As the trick game's, but never a void deal (3.6: one would have been dealt again); after ``VOID_TRIES``
        void samples the real deal stays (it is one the play could come from)."""
        slots = self._unseen_slots(seat)
        dealt = self.deal_deck[:self.n * self.hand_size]
        for _ in range(VOID_TRIES):
            new = relabeling(slots, redeal(slots, rng))
            if any(BIT[new[c]] & MINORS for c in dealt):
                self._relabel(new)
                return

    def _shown_lacking(self) -> list[list[tuple[int, int]]]:
        """A card played face down shows a hand without clubs and diamonds (5.3); a follower who does not follow
        shows a void, and with must_trump no trump nor AS when he plays neither."""
        lacks: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        must_trump, trumps, down = self.options["must_trump"], self.trumps, self.down
        for k, played in enumerate([*self.tricks, self.trick]):
            led = None
            for seat, card in played:
                if down & BIT[card]:
                    lacks[seat].append((k, MINORS))
                elif led is None:
                    led = SUIT[card]
                elif SUIT[card] != led:
                    lacking = SUIT_MASK[led] | (trumps if must_trump and not trumps & BIT[card] else 0)
                    lacks[seat].append((k, lacking))
        return lacks

    def _known_cards(self, seat: int) -> int:
        return self.drawn

    def _unseen_slots(self, seat: int) -> list[Slot]:
        slots = super()._unseen_slots(seat)
        if not self.tricks:  # 5.3: the others' face-down cards stay unseen until the first trick is gathered
            slots += [Slot([c], MINORS) for s, c in self.trick if s != seat and self.down & BIT[c]]
        return slots

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        if self.tricks or not self.down:
            return
        self.trick = [(s, new[c]) for s, c in self.trick]  # a face-down card redealt: its move names the new card
        self.down = mask_of(new[c] for c in cards_in(self.down))
        moves = self.moves
        for k in range(len(moves) - len(self.trick), len(moves)):
            s, action = moves[k]
            if action in DOWN_CARD:
                moves[k] = (s, DOWN_ID[new[DOWN_CARD[action]]])

    # ---- positions (docs/positions/two_ten_jack.md) -------------------------------------------------------------

    def _deal_position(self) -> dict[str, Any]:
        return {"face_down": codes_of(cards_in(self.down))}

    def _load_position(self, p: Mapping[str, Any]) -> None:
        """Load and check a position: the deck once each, the deal replayed from deal_deck as the tricks say (draws
        and face-down cards included), the stock left and the scores a sum of zero-sum games."""
        if sum(self.side_scores):
            raise PositionError(f"scores must add up to 0 (every game is zero-sum, 2.4), got {self.side_scores}")
        if self.deal_index == 0 and self.dealer != self.first_dealer:
            raise PositionError("the first game's dealer is first_dealer")
        self._down_given = mask_of(position_hand(p["face_down"], "face_down"))
        to_play = self._load_deal(p)
        del self._down_given
        self._check_deal(p, to_play)

    def _dealt_trump(self) -> tuple[int, str]:
        dealt = self.n * self.hand_size  # 3.5: the suit of the stock's first card, or fixed_trump
        want = SUIT[self.deal_deck[dealt]] if self.fixed_trump is None else self.fixed_trump
        return want, f"trump must be {SUITS[want]}: fixed_trump, else the suit of deal_deck[{dealt}]"

    def _check_dealt(self, trump: int, hands: list[list[int]]) -> None:
        """3.6: not a void deal."""
        if not mask_of(self.deal_deck[:self.n * self.hand_size]) & MINORS:
            raise PositionError("deal_deck deals only hearts and spades: a void deal is dealt again (3.6)")

    def _card_action(self, seat: int, card: int) -> int | None:
        if self.hands[seat] & BIT[card] & self._down_given:
            return DOWN_ID[card]
        return super()._card_action(seat, card)

