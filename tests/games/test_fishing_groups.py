"""What the fishing engine finds fast agrees with the rules counted out card by card (rules §5.3, issue 11).

A random rollout lists plays from what the table offers (kept on the state, a trail adding its card) and steps a
capture through the played card's groups (found once when it begins). Both are checked here against brute force:
every subset of the table, its sums with each ace 1 or 11.
"""

from __future__ import annotations

from functools import reduce
from itertools import combinations
from operator import or_

import pytest

from engine.cards import BIT, RANK, mask_of, parse_card, parse_cards
from engine.fishing import (
    JACK,
    NO_OFFERS,
    VALUE_BITS,
    _offers_with,
    capture_value,
    turn_groups,
)
from engine.rng import Rng

LIMITS = (0, 1, 2, 3, 4)
PLAYED = parse_cards(["2C", "7D", "TH", "JS", "QD", "KH", "AC", "AS"])


def _sums(cards: tuple[int, ...]) -> int:
    """The sums (bits) a set of cards can make, each ace 1 or 11, each jack 12."""
    sums = 1
    for card in cards:
        sums = reduce(or_, (sums << v for v in capture_value(RANK[card], 12)))
    return sums & ((1 << 15) - 1)


def _brute_groups(table: list[int], played: int, limit: int) -> set[tuple[int, int]]:
    values = VALUE_BITS[played]
    groups = {(BIT[c], values) for c in table if RANK[c] == RANK[played]}
    for size in range(2, (limit or len(table)) + 1):
        for cards in combinations(table, size):
            hit = _sums(cards) & values
            if hit:
                groups.add((sum(BIT[c] for c in cards), hit))
    return groups


def _brute_capturing(table: list[int], limit: int) -> int:
    """The cards that capture on ``table``: a rank on it, or a value some 2+ cards (at most ``limit``) add up to."""
    sums = 0
    for size in range(2, (limit or len(table)) + 1):
        for cards in combinations(table, size):
            sums |= _sums(cards)
    ranks = {RANK[c] for c in table}
    return sum(BIT[c] for c in range(52) if RANK[c] in ranks or VALUE_BITS[c] & sums)


def _pairs(groups: tuple[int, ...], played: int) -> list[tuple[int, int]]:
    """``turn_groups``' groups as (mask, the values (bits) of ``played`` it is a group for)."""
    values = capture_value(RANK[played], 12)
    return [(g & (1 << 52) - 1, sum(1 << v for i, v in enumerate(values) if g >> 52 + i & 1)) for g in groups]


def _tables(seed: int, count: int, most: int) -> list[list[int]]:
    rng = Rng(seed)
    tables = []
    for _ in range(count):
        deck = [c for c in range(52) if RANK[c] != JACK or rng.below(2)]
        rng.shuffle(deck)
        tables.append(sorted(deck[:1 + rng.below(most)]))
    return tables


@pytest.mark.parametrize("limit", LIMITS)
def test_turn_groups_are_every_group_of_the_played_card(limit: int) -> None:
    for table in _tables(limit, 150, 9):
        mask = sum(BIT[c] for c in table)
        for played in PLAYED:
            if BIT[played] & mask:
                continue
            found = _pairs(turn_groups(mask, played, limit), played)
            assert len(found) == len(set(found))
            assert set(found) == _brute_groups(table, played, limit), (table, played, limit)


@pytest.mark.parametrize("limit", LIMITS)
def test_table_offers_grown_by_trails_are_those_found_afresh(limit: int) -> None:
    for table in _tables(100 + limit, 100, 10):
        offers = NO_OFFERS
        for i, card in enumerate(table):  # one trail at a time
            offers = _offers_with(offers, BIT[card], limit)
            afresh = _offers_with(NO_OFFERS, sum(BIT[c] for c in table[:i + 1]), limit)
            assert offers == afresh
            assert offers[1] == _brute_capturing(table[:i + 1], limit), (table[:i + 1], limit)


def test_an_ace_counts_1_or_11() -> None:
    table = mask_of(parse_cards(["AC", "TC", "9D"]))
    ace, king, queen = parse_card("AD"), parse_card("KC"), parse_card("QC")
    # AD takes AC by rank, or AC and TC as 1 + 10 = 11; a king (14) or a queen (13) finds no group
    assert set(_pairs(turn_groups(table, ace, 0), ace)) == {(BIT[parse_card("AC")], VALUE_BITS[ace]),
                                               (mask_of(parse_cards(["AC", "TC"])), 1 << 11)}
    assert turn_groups(table, king, 0) == () and turn_groups(table, queen, 0) == ()
