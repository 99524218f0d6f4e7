"""Tablanette, as ``shared/rules/tablanette.md`` specifies it (section numbers below refer to that file).

>>> import engine
>>> state = engine.new_match("tablanette", seed=7, first_dealer=1)
>>> state.current_player, len(state.observation(0)["hand"]), len(state.observation(0)["table"])
(0, 6, 4)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...cards import BIT, RANK, mask_of
from ...dealing import deal_round, draw_for_dealer, seats_from
from ...fishing import (
    ACE,
    DECISIONS_PER_DEAL,
    JACK,
    MAX_GROUP_CARDS,
    CaptureRules,
    FishingDeal,
    FishingState,
    SweepRule,
)
from ...options import Option
from ...registry import register
from ...state import GameInfo, MatchLength, Partnerships
from .rules import tablanette_value

# §3.1: low draw ranks A < 2 < ... < K; high draw ranks 2 < ... < K < A.
_LOW_DRAW = tuple(-1 if r == ACE else r for r in range(13))

# Option choices by player count (dict look-ups: Cython cannot type a conditional between tuples of two lengths).
PARTNERSHIP_CHOICES = {4: (False, True)}
HAND_SIZES = {2: (6, 8)}
OPTIONS = (
    Option("partnerships", bool, False, "4 players only: seats {0,2} vs {1,3} pool captures and points (§1.5)",
           choices_for=lambda n: PARTNERSHIP_CHOICES.get(n, (False,))),
    Option("first_dealer_draw", str, "low", "drawing for the first deal: low card deals with A low (Phillips & "
           "Westall), or high card deals with A high (Arnold) (§3.1)", choices=("low", "high")),
    Option("hand_size", int, lambda n: 6 if n == 2 else 4, "cards per hand and per redeal: 6 or 8 with 2 players, "
           "4 with 3-4 players (§3.4)", choices_for=lambda n: HAND_SIZES.get(n, (4,))),
    Option("max_sum_cards", int, 3, "most cards in one sum group; 0 = unlimited (§5.3)", minimum=0,
           maximum=MAX_GROUP_CARDS),
    Option("jack_mode", str, "special", "special: a jack takes the whole table; value12: the jack is an ordinary "
           "card worth 12 (§5.6, §8)", choices=("special", "value12")),
    Option("initial_jack", str, "bottom", "jacks dealt to the table go to the stock bottom; middle: the second and "
           "later are buried mid-stock (§3.6)", choices=("bottom", "middle")),
    Option("target", int, None, "game target; null = 251 for 2 players and 4-player partnerships, 151 for 3 or 4 "
           "individual players (§7.4)", minimum=1, maximum=10_000, nullable=True),
    Option("last_play_tablanette", bool, True, "a sweep by the last card of the deal scores as a tablanette (§5.7)"),
)


def match_target(n: int, options: Mapping[str, Any]) -> int:
    """§7.4: the target option, or 251 for 2 players and partnerships, 151 for 3 or 4 individual players."""
    return options["target"] or (251 if n == 2 or options["partnerships"] else 151)


def _bury_table_jacks(slots: list[int], stock: list[int], middle: bool) -> list[int]:
    """§3.6 on ``slots`` and ``stock`` (both changed): each jack in a slot goes to the bottom of the stock (the second
    and later ones to its middle when ``middle``) and the stock's top card takes the slot; returns the jacks put back.
    """
    buried: list[int] = []
    for i in range(len(slots)):
        while RANK[slots[i]] == JACK:
            stock.insert(len(stock) // 2 if buried and middle else len(stock), slots[i])
            buried.append(slots[i])
            slots[i] = stock.pop(0)
    return buried


class Deal(FishingDeal["Tablanette"]):
    """The deal itself: the hands, the table and the stock, then the play; the hands again from the stock (§3.4)."""

    def packets(self, game: Tablanette) -> tuple[int, ...]:
        size: int = game.options["hand_size"]
        return (1,) * size  # §3.4: one card at a time

    def deal(self, game: Tablanette, deck: list[int]) -> None:
        game._begin_fishing_deal()
        seats = seats_from(game.dealer + 1, game.n_players)
        top = deal_round(deck, 0, game.hands, seats, self.packets(game))
        slots, game.stock = deck[top:top + 4], deck[top + 4:]
        if game.capture_rules.jack_takes_all:
            game._replace_table_jacks(slots)
        for card in slots:
            game.table |= BIT[card]

    def first_dealer(self, game: Tablanette) -> int:
        low = game.options["first_dealer_draw"] == "low"
        return draw_for_dealer(game.rng, game.n_players, lambda c: _LOW_DRAW[RANK[c]] if low else RANK[c],
                               lowest_deals=low)


@register
class Tablanette(FishingState):
    DEAL_PHASES = (Deal(), *FishingState.DEAL_PHASES)
    INFO = GameInfo(
        id="tablanette",
        name="Tablanette",
        player_counts=(2, 3, 4),
        default_players=2,
        options=OPTIONS,
        summary="Fishing game: capture by rank or by sums, jacks take all, tablanettes score the cards' values.",
        shown_until_played=True,
    )
    SWEEP_COUNTER = "tablanettes"
    # §5.6-5.7, §6.2: a tablanette scores the cards' values (never a jack's sweep), at once: it can end the match
    # mid-deal (§7.5)
    SWEEP = SweepRule(tablanette_value, last_play="last_play_tablanette", at_once=True)

    @classmethod
    def capture_rules_for(cls, options: Mapping[str, Any]) -> CaptureRules:
        return CaptureRules(
            jack_takes_all=options["jack_mode"] == "special", max_sum_cards=options["max_sum_cards"], compulsory=True
        )

    SETTINGS = {"capture_rules": lambda n, o: Tablanette.capture_rules_for(o), "target": match_target}
    PARTNERSHIPS = Partnerships(option="partnerships")  # §1.5 (4 players only: the option's choices)
    # Every deal hands out the pack's 22 card points (someone always captures: a 14th trail would match a rank on the
    # table), so the highest side reaches the target within target x sides / 22 deals (7.6); 48 cards are played in a
    # deal, in at most DECISIONS_PER_DEAL decisions.
    LENGTH = MatchLength(deals=lambda n, o: -(-match_target(n, o) * (2 if o["partnerships"] else n) // 22),
                         moves=DECISIONS_PER_DEAL)

    def _replace_table_jacks(self, slots: list[int]) -> list[int]:
        """§3.6: a jack dealt to the table goes back into the stock and the stock's top card takes its slot; returns
        the jacks put back."""
        return _bury_table_jacks(slots, self.stock, self.options["initial_jack"] == "middle")

    def _known_places(self, seat: int) -> int:
        """§3.6: everyone saw where the jacks dealt to the table went into the stock, so whose hand they reach (the
        deal's table slots dealt again on a copy of its stock): the observation's ``known_cards`` while in the stock
        or another seat's hand (FishingState.shown_cards)."""
        if not self.capture_rules.jack_takes_all:
            return 0
        top = self.n_players * self.options["hand_size"]
        deck = self.deal_deck
        return mask_of(_bury_table_jacks(deck[top:top + 4], deck[top + 4:], self.options["initial_jack"] == "middle"))

    def _match_winners(self) -> list[int] | None:
        """§7.6: after a deal, the highest total at or above the target wins; a shared highest total is a draw."""
        top = max(self.side_scores)
        if top < self.target:
            return None
        return [side for side, score in enumerate(self.side_scores) if score == top]
