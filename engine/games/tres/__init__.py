"""Très (``tres``), exactly as ``shared/rules/tres.md`` says; section numbers cite it.

Two players, 51 cards (one five removed), a fixed trump suit. The non-dealer (the first player) gets 26 cards, the
dealer 25 (3.4). Every trick holds three cards: the leader's, the follower's, the leader's second (1.5, 5.2); the lead
alternates every trick whoever wins (5.1). A won trick is worth 1, or more for the 2s, 3s and 4s in it (7.1).

>>> import engine
>>> state = engine.new_match("tres", seed=1, first_dealer=0)
>>> state.current_player, [len(h) for h in state.to_position()["hands"]]
(1, [25, 26])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...cards import BIT, SUIT, SUIT_MASK, make_deck, parse_card
from ...clone import LIST
from ...dealing import deal_round
from ...options import Option
from ...phases import Phase
from ...registry import register
from ...scoring import deals_to_target, target_or_deals
from ...state import GameInfo, MatchLength
from ...trickgame import TRICK_PLAY, PlayPart, TrickGame, TrickRules
from ...tricks import CardActions, Ranking, suit_of_code
from .rules import TrickBonus, ranks_mask, second_card_mask

RANKING = Ranking("AKQJT98765432")  # 2.1: the same order in every suit, trump included
TRICKS_PER_DEAL = 17  # 5.1: 26 + 25 = 51 cards in tricks of three
# 5.1-5.3: three cards a trick (leader, follower, leader), the lead alternating; the follower follows suit if able
RULES = TrickRules(RANKING, tricks=TRICKS_PER_DEAL, trick_cards=3, lead_passes=True)
# 7.1: the 2s, 3s and 4s are the low cards; a trick is worth 1, or 2 / 4 / 8 for one / two / three low cards, or 16
# for three low cards of one suit or of three suits, the highest counting
BONUS = TrickBonus(ranks_mask("234"), by_count=(0, 2, 4, 8), by_suits=((1, 16), (3, 16)))
ACTIONS = CardActions()
FIVES = ("5C", "5D", "5H", "5S")
DECKS = {five: tuple(c for c in make_deck() if c != parse_card(five)) for five in FIVES}  # 1.3: 51 cards
REMOVED = {five: BIT[parse_card(five)] for five in FIVES}  # the removed five, as a mask
# 7.3: every deal scores at least 17 (each trick is worth 1 or more), so after d deals someone holds 17d/2 or more
POINTS_PER_DEAL = TRICKS_PER_DEAL
TIED_DEALS = 10  # deals a match to a target may add while the highest totals stay tied (7.3); then a draw

OPTIONS = (
    Option("trump_suit", str, "H", "the fixed trump suit (2.2, reconstruction R1)", choices=("C", "D", "H", "S")),
    Option("removed_card", str, "5D", "the five removed to make 51 cards (1.3, reconstruction R1)", choices=FIVES),
    Option("additive_trick_point", bool, False, "a trick is worth 1 + its bonus instead of the higher of 1 and the "
           "bonus (7.1, R4)"),
    Option("num_deals", int, 2, "match length in deals, ignored when target_score > 0 (7.3)", minimum=1, maximum=100),
    Option("target_score", int, 0, "0 = off; else deals go on until a total reaches it, the higher total winning, "
           "another deal on a tie (7.3)", minimum=0, maximum=1000),
)


class TrickPoints(PlayPart["Tres"]):
    """The points the tricks made so far (7.1: each trick's bonus to its winner, after the trick) and who played
    first (5.1), in positions (docs/positions/tres.md) and every seat's observation; the replayed tricks decide them
    (``KEY_RULES``)."""

    KEYS = ("first_player", "points")

    def save(self, game: Tres) -> dict[str, Any]:
        return {"first_player": 1 - game.dealer, "points": list(game.points)}

    def observe(self, game: Tres, seat: int, obs: dict[str, Any]) -> None:
        obs.update(self.save(game), removed_card=game.options["removed_card"])  # 5.7

    def trick_taken(self, game: Tres, winner: int) -> None:
        (_s, a), (_t, b), (_u, c) = game.tricks[-1]
        game.points[winner] += BONUS.value((a, b, c), additive=game.additive)  # 7.1


TRICK_POINTS = TrickPoints()


class Deal(Phase["Tres"]):
    """The deal itself: the hands (3.4), then the play."""

    def deal(self, game: Tres, deck: list[int]) -> None:
        order, hands = game.seats_from_dealer(), [0, 0]  # 3.3: the non-dealer is the first player
        deal_round(deck, 0, hands, order, (1,) * ((len(deck) + 1) // 2))  # 3.4: one at a time, the first 26
        game._reset_tricks(hands, suit_of_code(game.options["trump_suit"]))
        game.points = [0, 0]
        game.phase = "play"
        game.current_player = order[0]  # 5.1: the first player leads trick 1

    def trump(self, game: Tres) -> tuple[int, str]:
        trump = game.options["trump_suit"]  # 2.2
        return suit_of_code(trump), f"trump must be the trump_suit option, {trump!r}"

    def deck(self, game: Tres) -> list[int]:
        return list(DECKS[game.options["removed_card"]])

    def face_up(self, game: Tres, seat: int) -> int:
        return REMOVED[game.options["removed_card"]]  # 5.7: every observation shows the removed five


@register
class Tres(TrickGame):
    RULES = RULES
    ACTIONS = ACTIONS
    COPY = {"points": LIST}
    points: list[int]  # per seat, the points of the tricks it won (7.1)
    OBSERVED = ("tricks_played", "tricks_won", "tricks")  # 5.6: the tricks face down, but every card seen when played
    POSITIONED = ("tricks_played", "tricks_won")
    DEAL_PHASES = (Deal(), TRICK_PLAY, TRICK_POINTS)
    KEY_RULES = {  # the keys a replay of the tricks decides, with what each must say
        "first_player": "first_player is the non-dealer (3.3)",
        "points": "points must add up the values of the tricks each seat won (7.1)",
    }
    additive: bool  # additive_trick_point (7.1)
    INFO = GameInfo(
        id="tres",
        name="Très",
        player_counts=(2,),
        default_players=2,
        options=OPTIONS,
        summary="Two players, three-card tricks with alternating lead: tricks holding 2s, 3s and 4s are worth most.",
        deck_size=51,
    )

    SETTINGS = {"additive": "additive_trick_point"}
    LENGTH = MatchLength(
        deals=lambda n, o: deals_to_target(o["target_score"], o["num_deals"], POINTS_PER_DEAL, TIED_DEALS),
        moves=3 * TRICKS_PER_DEAL)

    # ---- legal cards (5.3, 5.4) ---------------------------------------------------------------------------------

    def _card_ids(self) -> list[int]:
        if len(self.trick) < 2:
            return super()._card_ids()  # 5.3: the follower follows suit when he can
        seat = self.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        return ACTIONS.ids(second_card_mask(self.hands[seat], self.best_card, self.best_seat != seat))  # 5.4

    def _lacking(self, before: Sequence[tuple[int, int]], seat: int, card: int, best_seat: int, best: int) -> int:
        if len(before) < 2:
            return super()._lacking(before, seat, card, best_seat, best)
        # 5.4: the leader's second card shows a void only when it leaves the suit of the follower's winning card
        if best_seat == seat or SUIT[card] == SUIT[best]:
            return 0
        return SUIT_MASK[SUIT[best]]

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        self._deal_over(list(self.points), tricks_won=list(self.tricks_won))  # 7.2

    def _match_winners(self) -> list[int] | None:
        return target_or_deals(self.side_scores, self.options["target_score"], self.deal_index + 1,  # 7.3
                               self.options["num_deals"])
