"""Boonaken (``boonaken``), exactly as ``shared/rules/boonaken.md`` says; section numbers cite it.

Three to five players, each for himself, 32 cards, six each and a centre of two or four (4.2). An outbidding auction
of numeric bids, misère (joinable: co-declarers), zwabber and boonaak (5); the declarer takes the centre and
discards as many (6), names trump and declares roem (7.2, 7.3); six tricks under the Jass-family follow rule (7.5);
a ``+`` or ``-`` mark for each declarer (8.1) until somebody holds two ``+`` or two ``-`` (8.2), or, with
``elimination``, until a loser (8.3); a match a loser ends has no winner, or only the seats that left (8.2, 8.3).

>>> import engine
>>> state = engine.new_match("boonaken", seed=1, first_dealer=3)
>>> state.phase, state.current_player, state.legal_actions()[:3], state.legal_actions()[-1]
('bidding', 0, ['bid:100', 'bid:105', 'bid:110'], 'pass')
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING, Any, ClassVar

from ...auction import PASS, OutbidAuction, OutbidLadder, replay_auction
from ...cards import BIT, CODES, SUIT, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ...clone import LIST, SHARED, UNTIL_OVER
from ...dealing import deal_round
from ...declarations import carres, sequences
from ...determinize import Slot, in_deck_order, relabel_mask, relabeling
from ...errors import PositionError
from ...options import Option, OptionRule
from ...phases import DecisionPhase, Loading, Phase
from ...registry import register
from ...rng import Rng
from ...scoring import point_table
from ...state import GameInfo, MatchLength, position_seat
from ...trickgame import TRICK_PLAY, TrickGame, TrickRules, position_hand
from ...tricks import NO_TRUMP, CardActions, FollowRule, Ranking, legal_mask, suit_of_code

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

DECK = tuple(make_deck("789TJQKA"))  # 1.3
NATURAL_ORDER = "AKQJT987"  # 3.1: sequences, also in trumps
RANKING = Ranking("AKQJT987", "J9AKQT87")  # 2: plain and trump orders
POINTS = point_table({"A": 11, "K": 3, "Q": 2, "J": 1, "T": 10},  # 2: 141 in all; POINTS[NO_TRUMP]: plain values
                     {"J": 20, "9": 14, "A": 11, "K": 3, "Q": 2, "T": 10})
HAND = TRICKS = 6  # 4.3, 7.4
# 7.5: follow suit (or trump instead); a trump lead asks for a trump, except from a hand whose only trump is the J
FOLLOW = FollowRule(trump_with_suit=True, free_trump="J")
RULES = TrickRules(RANKING, FOLLOW, tricks=TRICKS, points=POINTS)
CARRE_VALUES = {"J": 200, "A": 100, "K": 100, "Q": 100}  # 3.2
STUK = 20  # 3.3
STUK_MASK = tuple(BIT[parse_card("K" + s)] | BIT[parse_card("Q" + s)] for s in SUITS)
MISERE, ZWABBER, BOONAAK = "bid:misere", "bid:zwabber", "bid:boonaak"
MOST_BID = 500  # the largest min_bid / max_bid option value
MOST_SIX = 500  # the largest six_sequence_value option value
MOST_ROEM = max(240, MOST_SIX + 20)  # 5.1: the most roem a hand holds under any options

NUMERIC_WORDS = {f"bid:{value}": value for value in range(1, MOST_BID + 1)}
BOONAAK_WORDS = {f"{BOONAAK}:{r}": r for r in range(20, MOST_ROEM + 1, 10)}
ROEM_WORDS = {r: f"roem:{r}" for r in range(0, MOST_ROEM + 1, 10)}
TRUMP_WORDS = tuple(f"trump:{s}" for s in SUITS)
# 6.1: a discard of 2 or 4 cards, written in canonical order; one action per set of cards


def _discard_words() -> tuple[dict[int, str], dict[int, list[str]]]:
    """6.1: every discard of 2 or 4 cards: its word by its cards (a mask), and the words by the rank of the set of
    cards in the combinatorial number system (the cards' deck indexes p1 < p2 < ... give C(p1, 1) + C(p2, 2) + ...;
    card masks make poor dict keys for listing them: the sets share their low bits)."""
    codes, bits = [CODES[c] for c in DECK], [BIT[c] for c in DECK]
    c1, c2, c3, c4 = ([comb(i, k) for i in range(len(DECK))] for k in (1, 2, 3, 4))
    words, by_rank = {}, {2: [""] * comb(len(DECK), 2), 4: [""] * comb(len(DECK), 4)}
    for a, b in combinations(range(len(DECK)), 2):
        words[bits[a] | bits[b]] = by_rank[2][c1[a] + c2[b]] = f"discard:{codes[a]},{codes[b]}"
    for a, b, c, d in combinations(range(len(DECK)), 4):
        words[bits[a] | bits[b] | bits[c] | bits[d]] = by_rank[4][c1[a] + c2[b] + c3[c] + c4[d]] = \
            f"discard:{codes[a]},{codes[b]},{codes[c]},{codes[d]}"
    return words, by_rank


DISCARD_WORDS, _DISCARDS_BY_RANK = _discard_words()
ACTIONS = CardActions(words=[PASS, *NUMERIC_WORDS, MISERE, ZWABBER, BOONAAK, *BOONAAK_WORDS, *ROEM_WORDS.values(),
                             *TRUMP_WORDS, *DISCARD_WORDS.values()])
WORD_ID = ACTIONS.ids_of_string
DISCARD_ID = {mask: WORD_ID[word] for mask, word in DISCARD_WORDS.items()}
DISCARD_OF = {action: mask for mask, action in DISCARD_ID.items()}
TRUMP_IDS = sorted(WORD_ID[word] for word in TRUMP_WORDS)
TRUMP_OF = {WORD_ID[word]: suit for suit, word in enumerate(TRUMP_WORDS)}
ROEM_OF = {WORD_ID[word]: r for r, word in ROEM_WORDS.items()}
CARD_OF = ACTIONS.card_of
PHASES = ("bidding", "exchange", "trump", "roem", "play", "over")

OPTIONS = (
    Option("min_bid", int, 70, "lowest numeric bid (5.1)", minimum=1, maximum=MOST_BID),
    Option("max_bid", int, 380, "highest numeric bid offered (5.1)", minimum=1, maximum=MOST_BID),
    Option("bid_step", int, 5, "numeric bids are multiples of this (5.1)", minimum=1, maximum=100),
    Option("elimination", bool, False, "winners drop out, play until a loser (8.3)"),
    Option("plus_to_win", int, 2, "+ marks that win (8.2)", minimum=1, maximum=9),
    Option("minus_to_lose", int, 2, "- marks that lose (8.2)", minimum=1, maximum=9),
    Option("six_sequence_value", int, 200, "value of a 6-card sequence (3.1; bonaken.nl uses 100)", minimum=0,
           maximum=MOST_SIX),
)


def roem_of(hand: int, trump: int, six_sequence_value: int = 200) -> int:
    """3.4: a hand's roem with ``trump``: each maximal run of 3 or more once by its length, the four of a kinds and
    the stuk (the trump king and queen).

    >>> from engine.cards import parse_cards
    >>> roem_of(mask_of(parse_cards(["QS", "JS", "TS", "QC", "QD", "QH"])), suit_of_code("S"))  # 12.8
    120
    """
    stuk = STUK if trump != NO_TRUMP and hand & STUK_MASK[trump] == STUK_MASK[trump] else 0
    c, d, h, s = hand & 0x1FFF, hand >> 13 & 0x1FFF, hand >> 26 & 0x1FFF, hand >> 39
    if not (c & c >> 1 & c >> 2 or d & d >> 1 & d >> 2 or h & h >> 1 & h >> 2 or s & s >> 1 & s >> 2 or c & d & h & s):
        return stuk  # no three ranks in a row in any suit, no rank four times: no sequence or four of a kind
    runs = sequences(hand, NATURAL_ORDER, {3: 20, 4: 50, 5: 100, 6: six_sequence_value})
    return sum(m.value for m in runs) + sum(m.value for m in carres(hand, CARRE_VALUES)) + stuk


def most_roem(six_sequence_value: int) -> int:
    """5.1: the most roem a 6-card hand can hold (four jacks with a trump K-Q-J, or a trump six-run with the stuk)."""
    return max(240, six_sequence_value + 20)


@cache
def bid_ladder(min_bid: int, max_bid: int, step: int, six_sequence_value: int) -> OutbidLadder:
    """5.1: every bid, weakest first: the numeric bids with misère (72.5) and zwabber (102.5) among them, then
    boonaak and boonaak with roem, by roem."""
    numeric = [(2 * v, w) for w, v in NUMERIC_WORDS.items() if min_bid <= v <= max_bid and v % step == 0]
    ordered = sorted([*numeric, (145, MISERE), (205, ZWABBER)])
    boonaak = [w for w, r in BOONAAK_WORDS.items() if r <= most_roem(six_sequence_value)]
    return OutbidLadder((*(w for _s, w in ordered), BOONAAK, *boonaak), joinable=frozenset({MISERE}), join_closes=2)


def options_ladder(options: Mapping[str, Any]) -> OutbidLadder:
    """The bids the options allow (5.1)."""
    return bid_ladder(options["min_bid"], options["max_bid"], options["bid_step"], options["six_sequence_value"])


_BID_IDS: dict[tuple[Any, ...], list[int]] = {}


def _bid_ids(ladder: OutbidLadder, auction: OutbidAuction) -> list[int]:
    key = (ladder, *auction.key())
    ids = _BID_IDS.get(key)
    if ids is None:
        ids = _BID_IDS[key] = sorted(WORD_ID[w] for w in auction.legal_words())
    return ids


# RANK_PART[k][card]: C(deck index of card, k + 1), the card's part of a discard's rank (_discard_words)
RANK_PART = tuple(tuple(comb(DECK.index(c), k + 1) if c in DECK else 0 for c in range(52)) for k in range(4))
DISCARD_BY_RANK = {size: array("i", [WORD_ID[word] for word in words])  # (contiguous: read at random)
                   for size, words in _DISCARDS_BY_RANK.items()}


def _discard_ids(pool: int, size: int) -> list[int]:
    """6.1: every set of ``size`` cards of ``pool`` (a hand and the centre) as a discard action, in string order."""
    cards = cards_in(pool)
    by_rank = DISCARD_BY_RANK[size]
    return sorted(_discards(cards, size, by_rank))


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, k=cython.Py_ssize_t, a=cython.Py_ssize_t, b=cython.Py_ssize_t,
               c=cython.Py_ssize_t, d=cython.Py_ssize_t, ranks=cython.int[:], first=cython.longlong[16],
               second=cython.longlong[16], third=cython.longlong[16], fourth=cython.longlong[16])
def _discards(cards: list[int], size: int, by_rank: array[int]) -> list[int]:
    """``_discard_ids`` before the sort: the discard of each set of ``size`` of the first HAND + ``size`` cards, in
    the order of ``combinations`` (compiled, their ranks summed in C)."""
    if not cython.compiled:  # (from source, the rank parts in lists; compiled, in C arrays)
        first, second, third, fourth = [0] * 16, [0] * 16, [0] * 16, [0] * 16
    n = HAND + size
    ranks = by_rank
    for k in range(n):
        first[k], second[k] = RANK_PART[0][cards[k]], RANK_PART[1][cards[k]]
        third[k], fourth[k] = RANK_PART[2][cards[k]], RANK_PART[3][cards[k]]
    ids = []
    for a in range(n):
        for b in range(a + 1, n):
            if size == 2:
                ids.append(ranks[first[a] + second[b]])
                continue
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    ids.append(ranks[first[a] + second[b] + third[c] + fourth[d]])
    return ids


def _any_of(cards: int, count: int, rng: Rng) -> int:
    """``count`` of ``cards`` (a mask) at random, as a mask."""
    pool = cards_in(cards)
    for i in range(count):
        j = i + rng.below(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return mask_of(pool[:count])


@cache
def _turns(n: int, active: tuple[int, ...], dealer: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per seat the next seat at the table clockwise, and the seats at the table from the dealer's left."""
    after = tuple(next((s + k) % n for k in range(1, n + 1) if (s + k) % n in active) for s in range(n))
    return after, tuple(s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in active)


def _contract(word: str) -> str:
    """A bid's contract name: ``85``, ``misere``, ``zwabber``, ``boonaak``, ``boonaak:40``."""
    return word.split(":", 1)[1]


class Bidding(DecisionPhase["Boonaken"]):
    """The auction (5): each seat in turn passes or outbids; its words are in the replayed deal's ``auction``."""

    NAMES = ("bidding",)

    def legal(self, game: Boonaken) -> list[int]:
        return _bid_ids(game.ladder, game.auction)

    def leader(self, game: Boonaken) -> int:
        """7.1: the declarer (the first misère bidder) leads."""
        return game.declarers[0] if game.declarers else game.after[game.dealer]

    def apply(self, game: Boonaken, action: int) -> None:
        game._bid(ACTIONS.strings[action])


class Exchange(DecisionPhase["Boonaken"]):
    """6.1, 6.2: the declarer takes the centre and discards as many; the next misère declarer takes those."""

    NAMES = ("exchange",)

    def legal(self, game: Boonaken) -> list[int]:
        seat = game.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        return _discard_ids(game.hands[seat] | game.centre, game.centre.bit_count())

    def apply(self, game: Boonaken, action: int) -> None:
        seat = game.current_player
        assert seat is not None  # State.apply_id applies only a legal action
        game._exchange(seat, DISCARD_OF[action], len(game.moves) - 1)

    def seen_as(self, game: Boonaken, viewer: int | None, actor: int, action: str) -> str:
        """6.1: a discard is face down: the other seats see that it was made, not its cards."""
        if viewer != actor and action.startswith("discard:"):
            return "discard"
        return action

    # determinization: the centre, the discards and the set-aside cards lie face down (4.2, 6.1)

    def narrow(self, game: Boonaken, seat: int, slots: list[Slot]) -> None:
        """Each run of exchanges' ``placed`` cards (``_chains``) is forbidden outside the slots of its places."""
        for _a, _b, places, placed in game._chains(seat):
            if placed:
                for slot in slots:
                    if not BIT[slot.cards[0]] & places:
                        slot.forbidden |= placed

    def redealt(self, game: Boonaken, seat: int, slots: list[Slot], contents: list[list[int]], rng: Rng) -> bool:
        """Every card outside the runs of exchanges by other seats (``_chains``) becomes the one dealt in its place;
        a run's places (its ``placed`` cards keeping their names) hold what the sample dealt them, and the run's
        deal and exchanges are made again to fit (``_exchange_again``)."""
        chains = game._chains(seat)
        if not chains:
            return False
        ordered, merged, redone = in_deck_order(game.deal_deck), [], []
        outside = list(range(len(slots)))
        for a, b, places, placed in chains:
            ours = [k for k in outside if BIT[slots[k].cards[0]] & places]
            outside = [k for k in outside if not BIT[slots[k].cards[0]] & places]
            old = ordered(c for k in ours for c in slots[k].cards if not BIT[c] & placed)
            merged.append((Slot(old), [c for k in ours for c in contents[k] if not BIT[c] & placed]))
            slotted = mask_of(c for k in ours for c in slots[k].cards)
            declarers = game.declarers[a:b]
            now = [(game.hands[d] & ~slotted) | mask_of(c for k in ours if BIT[slots[k].cards[0]] & game.hands[d]
                                                        for c in contents[k]) for d in declarers]
            pile = game.exchanges[b - 1][1]
            now.append((pile & ~slotted) | mask_of(c for k in ours if BIT[slots[k].cards[0]] & pile
                                                   for c in contents[k]))
            redone.append((a, b, now))
        game._relabel(relabeling([*(slots[k] for k in outside), *(slot for slot, _c in merged)],
                                 [*(contents[k] for k in outside), *(dealt for _s, dealt in merged)]))
        for a, b, now in redone:
            game._exchange_again(a, b, now, rng)
        if game.actual_roem is not None:  # (a trump contract: one declarer)
            declarer = game.declarers[0]
            game.actual_roem = roem_of(game.hands[declarer] | game._played_by(declarer), game.trump, game.six)
        return True

    def known(self, game: Boonaken, seat: int) -> int:
        placed = 0
        for _a, _b, _places, cards in game._chains(seat):
            placed |= cards
        return game._seen(seat) & ~placed

    def hidden(self, game: Boonaken, seat: int) -> list[list[int]]:
        known = game._known_cards(seat)
        return [cards_in(pile & ~known) for pile in (game.set_aside, game.centre, game.discards)]

    def relabel(self, game: Boonaken, new: Sequence[int]) -> None:
        game.centre, game.discards = relabel_mask(game.centre, new), relabel_mask(game.discards, new)
        game.set_aside, game.dealt_centre = relabel_mask(game.set_aside, new), relabel_mask(game.dealt_centre, new)
        exchanges = []
        for seat, discard, move in game.exchanges:
            discard = relabel_mask(discard, new)
            exchanges.append((seat, discard, move))
            if move >= 0:
                game.moves[move] = (seat, DISCARD_ID[discard])
        game.exchanges = exchanges


class TrumpNaming(DecisionPhase["Boonaken"]):
    """7.1: the declarer names trump."""

    NAMES = ("trump",)

    def legal(self, game: Boonaken) -> list[int]:
        return TRUMP_IDS

    def apply(self, game: Boonaken, action: int) -> None:
        seat = game.current_player
        assert seat is not None  # State.apply_id applies only a legal action
        game._name_trump(seat, TRUMP_OF[action])


class Roem(DecisionPhase["Boonaken"]):
    """7.3: after a numeric bid the declarer declares roem, at most what his hand holds with the trump named."""

    NAMES = ("roem",)

    def legal(self, game: Boonaken) -> list[int]:
        assert game.actual_roem is not None  # set with the trump
        return sorted(WORD_ID[ROEM_WORDS[r]] for r in range(0, game.actual_roem + 1, 10))  # 7.3

    def apply(self, game: Boonaken, action: int) -> None:
        game.roem = ROEM_OF[action]
        game.phase = "play"

    def hand_check(self, game: Boonaken, seat: int, known: int) -> Callable[[list[int]], bool] | None:
        """7.3: a declared roem was held (never overstated) by the declarer's 6 cards."""
        if not game.roem or seat != game.declarers[0]:
            return None
        held = (game.hands[seat] & known) | game._played_by(seat)
        trump, declared, six = game.trump, game.roem, game.six
        return lambda cards: roem_of(held | mask_of(cards), trump, six) >= declared

    def relabel(self, game: Boonaken, new: Sequence[int]) -> None:
        if game.actual_roem is not None:  # what the declarer's new hand holds
            declarer = game.declarers[0]
            game.actual_roem = roem_of(game.hands[declarer] | game._played_by(declarer), game.trump, game.six)


class Marks(Phase["Boonaken"]):
    """The marks of the match so far (8): the + marks are the scores, the - marks ``minus_marks``; they must be marks
    a match can hold at this point (its end not yet reached while it goes on)."""

    KEYS = ("minus_marks",)

    def save(self, game: Boonaken) -> dict[str, Any]:
        return {"minus_marks": pack_marks(game.minus)}

    def observe(self, game: Boonaken, seat: int, obs: dict[str, Any]) -> None:
        obs["minus_marks"] = list(game.minus)

    def load(self, game: Boonaken, loading: Loading) -> None:
        if game.phase not in PHASES:
            raise PositionError(f"phase must be one of {PHASES}, got {game.phase!r}")
        self.carry(game, loading.position)

    def carry(self, game: Boonaken, position: Mapping[str, Any]) -> None:
        """8.3: the marks say which seats are still at the table, to be dealt to."""
        game.minus = unpack_marks(position["minus_marks"], game.n_players)
        game._check_marks()


class DealReplay(Phase["Boonaken"]):
    """A Boonaken deal in a position: replayed from deal_deck (the auction, the exchanges, trump, roem and the tricks,
    each legal when made) to the position's hands, piles (``centre``, ``discards``, ``set_aside``) and seat to act."""

    KEYS = (*TRICK_PLAY.KEYS, "auction", "exchanges", "roem", "centre", "discards", "set_aside")

    def save(self, game: Boonaken) -> dict[str, Any]:
        return {
            **TRICK_PLAY.save(game),
            "auction": [[s, w] for s, w in game.auction.actions],
            "exchanges": [[s, DISCARD_WORDS[d]] for s, d, _m in game.exchanges],
            "roem": game.roem,
            "centre": codes_of(cards_in(game.centre)),
            "discards": codes_of(cards_in(game.discards)),
            "set_aside": codes_of(cards_in(game.set_aside)),
        }

    def observe(self, game: Boonaken, seat: int, obs: dict[str, Any]) -> None:
        seen = game._seen(seat)
        obs["face_up"] = codes_of(cards_in(game.face_up))
        obs["centre"] = codes_of(cards_in(game._visible_centre(seat)))
        obs["centre_size"] = game.centre.bit_count()
        obs["discards"] = codes_of(cards_in(game.discards if game._discarded_last(seat) else 0))
        obs["discards_size"] = game.discards.bit_count()
        obs["known_cards"] = codes_of(cards_in(seen))
        obs["auction"] = [[s, w] for s, w in game.auction.actions]
        obs["contract"] = None if game.contract is None else _contract(game.contract)
        obs["declarers"] = list(game.declarers)
        obs["exchanges"] = [[s, game.action_seen_by(seat, s, DISCARD_WORDS[d])] for s, d, _m in game.exchanges]
        obs["roem"] = game.roem
        obs["tricks"] = game._tricks_codes()
        obs["card_points"] = list(game.card_points)
        obs["tricks_won"] = list(game.tricks_won)
        obs["left_table"] = [s for s in range(game.n_players) if s not in game.active]  # 8.3: winners who left

    def load(self, game: Boonaken, loading: Loading) -> None:
        p = loading.position
        if game.phase == "over":  # the last deal was dealt to the seats that played its tricks (8.3)
            game._dealt_table = _seats_in(p["tricks"], game.n_players)
        scratch = OutbidAuction(game.ladder, game._seat_order())
        replay_auction(scratch, p["auction"])
        game.declarers = tuple(scratch.holders) if scratch.over else ()
        game._given = (p["auction"], _exchanges(p["exchanges"]), p["trump"], p["roem"])
        piles = {key: position_hand(p[key], key) for key in ("centre", "discards", "set_aside")}
        to_play = game._load_tricks(p, piles)
        del game._given
        for key, cards in piles.items():
            if mask_of(cards) != getattr(game, key):
                raise PositionError(f"{key} must be {' '.join(codes_of(cards_in(getattr(game, key)))) or 'empty'}: "
                                    "what deal_deck dealt there, after the exchanges")
        phase = game._phase_now()
        del game._loaded_phase
        if game.phase != phase:
            raise PositionError(f"phase must be {phase!r} here")
        if phase == "over":
            game._check_last_table()
        expected = None if phase == "over" else to_play if phase == "play" else game.current_player
        if p["current_player"] != expected:
            raise PositionError(f"current_player must be {expected} here")
        game.current_player = expected

    def deal_again(self, game: Boonaken, trump: int) -> bool:
        """The deal from deal_deck, its auction, exchanges, trump and roem made again, each checked legal."""
        auction, exchanges, trump_code, roem = game._given
        game._start_deal(list(game.deal_deck))
        for number, (seat, word) in enumerate(auction):
            game._replay(f"auction[{number}]", seat, WORD_ID[word])
        for number, (seat, word) in enumerate(exchanges):
            game._replay(f"exchanges[{number}]", seat, WORD_ID.get(word, -1))
        if game.phase == "exchange" and (trump_code is not None or roem is not None):
            raise PositionError("trump and roem are null until the exchanges are made")
        if trump_code is not None:
            if game.phase != "trump":
                raise PositionError("trump is named only in a numeric or boonaak contract, once its exchange is made "
                                    "(7.2)")
            game._replay("trump", game.current_player, WORD_ID[f"trump:{SUITS[suit_of_code(trump_code)]}"])
        if roem is not None:
            if game.phase != "roem" or type(roem) is not int or roem not in ROEM_WORDS:
                raise PositionError("roem is declared (a multiple of 10) after trump in a numeric contract, else null")
            game._replay("roem", game.current_player, WORD_ID[ROEM_WORDS[roem]])
        game._loaded_phase = game.phase
        return True


class Deal(Phase["Boonaken"]):
    """The deal itself: the hands, the centre and the set-aside cards (4.2), then the bidding."""

    def deal(self, game: Boonaken, deck: list[int]) -> None:
        order = game._seat_order()
        hands = [0] * game.n_players
        top = deal_round(deck, 0, hands, order, (3,))  # 4.2: 3 to each
        if len(order) == 5:
            face_up, face_down = deck[top:top + 2], []
            top = deal_round(deck, top + 2, hands, order, (3,))
        else:
            face_down = deck[top:top + 2]
            top = deal_round(deck, top + 2, hands, order, (3,))
            face_up = deck[top:top + 2]
            top += 2
        game._reset_tricks(hands, NO_TRUMP)
        game.trick_size = len(order)
        game.face_up = mask_of(face_up)
        game.centre = game.dealt_centre = game.face_up | mask_of(face_down)
        game.set_aside = mask_of(deck[top:])
        game.discards = 0
        game.auction = OutbidAuction(game.ladder, order)
        game.contract, game.declarers = None, ()
        game.exchanges = []
        game.roem = game.actual_roem = None
        game.phase, game.current_player = "bidding", order[0]

    def next_dealer(self, game: Boonaken) -> int:
        """4.1, 8.3: the next seat at the table clockwise."""
        staying = game._staying()
        n = game.n_players
        return next((game.dealer + k) % n for k in range(1, n + 1) if (game.dealer + k) % n in staying)


@register
class Boonaken(TrickGame):
    RULES = RULES
    ACTIONS = ACTIONS
    DECK = DECK
    PHASES = PHASES
    DEAL_PHASES = (Deal(), Marks(), Bidding(), Exchange(), TrumpNaming(), Roem(), DealReplay())
    COPY = {"auction": UNTIL_OVER, "minus": LIST, "exchanges": LIST, "ladder": SHARED}
    _loaded_phase: str  # loading a position: the phase its auction, exchanges, trump and roem replayed to
    POSITION_CARD_PILES = ("tricks", "centre", "discards", "set_aside")  # position keys of this game that hold cards
    CARRIED = (*TrickGame.CARRIED, "minus_marks")
    NO_WINNER_POSSIBLE = True  # 8.2: a loser ends the match and there is no winner
    INFO = GameInfo(
        id="boonaken",
        name="Boonaken",
        player_counts=(3, 4, 5),
        default_players=4,
        options=OPTIONS,
        summary="Dutch Jass-family game, each for himself: bid points, misère, zwabber or boonaak; two marks decide.",
        deck_size=len(DECK),
        face_down=True, shown_every_move=True,
        option_rules=(OptionRule(lambda o: any(v % o["bid_step"] == 0 for v in range(o["min_bid"], o["max_bid"] + 1)),
                                 "no numeric bid: no multiple of bid_step {bid_step} lies in min_bid..max_bid "
                                 "({min_bid}..{max_bid})"),),
    )
    # What ``shown_cards`` answers (the face-up centre pair and each seat's ``_seen``) changes only with the phase, the
    # dealing and the exchanges: not at a bid that leaves the bidding going on, nor at any card play. Numeric encoders
    # (envs/encoding.py) ask it again only after the other moves (tests/envs/test_pettingzoo.py checks both claims).
    QUIET_WORD_PHASES: ClassVar[frozenset[str]] = frozenset({"bidding"})
    QUIET_CARD_PLAYS: ClassVar[bool] = True

    minus: list[int]  # per seat, its - marks (its score is its + marks less its - marks)
    active: tuple[int, ...]  # the seats at the table this deal, in seat order (8.3)
    after: tuple[int, ...]  # per seat, the next seat at the table clockwise
    auction: OutbidAuction
    ladder: OutbidLadder
    contract: str | None  # the winning bid's word, once the bidding is over
    declarers: tuple[int, ...]  # 5.5: the declarer, or the misère bidders in the order they bid
    exchanges: list[tuple[int, int, int]]  # 6: (seat, discarded cards, move index or -1) in order
    centre: int  # the cards in the centre now: as dealt, then each misère declarer's discards (6.2)
    dealt_centre: int  # 4.2: the centre as dealt
    face_up: int  # 4.2: the centre cards dealt face up (public)
    discards: int  # 6.1: the last declarer's discards, once every exchange is made
    set_aside: int  # 4.2: the cards not dealt
    roem: int | None  # 7.3: the declared roem (numeric bids)
    actual_roem: int | None  # 3.5: the declarer's roem with the trump he named (trump contracts)
    six: int  # 3.1: the six_sequence_value option
    _given: tuple[Any, ...]  # a position being loaded: its auction, exchanges, trump and roem, replayed (DealReplay)
    _dealt_table: tuple[int, ...] = ()  # a finished match's position being loaded: the seats its last deal dealt to

    SETTINGS = {
        "minus": lambda n, o: [0] * n,
        "ladder": lambda n, o: options_ladder(o),
        "six": "six_sequence_value",
    }
    # Every played deal gives its declarer(s) a mark; a seat holds at most plus_to_win + marks and fewer than
    # minus_to_lose - marks before the deal that ends the match. Thrown-in deals (5.4) are spare dealings. Moves: the
    # bidding (each bid raises the highest bid or joins misère, and each seat passes once), an exchange per declarer,
    # trump and roem, and the cards.
    LENGTH = MatchLength(deals=lambda n, o: n * (o["plus_to_win"] + o["minus_to_lose"] - 1) + 1,
                         moves=lambda n, o: len(options_ladder(o).bids) + 2 * n + n + 2 + TRICKS * n, redeals=True)

    # ---- the table and the deal (4, 8.3) ------------------------------------------------------------------------

    def _staying(self) -> list[int]:
        """8.3: the seats still at the table (with ``elimination`` a winner leaves)."""
        if not self.options["elimination"]:
            return list(range(self.n_players))
        return [s for s in range(self.n_players) if self.plus(s) < self.options["plus_to_win"]]

    def plus(self, seat: int) -> int:
        """The ``+`` marks of ``seat`` (8.1): its score (net marks) and its ``-`` marks."""
        return self.side_scores[seat] + self.minus[seat]

    def _seat_order(self) -> list[int]:
        """Set the seats at the table this deal (``active``, ``after``) and return them in turn from the dealer's
        left."""
        self.active = active = self._dealt_table or tuple(self._staying())
        self.after, order = _turns(self.n_players, active, self.dealer)
        return list(order)

    def _next_seats(self) -> tuple[int, ...]:
        return self.after  # 8.3: absent seats do not play

    # ---- actions ------------------------------------------------------------------------------------------------

    def _card_ids(self) -> list[int]:
        seat = self.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        hand, trick = self.hands[seat], self.trick
        if not trick:
            return ACTIONS.ids(hand)
        # 7.5 (trumping while able to follow is not the base's fast path); every seat plays for himself
        return ACTIONS.ids(legal_mask(FOLLOW, hand, SUIT[trick[0][1]], self.trump, self.overtrumps, False))

    def _bid(self, word: str) -> None:
        auction = self.auction
        auction.apply(word)
        if not auction.over:
            self.current_player = auction.turn
        elif auction.thrown_in:  # 5.4: no score; the next dealer deals
            self.dealer = self._next_dealer()
            self._begin_deal(None)
        else:
            self.contract, self.declarers = auction.highest, tuple(auction.holders)
            self.phase, self.current_player = "exchange", self.declarers[0]

    def _exchange(self, seat: int, discard: int, move: int) -> None:
        """6.1, 6.2: the declarer takes the centre and discards as many; the next misère declarer takes those."""
        self.hands[seat] = (self.hands[seat] | self.centre) & ~discard
        self.centre = discard
        self.exchanges.append((seat, discard, move))
        if len(self.exchanges) < len(self.declarers):
            self.current_player = self.declarers[len(self.exchanges)]
            return
        self.discards, self.centre = discard, 0
        self.current_player = self.declarers[0]
        self.phase = "play" if self.contract in (MISERE, ZWABBER) else "trump"  # 7.2: no trump in those

    def _name_trump(self, seat: int, suit: int) -> None:
        self.trump = suit
        self.actual_roem = roem_of(self.hands[seat], suit, self.six)  # 3.5: the 6-card hand, with this trump
        self.phase = "roem" if self.contract in NUMERIC_WORDS else "play"  # 7.3: numeric bids declare roem

    # ---- scoring and the match (7.7, 8) -------------------------------------------------------------------------

    def made(self, seat: int) -> bool:
        """7.7: whether declarer ``seat`` made the contract (after the 6 tricks)."""
        contract = self.contract
        assert contract is not None  # a deal is scored only under a contract
        if contract in NUMERIC_WORDS:
            return self.card_points[seat] + (self.roem or 0) >= NUMERIC_WORDS[contract]
        if contract == MISERE:
            return self.tricks_won[seat] == 0
        everything = self.tricks_won[seat] == TRICKS
        return everything and (self.actual_roem or 0) >= BOONAAK_WORDS.get(contract, 0)

    def _score_deal(self) -> None:
        assert self.contract is not None  # a deal is scored only under a contract
        made = [seat for seat in self.declarers if self.made(seat)]
        plus = [int(seat in made) for seat in range(self.n_players)]
        minus = [int(seat in self.declarers and seat not in made) for seat in range(self.n_players)]
        for seat, mark in enumerate(minus):
            self.minus[seat] += mark
        net = [p - m for p, m in zip(plus, minus, strict=True)]
        self._deal_over(net, contract=_contract(self.contract), declarer=self.declarers[0],
                        made=len(made) == len(self.declarers), plus=plus, minus=minus,
                        card_points=list(self.card_points), roem=self.roem, tricks_won=list(self.tricks_won))

    def _match_winners(self) -> list[int] | None:
        """8.2: two + marks win (checked first), else a loser ends the match with no winner. 8.3 (``elimination``):
        a seat with two + marks leaves the table as a winner; a loser, or the last seat left, ends the match and
        the winners are the seats that left (perhaps none)."""
        losers = [s for s in range(self.n_players) if self.minus[s] >= self.options["minus_to_lose"]]
        if not self.options["elimination"]:
            winners = [s for s in range(self.n_players) if self.plus(s) >= self.options["plus_to_win"]]
            return winners or ([] if losers else None)
        staying = self._staying()
        if not losers and len(staying) > 1:
            return None
        return [s for s in range(self.n_players) if s not in staying and s not in losers]

    # ---- what a seat sees ---------------------------------------------------------------------------------------

    def _seen(self, seat: int) -> int:
        """The cards ``seat`` has seen outside its hand and the tricks: the centre face-up cards, the centre cards
        it took and those it discarded (6), and the centre it is choosing a discard from."""
        seen = self.face_up
        taken = self.dealt_centre
        for s, discard, _move in self.exchanges:
            if s == seat:
                seen |= taken | discard
            taken = discard
        if self.phase == "exchange" and self.current_player == seat:
            seen |= self.centre
        return seen

    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """The face-up centre cards and ``known_cards`` as masks (TrickGame.shown_cards); Boonaken shows no stock."""
        return self.face_up, self._seen(seat), 0

    def _discarded_last(self, seat: int) -> bool:
        """Whether ``seat`` made the last exchange (6.1: only he knows the discards lying face down)."""
        return bool(self.exchanges) and self.exchanges[-1][0] == seat

    def _visible_centre(self, seat: int) -> int:
        """The centre cards ``seat`` sees (4.2, 6): the face-up ones as dealt, every one to the declarer choosing his
        discard and to the declarer whose discards they are; none of a discard to the others (not even which of
        the face-up cards it holds)."""
        if (self.phase == "exchange" and self.current_player == seat) or self._discarded_last(seat):
            return self.centre
        return 0 if self.exchanges else self.face_up

    # ---- determinization ----------------------------------------------------------------------------------------

    def _chains(self, seat: int) -> list[tuple[int, int, int, int]]:
        """6.1, 6.2: the runs ``exchanges[a:b]`` of exchanges by seats other than ``seat`` (each seat's exchange
        ends one), as ``(a, b, places, placed)``: ``places`` is where their cards are now that ``seat`` cannot
        tell apart (the run's declarers' hands and, unless ``seat`` took them, the run's last discards), ``placed``
        the cards ``seat`` has seen that lie there (a face-up card, or what it discarded itself): each may be in any
        of those places, as far as ``seat`` knows."""
        declarers, made, chains = self.declarers, len(self.exchanges), []
        a, seen = 0, -1
        for b in range(made + 1):
            if b < made and declarers[b] != seat:
                continue
            if b > a:
                if seen < 0:
                    seen = self._seen(seat)
                places = 0
                for t in range(a, b):
                    places |= self.hands[declarers[t]]
                if b == made and not (b < len(declarers) and declarers[b] == seat):
                    places |= self.exchanges[b - 1][1]
                chains.append((a, b, places, seen & places))
            a = b + 1
        return chains

    def _exchange_again(self, a: int, b: int, now: list[int], rng: Rng) -> None:
        """6.1, 6.2: the run ``exchanges[a:b]``'s declarers hold ``now[:-1]`` and its last discards are ``now[-1]``;
        deal them (and the centre's face-down cards, when the run starts the deal) what they kept from their own
        cards and, at random, cards that later places hold, and make each exchange from what that leaves. (Each
        kept card came from the cards taken or the hand dealt; a dealt card goes on to a later place.)"""
        declarers, deck = self.declarers[a:b], self.deal_deck  # (a list of the sample's own, from _relabel)
        hand_places, down_places = self._dealt_places()
        end = now[-1]
        for d, hand in zip(declarers, now[:-1], strict=True):
            self.hands[d] = hand
        kept = [self.hands[d] | self._played_by(d) for d in declarers]
        later = end
        for hand in kept:
            later |= hand
        if a:
            taken = self.exchanges[a - 1][1]
        else:
            taken = self.face_up
            if down_places:
                down = _any_of(later & ~taken, len(down_places), rng)
                for place, card in zip(down_places, cards_in(down), strict=True):
                    deck[place] = card
                taken |= down
                self.dealt_centre = taken
        for t, (d, hand) in enumerate(zip(declarers, kept, strict=True)):
            later &= ~hand
            passed = _any_of(later & ~taken, (hand & taken).bit_count(), rng)
            for place, card in zip(hand_places[d], cards_in((hand & ~taken) | passed), strict=True):
                deck[place] = card
            taken = (taken & ~hand) | passed
            move = self.exchanges[a + t][2]
            self.exchanges[a + t] = (d, taken, move)
            if move >= 0:
                self.moves[move] = (d, DISCARD_ID[taken])
        if b == len(self.declarers):
            self.discards = taken
        elif b == len(self.exchanges):
            self.centre = taken

    def _dealt_places(self) -> tuple[dict[int, list[int]], list[int]]:
        """4.2: the places in ``deal_deck`` of each seat's dealt cards, and of the centre's face-down cards."""
        order = _turns(self.n_players, self.active, self.dealer)[1]
        m = len(order)
        places = {s: [3 * k, 3 * k + 1, 3 * k + 2, 3 * m + 2 + 3 * k, 3 * m + 3 + 3 * k, 3 * m + 4 + 3 * k]
                  for k, s in enumerate(order)}
        return places, [] if m == 5 else [3 * m, 3 * m + 1]

    def _played_by(self, seat: int) -> int:
        return mask_of(c for played in [*self.tricks, self.trick] for s, c in played if s == seat)

    # ---- positions (docs/positions/boonaken.md) -----------------------------------------------------------------

    def _check_last_table(self) -> None:
        """A finished match's last deal was dealt to the seats at the table before it: those its marks leave."""
        del self._dealt_table
        made = [s for s in self.declarers if self.made(s)]
        before_plus = [self.plus(s) - (s in made) for s in range(self.n_players)]
        before_minus = [self.minus[s] - (s in self.declarers and s not in made) for s in range(self.n_players)]
        staying = [s for s in range(self.n_players) if not self.options["elimination"] or
                   before_plus[s] < self.options["plus_to_win"]]
        if list(self.active) != staying or min(before_plus + before_minus) < 0 or \
                max(before_minus) >= self.options["minus_to_lose"]:
            raise PositionError(f"the last deal's tricks are played by seats {list(self.active)}, but the marks say "
                                f"seats {staying} were at the table before it")

    def _check_marks(self) -> None:
        """8: the marks a match can hold at this point (its end not yet reached while it goes on)."""
        plus, minus, over = [self.plus(s) for s in range(self.n_players)], self.minus, self.phase == "over"
        most_plus = self.options["plus_to_win"] - (0 if over or self.options["elimination"] else 1)
        most_minus = self.options["minus_to_lose"] - (0 if over else 1)
        if any(not 0 <= p <= most_plus for p in plus) or any(m > most_minus for m in minus):
            raise PositionError(f"+ marks (scores plus minus_marks) must be 0..{most_plus} and - marks 0..{most_minus} "
                                "here")
        marks = sum(plus) + sum(minus)
        deals = self.deal_index + (1 if over else 0)
        if marks > self.n_players * deals or (not over and marks < self.deal_index):
            raise PositionError(f"{self.deal_index} deals played give their declarers one mark each: {marks} marks "
                                "cannot come from them")
        if not over and len(self._staying()) < 2:
            raise PositionError("a match goes on with two seats or more at the table (8.3)")

    def _replay(self, key: str, seat: Any, action: int) -> None:
        if seat != self.current_player or self.phase in ("play", "over") or action not in self._legal_ids():
            raise PositionError(f"{key}: not legal there (seat {self.current_player} acts in phase {self.phase!r})")
        self._apply(action)

    def _phase_now(self) -> str:
        """The phase the replayed deal is in."""
        if (self.tricks or self.trick) and self._loaded_phase != "play":
            raise PositionError(f"no card is played before trump and roem are settled (phase {self._loaded_phase!r})")
        return "over" if len(self.tricks) == TRICKS else self._loaded_phase


def pack_marks(marks: Sequence[int]) -> int:
    """The - marks of every seat as one integer, seat s's count its decimal digit s (the ones are seat 0's): a
    position key that replays of later deals carry (State.CARRIED holds integers).

    >>> pack_marks([1, 0, 2]), unpack_marks(201, 3)
    (201, [1, 0, 2])
    """
    return sum(m * 10 ** seat for seat, m in enumerate(marks))


def unpack_marks(value: object, n: int) -> list[int]:
    """:func:`pack_marks` read back; PositionError for anything that is not a packed count of ``n`` seats."""
    if type(value) is not int or not 0 <= value < 10 ** n:
        raise PositionError(f"minus_marks must be an integer of at most {n} decimal digits, got {value!r}")
    return [value // 10 ** seat % 10 for seat in range(n)]


def _seats_in(tricks: Any, n: int) -> tuple[int, ...]:
    """The seats that played a position's first trick (the tricks themselves are checked later)."""
    if not isinstance(tricks, list) or not tricks or not isinstance(tricks[0], list):
        return ()
    return tuple(sorted({pair[0] for pair in tricks[0]
                         if isinstance(pair, list) and pair and type(pair[0]) is int and 0 <= pair[0] < n}))


def _exchanges(value: Any) -> list[tuple[int, str]]:
    if not isinstance(value, list):
        raise PositionError(f"exchanges must list [seat, 'discard:<cards>'] pairs, got {value!r}")
    pairs = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], str):
            raise PositionError(f"exchanges holds [seat, 'discard:<cards>'] pairs, got {item!r}")
        pairs.append((position_seat(item[0], "exchanges: a seat", 5), item[1]))
    return pairs

