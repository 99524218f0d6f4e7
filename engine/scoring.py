"""Scoring machinery shared by trick games: card-point tables, last-trick bonuses, trick values and match targets.

A game states its card points as data (rank -> points in a plain suit and in the trump suit) and gets one table per
trump suit; the
match end is one of a few standard rules over the sides' cumulative scores.

>>> table = point_table({"A": 11, "T": 10}, {"J": 20, "9": 14, "A": 11, "T": 10}, )
>>> from engine.cards import parse_card
>>> table[2][parse_card("JH")], table[2][parse_card("JS")], table[2][parse_card("AS")]
(20, 0, 11)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .cards import CODES, RANKS, SUIT, mask_of

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython


def point_table(plain: Mapping[str, int], trump: Mapping[str, int] | None = None) -> tuple[tuple[int, ...], ...]:
    """Card points per trump suit: ``table[trump][card]`` (trump index 4 = no trump); unlisted ranks score 0."""
    trump = plain if trump is None else trump
    return tuple(
        tuple((trump if SUIT[card] == t else plain).get(RANKS[card % 13], 0) for card in range(52)) for t in range(5)
    )


# The match-end rules below run at every deal's end (every play-out of a search ends one): loops on indices, so that
# compiled they make no generator or builtin call; they read a scores sequence as given (Python integers).


@cython.locals(side=cython.Py_ssize_t, reached=list)
def sides_at_or_over(scores: Sequence[int], target: int) -> list[int]:
    """The sides whose cumulative score has reached ``target``.

    >>> sides_at_or_over([1010, 990, 1000], 1000)
    [0, 2]
    """
    reached = []
    for side in range(len(scores)):
        if scores[side] >= target:
            reached.append(side)
    return reached


@cython.locals(side=cython.Py_ssize_t, n=cython.Py_ssize_t, top_sides=list)
def leaders(scores: Sequence[int]) -> list[int]:
    """The sides with the highest score (more than one on a tie).

    >>> leaders([3, 7, 7]), leaders([5])
    ([1, 2], [0])
    """
    n = len(scores)
    if n == 0:
        raise ValueError("leaders() of no scores")  # (as max() of an empty sequence)
    top = scores[0]
    for side in range(1, n):
        if scores[side] > top:
            top = scores[side]
    top_sides = []
    for side in range(n):
        if scores[side] == top:
            top_sides.append(side)
    return top_sides


@cython.locals(top=list)
def single_leader(scores: Sequence[int]) -> list[int] | None:
    """The side with the highest score, alone; None while the highest scores are tied (play goes on)."""
    top = leaders(scores)
    return top if len(top) == 1 else None


def highest_once_target_reached(scores: Sequence[int], target: int) -> list[int] | None:
    """The common match end: once some side has reached ``target``, the single highest side wins.

    While the highest scores are tied, play goes on (None), as do matches where nobody has reached the target.

    >>> highest_once_target_reached([1010, 990], 1000), highest_once_target_reached([1010, 1010], 1000)
    ([0], None)
    """
    return single_leader(scores) if sides_at_or_over(scores, target) else None


def target_or_deals(scores: Sequence[int], target: int, played: int, deals: int) -> list[int] | None:
    """A match to ``target`` (``highest_once_target_reached``) or, with target 0, of ``deals`` deals: after the last
    (``played`` counts them) the highest sides win, equal totals a draw.

    >>> target_or_deals([12, 9], 0, 1, 2), target_or_deals([12, 12], 0, 2, 2), target_or_deals([12, 12], 11, 2, 2)
    (None, [0, 1], None)
    """
    if target:
        return highest_once_target_reached(scores, target)
    return leaders(scores) if played >= deals else None


def deals_to_target(target: int, deals: int, least_points: int, tied: int = 10) -> int:
    """The most deals of a two-player match of ``deals`` deals or, with ``target`` > 0, to that total, when every deal
    hands out at least ``least_points``: the higher total gains half of them a deal, so it reaches the target within
    2 x target / least_points deals; then ``tied`` more while the highest totals stay tied (Trappola, Très 7.3).

    >>> deals_to_target(0, 2, 17), deals_to_target(100, 1, 6), deals_to_target(101, 2, 17)
    (2, 44, 22)
    """
    return deals if target == 0 else -(-2 * target // least_points) + tied


class PileValues:
    """Card values summed over a pile (a mask) in four table look-ups, one per suit: ``points[card]`` for each card.

    >>> from engine.cards import mask_of, parse_cards
    >>> PileValues(point_table({"A": 11, "T": 10})[4]).pile_points(mask_of(parse_cards(["AS", "TH", "9C"])))
    21
    """

    def __init__(self, points: Sequence[int]) -> None:
        self.points: tuple[int, ...] = tuple(points)
        # by_suit[suit][ranks]: the points of that suit's cards of a 13-bit rank mask
        self.by_suit = tuple(_suit_sums(self.points[13 * s:13 * s + 13]) for s in range(4))

    @cython.locals(cards=cython.ulonglong)
    def pile_points(self, pile: int) -> int:
        """The points of the cards of ``pile`` (a mask), signs as given."""
        clubs, diamonds, hearts, spades = self.by_suit
        cards = pile  # (compiled: a C integer, its suits cut out in C)
        return (clubs[cards & 0x1FFF] + diamonds[cards >> 13 & 0x1FFF] + hearts[cards >> 26 & 0x1FFF]
                + spades[cards >> 39 & 0x1FFF])


class PlusMinusCards(PileValues):
    """Scoring cards worth plus or minus points, and the reversal: a pile that holds every minus card turns the sign
    of every pile's points (Two-Ten-Jack 7.2; the idea of Hearts' shooting the moon).

    >>> from engine.cards import mask_of, parse_cards
    >>> cards = PlusMinusCards({"2H": 10, "KH": 5, "AS": -15, "QS": -5})
    >>> cards.scores([mask_of(parse_cards(["2H"])), mask_of(parse_cards(["AS", "QS", "KH"]))])
    ([-10, 15], 1)
    >>> cards.scores([mask_of(parse_cards(["2H", "QS"])), mask_of(parse_cards(["AS", "KH"]))])
    ([5, -10], None)
    """

    def __init__(self, points: Mapping[str, int]) -> None:
        unknown = sorted(set(points) - set(CODES))
        if unknown:
            raise ValueError(f"not card codes: {unknown}")
        super().__init__([points.get(code, 0) for code in CODES])
        self.minus = mask_of(c for c, p in enumerate(self.points) if p < 0)

    def shooter(self, piles: Sequence[int]) -> int | None:
        """The index of the pile that holds every minus card, if one does."""
        return next((k for k, pile in enumerate(piles) if pile & self.minus == self.minus), None)

    def scores(self, piles: Sequence[int], reversal: bool = True) -> tuple[list[int], int | None]:
        """Each pile's points and the pile that reversed the signs (None: no reversal, or ``reversal`` off)."""
        points = [self.pile_points(pile) for pile in piles]
        shooter = self.shooter(piles) if reversal else None
        return ([-p for p in points] if shooter is not None else points), shooter


def _suit_sums(values: Sequence[int]) -> tuple[int, ...]:
    """For each 13-bit mask, the sum of ``values`` at its set bits."""
    sums = [0]
    for m in range(1, 1 << 13):
        low = m & -m
        sums.append(sums[m ^ low] + values[low.bit_length() - 1])
    return tuple(sums)
