"""Whist (``plain_whist``): the game docs/adding_a_game.md builds, one package played through the generic suites
(tests/test_plain_whist.py registers it for its tests only; it is none of the product's games).

The rules are The Laws of Short Whist (the Portland and Arlington clubs, 1864), one game of 5 points (no rubber);
sections cite this list:

1. Four players in two partnerships, partners opposite: seats 0 and 2 against 1 and 3. A 52-card pack, A K Q J T
   9 ... 2 in every suit.
2. The dealer deals all the cards singly from his left, 13 each. 2.1: the last card, the dealer's, is turned up and
   its suit is trump; everyone sees it, and knows the dealer holds it until he plays it. 2.2: the deal passes to the
   left.
3. The dealer's left leads to the first trick, the winner of a trick to the next. Each player must follow suit if he
   can, else plays any card. The highest trump wins the trick, else the highest card of the suit led.
4. Scoring: 4.1: a side scores 1 point for each trick it takes above six (the book). 4.2: the honours are the A K Q J
   of trumps: a side dealt all four between its players scores 4, three of them 2 (option ``honours``, on by
   default; off: tricks only, as American whist plays). 4.3: a side at 4 (one short of game) when the deal begins
   scores no honours. 4.4: tricks score before honours, so a side that makes game by tricks wins before honours count.
5. The game is won by the first side to 5 points (option ``target``).

>>> import engine
>>> from engine.registry import registered
>>> with registered(PlainWhist):
...     state = engine.new_match("plain_whist", seed=1, first_dealer=3)
...     state.current_player, state.trump == SUIT[state.turn_up], len(state.legal_actions())
(0, True, 13)
"""

from __future__ import annotations

from typing import Any

from engine.cards import BIT, CODES, RANK_CHAR, SUIT, cards_in, codes_of, make_deck
from engine.dealing import deal_round
from engine.options import Option
from engine.phases import Phase
from engine.state import GameInfo, MatchLength, Partnerships
from engine.trickgame import TRICK_PLAY, TrickGame, TrickRules
from engine.tricks import CardActions, Ranking

RANKING = Ranking("AKQJT98765432")  # 1: the same order in trumps and plain suits
RULES = TrickRules(RANKING, tricks=13)  # 3: follow suit, else any card (the default FOLLOW_SUIT)
BOOK = 6  # 4.1
HONOUR_POINTS = {3: 2, 4: 4}  # 4.2: honours held by one side -> points

OPTIONS = (
    Option("target", int, 5, "the points that win the game (5)", minimum=1, maximum=50),
    Option("honours", bool, True, "score honours (4.2); false: tricks only"),
)


class Deal(Phase["PlainWhist"]):
    """The deal (2) and its turned-up card (2.1): every seat sees it (``turn_up``) and the others know it is in
    the dealer's hand until he plays it (``known_cards``). No position key of its own: ``deal_deck`` and ``trump`` say
    it."""

    def deal(self, game: PlainWhist, deck: list[int]) -> None:
        hands = [0] * 4
        deal_round(deck, 0, hands, game.seats_from_dealer(), (1,) * 13)  # 2
        game._reset_tricks(hands, SUIT[deck[-1]])  # 2.1
        game.phase = "play"
        game.current_player = game._first_leader()  # 3: the dealer's left

    def trump(self, game: PlainWhist) -> tuple[int, str]:
        return SUIT[game.turn_up], "trump must be the suit of the turned-up card, deal_deck's last (2.1)"

    def face_up(self, game: PlainWhist, seat: int) -> int:
        return BIT[game.turn_up]

    def known(self, game: PlainWhist, seat: int) -> int:
        if seat == game.dealer:
            return 0  # (his own hand)
        return game.hands[game.dealer] & BIT[game.turn_up]  # 2.1: in the dealer's hand until he plays it

    def observe(self, game: PlainWhist, seat: int, obs: dict[str, Any]) -> None:
        obs["turn_up"] = CODES[game.turn_up]
        obs["known_cards"] = codes_of(cards_in(game._known_cards(seat)))


class PlainWhist(TrickGame):
    RULES = RULES
    ACTIONS = CardActions()  # one action per card: "AS", "2C", ...
    DECK = tuple(make_deck())
    OBSERVED = ("tricks_won",)  # facts of the play every seat sees, and positions write (checked on loading)
    POSITIONED = ("tricks_won",)
    DEAL_PHASES = (Deal(), TRICK_PLAY)
    INFO = GameInfo(
        id="plain_whist",
        name="Whist",
        player_counts=(4,),
        default_players=4,
        options=OPTIONS,
        summary="Four players in partnerships, the last card dealt names trump; tricks above six score.",
        shown_until_played=True,  # the turn-up stops being a known card once the dealer plays it
    )

    PARTNERSHIPS = Partnerships()  # 1: seats 0 and 2 against 1 and 3
    # Every deal gives a side at least a point (4.1), so a game to 5 ends within 9 deals of 52 cards.
    LENGTH = MatchLength(deals=lambda n, options: 2 * options["target"] - 1, moves=52)

    @property
    def turn_up(self) -> int:
        """The turned-up card: the last one dealt (2.1)."""
        return self.deal_deck[-1]

    def honours(self) -> list[int]:
        """The honours (4.2) each side was dealt: A K Q J of trumps, from ``deal_deck`` as dealt."""
        held = [0, 0]
        order = self.seats_from_dealer()
        for index, card in enumerate(self.deal_deck):
            if SUIT[card] == self.trump and RANK_CHAR[card] in "AKQJ":
                held[self.side_of[order[index % 4]]] += 1
        return held

    def _score_deal(self) -> None:
        target = self.options["target"]
        tricks = [max(won - BOOK, 0) for won in self.tricks_won]  # 4.1
        honours = [0, 0]
        if self.options["honours"] and all(s + p < target for s, p in zip(self.side_scores, tricks, strict=True)):
            for side, held in enumerate(self.honours()):  # 4.4: only while no side made game by tricks
                if self.side_scores[side] < target - 1:  # 4.3
                    honours[side] = HONOUR_POINTS.get(held, 0)
        points = [t + h for t, h in zip(tricks, honours, strict=True)]
        self._deal_over(points, tricks_won=list(self.tricks_won), honours=honours)

    def _match_winners(self) -> list[int] | None:
        return [side for side, score in enumerate(self.side_scores) if score >= self.options["target"]] or None  # 5
