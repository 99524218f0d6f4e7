"""German Whist (``german_whist``), exactly as ``shared/rules/german_whist.md`` says; section numbers cite it.

Two players, 13 cards each; the turned-up stock card names trump (4.1). Phase 1: 13 tricks, after each the winner
takes the face-up stock card and the loser the next one (5.5). Phase 2: 13 tricks without drawing (5.6). By default
only phase-2 tricks score (7.1). Option ``face_down_four`` plays the seed's 11 + 4 face-down variant (8.1).

>>> import engine
>>> state = engine.new_match("german_whist", seed=1, first_dealer=0)
>>> state.phase, state.current_player, len(state.legal_actions())
('play', 1, 13)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cards import BIT, CODES, SUIT, SUIT_MASK, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ..errors import PositionError
from ..options import Option
from ..registry import register
from ..scoring import leaders
from ..state import GameInfo, State
from ..tricks import CardActions, Ranking, deal_rounds, draw_in_turn

RANKING = Ranking("AKQJT98765432")  # 2.1: the same order in trump and plain suits
POWER = RANKING.power
SLOTS = 4
TRICKS_PER_DEAL = 26  # each player plays his 13 (or 11 + 4 face-down) cards and 13 (or 11) drawn ones
ACTIONS = CardActions(words=[f"down:{slot}" for slot in range(SLOTS)])
DOWN_IDS = tuple(ACTIONS.word_id(f"down:{slot}") for slot in range(SLOTS))
CARD_OF = ACTIONS.card_of

OPTIONS = (
    Option("score_all_tricks", bool, False, "all 26 tricks score (seed variant), else only phase-2 tricks (7.1)"),
    Option("deal_scoring", str, "per_trick", "per_trick: 1 point per counted trick; difference: the winner scores "
           "the difference (7.2, 7.3)", choices=("per_trick", "difference")),
    Option("target_score", int, 0, "0 = a single deal; N > 0 = play to N, raised by 10 when both reach it (7.4)",
           minimum=0),
    Option("face_down_four", bool, False, "the seed's 11 + 4 face-down cards variant (8.1)"),
)


@register
class GermanWhist(State):
    POSITION_CARD_PILES = ("face_up", "face_down", "tricks")  # position keys of this game that hold cards
    INFO = GameInfo(
        id="german_whist",
        name="German Whist",
        player_counts=(2,),
        default_players=2,
        options=OPTIONS,
        summary="Two-player whist: win the turned-up stock card in 13 tricks, then the 13 tricks that score.",
        deck_size=52,
    )

    def _deck_cards(self) -> list[int]:
        return make_deck()

    # ---- the deal (3) -------------------------------------------------------------------------------------------

    def _start_deal(self, deck: list[int]) -> None:
        non_dealer = 1 - self.dealer
        order = [non_dealer, self.dealer]
        in_hand = 11 if self.options["face_down_four"] else 13
        # 3.4: one at a time, non-dealer first (the same as deal_rounds with packets of 1, as slices)
        used = 2 * in_hand
        dealt = {non_dealer: deck[0:used:2], self.dealer: deck[1:used:2]}
        hands = [dealt[0], dealt[1]]
        self.down: list[list[int | None]] = [[], []]
        if self.options["face_down_four"]:
            downs, used = deal_rounds(deck, order, [SLOTS], start=used)  # 8.1a
            self.down = [list(downs[0]), list(downs[1])]
        self.down_seen = [False, False]
        self.hands = [mask_of(hands[0]), mask_of(hands[1])]
        self.stock = deck[used:]  # 3.5: the top stock card is face up and names trump
        self.stock_top = 0
        self.trump = SUIT[self.stock[0]]
        self.phase1_tricks = len(self.stock) // 2
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.tricks_played = 0
        self.won = [[0, 0], [0, 0]]  # won[phase][seat], phase 0 = while the stock lasts
        self.taken_face_up: list[tuple[int, int]] = []
        if self.deal_index == 0:
            self.target = self.options["target_score"]
        self.phase = "play"
        self.current_player = non_dealer  # 5.1

    # ---- legal actions (5.3, 8.1c) ------------------------------------------------------------------------------

    def _legal_ids(self) -> list[int]:
        seat = self.current_player
        hand = self.hands[seat]
        if self.trick:
            led = SUIT[self.trick[0][1]]
            same = hand & SUIT_MASK[led]
            if same:
                return ACTIONS.suit_ids(same, led)
            return ACTIONS.ids(hand) + self._down_ids(seat) if self.down[seat] else ACTIONS.ids(hand)
        if not hand and self.down[seat]:
            return self._down_ids(seat)  # 8.1c: a leader plays face down only with an empty hand
        return ACTIONS.ids(hand)

    def _down_ids(self, seat: int) -> list[int]:
        return [DOWN_IDS[slot] for slot, card in enumerate(self.down[seat]) if card is not None]

    def action_string(self, action: int) -> str:
        return ACTIONS.strings[action]

    # ---- play (5.4 - 5.6) ---------------------------------------------------------------------------------------

    def _apply(self, action: int) -> None:
        seat = self.current_player
        card = CARD_OF[action]
        if card is None:  # down:<slot>
            slot = action - DOWN_IDS[0]
            card = self.down[seat][slot]
            self.down[seat][slot] = None
        else:
            self.hands[seat] ^= BIT[card]
        trick = self.trick
        if not trick:
            trick.append((seat, card))
            self.current_player = 1 - seat
            return
        lead = trick[0][1]
        power = POWER[self.trump]
        # 5.4: the reply wins only with a higher card of the led suit or a trump on a plain lead.
        if power[card] > power[lead] and (SUIT[card] == SUIT[lead] or SUIT[card] == self.trump):
            winner = seat
        else:
            winner = 1 - seat
        self.tricks.append((trick[0], (seat, card)))
        self._end_trick(winner)

    def _end_trick(self, winner: int) -> None:
        in_phase1 = self.tricks_played < self.phase1_tricks
        self.won[0 if in_phase1 else 1][winner] += 1
        self.tricks_played += 1
        self.trick = []
        if self.down[winner]:
            self.down_seen[winner] = True  # 8.1b
        if in_phase1:  # 5.5: the winner takes the face-up card, the loser the next; then the next one is turned up
            self.taken_face_up.append((winner, self.stock[self.stock_top]))
            self.stock_top = draw_in_turn(self.hands, self.stock, self.stock_top, winner, 2)
        if self.tricks_played == TRICKS_PER_DEAL:
            self._score_deal()
            return
        self.current_player = winner

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def counted_tricks(self) -> list[int]:
        """Each seat's counted tricks so far: phase 2 only, or all tricks with ``score_all_tricks`` (7.1)."""
        phase2 = self.won[1]
        if self.options["score_all_tricks"]:
            return [self.won[0][0] + phase2[0], self.won[0][1] + phase2[1]]
        return list(phase2)

    def _score_deal(self) -> None:
        counted = self.counted_tricks()
        if self.options["deal_scoring"] == "difference":  # 7.3
            diff = counted[0] - counted[1]
            points = [max(diff, 0), max(-diff, 0)]
        else:  # 7.2
            points = counted
        self._deal_over(points, counted_tricks=counted, phase1_tricks=list(self.won[0]))

    def _match_winners(self) -> list[int] | None:
        scores = self.side_scores
        if self.target == 0:  # 7.4a: a single deal, a tie is a draw
            return leaders(self.deal_results[-1]["counted_tricks"])
        reached = [seat for seat in (0, 1) if scores[seat] >= self.target]
        if len(reached) == 2:
            # 7.4b: both reached it: the target goes up by 10 and play continues. Raised as often as needed for it to
            # stand above at least one score (engine reading of "this can repeat"), so a new target is never stale.
            while min(scores) >= self.target:
                self.target += 10
            return None
        return reached or None

    # ---- what a seat sees (5.8) ---------------------------------------------------------------------------------

    def _observe(self, seat: int, obs: dict) -> None:
        obs["hand"] = codes_of(cards_in(self.hands[seat]))
        obs["trump"] = SUITS[self.trump]
        obs["face_up"] = self._face_up_code()
        obs["stock_size"] = len(self.stock) - self.stock_top
        obs["trick"] = [[s, CODES[c]] for s, c in self.trick]
        obs["tricks_played"] = self.tricks_played
        obs["won"] = {"phase1": list(self.won[0]), "phase2": list(self.won[1])}
        obs["taken_face_up"] = [[s, CODES[c]] for s, c in self.taken_face_up]
        obs["known_cards"] = [CODES[c] for s, c in self.taken_face_up if s != seat]  # public draws (5.8)
        obs["target"] = self.target
        if self.options["face_down_four"]:
            obs["face_down"] = [
                [CODES[c] if c is not None and s == seat and self.down_seen[s] else ("?" if c is not None else None)
                 for c in self.down[s]] for s in (0, 1)
            ]

    def _face_up_code(self) -> str | None:
        return CODES[self.stock[self.stock_top]] if self.stock_top < len(self.stock) else None

    # ---- positions (docs/positions/german_whist.md) -------------------------------------------------------------

    def _position_keys(self) -> dict:
        return {
            "trump": SUITS[self.trump],
            "hands": [codes_of(cards_in(h)) for h in self.hands],
            "face_up": self._face_up_code(),
            "stock": [CODES[c] for c in self.stock[self.stock_top + 1:]],
            "trick": [[s, CODES[c]] for s, c in self.trick],
            "tricks": [[[s, CODES[c]] for s, c in trick] for trick in self.tricks],
            "tricks_played": self.tricks_played,
            "won": {"phase1": list(self.won[0]), "phase2": list(self.won[1])},
            "taken_face_up": [[s, CODES[c]] for s, c in self.taken_face_up],
            "face_down": [[CODES[c] if c is not None else None for c in slots] for slots in self.down],
            "face_down_seen": list(self.down_seen),
            "target": self.target,
        }

    def _load_position(self, p: Mapping[str, Any]) -> None:
        if self.phase not in ("play", "over"):
            raise PositionError(f"phase must be 'play' or 'over', got {self.phase!r}")
        self.trump = SUITS.index(p["trump"])
        self.hands = [mask_of(parse_card(c) for c in hand) for hand in _pair(p, "hands")]
        face_up = [] if p["face_up"] is None else [parse_card(p["face_up"])]
        self.stock = face_up + [parse_card(c) for c in p["stock"]]
        if self.stock and not face_up:
            raise PositionError("a stock with cards has its top card face up (face_up may not be null)")
        self.stock_top = 0
        self.trick = [(_seat(s), parse_card(c)) for s, c in p["trick"]]
        self.tricks = [tuple((_seat(s), parse_card(c)) for s, c in trick) for trick in p["tricks"]]
        self.tricks_played = _count(p["tricks_played"], TRICKS_PER_DEAL)
        self.won = [[_count(x, TRICKS_PER_DEAL) for x in _pair(p["won"], key)] for key in ("phase1", "phase2")]
        if sum(self.won[0]) + sum(self.won[1]) != self.tricks_played or len(self.tricks) != self.tricks_played:
            raise PositionError("won, tricks and tricks_played disagree")
        if any(len(t) != 2 for t in self.tricks):
            raise PositionError("a finished German Whist trick holds two [seat, card] pairs")
        if self.phase == "over" and p.get("winners") is None:
            raise PositionError("a match that is over names its winners")
        self.taken_face_up = [(_seat(s), parse_card(c)) for s, c in p["taken_face_up"]]
        self.down = [[parse_card(c) if c is not None else None for c in slots] for slots in _pair(p, "face_down")]
        self.down_seen = [bool(x) for x in _pair(p, "face_down_seen")]
        self.target = _count(p["target"], None)
        self.phase1_tricks = 11 if self.options["face_down_four"] else 13
        self._check_cards(p)

    def _check_cards(self, p: Mapping[str, Any]) -> None:
        hand_lists = _pair(p, "hands")
        held = [parse_card(c) for hand in hand_lists for c in hand] + [*self.stock, *(c for _s, c in self.trick)]
        held += [c for trick in self.tricks for _s, c in trick]
        held += [c for slots in self.down for c in slots if c is not None]
        if len(held) != len(set(held)):
            raise PositionError("a card appears twice in the position")
        if len(self.trick) > 1:
            raise PositionError("a German Whist trick holds at most one card before it is resolved")
        if not self.options["face_down_four"] and any(self.down):
            raise PositionError("face_down cards are only used with the face_down_four option")


def _pair(p: Mapping[str, Any], key: str) -> list:
    value = p[key]
    if not isinstance(value, list) or len(value) != 2:
        raise PositionError(f"{key} must list the two seats")
    return value


def _count(value: Any, most: int | None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or (most is not None and value > most):
        raise PositionError(f"not a count: {value!r}")
    return value


def _seat(value: Any) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise PositionError(f"not a German Whist seat: {value!r}")
    return value
