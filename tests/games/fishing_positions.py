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
    dealer: int = 0,
    current: int | None = None,
    options: dict | None = None,
    scores: list[int] | None = None,
    last_capturer: int | None = None,
) -> engine.State:
    """A state with the given hands, table and piles; every other card goes to the stock (or to ``rest_to``'s pile).

    ``stock`` fixes the stock (top first); then the remaining cards go to ``rest_to``'s capture pile.
    """
    n = len(hands)
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
        last_capturer=last_capturer,
    )
    if scores is not None:
        position["scores"] = scores
    return engine.from_position(game, position)
