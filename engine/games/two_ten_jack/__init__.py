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

from collections.abc import Sequence
from functools import cache
from typing import Any

from ...cards import BIT, SUIT, SUIT_MASK, SUITS, cards_in, codes_of, parse_card
from ...clone import LIST
from ...dealing import deal_round, seats_from
from ...errors import PositionError
from ...options import Option
from ...phases import Loading, Phase
from ...registry import register
from ...scoring import PlusMinusCards, target_or_deals
from ...state import GameInfo, MatchLength
from ...trickgame import FACE_DOWN_CARDS, TRICK_PLAY, PlayPart, TrickRules
from ...tricks import CLUBS, DIAMONDS, CardActions, Ranking, suit_of_code
from .facedown import FACE_DOWN_WORDS, FaceDownLead
from .rules import SpecialCards, best_from, even_decks, holds_none

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
ACTIONS = CardActions(words=FACE_DOWN_WORDS)
DOWN_ID = tuple(ACTIONS.word_id(word) for word in FACE_DOWN_WORDS)  # the action that plays a card face down
DOWN_CARD = {action: card for card, action in enumerate(DOWN_ID)}
DECKS = even_decks(REMOVED, range(2, 8))  # 1.3: the 52 cards less 52 mod n of REMOVED


def deck_for(n: int) -> list[int]:
    return list(DECKS[n])


@cache
def rules_for(tricks: int) -> TrickRules:
    """5.2 (follow suit, nothing more), 5.7 (each seat draws after a trick, the winner first), ``tricks`` a deal."""
    return TrickRules(RANKING, tricks=tricks, draw_after_trick=True)


OPTIONS = (
    # at most 52 // n - 1 cards a hand, which leaves a stock whose top card names trump (3.5)
    Option("hand_size", int, lambda n: 6 if n == 2 else 4, "cards per hand and refill level (3.4): 6 with 2 players, "
           "else 4", choices=tuple(range(1, 52 // 2)), choices_for=lambda n: tuple(range(1, 52 // n))),
    Option("num_games", int, 5, "games (deals) in the match (7.3)", minimum=1, maximum=99),
    Option("must_trump", bool, False, "a player void in the led suit must trump if able, AS counting as a trump (8)"),
    Option("reversal", bool, True, "taking all six minus cards reverses every sign (7.2)"),
    Option("same_two", bool, True, "a 2 wins a trick all of its suit (5.4)"),
    Option("fixed_trump", str, "none", "a suit that is always trump (the stock's top card is then ignored), or none",
           choices=("none", *SUITS)),
)


class Scoring(PlayPart["TwoTenJack"]):
    """The score: the cards each trick's winner takes (5.6), which every seat sees with their points (5.7, 6); a
    position's match scores are a sum of zero-sum games (2.4), the first dealt by first_dealer. The deal's own keys
    are the face-down cards' and the trick play's: the deck once each, the deal replayed from deal_deck as the tricks
    say (draws and face-down cards included) and the stock left."""

    def observe(self, game: TwoTenJack, seat: int, obs: dict[str, Any]) -> None:
        obs["taken"] = [codes_of(cards_in(pile)) for pile in game.taken]
        obs["points"] = [CARDS.pile_points(pile) for pile in game.taken]
        others = sum(hand for other, hand in enumerate(game.hands) if other != seat)  # disjoint masks
        obs["known_cards"] = codes_of(cards_in(game._known_cards(seat) & others))

    def trick_taken(self, game: TwoTenJack, winner: int) -> None:
        won = 0
        for _s, c in game.tricks[-1]:
            won |= BIT[c]
        game.taken[winner] |= won  # 5.6

    def load(self, game: TwoTenJack, loading: Loading) -> None:
        if sum(game.side_scores):
            raise PositionError(f"scores must add up to 0 (every game is zero-sum, 2.4), got {game.side_scores}")
        if game.deal_index == 0 and game.dealer != game.first_dealer:
            raise PositionError("the first game's dealer is first_dealer")


class Deal(Phase["TwoTenJack"]):
    """The deal itself: the hands and the face-up stock (3.4, 3.5), then the play."""

    def deal(self, game: TwoTenJack, deck: list[int]) -> None:
        leader, hands = game._first_leader(), [0] * game.n_players
        dealt = deal_round(deck, 0, hands, seats_from(leader, game.n_players), (1,) * game.hand_size)  # 3.4: singly
        game.stock, game.stock_top = deck[dealt:], 0  # 3.5: face up
        trump = SUIT[game.stock[0]] if game.fixed_trump is None else game.fixed_trump
        game._reset_tricks(hands, trump)
        game._open_lead()
        game.void_must = SUIT_MASK[trump] | BIT[ALMIGHTY] if game.options["must_trump"] else 0  # 8: AS a trump too
        game.taken = [0] * game.n_players
        game.phase, game.current_player = "play", leader  # 5.1

    def trump(self, game: TwoTenJack) -> tuple[int, str]:
        dealt = game.n_players * game.hand_size  # 3.5: the suit of the stock's first card, or fixed_trump
        want = SUIT[game.deal_deck[dealt]] if game.fixed_trump is None else game.fixed_trump
        return want, f"trump must be {SUITS[want]}: fixed_trump, else the suit of deal_deck[{dealt}]"

    def misdeal(self, game: TwoTenJack, new: Sequence[int] | None = None) -> str | None:
        """3.6: a deal that gives the hands no club or diamond is void, dealt again."""
        if not holds_none(game.deal_deck[:game.n_players * game.hand_size], MINORS, new):
            return None
        return "deals only hearts and spades: a void deal is dealt again (3.6)"

    def next_dealer(self, game: TwoTenJack) -> int:
        """3.2: the winner of the game just played leads the next (ties: the first from the last first leader); the
        dealer is the seat before him."""
        return (best_from(game.deal_results[-1]["points"], game._first_leader()) - 1) % game.n_players

    def deck(self, game: TwoTenJack) -> list[int]:
        return deck_for(game.n_players)


@register
class TwoTenJack(FaceDownLead):
    RULES = rules_for(26)  # per match: rules_for(deck size // players), set by SETTINGS
    ACTIONS, SPECIALS = ACTIONS, SPECIALS
    DOWN_ID, DOWN_CARD = DOWN_ID, DOWN_CARD
    LEADS = DOWN_LACKS = MINORS  # 5.3: a club or a diamond leads the first trick, else a card face down
    STOCK_SHOWN = 1  # 3.5: the stock is face up, its top card seen by all
    STOCK_DRAWN_SHOWN = True  # 3.5, 5.7: each card drawn from the face-up stock in view of all
    OBSERVED = ("face_up", "stock_size", "tricks_played")
    POSITIONED = ("face_up", "stock")
    KEY_RULES = {"face_down": "face_down lists the cards played face down in the first trick"}
    DEAL_PHASES = (Deal(), Scoring(), FACE_DOWN_CARDS, TRICK_PLAY)
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
        face_down=True, shown_until_played=True,
    )

    hand_size: int
    fixed_trump: int | None  # the suit of option fixed_trump, None for none
    taken: list[int]  # each seat's won cards (7.1)

    SETTINGS = {
        "hand_size": "hand_size",
        "sweep": "same_two",  # 5.4
        # A deal plays every card of the deck: its trick count depends on the players (an immutable record).
        "RULES": lambda n, o: rules_for(len(deck_for(n)) // n),
        "fixed_trump": ("fixed_trump", lambda code: None if code == "none" else suit_of_code(code)),
    }
    # num_games deals of every card of the deck; void deals (3.6) are dealt again.
    LENGTH = MatchLength(deals=lambda n, o: o["num_games"], moves=lambda n, o: len(deck_for(n)), redeals=True)

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        points, shooter = CARDS.scores(self.taken, self.options["reversal"])
        self._deal_over(points, reversal=shooter)

    def _match_winners(self) -> list[int] | None:
        return target_or_deals(self.side_scores, 0, self.deal_index + 1, self.options["num_games"])
