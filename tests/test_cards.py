"""engine.cards: card codes, canonical order, bit sets, decks and caller-supplied deck orders."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import (
    BIT,
    CODES,
    NUM_CARDS,
    RANK,
    RANK_CHAR,
    RANKS,
    STRING_RANK,
    SUIT,
    SUIT_MASK,
    SUITS,
    card_code,
    card_of,
    cards_in,
    codes_of,
    format_cards,
    make_deck,
    mask_of,
    parse_card,
    parse_cards,
    parse_deck,
)

# The canonical order of shared/rules/README.md, written out by hand: suit C < D < H < S, then rank 2 < ... < A.
CANONICAL = [r + s for s in "CDHS" for r in "23456789TJQKA"]

card_sets = st.sets(st.integers(0, NUM_CARDS - 1))


def test_codes_are_the_canonical_order_of_the_rules_files() -> None:
    assert list(CODES) == CANONICAL
    assert (CODES[0], CODES[12], CODES[13], CODES[51]) == ("2C", "AC", "2D", "AS")


def test_card_int_is_suit_times_13_plus_rank() -> None:
    for card in range(NUM_CARDS):
        assert card == SUIT[card] * 13 + RANK[card]
        assert RANK_CHAR[card] == CODES[card][0]
        assert "CDHS"[SUIT[card]] == CODES[card][1]
        assert BIT[card] == 1 << card
        assert SUIT_MASK[SUIT[card]] & BIT[card]


def test_suit_masks_partition_the_deck() -> None:
    assert sum(SUIT_MASK) == (1 << NUM_CARDS) - 1
    assert all(bin(m).count("1") == 13 for m in SUIT_MASK)


def test_string_rank_is_the_position_in_plain_string_order() -> None:
    by_string = sorted(range(NUM_CARDS), key=lambda c: STRING_RANK[c])
    assert [CODES[c] for c in by_string] == sorted(CANONICAL)


@pytest.mark.parametrize(("code", "card"), [("2C", 0), ("TH", 34), ("QS", 49), ("AS", 51), ("AD", 25)])
def test_parse_card_and_card_code_are_inverse(code: str, card: int) -> None:
    assert parse_card(code) == card
    assert card_code(card) == code


@pytest.mark.parametrize("bad", ["", "1H", "10H", "th", "T", "TX", "HT", " TH", None, 34])
def test_parse_card_rejects_anything_else_naming_ranks_and_suits(bad: object) -> None:
    with pytest.raises(ValueError) as err:
        parse_card(bad)  # type: ignore[arg-type]
    message = str(err.value)
    assert repr(bad) in message
    assert "23456789TJQKA" in message and "CDHS" in message


def test_parse_cards_keeps_the_given_order() -> None:
    assert parse_cards(["QS", "3C", "TD"]) == [49, 1, 21]


def test_format_and_codes_list_cards_in_canonical_order() -> None:
    cards = parse_cards(["QS", "3C", "TD", "2C"])
    assert format_cards(cards) == "2C,3C,TD,QS"
    assert codes_of(cards) == ["2C", "3C", "TD", "QS"]
    assert format_cards([]) == ""


@given(card_sets)
@settings(max_examples=50, deadline=None)
def test_masks_round_trip(cards: set[int]) -> None:
    mask = mask_of(cards)
    assert bin(mask).count("1") == len(cards)
    assert cards_in(mask) == sorted(cards)


def test_masks_beyond_the_cards_work_as_python_s_integers() -> None:
    # compiled, mask_of and cards_in run on C integers for cards 0-63 and on Python's beyond, as from source
    assert mask_of(iter([1, 70, 3])) == 1 << 1 | 1 << 70 | 1 << 3
    assert cards_in(1 << 70 | 1 << 63 | 2) == [1, 63, 70]
    assert mask_of([]) == 0 and cards_in(0) == []
    with pytest.raises(ValueError, match="negative"):
        mask_of([2, -1])
    with pytest.raises(ValueError, match="non-negative"):
        cards_in(-4)


@pytest.mark.parametrize(
    ("ranks", "size", "first", "last"),
    [
        ("23456789TJQKA", 52, "2C", "AS"),
        ("6789TJQKA", 36, "6C", "AS"),
        ("789TJQKA", 32, "7C", "AS"),
        ("9TJQKA", 24, "9C", "AS"),
        ("3456789TJQKA", 48, "3C", "AS"),
    ],
)
def test_make_deck_gives_one_pack_of_the_ranks_in_canonical_order(ranks: str, size: int, first: str, last: str) -> None:
    deck = make_deck(ranks)
    assert len(deck) == size == len(set(deck))
    assert deck == sorted(deck)
    assert (card_code(deck[0]), card_code(deck[-1])) == (first, last)
    assert {RANK_CHAR[c] for c in deck} == set(ranks)


def test_make_deck_defaults_to_52_cards() -> None:
    assert make_deck() == list(range(NUM_CARDS))


def test_make_deck_rejects_unknown_ranks() -> None:
    with pytest.raises(ValueError, match=r"unknown ranks \['1', 'X'\]; ranks are 23456789TJQKA"):
        make_deck("1X789")


def test_parse_deck_accepts_any_order_of_exactly_the_deck() -> None:
    codes = ["AS", "7C", "KD"]
    assert parse_deck(codes, parse_cards(["7C", "KD", "AS"])) == parse_cards(codes)


@pytest.mark.parametrize(
    ("codes", "expected_in_message"),
    [
        (["7C", "KD"], "missing ['AS']"),
        (["7C", "KD", "AS", "AS"], "repeated ['AS']"),
        (["7C", "KD", "KD"], "repeated ['KD']"),
        (["7C", "KD", "2H"], "not in this deck ['2H']"),
    ],
)
def test_parse_deck_names_missing_foreign_and_repeated_cards(codes: list[str], expected_in_message: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_deck(codes, parse_cards(["7C", "KD", "AS"]))
    assert expected_in_message in str(err.value)
    assert "each of the game's 3 cards exactly once" in str(err.value)


def test_parse_deck_rejects_a_bad_code() -> None:
    with pytest.raises(ValueError, match="not a card code: 'XX'"):
        parse_deck(["XX"], [0])


def test_card_of_rank_and_suit_is_the_card_of_its_code() -> None:
    pairs = [(r, s) for s in range(4) for r in RANKS]
    assert [card_of(r, s) for r, s in pairs] == [parse_card(r + SUITS[s]) for r, s in pairs]
    assert make_deck("789TJQKA") == [card_of(r, s) for s in range(4) for r in "789TJQKA"]
