"""Scoring machinery shared by trick games: card-point tables, last-trick bonuses and match targets.

A game states its card points as data (rank -> points in a plain suit and in the trump suit) and gets one table per
trump suit; the match end is one of a few standard rules over the sides' cumulative scores.

>>> table = point_table({"A": 11, "T": 10}, {"J": 20, "9": 14, "A": 11, "T": 10}, )
>>> from engine.cards import parse_card
>>> table[2][parse_card("JH")], table[2][parse_card("JS")], table[2][parse_card("AS")]
(20, 0, 11)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .cards import RANKS, SUIT


def point_table(plain: Mapping[str, int], trump: Mapping[str, int] | None = None) -> tuple[tuple[int, ...], ...]:
    """Card points per trump suit: ``table[trump][card]`` (trump index 4 = no trump); unlisted ranks score 0."""
    trump = plain if trump is None else trump
    return tuple(
        tuple((trump if SUIT[card] == t else plain).get(RANKS[card % 13], 0) for card in range(52)) for t in range(5)
    )


def sides_at_or_over(scores: Sequence[int], target: int) -> list[int]:
    """The sides whose cumulative score has reached ``target``."""
    return [side for side, s in enumerate(scores) if s >= target]


def leaders(scores: Sequence[int]) -> list[int]:
    """The sides with the highest score (more than one on a tie)."""
    top = max(scores)
    return [side for side, s in enumerate(scores) if s == top]


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
