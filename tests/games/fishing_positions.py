"""Build fishing-game states for rule tests from a few cards, through the public position format."""

from __future__ import annotations

import engine
from engine.cards import CODES


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
    """A state with the given hands, table and piles; every other card goes to the stock (or to ``rest_to``'s pile).

    ``stock`` fixes the stock (top first); then the remaining cards go to ``rest_to``'s capture pile. The position
    must be one the rules reach (docs/positions/<game>.md): without ``dealer`` the dealer is the seat whose left
    hand neighbour's turn makes the hand sizes right (the seats before ``current`` in turn hold one card fewer),
    and without ``last_capturer`` the last capture is ``rest_to``'s, or the first seat's with a capture pile.
    """
    n = len(hands)
    if dealer is None:
        dealer = _dealer_for([len(h) for h in hands], current)
    base = engine.new_match(game, seed=1, players=n, options=options, first_dealer=dealer)
    position = base.to_position()
    captured = captured or [[] for _ in range(n)]
    placed = {c for cards in [*hands, table, *captured, stock or []] for c in cards}
    rest = [code for code in CODES if code not in placed]
    if stock is None and rest_to is None:
        stock, rest = rest, []
    if rest:
        captured = [list(pile) + (rest if seat == rest_to else []) for seat, pile in enumerate(captured)]
    position.update(
        hands=[sorted(h, key=CODES.index) for h in hands],
        table=sorted(table, key=CODES.index),
        stock=list(stock or []),
        captured=[sorted(p, key=CODES.index) for p in captured],
        current_player=(dealer + 1) % n if current is None else current,
        last_capturer=_last_capturer(captured, rest_to) if last_capturer is None else last_capturer,
    )
    if scores is not None:
        position["scores"] = scores
    return engine.from_position(game, position)


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
