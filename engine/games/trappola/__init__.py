"""Trappola (``trappola``), exactly as ``shared/rules/trappola.md`` says; section numbers cite it.

Two players, 36 cards (no 3 to 6), nine cards each dealt 4 + 5 (3.4); each player may exchange his whole hand for the
next nine stock cards while nine remain, the non-dealer first (3.5); nine tricks without trumps, follow suit (5);
threes and fours of A, K, Q, J and 2 declared on one's turn (6); card points, tricks won by a 2 and the final run of
twos (7). One deal, or deals to ``target_score``.

>>> import engine
>>> state = engine.new_match("trappola", seed=1, first_dealer=1)
>>> state.phase, state.current_player, state.legal_actions()
('exchange', 0, ['keep', 'redeal'])
"""

from __future__ import annotations

from typing import Any

from ...cards import RANK, make_deck
from ...dealing import deal_round
from ...options import Option
from ...phases import Phase
from ...registry import register
from ...scoring import deals_to_target, point_table, target_or_deals
from ...state import GameInfo, MatchLength
from ...trickgame import TRICK_PLAY, TrickRules
from ...tricks import NO_TRUMP, Ranking, trick_winner
from .exchanges import EXCHANGE_WORDS, EXCHANGES, HandExchanges
from .rules import DECLARATIONS, SetDeclarations, SetDeclaring, WinningCardBonus

DECK = tuple(make_deck("2789TJQKA"))  # 1.3: the 3 to 6 of every suit removed
RANKING = Ranking("AKQJT9872")  # 2.1: no trumps
POINTS = point_table({"A": 6, "K": 5, "Q": 4, "J": 3})  # 2.2
TRICKS = HAND = 9
# 5.2: follow suit, else anything; 5.3; 6.3: sets declared on one's turn, before the card
RULES = TrickRules(RANKING, tricks=TRICKS, points=POINTS, extras=True)
SET_VALUES = {"A": {3: 12, 4: 24}, "K": {3: 6, 4: 12}, "Q": {3: 6, 4: 12}, "J": {3: 6, 4: 12}, "2": {3: 10, 4: 20}}
SETS = SetDeclarations(SET_VALUES, public_ranks="A")  # 6.1, 6.2; 6.4: an ace set shows its rank, the others their size
TWO_TRICK = 10  # 7.1.3: a trick won by a 2
BONUSES = WinningCardBonus(last=6, per_run_trick=26)  # 7.1.4, 7.1.5: the last trick, or the final run of twos
# 3.5: at most three exchange decisions (two sharing the 18 stock cards, and a keep), 6.3: at most three sets
# declared by each player (nine cards), and 18 cards: the most moves of a deal.
MOVES_PER_DEAL = 3 + 2 * 3 + 2 * HAND
LOWEST_DEAL_POINTS = 6  # a deal gives at least the last trick's 6 (or a run's 26) to somebody

ACTIONS = SETS.actions(EXCHANGE_WORDS)
KEEP, REDEAL = (ACTIONS.word_id(word) for word in EXCHANGE_WORDS)
FIRST_WORD = ACTIONS.first_word
CARD_OF = ACTIONS.card_of

OPTIONS = (
    Option("target_score", int, 0, "0 = a single deal; T > 0 = deals until a cumulative total reaches T, the higher "
           "total winning (7.3)", minimum=0, maximum=10_000),
    Option("allow_redeal", bool, True, "the exchange of whole hands before play (3.5); false: none"),
    Option("declarations", bool, True, "declaring threes and fours (6); false: no declarations, no declaration points"),
    Option("public_declaration_ranks", bool, False, "every declaration shows its rank (6.4); false: only aces do"),
)


class Deal(Phase["Trappola"]):
    """The deal itself: the hands (3.4), then the exchanges (3.5.1)."""

    def deal(self, game: Trappola, deck: list[int]) -> None:
        order, hands = game.seats_from_dealer(), [0, 0]
        top = deal_round(deck, 0, hands, order, (4, 5))  # 3.4: four each, then five, the non-dealer first
        game._reset_tricks(hands, NO_TRUMP)
        game._reset_declarations()
        game._open_exchanges(deck[top:], game.options["allow_redeal"])  # 3.5.1: the non-dealer first


@register
class Trappola(SetDeclaring, HandExchanges):
    RULES = RULES
    ACTIONS = ACTIONS
    SETS = SETS
    EXCHANGED, KEEP, REDEAL = HAND, KEEP, REDEAL  # 3.5: a whole hand for the next nine stock cards
    EXCHANGE_RULE = "3.5: the non-dealer first, each while nine stock cards remain"
    DECK = DECK
    STOCK_SHOWN = 0  # 3.5: the stock is face down
    OBSERVED = ("stock_size", "tricks", "card_points", "tricks_won")
    POSITIONED = ("stock",)
    PHASES = ("exchange", "play", "over")
    DEAL_PHASES = (Deal(), EXCHANGES, TRICK_PLAY, DECLARATIONS)
    POSITION_CARD_PILES = ("dead",)  # position keys of this game that hold cards
    INFO = GameInfo(
        id="trappola",
        name="Trappola",
        player_counts=(2,),
        default_players=2,
        options=OPTIONS,
        summary="Cardano's two-player trick game: exchange hands, declare threes and fours, win tricks with a 2.",
    )

    SETTINGS = {"declaring": "declarations", "ranks_shown": "public_declaration_ranks"}  # 6.4
    LENGTH = MatchLength(deals=lambda n, o: deals_to_target(o["target_score"], 1, LOWEST_DEAL_POINTS),  # 7.3
                         moves=MOVES_PER_DEAL)

    # ---- the deal and the exchanges (3) -------------------------------------------------------------------------

    def _begin_play(self) -> None:
        self.phase, self.current_player = "play", 1 - self.dealer  # 5.1
        self._open_declarations()

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def trick_winners(self) -> list[tuple[int, bool]]:
        """(winner, won by a 2) of each finished trick."""
        winners = [trick[trick_winner([c for _s, c in trick], NO_TRUMP, RANKING)] for trick in self.tricks]  # 5.3
        return [(seat, RANK[card] == 0) for seat, card in winners]  # (a 2 is the lowest card: it wins only led)

    def deal_points(self) -> dict[str, Any]:
        """7.1 for the finished tricks: per seat card points, declarations, tricks won by a 2 outside the final run,
        the last trick's 6 or the final run of twos (26 a trick), and the total."""
        twos, bonus, run = BONUSES.score(self.trick_winners(), 2)
        declared = self.declared_points()
        total = [self.card_points[s] + declared[s] + TWO_TRICK * twos[s] + bonus[s] for s in (0, 1)]
        return {"card_points": list(self.card_points), "declarations": declared, "two_tricks": twos,
                "last_trick": [0, 0] if run else bonus, "final_run": run, "run_points": bonus if run else [0, 0],
                "total": total}

    def _score_deal(self) -> None:
        counters = self.deal_points()
        total = counters.pop("total")
        # 7.2: both scores, and the difference: seat 0's score minus seat 1's, then what seat 1 receives (its
        # negation), a list so that simulations sum it per seat
        self._deal_over(total, difference=[total[0] - total[1], total[1] - total[0]], **counters)

    def _match_winners(self) -> list[int] | None:
        # 7.3: to target_score; with target 0 a single deal
        return target_or_deals(self.side_scores, self.options["target_score"], self.deal_index + 1, 1)
