"""Tablić, as ``shared/rules/tablic.md`` specifies it (section numbers below refer to that file).

>>> import engine
>>> state = engine.new_match("tablic", seed=7, first_dealer=0)
>>> "8C" in state.legal_actions() or state.legal_actions()[0] != ""
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...cards import RANK
from ...dealing import deal_round, draw_for_dealer, seats_from
from ...errors import PositionError
from ...fishing import (
    ACE,
    CAPTURE_PLAY,
    DECISIONS_PER_DEAL,
    MAX_GROUP_CARDS,
    CaptureRules,
    FishingDeal,
    FishingState,
    SweepRule,
    capture_value,
)
from ...options import Option
from ...phases import Loading, Phase
from ...registry import register
from ...scoring import highest_once_target_reached
from ...state import GameInfo, MatchLength, Partnerships

OPTIONS = (
    Option("first_dealer_draw", str, "high", "drawing for the first deal: high card deals (ace 11: 2 < ... < T < A "
           "< J < Q < K), or low card deals (ace 1) (§3.1)", choices=("high", "low")),
    Option("cut_mode", str, "cut", "cut: the 4 table cards come from the top before the hands and the bottom card "
           "is shown to the dealer only; knock: hands first, the bottom card is shown to all (§3.4)",
           choices=("cut", "knock")),
    Option("max_sum_cards", int, 0, "most cards in one sum group; 0 = unlimited (§5.3)", minimum=0,
           maximum=MAX_GROUP_CARDS),
    Option("capture_compulsory", bool, False, "a trail is illegal when a capture exists and only maximal unions "
           "are legal, as in Tablanette (§5.4)"),
    Option("last_play_tabla", bool, False, "a sweep by the last card of the deal also scores its tabla (§5.5)"),
    Option("target", int, 101, "game target (§7.3)", minimum=1, maximum=10_000),
)
HAND_PACKETS = (3, 3)  # §3.5: two packets of three each round


class TablaPoints(Phase["Tablic"]):
    """§5.5 in a position: each tabla is worth 1 (the capture play's ``sweeps`` and ``sweep_points`` agree)."""

    def check(self, game: Tablic, loading: Loading) -> None:
        if game.sweep_points != game.sweeps:
            raise PositionError("in Tablić each tabla is worth 1: sweep_points must equal sweeps")


class Deal(FishingDeal["Tablic"]):
    """The deal itself: the hands, the table and the stock, then the play; the hands again from the stock (§3.5)."""

    def packets(self, game: Tablic) -> tuple[int, ...]:
        return HAND_PACKETS

    def deal(self, game: Tablic, deck: list[int]) -> None:
        game._begin_fishing_deal()
        order = seats_from(game.dealer + 1, game.n_players)
        if game.options["cut_mode"] == "cut":
            table, top = deck[:4], deal_round(deck, 4, game.hands, order, HAND_PACKETS)
        else:
            top = deal_round(deck, 0, game.hands, order, HAND_PACKETS)
            table, top = deck[top:top + 4], top + 4
        for card in table:
            game.table |= 1 << card
        game.stock = deck[top:]

    def first_dealer(self, game: Tablic) -> int:
        low = game.options["first_dealer_draw"] == "low"
        ace = 1 if low else 11
        return draw_for_dealer(
            game.rng, game.n_players, lambda c: ace if RANK[c] == ACE else capture_value(RANK[c], 12)[0],
            lowest_deals=low
        )


@register
class Tablic(FishingState):
    INFO = GameInfo(
        id="tablic",
        name="Tablić",
        player_counts=(2, 4),
        default_players=2,
        options=OPTIONS,
        summary="Fishing game: capture by rank or by sums, jack worth 12, capturing is optional, tablas score 1.",
        shown_until_played=True,
    )
    SWEEP_COUNTER = "tablas"
    KNOWN_FACE_UP = "bottom_card"  # §3.4: shown while in the stock or the dealer's hand
    SWEEP = SweepRule(last_play="last_play_tabla")  # §5.5: a tabla scores 1 (the deal's last play's with the option)
    DEAL_PHASES = (Deal(), CAPTURE_PLAY, TablaPoints())

    # Capturing is optional, so a deal may hand out no points, and equal totals play on (7.3): four times the target x
    # 2 sides / 22 deals in which all 22 card points are taken, and 10 more; 48 cards a deal, in at most
    # DECISIONS_PER_DEAL decisions.
    LENGTH = MatchLength(deals=lambda n, o: 4 * -(-o["target"] * 2 // 22) + 10, moves=DECISIONS_PER_DEAL)

    @classmethod
    def capture_rules_for(cls, options: Mapping[str, Any]) -> CaptureRules:
        return CaptureRules(
            jack_takes_all=False, max_sum_cards=options["max_sum_cards"], compulsory=options["capture_compulsory"]
        )

    SETTINGS = {"capture_rules": lambda n, o: Tablic.capture_rules_for(o), "target": "target"}
    PARTNERSHIPS = Partnerships()  # with 4 players

    def _match_winners(self) -> list[int] | None:
        """§7.3: the higher total wins once a side has reached the target; equal totals play another deal."""
        return highest_once_target_reached(self.side_scores, self.target)

    @property
    def bottom_card(self) -> int:
        """§3.4: the deck's last card, the dealer's last card of the deal, revealed at the start of the deal."""
        return self.deal_deck[-1]

    def _known_places(self, seat: int) -> int:
        """§3.4: a seat shown the bottom card knows it is the stock's last card, then the dealer's (the observation's
        ``bottom_card`` while there, and ``known_cards`` while in the stock or another seat's hand:
        FishingState.shown_cards)."""
        shown = self.options["cut_mode"] == "knock" or seat == self.dealer
        return 1 << self.bottom_card if shown else 0
