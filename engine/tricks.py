"""Trick-taking machinery, written once for every trick game: dealing, card actions, trick winners, legal cards.

A game states its rules as data and calls these small functions (dealing in packets is
:func:`engine.dealing.deal_rounds`, shared with the fishing games):

- :class:`CardActions` numbers card plays (and suffixed forms such as ``KH:belote``) and word actions (``pass``,
  ``bid:80:H``) so that sorting action ids sorts their strings, and turns a hand mask into the sorted id list;
- :class:`Ranking` holds a game's rank order in plain and trump suits; :func:`beats` and :func:`trick_winner` use it;
- :class:`FollowRule` states the legal-card rule (must follow, must trump, must overtrump, the partner exception) and
  :func:`legal_mask` applies it to a hand mask; :class:`MustWinRule` is the Manille family's (Botifarra's: win the
  trick if you can, else play low), and a game with a rule of its own keeps it in its package (Très' second card);
- :func:`gather_tricks` and :func:`cut` handle undealt packs (a stock drawn after tricks: the trick loop,
  ``engine.trickgame``).

Cards are the canonical ints of :mod:`engine.cards`; hands and sets of cards are bit masks.

>>> from engine.cards import cards_in, codes_of, mask_of, parse_card, parse_cards
>>> rule = FollowRule(must_trump=True, partner_exempts=True, must_overtrump=True)
>>> hand = mask_of(parse_cards(["9D", "7H", "AH", "KS"]))
>>> belote = Ranking("ATKQJ987", "J9ATKQ87")
>>> over = beaters_mask(belote, HEARTS, parse_card("QH"))
>>> codes_of(cards_in(legal_mask(rule, hand, CLUBS, HEARTS, over, partner_winning=True)))
['9D', 'AH', 'KS']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

from .cards import BIT, CODES, RANKS, STRING_RANK, SUIT, SUIT_MASK, SUITS, mask_of, parse_card
from .errors import PositionError
from .state import position_seat

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
NO_TRUMP = 4  # the trump index of a deal without trumps: no card is a trump
_SUIT_BITS = cython.declare(cython.ulonglong, 0x1FFF)  # a suit's 13 cards from its first: SUIT_MASK[s] >> 13 * s
SUIT_CARDS = tuple(range(13 * suit, 13 * suit + 13) for suit in range(4))  # [suit]: its cards

# Canonical card of each position in the plain string order of the codes ("2C" < "2D" < ... < "TS").
CARD_AT_STRING_RANK: tuple[int, ...] = tuple(sorted(range(52), key=STRING_RANK.__getitem__))


# ---- dealing ----------------------------------------------------------------------------------------------------



def gather_tricks(tricks: Iterable[Sequence[tuple[int, int]]]) -> list[int]:
    """The played cards picked up as a pack: trick 1 on top, each trick in the order its cards were played.

    >>> gather_tricks([[(1, 7), (2, 3)], [(2, 9), (1, 0)]])
    [7, 3, 9, 0]
    """
    return [card for trick in tricks for _seat, card in trick]  # (compiled: C loops, each play unpacked in C)


def cut(pack: Sequence[int], position: int) -> list[int]:
    """Cut a pack: the top ``position`` cards go to the bottom (``P[c:] + P[:c]``).

    >>> cut([1, 2, 3, 4, 5], 2)
    [3, 4, 5, 1, 2]
    """
    return list(pack[position:]) + list(pack[:position])


# ---- ranking and trick winners ----------------------------------------------------------------------------------


class Ranking:
    """A game's rank orders, high to low, in a plain suit and in the trump suit, as a power table per trump suit.

    ``power[trump][card]`` orders the cards that can win a trick: trumps above every plain card, and within a suit
    the game's rank order. A card beats another only if it is of the same suit and more powerful, or a trump.

    >>> from engine.cards import parse_card
    >>> r = Ranking("AKQJT98765432")
    >>> r.power[HEARTS][parse_card("2H")] > r.power[HEARTS][parse_card("AS")]
    True
    """

    def __init__(self, plain: str, trump: str | None = None) -> None:
        trump = trump or plain
        self.plain, self.trump = plain, trump
        self.power: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._power(card, t) for card in range(52)) for t in range(5)
        )

    @cached_property
    def beat(self) -> tuple[tuple[int, ...], ...]:
        """``beat[trump][best]``: the cards (a mask) that take a trick from ``best``, the card winning it so far
        (:func:`beats`): a higher card of its suit, or a trump over a plain card.

        >>> from engine.cards import cards_in, codes_of, parse_card
        >>> codes_of(cards_in(Ranking("AKQJT98765432").beat[SPADES][parse_card("QS")]))
        ['KS', 'AS']
        """
        return tuple(self._beat_table(t) for t in range(5))

    def _beat_table(self, trump: int) -> tuple[int, ...]:
        # beats(), read the other way: the cards of best's suit or the trump suit above it (built at import: cheap)
        power = self.power[trump]
        table = []
        for best in range(52):
            above, suit = power[best], SUIT[best]
            mask = 0
            for c in chain(SUIT_CARDS[suit], SUIT_CARDS[trump] if trump not in (suit, NO_TRUMP) else ()):
                if power[c] > above:
                    mask |= BIT[c]
            table.append(mask)
        return tuple(table)

    def _power(self, card: int, trump: int) -> int:
        rank = RANKS[card % 13]
        if SUIT[card] == trump:
            return 100 + len(self.trump) - self.trump.index(rank) if rank in self.trump else 100
        return len(self.plain) - self.plain.index(rank) if rank in self.plain else 0


def beats(card: int, best: int, trump: int, power: Sequence[int]) -> bool:
    """Whether ``card`` takes the trick from ``best`` (the card winning it so far); ``power = ranking.power[trump]``."""
    return power[card] > power[best] and (card // 13 == best // 13 or card // 13 == trump)  # (``SUIT[c]`` is c // 13)


def trick_winner(cards: Sequence[int], trump: int, ranking: Ranking) -> int:
    """The index in ``cards`` (play order) of the card that wins the trick.

    >>> from engine.cards import parse_cards
    >>> trick_winner(parse_cards(["TH", "AH", "7C", "8C"]), CLUBS, Ranking("ATKQJ987", "J9ATKQ87"))
    3
    """
    power = ranking.power[trump]
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump, power):
            best = i
    return best


def beaters_mask(ranking: Ranking, trump: int, best_trump: int | None) -> int:
    """The trumps that beat ``best_trump`` (every trump when there is no trump in the trick yet)."""
    if trump == NO_TRUMP:
        return 0
    if best_trump is None:
        return SUIT_MASK[trump]
    power = ranking.power[trump]
    return mask_of(c for c in range(13 * trump, 13 * trump + 13) if power[c] > power[best_trump])


# ---- the legal-card rule ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FollowRule:
    """A game's legal-card rule as data. Every rule makes a player follow the led suit when able; on top of that:

    - ``must_trump``: a player void in the led suit must play a trump if he holds one;
    - ``partner_exempts``: ... except while his partner is winning the trick (then he may discard anything);
    - ``must_overtrump``: a trump played to a trick that holds a trump (or following a trump lead) must beat the best
      trump in it when the player can; when he cannot, any trump (undertrumping) is allowed.

    >>> FOLLOW_SUIT.must_trump
    False
    """

    must_trump: bool = False
    partner_exempts: bool = False
    must_overtrump: bool = False
    # Jass-family rules (Boonaken 7.5): ``trump_with_suit`` lets a player who can follow a plain suit trump instead;
    # ``free_trump`` is the rank letter of a trump that never has to follow a trump lead: a player whose only trump
    # it is may play any card.
    trump_with_suit: bool = False
    free_trump: str = ""


FOLLOW_SUIT = FollowRule()


@cython.locals(suit=cython.int, same=cython.ulonglong, trump_cards=cython.ulonglong, trumps=cython.ulonglong,
               trumping=cython.ulonglong)
def legal_mask(rule: FollowRule, hand: int, led: int | None, trump: int, over: int, partner_winning: bool) -> int:
    """The cards of ``hand`` (a mask) that may be played.

    ``led`` is the led suit (None for the leader), ``over`` the trumps that beat the best trump in the trick
    (:func:`beaters_mask`), ``partner_winning`` whether the player's partner is winning the trick now.
    (``_SUIT_BITS << 13 * s`` is ``SUIT_MASK[s]``, computed: compiled, in C with tricks.pxd's C types.)
    """
    if led is None:
        return hand
    suit = led
    same = hand & (_SUIT_BITS << 13 * suit)
    if same:
        if suit == trump:
            if rule.free_trump and same == BIT[13 * trump + RANKS.index(rule.free_trump)]:
                return hand
            if rule.must_overtrump:
                return (same & over) or same
        elif rule.trump_with_suit and trump != NO_TRUMP:
            return same | (hand & (_SUIT_BITS << 13 * trump))
        return same
    if trump == NO_TRUMP:
        return hand
    trump_cards = _SUIT_BITS << 13 * trump
    trumps = hand & trump_cards
    if not trumps:
        return hand
    trumping = ((trumps & over) or trumps) if rule.must_overtrump else trumps
    if rule.must_trump and not (rule.partner_exempts and partner_winning):
        return trumping
    return (hand & ~trump_cards) | trumping


@dataclass(frozen=True)
class MustWinRule:
    """The Manille family's legal-card rule (Botifarra 5.5, 5.6) as data (a game's ``TrickRules.must_win``, in place
    of its :class:`FollowRule`): follow suit when able (else any card may be played), and while the partner is not
    winning the trick, play a card that wins it now when one can (trumping or overtrumping when void, never
    undertrumping).

    With ``lowest`` a card that does not win must be the lowest its player holds in its suit (void: of any suit),
    except that a card of ``loads`` (the point cards) may be played instead by the trick's second player or while
    the partner is winning, who may also overtake him; without ``lowest`` any card that follows suit may be played
    then.

    >>> from engine.cards import cards_in, codes_of, mask_of, parse_card, parse_cards
    >>> from engine.tricks import CLUBS, HEARTS
    >>> rule = MustWinRule(Ranking("9AKQJ8765432"), lowest=True, loads=mask_of(parse_cards(["JC", "QC", "KC"])))
    >>> hand = mask_of(parse_cards(["2C", "7C", "JC", "QC", "9D"]))
    >>> codes_of(cards_in(rule.legal(hand, CLUBS, HEARTS, parse_card("AC"), partner_winning=False, second=True)))
    ['2C', 'JC', 'QC']
    """

    ranking: Ranking
    lowest: bool = True
    loads: int = 0
    # beat[trump][best]: every card that takes the trick from ``best`` (higher of its suit, or any trump over a plain
    # card); low_plain / low_trump: for each 13-bit rank mask, its lowest rank's bit in the plain / trump order
    beat: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    low_plain: tuple[int, ...] = field(init=False, repr=False)
    low_trump: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "beat", self.ranking.beat)
        object.__setattr__(self, "low_plain", _lowest_table(self.ranking.plain))
        object.__setattr__(self, "low_trump", _lowest_table(self.ranking.trump))

    @cython.locals(cards=cython.ulonglong, trump=cython.Py_ssize_t, low=cython.ulonglong, suit=cython.Py_ssize_t,
                   ranks=cython.ulonglong, lowest=cython.ulonglong, table=tuple)
    def lowest_cards(self, cards: int, trump: int) -> int:
        """The lowest card (a mask) of each suit present in ``cards``, by the ranking (the trump order in trumps).
        (Compiled, the masks are C integers.)"""
        low = 0
        for suit in range(4):
            ranks = (cards >> (13 * suit)) & 0x1FFF
            if ranks:
                table = self.low_trump if suit == trump else self.low_plain
                lowest = table[ranks]
                low |= lowest << (13 * suit)
        return low

    @cython.locals(hand=cython.ulonglong, led=cython.Py_ssize_t, trump=cython.Py_ssize_t, best=cython.Py_ssize_t,
                   same=cython.ulonglong, allowed=cython.ulonglong, beaters=cython.ulonglong, low=cython.ulonglong,
                   loads=cython.ulonglong, lowest=cython.ulonglong, table=tuple)
    def legal(self, hand: int, led: int, trump: int, best: int, partner_winning: bool, second: bool) -> int:
        """The cards of ``hand`` (a mask) that may be played to a trick led in suit ``led`` and won so far by
        ``best``; ``second``: the player is the trick's second. (Compiled, the masks are C integers.)"""
        same = ((hand >> 13 * led) & 0x1FFF) << 13 * led  # the led suit's cards
        allowed = same or hand
        table = self.beat[trump]
        beaters = table[best]
        beaters &= allowed
        if beaters and not partner_winning:
            return beaters
        if not self.lowest:
            return allowed
        if same:  # one suit: its lowest card, one look-up
            table = self.low_trump if led == trump else self.low_plain
            lowest = table[same >> (13 * led)]
            low = lowest << (13 * led)
        else:
            low = self.lowest_cards(hand, trump)
        loads = self.loads
        if partner_winning:
            return beaters | low | (allowed & loads)
        return low | (allowed & loads) if second else low


_LOWEST: dict[str, tuple[int, ...]] = {}


def _lowest_table(order: str) -> tuple[int, ...]:
    """For each 13-bit rank mask, the bit of its lowest rank in ``order`` (high to low; unlisted ranks lowest)."""
    if order not in _LOWEST:
        rising = [RANKS.index(r) for r in reversed(order)]
        rising = [r for r in range(13) if RANKS[r] not in order] + rising
        _LOWEST[order] = (0, *(1 << next(r for r in rising if m >> r & 1) for m in range(1, 1 << 13)))
    return _LOWEST[order]


# ---- card actions -----------------------------------------------------------------------------------------------


class CardActions:
    """The action ids of a game: card plays (with optional suffixed forms) and word actions, sortable as ints.

    A card's id is ``STRING_RANK[card] * width + k`` where ``k = 0`` is the plain code (``KH``) and ``k >= 1`` the code
    with the k-th suffix (``KH:belote``); word actions (``pass``, ``bid:80:H``, ``down:0``) follow, in string order.
    Since every word starts with a lower-case letter, sorting ids sorts the action strings, so a legal list built
    from ids is already in the order the rules README asks for.

    >>> from engine.cards import parse_card
    >>> acts = CardActions(suffixes=("belote",), words=("pass", "bid:80:H"))
    >>> ids = [acts.word_id("pass"), acts.card_id(parse_card("KH"), 1), acts.word_id("bid:80:H")]
    >>> [acts.string(a) for a in sorted(ids)]
    ['KH:belote', 'bid:80:H', 'pass']
    """

    def __init__(self, suffixes: Sequence[str] = (), words: Iterable[str] = ()) -> None:
        if list(suffixes) != sorted(suffixes):
            raise ValueError(f"card suffixes must be listed in string order, got {list(suffixes)}")
        self.width = 1 + len(suffixes)
        self.suffixes = ("", *(":" + s for s in suffixes))
        self.words = tuple(sorted(words))
        if any(not w[:1].islower() for w in self.words):
            raise ValueError(f"word actions must start with a lower-case letter: {self.words}")
        self.first_word = 52 * self.width
        self.strings: tuple[str, ...] = tuple(
            CODES[CARD_AT_STRING_RANK[a // self.width]] + self.suffixes[a % self.width] for a in range(self.first_word)
        ) + self.words
        self.ids_of_string = {s: a for a, s in enumerate(self.strings)}
        # card_of[a]: the card an id plays (None for words).
        self.card_of: tuple[int | None, ...] = tuple(
            CARD_AT_STRING_RANK[a // self.width] for a in range(self.first_word)
        ) + (None,) * len(self.words)
        self.plain_id: tuple[int, ...] = tuple(STRING_RANK[c] * self.width for c in range(52))
        # plain_card[a]: the card a plain play id plays (None for a suffixed form and for words): the trick loop plays
        # these itself and hands the others to the game.
        self.plain_card: tuple[int | None, ...] = tuple(
            card if a % self.width == 0 else None for a, card in enumerate(self.card_of))
        self.suit_tables = _suit_tables(self.width)  # per suit, the sorted ids of each 13-bit rank mask
        self.string_tables = _string_tables(self.width)  # per 13 string ranks, the ids of each 13-bit mask of them

    def card_id(self, card: int, suffix: int = 0) -> int:
        return STRING_RANK[card] * self.width + suffix

    def word_id(self, word: str) -> int:
        """The id of a word action (an auction's legal words are listed by it: a look-up, not a search of the
        words); a ValueError for a string that is not one of them."""
        action = self.ids_of_string.get(word, -1)
        if action < self.first_word:
            raise ValueError(f"{word!r} is not a word action of this game")
        return action

    def string(self, action: int) -> str:
        return self.strings[action]

    @cython.locals(m=cython.ulonglong, ranks=cython.ulonglong)
    @cython.locals(m=cython.ulonglong, ranks=cython.ulonglong, a=cython.ulonglong, b=cython.ulonglong,
                   c=cython.ulonglong, d=cython.ulonglong, s=tuple, t=tuple, ids=list)
    def ids(self, mask: int) -> list[int]:
        """The plain play ids of the cards of ``mask``, sorted (so in string order): the mask's cards by string rank
        (``STRING_SPREAD``), whose four 13-rank blocks list their ids in order, no sort. (Compiled, the masks are C
        integers and index the tables as such.)"""
        s, m = STRING_SPREAD, mask
        a, b = s[0][m & 0x1FFF], s[1][(m >> 13) & 0x1FFF]
        c, d = s[2][(m >> 26) & 0x1FFF], s[3][m >> 39]
        ranks = a | b | c | d
        t = self.string_tables
        ids = list(t[0][ranks & 0x1FFF])  # a new list, extended in place
        ids += t[1][(ranks >> 13) & 0x1FFF]
        ids += t[2][(ranks >> 26) & 0x1FFF]
        ids += t[3][ranks >> 39]
        return ids

    @cython.locals(mask=cython.ulonglong, suit=cython.Py_ssize_t)
    def suit_ids(self, mask: int, suit: int) -> list[int]:
        """Like :meth:`ids` for a mask that holds cards of ``suit`` only (one table look-up, a new list)."""
        return list(self.suit_tables[suit][mask >> (13 * suit)])


# The id tables are tuples of ints, which the garbage collector stops tracking: as lists, their 65,536 entries a width
# were most of the objects each full collection walked (issue 30).
IdTables = tuple[tuple[tuple[int, ...], ...], ...]
_TABLES: dict[int, IdTables] = {}


def _suit_tables(width: int) -> IdTables:
    """Per suit, for each 13-bit rank mask, the sorted plain ids of those cards (shared by games of one width)."""
    if width not in _TABLES:
        tables = []
        for suit in range(4):
            ids = [STRING_RANK[13 * suit + r] * width for r in range(13)]
            table: list[tuple[int, ...]] = [()]
            for m in range(1, 1 << 13):
                low = (m & -m).bit_length() - 1
                table.append(tuple(sorted([*table[m & (m - 1)], ids[low]])))
            tables.append(tuple(table))
        _TABLES[width] = tuple(tables)
    return _TABLES[width]


# STRING_SPREAD[suit][ranks]: the cards of ``suit`` with those ranks (a 13-bit mask) as a mask of string ranks (bit
# STRING_RANK[card]), which CardActions.ids reads in order.
def _spread(suit: int) -> tuple[int, ...]:
    spread = [0]
    for m in range(1, 1 << 13):  # (each mask from the one without its lowest bit)
        spread.append(spread[m & (m - 1)] | 1 << STRING_RANK[13 * suit + (m & -m).bit_length() - 1])
    return tuple(spread)


STRING_SPREAD: tuple[tuple[int, ...], ...] = tuple(_spread(suit) for suit in range(4))
_STRING_TABLES: dict[int, IdTables] = {}


def _string_tables(width: int) -> IdTables:
    """Per block of 13 string ranks, for each 13-bit mask of them, the plain ids of those cards in order (shared by
    games of one width)."""
    if width not in _STRING_TABLES:
        tables = []
        for block in range(4):
            table: list[tuple[int, ...]] = [()]
            for m in range(1, 1 << 13):  # (each entry from the one without its highest bit)
                high = m.bit_length() - 1
                table.append((*table[m ^ 1 << high], (13 * block + high) * width))
            tables.append(tuple(table))
        _STRING_TABLES[width] = tuple(tables)
    return _STRING_TABLES[width]


def suit_of_code(letter: str) -> int:
    """The suit index of a suit letter (``"H"`` -> 2)."""
    if letter not in SUITS or len(letter) != 1:
        raise ValueError(f"not a suit: {letter!r} (one of {SUITS})")
    return SUITS.index(letter)


# ---- positions: cards and tricks as the rules allow them --------------------------------------------------------


def check_cards_once(piles: Mapping[str, Sequence[int]], deck: Sequence[int]) -> None:
    """PositionError unless the piles (position key -> cards) hold every card of ``deck`` exactly once.

    >>> check_cards_once({"hands[0]": [0, 1], "stock": [2]}, [0, 1, 2, 3])
    Traceback (most recent call last):
    engine.errors.PositionError: the position must hold the 4-card deck once each: missing 5C
    """
    where: dict[int, list[str]] = {}
    for name, cards in piles.items():
        for card in cards:
            where.setdefault(card, []).append(name)
    in_deck = set(deck)
    problems = []
    twice = [f"{CODES[c]} ({', '.join(names)})" for c, names in sorted(where.items()) if len(names) > 1]
    if twice:
        problems.append("twice: " + "; ".join(twice))
    foreign = [f"{CODES[c]} ({where[c][0]})" for c in sorted(where) if c not in in_deck]
    if foreign:
        problems.append("not in the deck: " + ", ".join(foreign))
    missing = [CODES[c] for c in sorted(in_deck) if c not in where]
    if missing:
        problems.append("missing " + ", ".join(missing))
    if problems:
        raise PositionError(f"the position must hold the {len(in_deck)}-card deck once each: {'; '.join(problems)}")


def position_cards(value: object, key: str) -> list[int]:
    """A position's list of card codes as card ints; PositionError naming ``key`` for anything else."""
    if not isinstance(value, list):
        raise PositionError(f"{key} must be a list of card codes, got {value!r}")
    return [parse_card(code) for code in value]


def position_trick(value: object, key: str, n: int, most: int | None = None) -> list[tuple[int, int]]:
    """A trick written as ``[[seat, card], ...]`` (seats 0..n-1, at most ``most`` pairs, default ``n``) as (seat,
    card int) pairs."""
    most = n if most is None else most
    if not isinstance(value, list) or len(value) > most:
        raise PositionError(f"{key} must list at most {most} [seat, card] pairs, got {value!r}")
    played = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise PositionError(f"{key} holds [seat, card] pairs, got {pair!r}")
        seat, code = pair
        played.append((position_seat(seat, f"{key}: a trick's seat", n), parse_card(code)))
    return played


def check_play_order(tricks: Sequence[Sequence[tuple[int, int]]], trick: Sequence[tuple[int, int]], first_leader: int,
                     n: int, winner: Callable[[list[int]], int], size: int | None = None,
                     lead_passes: bool = False, order: Sequence[int] | None = None) -> int:
    """PositionError unless every finished trick holds ``size`` cards (default ``n``) played in seat order from its
    leader, the first led by ``first_leader`` and each next one by the winner of the one before (``winner`` gives the
    index of the winning card of a trick's cards), or with ``lead_passes`` by the next seat after its leader; returns
    the seat whose turn it is to play to ``trick`` (the trick in play). ``order`` lists the seats that play, in turn
    order, when some seats sit out (Boonaken 8.3); by default every seat plays.

    >>> from engine.cards import parse_card
    >>> check_play_order([[(1, parse_card("7S")), (0, parse_card("2H"))]], [], 1, 2, lambda cards: 1)
    0
    >>> check_play_order([[(3, parse_card("7S")), (0, parse_card("2H"))]], [], 3, 4, lambda cards: 1, order=[0, 3])
    0
    """
    if order is not None:
        if first_leader not in order:
            raise PositionError(f"seat {first_leader} must lead the first trick, but it plays no card")
        turn = list(order)
        at = {seat: i for i, seat in enumerate(turn)}
        size = size or len(turn)

        def after(seat: int, k: int) -> int:
            return turn[(at[seat] + k) % len(turn)]
    else:
        size = size or n

        def after(seat: int, k: int) -> int:
            return (seat + k) % n
    leader = first_leader
    for number, played in enumerate([*tricks, trick], start=1):
        finished = number <= len(tricks)
        if finished and len(played) != size:
            raise PositionError(f"finished trick {number} must hold {size} cards, got {len(played)}")
        seats = [seat for seat, _card in played]
        if seats != [after(leader, k) for k in range(len(seats))]:
            raise PositionError(f"trick {number} must be played in seat order from seat {leader}, got seats {seats}")
        if finished:
            leader = after(leader, 1) if lead_passes else seats[winner([card for _seat, card in played])]
    return after(leader, len(trick))
