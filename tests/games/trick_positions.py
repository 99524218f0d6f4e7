"""Build trick-game positions for rule tests from a few cards: the rest of the deck goes to finished tricks (won by
the seats a test asks for, in a legal lead order) and to the hands that need cards, so every position loads.

>>> from engine.tricks import Ranking
>>> spare = [parse_card(c) for c in ["7S", "AS", "2H", "KD"]]
>>> tricks = chain_tricks(spare, first_leader=1, winners=[0, 0], n=2, trump=2, ranking=Ranking("AKQJT98765432"))
>>> [[(s, CODES[c]) for s, c in t] for t in tricks]
[[(1, '7S'), (0, '2H')], [(0, 'AS'), (1, 'KD')]]
"""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Sequence

import engine
from engine.cards import CODES, SUIT, parse_card
from engine.tricks import Ranking, trick_winner


def make_trick(spare: list[int], leader: int, winner: int, n: int, trump: int,
               ranking: Ranking) -> list[tuple[int, int]]:
    """One finished trick led by ``leader`` and won by ``winner``, its cards taken out of ``spare``.

    Trumps are kept for the tricks that need them: a leader who wins leads the strongest plain card and the others
    play the weakest plain cards; a winner who does not lead plays the strongest trump, or, with none left, the highest
    card of a suit whose lowest card the leader leads.
    """
    power = ranking.power[trump]
    spare.sort(key=lambda c: power[c])
    plain = [c for c in spare if SUIT[c] != trump]
    if winner == leader and len(plain) >= n:
        cards = {winner: plain[-1]}
        others = [c for c in plain if c != plain[-1]]
    elif winner == leader or SUIT[spare[-1]] == trump:
        cards = {winner: spare[-1]}
        others = spare[:-1]
    else:
        suit = next(SUIT[c] for c in reversed(spare) if sum(SUIT[x] == SUIT[c] for x in spare) >= 2)
        of_suit = [c for c in spare if SUIT[c] == suit]
        cards = {winner: of_suit[-1], leader: of_suit[0]}
        others = [c for c in spare if c not in of_suit]
    for k in range(n):
        seat = (leader + k) % n
        if seat not in cards:
            cards[seat] = others.pop(0)
    for card in cards.values():
        spare.remove(card)
    trick = [((leader + k) % n, cards[(leader + k) % n]) for k in range(n)]
    assert trick[trick_winner([c for _s, c in trick], trump, ranking)][0] == winner, trick
    return trick


def chain_tricks(spare: list[int], first_leader: int, winners: Sequence[int], n: int, trump: int,
                 ranking: Ranking) -> list[list[tuple[int, int]]]:
    """Finished tricks won by ``winners`` in turn, the first led by ``first_leader``, each next one by the winner."""
    tricks, leader = [], first_leader
    for winner in winners:
        tricks.append(make_trick(spare, leader, winner, n, trump, ranking))
        leader = winner
    return tricks


def pad(hand: list[str], size: int, spare: list[int], avoid: str = "") -> list[str]:
    """``hand`` filled up to ``size`` cards from ``spare``, taking cards of the suits in ``avoid`` last."""
    spare.sort(key=lambda c: CODES[c][1] in avoid)
    extra = [spare.pop(0) for _ in range(size - len(hand))]
    return sorted([*hand, *(CODES[c] for c in extra)], key=CODES.index)


BELOTE_TRICKS = 8


def fill_play(hands: dict[int, list[str]], trick: list, current: int, n: int, trump: str, first_leader: int,
              deck: list[str], ranking: Ranking, set_aside: Sequence[str] = (),
              tricks: list | None = None) -> tuple[list[list[str]], list]:
    """Belote hands and finished tricks of a position in play with the given hands and trick: short hands are filled
    up, the rest of ``deck`` (less ``set_aside``) goes to finished tricks won by the seat that leads now.

    Returns (hands per seat, finished tricks as position JSON).
    """
    placed = {c for cards in hands.values() for c in cards} | {c for _s, c in trick} | set(set_aside)
    placed |= {c for t in tricks or [] for _s, c in t}
    spare = [parse_card(c) for c in deck if c not in placed]
    in_trick = {seat for seat, _c in trick}
    if tricks is None:
        held = max(len(cards) + (seat in in_trick) for seat, cards in hands.items())
        leader = trick[0][0] if trick else current
        finished = BELOTE_TRICKS - held
    else:
        finished = len(tricks)
    trump_suit = "CDHS".index(trump)
    avoid = trump + "".join(c[1] for _s, c in trick)
    full = [pad(hands.get(seat, []), BELOTE_TRICKS - finished - (seat in in_trick), spare, avoid) for seat in range(n)]
    if tricks is None:
        built = chain_tricks(spare, first_leader, [leader] * finished, n, trump_suit, ranking)
        tricks = [[[s, CODES[c]] for s, c in t] for t in built]
    assert not spare, spare
    return full, tricks


def documented_example(game: str) -> engine.State:
    """The state of the example position on the game's page docs/positions/<game>.md, checked to round-trip."""
    doc = pathlib.Path(__file__).parents[2] / "docs" / "positions" / f"{game}.md"
    example = json.loads(re.search(r"```json\n(.*?)```", doc.read_text(), re.S).group(1))
    state = engine.from_position(game, example)
    assert state.to_position() == example
    return state
