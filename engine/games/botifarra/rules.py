"""Botifarra's own rules (botifarra.md): the first dealer drawn by suit (3.1), the Manille family's
legal-card rule (win the trick if you can, else play your lowest card; 5.2) and the points over half (6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...cards import RANKS, SUIT
from ...rng import Rng
from ...tricks import Ranking

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython


def draw_by_suit(rng: Rng, pack: Sequence[int]) -> int:
    """The first dealer by a turned card (Botifarra 3.1): a fresh shuffle of ``pack``; the suit of its top card (C 0,
    D 1, H 2, S 3) is the seat that deals.

    >>> from engine.cards import make_deck
    >>> from engine.rng import Rng
    >>> draw_by_suit(Rng(1), make_deck()) in range(4)
    True
    """
    cards = list(pack)
    rng.shuffle(cards)
    return SUIT[cards[0]]


@dataclass(frozen=True)
class MustWinRule:
    """The Manille family's legal-card rule (Botifarra 5.5, 5.6) as data: follow suit when able (else any card may
    be played), and while the partner is not winning the trick, play a card that wins it now when one can (trumping
    or overtrumping when void, never undertrumping).

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


def over_half(points: Sequence[int], half: int, multiplier: int = 1) -> list[int]:
    """Each side's score when only a side holding more than ``half`` of a deal's points scores, its excess times
    ``multiplier`` (Botifarra 7.2); at exactly half nobody scores.

    >>> over_half([45, 27], 36), over_half([45, 27], 36, 8), over_half([36, 36], 36)
    ([9, 0], [72, 0], [0, 0])
    """
    return [(p - half) * multiplier if p > half else 0 for p in points]


