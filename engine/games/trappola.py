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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cards import BIT, RANK, RANKS, cards_in, codes_of, make_deck, mask_of
from ..clone import LIST, ROWS
from ..dealing import deal_round
from ..declarations import RANK_MASK, SET_WORDS, hidden_set_ranks, rank_sets, ranks_held_thrice
from ..errors import PositionError
from ..options import Option
from ..registry import register
from ..rng import Rng
from ..scoring import point_table, target_or_deals
from ..state import GameInfo, GameLength, match_length, position_list, position_moves, position_seat
from ..trickgame import TrickGame, TrickRules
from ..tricks import NO_TRUMP, CardActions, Ranking, position_cards, trick_winner

DECK = tuple(make_deck("2789TJQKA"))  # 1.3: the 3 to 6 of every suit removed
RANKING = Ranking("AKQJT9872")  # 2.1: no trumps
POINTS = point_table({"A": 6, "K": 5, "Q": 4, "J": 3})  # 2.2
TRICKS = HAND = 9
RULES = TrickRules(RANKING, tricks=TRICKS, points=POINTS)  # 5.2: follow suit, else anything; 5.3
SET_VALUES = {"A": {3: 12, 4: 24}, "K": {3: 6, 4: 12}, "Q": {3: 6, 4: 12}, "J": {3: 6, 4: 12}, "2": {3: 10, 4: 20}}
SET_RANK_BITS = sum(1 << RANKS.index(rank) for rank in SET_VALUES)
PUBLIC_RANKS = "A"  # 6.4: an ace set is announced with its rank, the others by size only
TWO_TRICK, LAST_TRICK, RUN_TRICK = 10, 6, 26  # 7.1.3, 7.1.4, 7.1.5
# 3.5: at most three exchange decisions (two sharing the 18 stock cards, and a keep), 6.3: at most three sets
# declared by each player (nine cards), and 18 cards: the most moves of a deal.
MOVES_PER_DEAL = 3 + 2 * 3 + 2 * HAND
LOWEST_DEAL_POINTS = 6  # a deal gives at least the last trick's 6 (or a run's 26) to somebody

DECLARE_WORDS = {(rank, size): f"declare:{SET_WORDS[size]}:{rank}" for rank in SET_VALUES for size in (3, 4)}
ACTIONS = CardActions(words=["keep", "redeal", *DECLARE_WORDS.values()])
KEEP, REDEAL = ACTIONS.word_id("keep"), ACTIONS.word_id("redeal")
DECLARE_ID = {key: ACTIONS.word_id(word) for key, word in DECLARE_WORDS.items()}
SET_OF = {action: key for key, action in DECLARE_ID.items()}  # action id -> (rank, size)
SET_OF_WORD = {word: key for key, word in DECLARE_WORDS.items()}  # action string -> (rank, size)
FIRST_WORD = ACTIONS.first_word
CARD_OF = ACTIONS.card_of

OPTIONS = (
    Option("target_score", int, 0, "0 = a single deal; T > 0 = deals until a cumulative total reaches T, the higher "
           "total winning (7.3)", minimum=0, maximum=10_000),
    Option("allow_redeal", bool, True, "the exchange of whole hands before play (3.5); false: none"),
    Option("declarations", bool, True, "declaring threes and fours (6); false: no declarations, no declaration points"),
    Option("public_declaration_ranks", bool, False, "every declaration shows its rank (6.4); false: only aces do"),
)


@register
class Trappola(TrickGame):
    RULES = RULES
    ACTIONS = ACTIONS
    DECK = DECK
    STOCK_SHOWN = 0  # 3.5: the stock is face down
    OBSERVED = ("stock_size", "tricks", "card_points", "tricks_won")
    POSITIONED = ("stock",)
    PHASES = ("exchange", "play", "over")
    COPY = {"dead": ROWS, "exchanges": LIST, "declared": LIST, "declarations": LIST, "may_declare": LIST}
    POSITION_CARD_PILES = ("dead",)  # position keys of this game that hold cards
    INFO = GameInfo(
        id="trappola",
        name="Trappola",
        player_counts=(2,),
        default_players=2,
        options=OPTIONS,
        summary="Cardano's two-player trick game: exchange hands, declare threes and fours, win tricks with a 2.",
    )

    dead: list[list[list[int]]]  # per seat, the hands it exchanged, in order (public: shown, 3.5.1)
    exchanges: list[tuple[int, int]]  # (seat, KEEP or REDEAL) in order
    declared: list[str]  # per seat, the ranks it has declared this deal
    declarations: list[tuple[int, str, int, int, int]]  # (seat, rank, size, trick, move index or -1), in order
    # Per seat, whether its hand may still hold a set to declare: false once it holds none (hands only shrink).
    may_declare: list[bool]

    def _configure(self) -> None:
        self.declaring = self.options["declarations"]

    @classmethod
    def _length(cls, n: int, options: Mapping[str, Any]) -> GameLength:
        # Each deal gives at least 6 points, so the higher total gains 3 a deal on average and reaches the target
        # within target / 3 deals; 10 more for totals tied at the top (7.3).
        target = options["target_score"]
        played = 1 if target == 0 else -(-target // (LOWEST_DEAL_POINTS // 2)) + 10
        return match_length(played, MOVES_PER_DEAL, options)

    # ---- the deal and the exchanges (3) -------------------------------------------------------------------------

    def _start_deal(self, deck: list[int]) -> None:
        order, hands = self.seats_from_dealer(), [0, 0]
        top = deal_round(deck, 0, hands, order, (4, 5))  # 3.4: four each, then five, the non-dealer first
        self._reset_tricks(hands, NO_TRUMP)
        self.stock, self.stock_top = deck[top:], 0
        self.dead = [[], []]
        self.exchanges = []
        self.declared = ["", ""]
        self.declarations = []
        if self.options["allow_redeal"]:
            self.phase, self.current_player = "exchange", order[0]  # 3.5.1
        else:
            self._begin_play()

    def _begin_play(self) -> None:
        self.phase, self.current_player = "play", 1 - self.dealer  # 5.1
        self.may_declare = [self.declaring and bool(ranks_held_thrice(hand) & SET_RANK_BITS) for hand in self.hands]

    def stock_left(self) -> int:
        return len(self.stock) - self.stock_top

    def _exchange(self, seat: int, action: int) -> None:
        """3.5: ``redeal`` shows the hand, lays it dead and takes the next nine stock cards; the seat decides again
        while nine remain. ``keep`` (or fewer than nine left) ends the seat's turn: the dealer's, then the play."""
        self.exchanges.append((seat, action))
        if action == REDEAL:
            self.dead[seat].append(cards_in(self.hands[seat]))
            top = self.stock_top
            self.hands[seat] = mask_of(self.stock[top:top + HAND])
            self.stock_top = top + HAND
            if self.stock_left() >= HAND:
                return
        if seat != self.dealer and self.stock_left() >= HAND:
            self.current_player = self.dealer
        else:
            self._begin_play()

    # ---- legal actions and play (5, 6.3) ------------------------------------------------------------------------

    def _legal_ids(self) -> list[int]:
        if self.phase == "exchange":
            return [KEEP, REDEAL]
        ids = self._card_ids()
        seat = self.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        if self.may_declare[seat]:
            sets = rank_sets(self.hands[seat], SET_VALUES, self.declared[seat])
            if sets:
                return ids + sorted(DECLARE_ID[s.rank, s.size] for s in sets)  # words follow the cards
            self.may_declare[seat] = False
        return ids

    def _apply(self, action: int) -> None:
        seat = self.current_player
        assert seat is not None  # State.apply_id applies only a legal action
        if action < FIRST_WORD:
            card = CARD_OF[action]
            assert card is not None  # a card action
            self.hands[seat] ^= BIT[card]  # _play, inlined (the hot path of rollouts)
            self._add_to_trick(seat, card)
            return
        if action in (KEEP, REDEAL):
            self._exchange(seat, action)
            return
        rank, size = SET_OF[action]  # 6.3: the same seat then declares more or plays
        self.declared[seat] += rank
        self.declarations.append((seat, rank, size, len(self.tricks), len(self.moves) - 1))

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def trick_winners(self) -> list[tuple[int, bool]]:
        """(winner, won by a 2) of each finished trick."""
        winners = [trick[trick_winner([c for _s, c in trick], NO_TRUMP, RANKING)] for trick in self.tricks]  # 5.3
        return [(seat, RANK[card] == 0) for seat, card in winners]  # (a 2 is the lowest card: it wins only led)

    def deal_points(self) -> dict[str, Any]:
        """7.1 for the finished tricks: per seat card points, declarations, tricks won by a 2 outside the final run,
        the last trick's 6 or the final run of twos (26 a trick), and the total."""
        winners = self.trick_winners()
        run = 0
        while run < len(winners) and winners[-1 - run][1]:
            run += 1
        twos, bonus = [0, 0], [0, 0]
        for seat, by_two in winners[:len(winners) - run]:
            twos[seat] += by_two
        if winners:
            last = winners[-1][0]
            bonus[last] = RUN_TRICK * run if run else LAST_TRICK
        declared = [0, 0]
        for seat, rank, size, _k, _move in self.declarations:
            declared[seat] += SET_VALUES[rank][size]
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

    # ---- what a seat sees (6.4) ---------------------------------------------------------------------------------

    def _secret_rank(self, rank: str) -> bool:
        """Whether a set of ``rank`` is announced by its size only (6.4), until the deal is scored."""
        return rank not in PUBLIC_RANKS and not self.options["public_declaration_ranks"]

    def action_seen_by(self, viewer: int | None, actor: int, action: str) -> str:
        """6.4: a set of K, Q, J or 2 shows the other seat its size only (``declare:three``) until the deal is
        scored."""
        key = SET_OF_WORD.get(action)
        if key is None or viewer == actor or self.phase == "over" or not self._secret_rank(key[0]):
            return action
        return action.rsplit(":", 1)[0]

    def _public_history(self, seat: int) -> list[list[Any]]:
        start = self._deal_moves_start()
        return [[s, self.action_seen_by(seat, s, ACTIONS.strings[a]) if i >= start else ACTIONS.strings[a]]
                for i, (s, a) in enumerate(self.moves)]

    def _deal_moves_start(self) -> int:
        """The index in ``moves`` of this deal's first move: before the cards played this deal and the exchanges and
        declarations that came before them, after the previous deal's last card (whatever ``moves`` holds)."""
        cards = 2 * len(self.tricks) + len(self.trick)
        start = len(self.moves)
        while start and (self.moves[start - 1][1] >= FIRST_WORD or cards):
            cards -= self.moves[start - 1][1] < FIRST_WORD
            start -= 1
        return start

    def _observe_deal(self, seat: int, obs: dict[str, Any]) -> None:
        obs["exchanges"] = [[s, ACTIONS.strings[a]] for s, a in self.exchanges]
        obs["dead"] = self._dead_codes()
        obs["declarations"] = [[s, self.action_seen_by(seat, s, DECLARE_WORDS[rank, size]), k]
                               for s, rank, size, k, _move in self.declarations]

    def _dead_codes(self) -> list[list[list[str]]]:
        return [[codes_of(hand) for hand in hands] for hands in self.dead]

    # ---- determinization: the unused stock is unseen; a declared set stays in its declarer's hand ---------------

    def _relabel(self, new: Sequence[int]) -> None:
        super()._relabel(new)
        self.may_declare = [self.declaring, self.declaring]  # the new hands are looked at afresh

    def _hand_check(self, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """6.3: each set ``seat`` declared was held then, at its size; sets of hidden rank have some distinct ranks."""
        if not self.declarations:
            return None
        held = self.hands[seat] & known
        shown: list[tuple[int, int, str]] = []  # (cards played since, size, rank) of each set
        hidden: list[tuple[int, int, str]] = []
        for s, rank, size, k, _move in self.declarations:
            if s == seat:
                (hidden if self._secret_rank(rank) else shown).append((self._played_since(seat, k), size, rank))
        hidden_ranks = "".join(r for r in SET_VALUES if self._secret_rank(r))

        def check(cards: list[int]) -> bool:
            hand = held | mask_of(cards)
            if any(((hand | played) & RANK_MASK[rank]).bit_count() != size for played, size, rank in shown):
                return False
            return not hidden or bool(hidden_set_ranks([hand | p for p, _s, _r in hidden], [s for _p, s, _r in hidden],
                                                       hidden_ranks))
        return check

    def _determinize(self, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> None:
        """Deal the unseen cards again, then give the other seat's sets of hidden rank ranks its new hand held (one
        of the fits at random), in the declarations and in this deal's moves."""
        super()._determinize(seat, rng, memo)
        other = 1 - seat
        mine = [i for i, d in enumerate(self.declarations) if d[0] == other and self._secret_rank(d[1])]
        if not mine:
            return
        hand = self.hands[other]
        held = [hand | self._played_since(other, self.declarations[i][3]) for i in mine]
        fits = hidden_set_ranks(held, [self.declarations[i][2] for i in mine],
                                "".join(r for r in SET_VALUES if self._secret_rank(r)))
        ranks = fits[rng.below(len(fits))]
        for i, rank in zip(mine, ranks, strict=True):
            s, old, size, k, move = self.declarations[i]
            self.declarations[i] = (s, rank, size, k, move)
            if move >= 0:
                self.moves[move] = (s, DECLARE_ID[rank, size])
        self.declared[other] = "".join(d[1] for d in self.declarations if d[0] == other)

    # ---- positions (docs/positions/trappola.md) -----------------------------------------------------------------

    def _deal_position(self) -> dict[str, Any]:
        return {
            "dead": self._dead_codes(),
            "exchanges": [[s, ACTIONS.strings[a]] for s, a in self.exchanges],
            "declarations": [[s, DECLARE_WORDS[rank, size], k] for s, rank, size, k, _move in self.declarations],
        }

    def _load_position(self, p: Mapping[str, Any]) -> None:
        """Load and check a position: the 36 cards once each, the exchanges and the tricks replayed from deal_deck,
        each declaration one its player could make when it says, and the seat to act."""
        self._given_exchanges = [(seat, ACTIONS.word_id(word))
                                 for seat, word in position_moves(p["exchanges"], "exchanges", 2, ("keep", "redeal"))]
        dead = [[position_cards(hand, f"dead[{seat}]") for hand in position_list(hands, f"dead[{seat}]")]
                for seat, hands in enumerate(position_list(p["dead"], "dead", 2))]
        to_play = self._load_deal(p, {f"dead[{s}]": [c for hand in dead[s] for c in hand] for s in (0, 1)})
        if self.dead != dead:
            raise PositionError(f"dead must list the hands the exchanges laid down: {self._dead_codes()}")
        self._check_exchanging(p)
        self._check_deal(p, to_play)
        self._load_declarations(p["declarations"])
        del self._given_exchanges, self._exchanging

    def _deal_again(self, trump: int) -> None:
        self._start_deal(list(self.deal_deck))
        for number, (seat, action) in enumerate(self._given_exchanges):
            if self.phase != "exchange" or seat != self.current_player:
                raise PositionError(f"exchanges[{number}]: seat {seat} may not decide there (3.5: the non-dealer "
                                    "first, each while nine stock cards remain)")
            self._exchange(seat, action)
        self._exchanging = self.current_player if self.phase == "exchange" else None

    def _check_exchanging(self, p: Mapping[str, Any]) -> None:
        """The replayed exchanges give the turn to a seat that may still exchange (3.5), or none in play."""
        if self._exchanging is None:
            if self.phase == "exchange":
                raise PositionError("the exchanges are over: phase must be 'play' or 'over'")
            return
        if self.phase != "exchange" or self.tricks or self.trick:
            raise PositionError("phase must be 'exchange' and no card played while a seat may still exchange")
        if p["current_player"] != self._exchanging:
            raise PositionError(f"current_player must be {self._exchanging}, the seat to exchange")

    def _load_declarations(self, value: Any) -> None:
        """6.3: each ``[seat, action, trick]`` made on the seat's turn in that trick, before its card, holding
        exactly that set then, each rank once per seat, in the order they were made."""
        if not isinstance(value, list) or (value and not self.options["declarations"]):
            raise PositionError("declarations must list [seat, action, trick] (none when the option is off)")
        last = (0, 0)
        for number, item in enumerate(value):
            key = f"declarations[{number}]"
            if not isinstance(item, list) or len(item) != 3 or item[1] not in ACTIONS.ids_of_string:
                raise PositionError(f"{key} must be [seat, 'declare:<three|four>:<rank>', trick], got {item!r}")
            seat = position_seat(item[0], key, 2)
            rank, size = SET_OF.get(ACTIONS.ids_of_string[item[1]], ("", 0))
            k = item[2]
            if not size or type(k) is not int or not 0 <= k <= len(self.tricks):
                raise PositionError(f"{key} must be [seat, 'declare:<three|four>:<rank>', trick], got {item!r}")
            order = self._turn_in_trick(seat, k)
            if order is None or (k, order) < last:
                raise PositionError(f"{key}: seat {seat} is not to play in trick {k} there (6.3: on its own turn, in "
                                    "the order made)")
            last = (k, order)
            if ((self.hands[seat] | self._played_since(seat, k)) & RANK_MASK[rank]).bit_count() != size:
                raise PositionError(f"{key}: seat {seat} did not hold {item[1]} in trick {k}")
            if rank in self.declared[seat]:
                raise PositionError(f"{key}: seat {seat} declares rank {rank} twice")
            self.declared[seat] += rank
            self.declarations.append((seat, rank, size, k, -1))

    def _turn_in_trick(self, seat: int, k: int) -> int | None:
        """The place of ``seat``'s card in trick ``k`` (finished or in play), None if it has no turn there now."""
        played = self.tricks[k] if k < len(self.tricks) else self.trick
        for place, (s, _c) in enumerate(played):
            if s == seat:
                return place
        return len(played) if k == len(self.tricks) and seat == self.current_player else None

