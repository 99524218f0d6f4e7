"""Card codes, canonical order and bit sets.

A card is an int ``suit * 13 + rank`` with ranks ``2..A`` as 0..12 and suits ``C D H S`` as 0..3, so the int order
is the canonical order of the rules files (suit first, then rank). A set of cards is an int bit mask.

>>> parse_card("TH"), card_code(34)
(34, 'TH')
>>> format_cards(cards_in(mask_of(parse_cards(["QS", "3C", "TD"]))))
'3C,TD,QS'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

RANKS = "23456789TJQKA"
SUITS = "CDHS"
NUM_CARDS = 52

CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARD_OF_CODE: dict[str, int] = {code: i for i, code in enumerate(CODES)}
RANK: tuple[int, ...] = tuple(c % 13 for c in range(NUM_CARDS))
SUIT: tuple[int, ...] = tuple(c // 13 for c in range(NUM_CARDS))
RANK_CHAR: tuple[str, ...] = tuple(RANKS[c % 13] for c in range(NUM_CARDS))
BIT: tuple[int, ...] = tuple(1 << c for c in range(NUM_CARDS))
SUIT_MASK: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
RANK_MASK = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four cards of rank 0; ``ranks * RANK_MASK``: the cards of ranks
# Position of each card when card codes are sorted as plain strings (legal actions are listed in that order).
STRING_RANK: tuple[int, ...] = tuple(sorted(CODES).index(CODES[c]) for c in range(NUM_CARDS))


def parse_card(code: str) -> int:
    """The card int of a two-character code such as ``"QS"``; a clear ``ValueError`` for anything else."""
    try:
        return CARD_OF_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {code!r} (rank one of {RANKS}, suit one of {SUITS}, e.g. 'TH')") from None


def card_of(rank: str, suit: int) -> int:
    """The card of a rank letter and a suit index (``SUITS``): ``card_of("T", 2) == parse_card("TH")``."""
    return suit * 13 + RANKS.index(rank)


def card_code(card: int) -> str:
    return CODES[card]


def parse_cards(codes: Iterable[str]) -> list[int]:
    return [parse_card(code) for code in codes]


def format_cards(cards: Iterable[int]) -> str:
    """Comma-separated codes in canonical order."""
    return ",".join(CODES[c] for c in sorted(cards))


def codes_of(cards: Iterable[int]) -> list[str]:
    """Codes in canonical order."""
    return [CODES[c] for c in sorted(cards)]


_ONE = cython.declare(cython.ulonglong, 1)


@cython.locals(m=cython.ulonglong, c=cython.longlong)
def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of some cards: ``mask_of([0, 2]) == 5``."""
    if cython.compiled:  # the same in C integers (views and positions list a hand on every call)
        m = 0
        rest = iter(cards)
        for card in rest:
            c = card
            if c < 0:
                raise ValueError("negative shift count")
            if c > 63:  # not a card: Python's integers, as from source
                return m | 1 << card | mask_of(rest)
            m |= _ONE << c
        return m
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


@cython.locals(m=cython.ulonglong, i=cython.int)
def cards_in(mask: int) -> list[int]:
    """The cards of a bit mask, in canonical order."""
    if mask < 0:
        raise ValueError(f"a card mask is a non-negative int, got {mask}")
    out = []
    if cython.compiled and not mask >> 64:  # the same in C integers: low bits first, a byte at a time where empty
        m = mask
        i = 0
        while m:
            if not m & 0xFF:
                m >>= 8
                i += 8
                continue
            if m & 1:
                out.append(i)
            m >>= 1
            i += 1
        return out
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def make_deck(ranks: str = RANKS) -> list[int]:
    """A one-pack deck of the given ranks in canonical order, e.g. ``make_deck("789TJQKA")`` for 32 cards."""
    if ranks == RANKS:
        return list(range(NUM_CARDS))  # card ints are in canonical order
    unknown = set(ranks) - set(RANKS)
    if unknown:
        raise ValueError(f"unknown ranks {sorted(unknown)}; ranks are {RANKS}")
    kept = [rank for rank, r in enumerate(RANKS) if r in ranks]
    return [suit * 13 + rank for suit in range(4) for rank in kept]


def parse_deck(codes: Iterable[str], expected: Iterable[int]) -> list[int]:
    """Parse a caller-supplied deck order (top first) and check it is exactly the game's deck."""
    cards = parse_cards(codes)
    want = sorted(expected)
    if sorted(cards) != want:
        missing = codes_of(set(want) - set(cards))
        extra = [CODES[c] for c in cards if c not in set(want)]
        dupes = sorted({CODES[c] for c in cards if cards.count(c) > 1})
        raise ValueError(
            f"deck must hold each of the game's {len(want)} cards exactly once"
            f" (missing {missing}, not in this deck {extra}, repeated {dupes})"
        )
    return cards
