"""Build fishing-game states for rule tests from a few cards, through the public position format."""

from __future__ import annotations

import engine
from engine.cards import CODES, RANK, cards_in, parse_card
from engine.fishing import JACK

# Games, player counts and options that between them take every path of the capture rules (compulsory or not, sums
# limited or not, special jacks or not).
FISHING_CASES = [
    ("tablic", 2, {}),
    ("tablic", 4, {}),
    ("tablic", 2, {"capture_compulsory": True}),
    ("tablanette", 2, {}),
    ("tablanette", 3, {"max_sum_cards": 0}),
    ("tablanette", 2, {"jack_mode": "value12", "max_sum_cards": 0, "hand_size": 8}),
]

# A deck order that only serves to find which places of deal_deck each round deals to whom: no jack in reach of the
# table's first layout, so Tablanette's initial jacks (§3.6) move nothing.
_PLACES = [c for c in range(52) if RANK[c] != JACK] + [c for c in range(52) if RANK[c] == JACK]


def fishing_state(
    game: str,
    hands: list[list[str]],
    table: list[str],
    *,
    captured: list[list[str]] | None = None,
    stock: list[str] | None = None,
    rest_to: int | None = None,
    dealer: int | None = None,
    current: int | None = None,
    options: dict | None = None,
    scores: list[int] | None = None,
    last_capturer: int | None = None,
) -> engine.State:
    """A state with the given hands, table and capture piles, dealt from a ``deal_deck`` that reaches them.

    The hands are played in the round of hands that leaves ``stock`` (top first); without ``stock``, in the first
    round, whose stock takes the cards placed nowhere else in canonical order. The cards still left go to ``rest_to``'s
    capture pile (by default the pile of the seat that plays first, which has played if anyone has). ``deal_deck``
    deals each hand to its seat in that round, a card of each capture pile to its seat as a card it played, non-jacks
    to the table's first layout, and the other cards of the table and the piles to the places the seats played from.

    The position must be one the rules reach (docs/positions/<game>.md): without ``dealer`` the dealer is the seat
    whose left hand neighbour's turn makes the hand sizes right (the seats before ``current`` in turn hold one card
    fewer), and without ``last_capturer`` the last capture is ``rest_to``'s, or the first seat's with a capture pile.
    """
    n = len(hands)
    if dealer is None:
        dealer = _dealer_for([len(h) for h in hands], current)
    base = engine.new_match(game, seed=1, players=n, options=options, first_dealer=dealer,
                            deck=[CODES[c] for c in _PLACES])
    layout, rounds = base.dealt_rounds()
    now = 0 if stock is None else next((k for k, dealt in enumerate(rounds) if len(dealt.stock) == len(stock)), None)
    if now is None:
        raise ValueError(f"no round of hands leaves a stock of {len(stock or [])} cards")
    captured = [list(pile) for pile in captured or [[] for _ in range(n)]]
    placed = {c for cards in [*hands, table, *captured, stock or []] for c in cards}
    rest = [code for code in CODES if code not in placed]
    if stock is None:
        stock, rest = rest[:len(rounds[0].stock)], rest[len(rounds[0].stock):]
    if rest:
        rest_to = (dealer + 1) % n if rest_to is None else rest_to
        captured[rest_to] += rest
    deck = _deal_deck(hands, table, captured, stock, layout, rounds[:now + 1])
    position = base.to_position()
    position.update(
        deal_deck=deck,
        hands=[sorted(h, key=CODES.index) for h in hands],
        table=sorted(table, key=CODES.index),
        stock=list(stock),
        captured=[sorted(p, key=CODES.index) for p in captured],
        current_player=(dealer + 1) % n if current is None else current,
        last_capturer=_last_capturer(captured, rest_to) if last_capturer is None else last_capturer,
    )
    if scores is not None:
        position["scores"] = scores
    return engine.from_position(game, position)


def _deal_deck(hands: list[list[str]], table: list[str], captured: list[list[str]], stock: list[str], layout: int,
               rounds: list) -> list[str]:
    """A deck order (codes, top first) whose deal gives ``hands`` in the last of ``rounds`` and leaves ``stock``, with
    the table and the piles made of cards dealt before: ``layout`` and ``rounds`` say which places of ``_PLACES`` the
    deal gives the table and each seat."""
    place = {card: i for i, card in enumerate(_PLACES)}
    deck: list[str | None] = [None] * 52
    for card, code in zip(rounds[-1].stock, stock, strict=True):
        deck[place[card]] = code
    played: list[list[int]] = []  # per seat: the places of the cards it has played this deal
    for seat, hand in enumerate(hands):
        slots = [place[c] for c in cards_in(rounds[-1].hands[seat])]
        if len(hand) > len(slots):
            raise ValueError(f"seat {seat} holds {len(hand)} cards, more than a round of hands deals")
        for i, code in zip(slots, hand, strict=False):
            deck[i] = code
        played.append(slots[len(hand):] + [place[c] for dealt in rounds[:-1] for c in cards_in(dealt.hands[seat])])
    pool = sorted(table, key=CODES.index) + [code for pile in captured for code in sorted(pile, key=CODES.index)]
    for seat, pile in enumerate(captured):
        if pile:
            if not played[seat]:
                raise ValueError(f"seat {seat} has a capture pile but has played no card this deal")
            deck[played[seat].pop()] = pile[0]
            pool.remove(pile[0])
    pool.sort(key=lambda code: RANK[parse_card(code)] == JACK)  # the first layout holds no jack (§3.6)
    slots = [place[c] for c in cards_in(layout)] + [i for seat_places in played for i in seat_places]
    for i, code in zip(slots, pool, strict=True):
        deck[i] = code
    assert None not in deck
    return [code for code in deck if code is not None]


def _dealer_for(sizes: list[int], current: int | None) -> int:
    """The first dealer under whom ``current`` (default: the dealer's left) is to play with these hand sizes."""
    n = len(sizes)
    for dealer in range(n):
        first = (dealer + 1) % n
        seat = first if current is None else current
        if sizes == [sizes[seat] - ((s - first) % n < (seat - first) % n) for s in range(n)]:
            return dealer
    raise ValueError(f"no dealer lets seat {current} play with hands of {sizes} cards")


def _last_capturer(captured: list[list[str]], rest_to: int | None) -> int | None:
    if rest_to is not None and captured[rest_to]:
        return rest_to
    return next((seat for seat, pile in enumerate(captured) if pile), None)
