"""deal_round's and deal_masks' fast paths (compiled: C masks) deal exactly what deal_rounds deals: the same cards to
the same seats, the same new top."""

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import mask_of
from engine.dealing import deal_masks, deal_round, deal_rounds


@given(
    st.permutations(list(range(52))),
    st.integers(0, 52),
    st.integers(1, 4).flatmap(lambda n: st.permutations(list(range(n)))),
    st.lists(st.integers(0, 4), max_size=9) | st.integers(0, 9).map(lambda k: [1] * k),
    st.lists(st.integers(0, 2 ** 52 - 1), min_size=4, max_size=4),
)
def test_deal_round_deals_as_deal_rounds(deck, top, order, packets, before):
    hands = list(before)
    end = deal_round(deck, top, hands, order, tuple(packets))
    dealt, used = deal_rounds(deck, order, packets, start=top)
    assert end == used
    assert hands == [before[seat] | (mask_of(dealt[seat]) if seat < len(dealt) else 0) for seat in range(4)]


@given(
    st.permutations(list(range(52))),
    st.integers(0, 16),  # (16 + 3 rounds of 3 cards to 4 seats: the whole deck at most)
    st.integers(1, 4).flatmap(lambda n: st.tuples(
        st.permutations(list(range(n))),
        st.lists(st.integers(1, 3) | st.tuples(*[st.integers(0, 3)] * n), min_size=1, max_size=3))),
)
def test_deal_masks_deals_as_deal_rounds(deck, start, order_rounds):
    order, rounds = order_rounds
    masks, used = deal_masks(deck, order, tuple(rounds), start=start)
    dealt, end = deal_rounds(deck, order, rounds, start=start)
    assert (masks, used) == ([mask_of(hand) for hand in dealt], end)
