"""Build trick-game positions for rule tests from a few cards: short hands are padded, the rest of the deck goes to
finished tricks won by the seats a test asks for, and ``deal_deck`` is the deck that dealt all that, so every position
is one the rules can reach (the engine replays it from ``deal_deck`` and checks every card against the follow rule).

Finished tricks are built from the last one back, each card one its player could legally play with what it held then
(its final hand and the cards it plays later); the choices are drawn at random until the engine accepts the position
(:func:`first_accepted`).

>>> from engine.games.german_whist import RULES
>>> spare = [parse_card(c) for c in ["7S", "AS", "2H", "KH"]]
>>> final = [mask_of([parse_card("3D")]), mask_of([parse_card("4D")])]
>>> tricks = legal_tricks(random.Random(1), spare, final, 1, [0, 0], trump=2, rules=RULES, side_of=(0, 1))
>>> sorted(len(t) for t in tricks), spare
([2, 2], [])
"""

from __future__ import annotations

import json
import pathlib
import random
import re
from collections.abc import Callable, Sequence

import engine
from engine.cards import BIT, CODES, SUIT, mask_of, parse_card
from engine.dealing import deal_rounds, seats_from
from engine.games.belote_family import RULES as BELOTE_RULES
from engine.trickgame import TrickRules
from engine.tricks import legal_mask, trick_winner

TRIES = 3000


def pad(hand: list[str], size: int, spare: list[int], avoid: str = "") -> list[str]:
    """``hand`` filled up to ``size`` cards from ``spare``, in canonical order but the suits in ``avoid`` last."""
    spare.sort(key=lambda c: (CODES[c][1] in avoid, c))
    extra = [spare.pop(0) for _ in range(size - len(hand))]
    return sorted([*hand, *(CODES[c] for c in extra)], key=CODES.index)


def first_accepted(game: str, build: Callable[[random.Random], dict]) -> engine.State:
    """The state of the first position ``build`` makes (from a seeded RNG, again and again) that the engine loads."""
    rng = random.Random(0)
    problems = []
    for _ in range(TRIES):
        try:
            return engine.from_position(game, build(rng))
        except (engine.PositionError, AssertionError, ValueError, IndexError) as exc:
            problems.append(str(exc))
    raise AssertionError(f"no {game} position built: {sorted(set(problems))[:5]}")


def deck_dealing(indices: Sequence[Sequence[int]], cards: Sequence[Sequence[str]], size: int,
                 fixed: dict[int, str] | None = None) -> list[str]:
    """A deck of ``size`` cards that puts ``cards[k]`` (any order) at the deck indices ``indices[k]``, and the
    ``fixed`` cards at their indices."""
    deck: list[str | None] = [None] * size
    for where, card in (fixed or {}).items():
        deck[where] = card
    for places, held in zip(indices, cards, strict=True):
        free = [i for i in places if deck[i] is None]
        rest = [c for c in held if c not in deck]
        assert len(free) == len(rest), (free, rest)
        for i, card in zip(free, rest, strict=True):
            deck[i] = card
    assert None not in deck, deck
    return deck  # type: ignore[return-value]


def dealt_indices(n: int, dealer: int, packets: Sequence[int]) -> list[list[int]]:
    """The deck indices each seat is dealt in packets from the dealer's left."""
    hands, _used = deal_rounds(list(range(32)), seats_from(dealer + 1, n), packets)
    return [list(h) for h in hands]


def legal_tricks(rng: random.Random, spare: list[int], final: Sequence[int], first_leader: int,
                 winners: Sequence[int | None], trump: int, rules: TrickRules,
                 side_of: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Finished tricks of the cards of ``spare`` (taken out of it) won by ``winners`` (None: any seat; the last one
    given), the first led by ``first_leader``, each card one its player could legally play holding then its ``final``
    hand (a mask) and the cards it plays later: the tricks are built from the last one back (a seat that draws cards
    later holds fewer, so this is stricter than the rule). AssertionError at a dead end."""
    n = len(final)
    held = list(final)
    tricks: list[list[tuple[int, int]]] = []
    if not winners:
        return tricks
    winner = winners[-1]
    for t in reversed(range(len(winners))):
        before = winners[t - 1] if t else first_leader
        leader = before if before is not None else rng.randrange(n)
        trick = next((tr for tr in (_legal_trick(rng, spare, held, leader, trump, rules, side_of) for _ in range(40))
                      if tr and tr[trick_winner([c for _s, c in tr], trump, rules.ranking)][0] == winner), None)
        assert trick is not None, f"no legal trick {t} won by seat {winner}"
        for seat, card in trick:
            held[seat] |= BIT[card]
            spare.remove(card)
        tricks.insert(0, trick)
        winner = leader
    return tricks


def _legal_trick(rng: random.Random, spare: list[int], held: Sequence[int], leader: int, trump: int,
                 rules: TrickRules, side_of: Sequence[int]) -> list[tuple[int, int]] | None:
    """One trick of ``spare`` cards from ``leader`` on, each legal for a player holding ``held`` and that card."""
    n = len(held)
    trick: list[tuple[int, int]] = []
    pool = list(spare)
    for k in range(n):
        seat = (leader + k) % n
        led = SUIT[trick[0][1]] if trick else None
        cards = [c for _s, c in trick]
        best = trick[trick_winner(cards, trump, rules.ranking)] if trick else None
        over = rules.beaters[trump][best[1]] if best else 0
        partner_winning = best is not None and side_of[best[0]] == side_of[seat]
        legal = [c for c in pool if legal_mask(rules.follow, held[seat] | BIT[c], led, trump, over, partner_winning)
                 & BIT[c]]
        if not legal:
            return None
        card = rng.choice(legal)
        pool.remove(card)
        trick.append((seat, card))
    return trick


BELOTE_TRICKS = 8


def fill_play(rng: random.Random, hands: dict[int, list[str]], trick: list, current: int, n: int, trump: str,
              first_leader: int, deck: list[str], set_aside: Sequence[str] = (),
              tricks: list | None = None) -> tuple[list[list[str]], list]:
    """Belote hands and finished tricks of a position in play with the given hands and trick: short hands are filled
    up, the rest of ``deck`` (less ``set_aside``) goes to legal finished tricks, the last won by the seat that leads
    now.

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
    full = [pad(hands.get(seat, []), BELOTE_TRICKS - finished - (seat in in_trick), spare, avoid)
            for seat in range(n)]
    if tricks is None:
        final = [mask_of(parse_card(c) for c in [*h, *(c for s, c in trick if s == seat)])
                 for seat, h in enumerate(full)]
        side_of = (0, 1, 0, 1) if n == 4 else tuple(range(n))
        winners = [*[None] * (finished - 1), leader] if finished else []
        built = legal_tricks(rng, spare, final, first_leader, winners, trump_suit, BELOTE_RULES, side_of)
        tricks = [[[s, CODES[c]] for s, c in t] for t in built]
    assert not spare, spare
    return full, tricks


def played_by(tricks: Sequence[Sequence[Sequence]], n: int) -> list[list[str]]:
    """The cards each seat played in ``tricks`` (position JSON)."""
    return [[c for t in tricks for s, c in t if s == seat] for seat in range(n)]


def documented_example(game: str) -> engine.State:
    """The state of the example position on the game's page docs/positions/<game>.md, checked to round-trip."""
    doc = pathlib.Path(__file__).parents[2] / "docs" / "positions" / f"{game}.md"
    example = json.loads(re.search(r"```json\n(.*?)```", doc.read_text(), re.S).group(1))
    state = engine.from_position(game, example)
    assert state.to_position() == example
    return state
