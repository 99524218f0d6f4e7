"""Belote contrée (``belote_contree``), exactly as ``shared/rules/belote_contree.md`` says; section numbers cite it.

Four players in partnerships; an auction of contracts (80 to 160 in tens with a trump suit, or capot), contre and
surcontre; the belote legal-card rule; belote / rebelote; and no shuffling after the first deal: every later deck is
the previous deal's tricks (or hands) gathered in order and cut at a seeded position (1.5, 3.4, 3.5), so a match is
one continuous deck.

>>> import engine
>>> state = engine.new_match("belote_contree", seed=3, first_dealer=0)
>>> state.phase in ("redeal", "auction"), len(state.deal_deck)
(True, 32)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...auction import BidLadder, Contract, ContractAuction, LegalWordIds, replay_auction
from ...cards import SUITS, cards_in
from ...clone import LIST
from ...dealing import deal_masks
from ...errors import PositionError
from ...options import Option
from ...phases import DecisionPhase, Loading, Phase
from ...registry import register
from ...scoring import PileValues, highest_once_target_reached, single_leader
from ...state import GameInfo, MatchLength, position_list, position_seat
from ...trickgame import TRICK_PLAY
from ...tricks import NO_TRUMP, gather_tricks
from ..belote_family import (
    BELOTE_ANNOUNCED,
    BELOTE_POINTS,
    GATHERED_PACK,
    KQ_MASK,
    LAST_TRICK,
    POINTS,
    TRICKS,
    BelotePlay,
    belote_actions,
)

NUMERIC_BIDS = (160, 170, 180)
LADDERS = {top: BidLadder(values=tuple(range(80, top + 1, 10))) for top in NUMERIC_BIDS}
WEAK_HAND = 10  # 3.8: at most 10 plain-valued points
PLAIN_POINTS = PileValues(POINTS[NO_TRUMP])  # 3.8: every card valued as a plain card
PACKETS = (3, 2, 3)  # 3.6
ACTIONS = belote_actions([*LADDERS[max(NUMERIC_BIDS)].words(), "redeal", "keep"])
LADDER_IDS = {top: LegalWordIds(ACTIONS) for top in NUMERIC_BIDS}  # each ladder's legal-id lists
REDEAL_IDS = [ACTIONS.word_id("keep"), ACTIONS.word_id("redeal")]  # 3.8, in string order (a shared list)

OPTIONS = (
    Option("target_score", int, 3000, "match target when num_deals is null (7.7)", minimum=1, maximum=30_000),
    Option("num_deals", int, None, "play exactly this many deals instead of a target (7.7)", minimum=1,
           maximum=1000, nullable=True),
    Option("weak_hand_redeal", bool, True, "a player with 10 plain-valued points or fewer may ask a redeal (3.8)"),
    Option("max_numeric_bid", int, 160, "highest numeric bid (4.2)", choices=NUMERIC_BIDS),
    Option("contre_scoring", str, "fixed160", "fixed160: (160 + bid) x m; multiply: card totals x m (7.2, 8)",
           choices=("fixed160", "multiply")),
    Option("shuffle_each_deal", bool, False, "house rule: a fresh seeded shuffle before each deal's cut (3.4)"),
)


def contract_points(contract: Contract, attack: int, cards: list[int], belote: list[int], tricks_won: list[int],
                    contre_scoring: str = "fixed160") -> tuple[list[int], bool]:
    """Each side's score for a deal (7.2 - 7.4, option ``contre_scoring``) and whether the contract was made.

    ``cards`` are card points plus the last-trick bonus per side, ``belote`` 20 or 0 per side.

    >>> contract_points(Contract(100, "S", 0, 1), 0, [120, 42], [0, 0], [6, 2])  # 10.12
    ([220, 42], True)
    """
    defence = 1 - attack
    m = contract.multiplier
    any_belote = BELOTE_POINTS if any(belote) else 0
    points = [0, 0]
    if contract.value == "capot":  # 7.3
        made = tricks_won[attack] == TRICKS
        if made:
            points[attack], points[defence] = 500 * m + belote[attack], belote[defence]
        else:
            points[defence] = 410 * m + any_belote
        return points, made
    bid = contract.value
    assert isinstance(bid, int)  # every contract but capot is a number
    totals = [cards[side] + belote[side] for side in (0, 1)]
    made = totals[attack] >= bid  # 7.2, 7.6: equality is enough
    if not made:
        points[defence] = (160 + bid) * m + any_belote
    elif m == 1:
        points[attack], points[defence] = totals[attack] + bid, totals[defence]
    elif contre_scoring == "multiply":
        points[attack] = (cards[attack] + bid) * m + belote[attack]
        points[defence] = cards[defence] * m + belote[defence]
    else:
        points[attack], points[defence] = (160 + bid) * m + belote[attack], belote[defence]
    return points, made


def new_auction(game: BeloteContree, first: int) -> ContractAuction:
    """A deal's auction (4), from ``first``: with its ladder (option max_numeric_bid, 4.2), also the game's."""
    top = game.options["max_numeric_bid"]
    game.ladder = LADDERS[top]
    return ContractAuction(game.ladder, 4, first, True, LADDER_IDS[top])  # (partnerships, ids: no keyword call)


class ContractBidding(DecisionPhase["BeloteContree"]):
    """The bidding in a position: ``auction`` replayed (4), and before it the weak hands still to be asked about a
    redeal (3.8), ``redeal_queue``, which must be those of the deal not yet asked, in order."""

    KEYS = ("auction", "redeal_queue")
    NAMES = ("redeal", "auction")

    def legal(self, game: BeloteContree) -> list[int]:
        return game.auction.legal_ids() if game.phase == "auction" else REDEAL_IDS

    def apply(self, game: BeloteContree, action: int) -> None:
        if game.phase == "auction":
            game._bid(ACTIONS.strings[action])
        else:
            game._answer_redeal(ACTIONS.strings[action])

    def observe(self, game: BeloteContree, seat: int, obs: dict[str, Any]) -> None:
        obs["auction"] = game._auction_list()
        obs["contract"] = None if game.contract is None else game.contract.to_dict()

    def speaker(self, game: BeloteContree) -> int | None:
        return game.redeal_queue[0] if game.phase == "redeal" else game.auction.turn  # 3.8, 4

    def save(self, game: BeloteContree) -> dict[str, Any]:
        return {"auction": game._auction_list(), "redeal_queue": list(game.redeal_queue)}

    def load(self, game: BeloteContree, loading: Loading) -> None:
        p = loading.position
        game.auction = new_auction(game, game.seats_from_dealer()[0])
        replay_auction(game.auction, p["auction"])
        queue = position_list(p["redeal_queue"], "redeal_queue")
        game.redeal_queue = [position_seat(s, "redeal_queue", 4) for s in queue]
        game.contract = game.auction.contract() if game.auction.over else None
        expected = "play" if game.auction.over else "redeal" if game.redeal_queue else "auction"
        if game.phase not in (expected, "over"):
            raise PositionError(f"phase {game.phase!r} does not fit the auction and redeal queue ({expected!r})")

    def check(self, game: BeloteContree, loading: Loading) -> None:
        queue = game.redeal_queue
        asked = [s for s in game.seats_from_dealer() if game._weak(s)] if game.options["weak_hand_redeal"] else []
        if queue and (queue != asked[len(asked) - len(queue):] or game.auction.actions):
            raise PositionError(f"redeal_queue must be the weak hands not yet asked, in order ({asked}), "
                                "and empty once the auction has begun")

    def trump(self, game: BeloteContree) -> tuple[int, str]:
        trump = NO_TRUMP if game.contract is None else SUITS.index(game.contract.suit)
        return trump, "trump must be the contract's suit once the auction is over, null before"

    def deal_again(self, game: BeloteContree, trump: int) -> bool:
        hands, _ = deal_masks(game.deal_deck, game.seats_from_dealer(), PACKETS)  # 3.6 (the auction as loaded)
        game._reset_play(hands)
        game.trump = trump
        return True

    # determinization: a weak hand was asked about a redeal (3.8), so each hand keeps being weak or not

    def hand_check(self, game: BeloteContree, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        if not game.options["weak_hand_redeal"] or seat in game._not_yet_asked():
            return None
        return game._dealt_hand_keeps(seat, known, _weak)  # 3.8: a weak hand was asked about a redeal

    def relabel(self, game: BeloteContree, new: Sequence[int]) -> None:
        if game.phase == "redeal":  # the weak hands of a sample still to be asked
            game.redeal_queue = game.redeal_queue[:1] + [s for s in game._not_yet_asked() if game._weak(s)]


class Deal(Phase["BeloteContree"]):
    """The deal itself: the hands (3.6), then the redeal questions (3.8) or the bidding."""

    def deal(self, game: BeloteContree, deck: list[int]) -> None:
        order = game.seats_from_dealer()
        hands, _ = deal_masks(deck, order, PACKETS)  # 3.6
        game._reset_play(hands)
        game.auction = new_auction(game, order[0])
        game.contract = None
        game.redeal_queue = [s for s in order if _weak(hands[s])] if game.options["weak_hand_redeal"] else []
        game._open_deal()


@register
class BeloteContree(BelotePlay):
    ACTIONS = ACTIONS
    COPY = {"redeal_queue": LIST}
    ladder: BidLadder
    redeal_queue: list[int]  # the weak hands still to be asked about a redeal (3.8), in order
    contract: Contract | None
    PHASES = ("redeal", "auction", "play", "over")
    DEAL_PHASES = (Deal(), GATHERED_PACK, ContractBidding(), TRICK_PLAY, BELOTE_ANNOUNCED)
    INFO = GameInfo(
        id="belote_contree",
        name="Belote contrée",
        player_counts=(4,),
        default_players=4,
        options=OPTIONS,
        summary="Partnership belote with a contract auction (80-160, capot), contre and surcontre; never shuffled.",
    )
    auction: ContractAuction
    CUT_SHUFFLED = True  # 3.5: cut by seat (dealer + 3)
    FIRST_PACKETS = PACKETS  # 3.6: the whole deal

    # A played deal gives at least 162 points (7.2 - 7.4), so a side reaches the target within target x 2 / 162 deals;
    # 10 more for ties at the top (7.7). Thrown-in (4.8) and redealt (3.8) deals are spare dealings. Moves: 4 redeal
    # answers, an auction (at most 3 passes, then per level a bid, contre and surcontre with 2 passes after each, and
    # 3 final passes) and 32 cards.
    LENGTH = MatchLength(deals=lambda n, o: o["num_deals"] or -(-o["target_score"] * 2 // 162) + 10,
                         moves=lambda n, o: 4 + 3 + 9 * len(LADDERS[o["max_numeric_bid"]].levels) + 3 + TRICKS * 4,
                         redeals=True)

    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """No card is face up or known in another hand and no stock is shown: its observation lists no
        ``known_cards``, not even the trump king and queen of an announced belote, which the phase's ``known`` gives
        determinization (so TrickGame.shown_cards's would differ)."""
        return 0, 0, 0

    # ---- the deck: gathered, never shuffled, then cut (3.3 - 3.5, 3.7) -------------------------------------------

    def _keeps_pack(self) -> bool:
        return not self.options["shuffle_each_deal"]  # 3.4

    def _weak(self, seat: int) -> bool:
        return _weak(self.hands[seat])

    def _open_deal(self) -> None:
        if self.redeal_queue:
            self.phase, self.current_player = "redeal", self.redeal_queue[0]
        else:
            self.phase, self.current_player = "auction", self.auction.turn

    # ---- actions ------------------------------------------------------------------------------------------------

    def _answer_redeal(self, word: str) -> None:
        if word == "redeal":  # 3.8: the same dealer deals again from the gathered hands; not a played deal
            self.next_pack = self._hands_pack()
            self._begin_deal(None)
            return
        self.redeal_queue.pop(0)
        self._open_deal()

    def _auction_won(self) -> None:
        self.contract = contract = self.auction.contract()
        assert contract is not None  # over and not thrown in: someone bid
        self.trump = SUITS.index(contract.suit)

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        contract = self.contract
        assert contract is not None  # a deal is played and scored only under a contract
        attack = self.side_of[contract.declarer]
        belote = self.belote_points()
        totals = self.trick_totals()
        tricks_won = self.tricks_won
        points, made = contract_points(contract, attack, totals, belote, tricks_won, self.options["contre_scoring"])
        self.next_pack = gather_tricks(self.tricks)  # 3.4
        self._deal_over(points, contract=contract.word(), declarer=contract.declarer,
                        multiplier=contract.multiplier, made=made, card_points=totals,
                        belote=self.belote_seat, capot=TRICKS in tricks_won)

    def double_dummy_points(self, side: int, taken: int) -> list[int] | None:
        """7.2 - 7.4 with ``side`` taking ``taken`` of the card points left (the last trick's bonus included) and the
        other side the rest; a belote not yet announced counts for the seat holding both cards (it announces it,
        6.4). A capot contract (tricks, not points) gives None."""
        contract = self.contract
        if contract is None or contract.value == "capot":
            return None
        totals = self.trick_totals()
        left = sum(POINTS[self.trump][c] for c in cards_in(sum(self.hands))) + \
            sum(POINTS[self.trump][c] for _s, c in self.trick) + (LAST_TRICK if self.last_trick_side is None else 0)
        totals[side] += taken
        totals[1 - side] += left - taken
        belote_side = self.belote_side()
        if belote_side is None:
            kq = KQ_MASK[self.trump]
            belote_side = next((self.side_of[s] for s, hand in enumerate(self.hands) if hand & kq == kq), None)
        belote = [BELOTE_POINTS if s == belote_side else 0 for s in (0, 1)]
        points, _made = contract_points(contract, self.side_of[contract.declarer], totals, belote, self.tricks_won,
                                        self.options["contre_scoring"])
        return points

    def _match_winners(self) -> list[int] | None:
        if self.options["num_deals"] is None:  # 7.7: a tie plays on
            return highest_once_target_reached(self.side_scores, self.options["target_score"])
        return single_leader(self.side_scores) if self.deal_index + 1 >= self.options["num_deals"] else None

    # ---- determinization (ContractBidding's hand_check and relabel): a deal cut from the gathered tricks ------------

    def _cut_from_tricks(self) -> bool:
        return not self.options["shuffle_each_deal"]  # 3.4

    def _not_yet_asked(self) -> list[int]:
        """3.8: the seats after the one asked about a redeal now, in asking order: whether they are weak is unseen."""
        if self.phase != "redeal":
            return []
        order = self.seats_from_dealer()
        return order[order.index(self.redeal_queue[0]) + 1:]


def _weak(hand: int) -> bool:
    """3.8: a hand (a mask) of at most 10 plain-valued points."""
    return PLAIN_POINTS.pile_points(hand) <= WEAK_HAND
