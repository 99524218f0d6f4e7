"""deal_round and deal_masks (up to MOST_SEATS seats a loop gathering each seat's mask, compiled in C; more seats
through deal_rounds) deal exactly what deal_rounds deals: the same cards to the same seats, the same new top."""

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import mask_of
from engine.dealing import MOST_SEATS, deal_masks, deal_round, deal_rounds

SEATS = MOST_SEATS + 2


@given(
    st.permutations(list(range(52))),
    st.integers(0, 52),
    st.integers(1, MOST_SEATS + 2).flatmap(lambda n: st.permutations(list(range(n)))),
    st.lists(st.integers(0, 4), max_size=9) | st.integers(0, 9).map(lambda k: [1] * k),
    st.lists(st.integers(0, 2 ** 52 - 1), min_size=SEATS, max_size=SEATS),
)
def test_deal_round_deals_as_deal_rounds(deck, top, order, packets, before):
    hands = list(before)
    end = deal_round(deck, top, hands, order, tuple(packets))
    dealt, used = deal_rounds(deck, order, packets, start=top)
    assert end == used
    assert hands == [before[seat] | (mask_of(dealt[seat]) if seat < len(dealt) else 0) for seat in range(SEATS)]


@given(
    st.permutations(list(range(52))),
    st.integers(0, 16),  # (past the deck's end with more than 4 seats: a short deck deals what it holds)
    st.integers(1, MOST_SEATS + 2).flatmap(lambda n: st.tuples(
        st.permutations(list(range(n))),
        st.lists(st.integers(1, 3) | st.tuples(*[st.integers(0, 3)] * n), min_size=1, max_size=3))),
)
def test_deal_masks_deals_as_deal_rounds(deck, start, order_rounds):
    order, rounds = order_rounds
    masks, used = deal_masks(deck, order, tuple(rounds), start=start)
    dealt, end = deal_rounds(deck, order, rounds, start=start)
    assert (masks, used) == ([mask_of(hand) for hand in dealt], end)
