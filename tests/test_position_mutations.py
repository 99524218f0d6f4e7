"""A position the rules cannot reach is refused (issue 10): valid positions met in random matches of a game, changed
in one way the rules forbid, must raise ``engine.PositionError``.

Every registered game has its mutations (``mutators(game)``): a mutation takes a valid position (a copy it may
change) and a random source, and returns the changed position, or None where it does not apply (no finished trick,
the match is over). The generic ones below suit any game whose position has ``hands`` and ``current_player``; a trick
game and a fishing game take those of their kind, and a game with a follow rule of its own (broken in a finished
trick) lists its own in ``OWN_MUTATORS``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

import pytest
from game_cases import EXAMPLES, GAME_CASES, seeds, start_variant, variant_options
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.cards import CODES, SUIT, parse_card
from engine.fishing import FishingState
from engine.trickgame import TrickGame

Mutator = Callable[[dict, random.Random], "dict | None"]


def _sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=CODES.index)


def swap_between_hands(p: dict, rng: random.Random) -> dict | None:
    """One card of a hand exchanged with one card of another hand."""
    seats = [s for s, hand in enumerate(p["hands"]) if hand]
    if len(seats) < 2:
        return None
    a, b = rng.sample(seats, 2)
    x, y = rng.choice(p["hands"][a]), rng.choice(p["hands"][b])
    p["hands"][a] = _sorted([c for c in p["hands"][a] if c != x] + [y])
    p["hands"][b] = _sorted([c for c in p["hands"][b] if c != y] + [x])
    return p


def change_seat_to_play(p: dict, rng: random.Random) -> dict | None:
    """Another seat to act."""
    if p["current_player"] is None:
        return None
    p["current_player"] = rng.choice([s for s in range(p["players"]) if s != p["current_player"]])
    return p


def drop_a_card(p: dict, rng: random.Random) -> dict | None:
    """A card taken out of a hand."""
    seats = [s for s, hand in enumerate(p["hands"]) if hand]
    if not seats:
        return None
    seat = rng.choice(seats)
    p["hands"][seat].remove(rng.choice(p["hands"][seat]))
    return p


def _play_instead(p: dict, choices: list[tuple[int, int, int, str]], rng: random.Random) -> dict | None:
    """One of ``choices`` (trick k, card i, its seat, a card of that seat's hand) made: the hand's card is played
    there instead, the card played goes back to the hand; None when there is no choice."""
    if not choices:
        return None
    k, i, seat, other = rng.choice(choices)
    played = p["tricks"][k][i][1]
    p["tricks"][k][i][1] = other
    p["hands"][seat] = _sorted([c for c in p["hands"][seat] if c != other] + [played])
    return p


def break_follow_rule(p: dict, rng: random.Random) -> dict | None:
    """In a finished trick, a player who followed suit plays instead a card of another suit from its hand (keeping
    the led card): it could follow suit then, so the rules forbade it. The led card is the trick's first face-up one
    (Two-Ten-Jack's first trick may begin with cards played face down, its ``face_down``)."""
    choices = []
    for k, trick in enumerate(p["tricks"]):
        lead = next(i for i, (_seat, card) in enumerate(trick) if card not in p.get("face_down", ()))
        led = SUIT[parse_card(trick[lead][1])]
        for i, (seat, card) in enumerate(trick[lead + 1:], start=lead + 1):
            if SUIT[parse_card(card)] == led:
                choices += [(k, i, seat, other) for other in p["hands"][seat] if SUIT[parse_card(other)] != led]
    return _play_instead(p, choices, rng)


def unsorted_hand(p: dict, rng: random.Random) -> dict | None:
    """A hand listed out of canonical order (positions refuse it rather than normalise it: docs/positions.md)."""
    seats = [s for s, hand in enumerate(p["hands"]) if len(hand) > 1]
    if not seats:
        return None
    seat = rng.choice(seats)
    p["hands"][seat] = list(reversed(p["hands"][seat]))
    return p


TRICK_MUTATORS: list[Mutator] = [swap_between_hands, change_seat_to_play, drop_a_card, break_follow_rule,
                                 unsorted_hand]


def break_tres_follow_rule(p: dict, rng: random.Random) -> dict | None:
    """Très (tres.md 5.3, 5.4), in a finished trick: the follower who followed the led suit, or the leader whose second
    card followed the suit of the follower's winning card, plays instead a card of another suit from its hand."""
    trump = p["options"]["trump_suit"]
    choices = []
    for k, trick in enumerate(p["tricks"]):
        (_, c1), (follower, c2), (leader, c3) = trick
        if c2[1] == c1[1]:
            choices += [(k, 1, follower, other) for other in p["hands"][follower] if other[1] != c1[1]]
        power = {c: (c[1] == trump, c[1] == c1[1], "23456789TJQKA".index(c[0])) for c in (c1, c2)}
        if power[c2] > power[c1] and c3[1] == c2[1]:
            choices += [(k, 2, leader, other) for other in p["hands"][leader] if other[1] != c2[1]]
    return _play_instead(p, choices, rng)


def break_boonaken_follow_rule(p: dict, rng: random.Random) -> dict | None:
    """Boonaken (boonaken.md 7.5), in a finished trick led with a plain suit: a player who followed it plays instead
    a card of neither the led suit nor trumps from its hand (it could follow, so it had to follow or trump)."""
    choices = []
    for k, trick in enumerate(p["tricks"]):
        led = trick[0][1][1]
        if led == p["trump"]:
            continue
        for i, (seat, card) in enumerate(trick[1:], start=1):
            if card[1] == led:
                choices += [(k, i, seat, other) for other in p["hands"][seat] if other[1] not in (led, p["trump"])]
    return _play_instead(p, choices, rng)


# ---- the fishing games (docs/positions/tablanette.md, tablic.md: what is checked) ----------------------------------

def move_a_card_between_hands(p: dict, rng: random.Random) -> dict | None:
    """A card moved from one hand to another: the hand sizes no longer follow the turns."""
    seats = [s for s, hand in enumerate(p["hands"]) if hand]
    if not seats or p["current_player"] is None:
        return None
    a = rng.choice(seats)
    b = rng.choice([s for s in range(p["players"]) if s != a])
    card = rng.choice(p["hands"][a])
    p["hands"][a].remove(card)
    p["hands"][b] = _sorted(p["hands"][b] + [card])
    return p


def swap_stock_cards(p: dict, rng: random.Random) -> dict | None:
    """Two cards of the stock exchanged: the stock is no longer the rest of ``deal_deck`` in order."""
    if len(p["stock"]) < 2:
        return None
    i, j = rng.sample(range(len(p["stock"])), 2)
    p["stock"][i], p["stock"][j] = p["stock"][j], p["stock"][i]
    return p


def swap_hand_and_stock(p: dict, rng: random.Random) -> dict | None:
    """A card of a hand exchanged with a card of the stock."""
    seats = [s for s, hand in enumerate(p["hands"]) if hand]
    if not seats or not p["stock"]:
        return None
    seat, i = rng.choice(seats), rng.randrange(len(p["stock"]))
    card = rng.choice(p["hands"][seat])
    p["hands"][seat] = _sorted([c for c in p["hands"][seat] if c != card] + [p["stock"][i]])
    p["stock"][i] = card
    return p


def swap_turn_card(p: dict, rng: random.Random) -> dict | None:
    """In a capture being decided, the card played exchanged with a card of another seat's hand."""
    seats = [s for s, hand in enumerate(p["hands"]) if hand and s != p["current_player"]]
    if p["phase"] != "capture" or not seats:
        return None
    seat = rng.choice(seats)
    card = rng.choice(p["hands"][seat])
    p["hands"][seat] = _sorted([c for c in p["hands"][seat] if c != card] + [p["turn_card"]])
    p["turn_card"] = card
    return p


def false_as_a_seat(p: dict, rng: random.Random) -> dict | None:
    """``false`` where a seat goes: a bool is not a seat, even where it equals 0."""
    p["last_capturer"] = False
    return p


def no_last_capturer_with_captures(p: dict, rng: random.Random) -> dict | None:
    """``last_capturer`` null although a capture pile holds cards."""
    if not any(p["captured"]):
        return None
    p["last_capturer"] = None
    return p


def sweep_points_left_out(p: dict, rng: random.Random) -> dict | None:
    """Sweeps without their points, or (Tablanette, where they count at once) a score below them."""
    sides = [side for side, count in enumerate(p["sweeps"]) if count]
    if not sides:
        return None
    side = rng.choice(sides)
    if p["game"] == "tablanette" and rng.random() < 0.5:
        p["scores"] = [0 if score >= p["sweep_points"][side] else score for score in p["scores"]]
        p["scores"] = [min(score, p["sweep_points"][side] - 1) for score in p["scores"]]
    else:
        p["sweep_points"][side] = 0
    return p


def unsorted_table(p: dict, rng: random.Random) -> dict | None:
    """The table listed out of canonical order."""
    if len(p["table"]) < 2:
        return None
    p["table"] = list(reversed(p["table"]))
    return p


FISHING_MUTATORS: list[Mutator] = [swap_between_hands, change_seat_to_play, drop_a_card, unsorted_hand,
                                   move_a_card_between_hands, swap_stock_cards, swap_hand_and_stock, swap_turn_card,
                                   false_as_a_seat, no_last_capturer_with_captures, sweep_points_left_out,
                                   unsorted_table]
# Games whose follow rule is their own; every other game takes the mutations of its kind (TrickGame or FishingState).
OWN_MUTATORS: dict[str, list[Mutator]] = {
    "tres": [swap_between_hands, change_seat_to_play, drop_a_card, break_tres_follow_rule, unsorted_hand],
    "boonaken": [swap_between_hands, change_seat_to_play, drop_a_card, break_boonaken_follow_rule, unsorted_hand],
}
KINDS: dict[type, list[Mutator]] = {TrickGame: TRICK_MUTATORS, FishingState: FISHING_MUTATORS}


def mutators(game: str) -> list[Mutator]:
    """The mutations of a registered game: its own, else those of its kind."""
    return OWN_MUTATORS.get(game) or next(mutators for kind, mutators in KINDS.items()
                                          if issubclass(engine.game_class(game), kind))


CASES = GAME_CASES


@pytest.mark.parametrize(("game", "players"), CASES)
@EXAMPLES
@given(seed=seeds, play_seed=seeds, steps=st.integers(0, 120), data=st.data())
def test_a_mutated_position_is_refused(game: str, players: int, seed: int, play_seed: int, steps: int,
                                       data: st.DataObject) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    state = start_variant(game, players, seed, options)
    rng = random.Random(play_seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply_id(rng.choice(state.legal_action_ids()))
    position = state.to_position()
    assert engine.from_position(game, position).to_position() == position
    for mutate in mutators(game):
        changed = mutate(copy.deepcopy(position), rng)
        if changed is None:
            continue
        with pytest.raises(engine.PositionError):
            engine.from_position(game, changed)
