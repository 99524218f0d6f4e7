"""Positions of the trick games are validated completely: the deck once each across every pile, tricks played in turn,
hand and stock sizes, every key the tricks imply (won, taken_face_up, declared, ...) and the seat to act.

The generic suites (tests/test_engine_contract.py) mutate values at random; these tests move cards between piles and
change the derived keys one at a time, for German Whist, Belote contrée and Belote at every player count.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.rng import Rng

# Position keys that are plain lists of card codes, per game (a seat's hand is "hands", index seat).
CARD_LISTS = {"german_whist": ("hands", "stock"), "belote_contree": ("hands",), "belote": ("hands", "stock"),
              "trappola": ("hands", "stock"), "botifarra": ("hands",)}
# Each of those games with each of its player counts.
CASES = [(game, players) for game in CARD_LISTS for players in engine.game_info(game).player_counts]


def _position(game: str, players: int, seed: int, steps: int, **options: Any) -> dict:
    state = engine.new_match(game, seed=seed, players=players, options={"max_deals": 2, **options})
    rng = Rng(seed + 1)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state.to_position()


def _in_play(game: str, players: int, tricks: int = 2, seed_from: int = 0, **options: Any) -> dict:
    """A position in the play of a deal with at least ``tricks`` finished tricks (the first seed that gives one)."""
    for seed in range(seed_from, seed_from + 100):
        for steps in range(0, 80, 5):
            position = _position(game, players, seed, steps, **options)
            if position["phase"] == "play" and len(position["tricks"]) >= tricks:
                return position
    raise AssertionError(f"no {game} position in play found")


def _refused(game: str, position: dict, match: str | None = None) -> None:
    with pytest.raises(engine.PositionError, match=match):
        engine.from_position(game, position)


def _card_lists(game: str, position: dict) -> list[tuple[str, int | None]]:
    """(key, seat or None) of every card list of the position."""
    lists = []
    for key in CARD_LISTS[game]:
        if key == "hands":
            lists += [("hands", seat) for seat in range(position["players"])]
        else:
            lists.append((key, None))
    return lists


def _pile(position: dict, where: tuple[str, int | None]) -> list:
    key, seat = where
    return position[key] if seat is None else position[key][seat]


@pytest.mark.parametrize(("game", "players"), CASES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 60), data=st.data())
def test_a_card_moved_to_another_pile_or_removed_is_refused(game: str, players: int, seed: int, steps: int,
                                                            data: st.DataObject) -> None:
    position = _position(game, players, seed, steps)
    assert engine.from_position(game, position).to_position() == position
    nonempty = [w for w in _card_lists(game, position) if _pile(position, w)]
    if not nonempty:
        return
    source = data.draw(st.sampled_from(nonempty), label="from")
    card = data.draw(st.sampled_from(_pile(position, source)), label="card")
    removed = copy.deepcopy(position)
    _pile(removed, source).remove(card)
    _refused(game, removed, match=f"missing {card}")
    target = data.draw(st.sampled_from([w for w in _card_lists(game, position) if w != source]), label="to")
    moved = copy.deepcopy(removed)
    _pile(moved, target).append(card)
    _pile(moved, target).sort(key=engine.cards.CODES.index)
    _refused(game, moved)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_played_card_taken_back_or_a_trick_out_of_turn_is_refused(game: str, players: int) -> None:
    position = _in_play(game, players)
    dropped = copy.deepcopy(position)
    dropped["tricks"][0].pop()
    _refused(game, dropped)
    swapped = copy.deepcopy(position)
    trick = swapped["tricks"][0]
    trick[0][0], trick[1][0] = trick[1][0], trick[0][0]
    _refused(game, swapped, match="seat order")
    wrong_turn = copy.deepcopy(position)
    wrong_turn["current_player"] = (position["current_player"] + 1) % players
    _refused(game, wrong_turn)


@pytest.mark.parametrize("seat", [1.0, True, "1", -1, 9])
def test_seats_are_integers_in_range(seat: object) -> None:
    position = _in_play("belote", 4)
    position["tricks"][0][0][0] = seat
    _refused("belote", position)
    whist = _position("german_whist", 2, seed=3, steps=9)
    whist["trick"] = [[seat, whist["hands"][0][0]]]
    _refused("german_whist", whist)


def test_a_missing_card_is_named() -> None:
    position = _position("belote_contree", 4, seed=5, steps=0)
    card = position["hands"][2].pop()
    _refused("belote_contree", position, match=f"32-card deck once each: missing {card}")


# ---- German Whist: the keys the tricks imply --------------------------------------------------------------------


@pytest.mark.parametrize(("key", "value", "match"), [
    ("won", {"phase1": [0, 0], "phase2": [0, 0]}, "won must count"),
    ("taken_face_up", [], "taken_face_up"),
    ("tricks_played", 3, "tricks_played"),
    ("face_down_seen", None, "face_down_seen"),
    ("target", 7, "target"),
    ("trump", "C", "trump"),
    ("face_up", None, "face_up"),
])
def test_german_whist_derived_keys_must_match_the_tricks(key: str, value: object, match: str) -> None:
    position = _in_play("german_whist", 2, face_down_four=True)
    if key == "face_down_seen":
        value = [not seen for seen in position[key]]
    elif position[key] == value:
        value = "S" if key == "trump" else value
    position[key] = value
    _refused("german_whist", position, match=match)


def test_german_whist_stock_order_is_the_dealt_order() -> None:
    position = _in_play("german_whist", 2)
    position["stock"] = list(reversed(position["stock"]))
    _refused("german_whist", position, match="undrawn end of deal_deck")


def test_german_whist_hands_must_have_the_size_the_tricks_leave() -> None:
    position = _in_play("german_whist", 2)
    card = position["hands"][0].pop()
    position["tricks"].append([[0, card], [1, position["hands"][1].pop()]])
    position["tricks_played"] += 1
    _refused("german_whist", position)


# ---- Belote and Belote contrée ----------------------------------------------------------------------------------


def test_belote_declared_only_when_the_seat_had_its_turn() -> None:
    state = engine.new_match("belote", seed=1, first_dealer=0)
    rng = Rng(4)
    while not (state.phase == "play" and state.current_player == 1 and not state.to_position()["tricks"]):
        state = engine.new_match("belote", seed=rng.below(10_000), first_dealer=0)
        while state.phase == "auction":
            state.apply("take" if "take" in state.legal_actions() else "pass")
    position = state.to_position()
    position["declared"][3] = "nodeclare"
    _refused("belote", position, match=r"declared\[3\]")


def test_belote_only_with_the_king_and_queen_of_trump() -> None:
    position = _in_play("belote", 4)
    position["belote"] = 0
    trump_kq = {"K" + position["trump"], "Q" + position["trump"]}
    played_by_0 = {c for t in [*position["tricks"], position["trick"]] for s, c in t if s == 0}
    if trump_kq <= set(position["hands"][0]) | played_by_0 and trump_kq & played_by_0:
        pytest.skip("seat 0 could announce a belote here")
    _refused("belote", position, match="belote")


def test_belote_pot_only_from_a_litige() -> None:
    position = _position("belote", 3, seed=3, steps=5)
    position["pot"] = 40
    _refused("belote", position, match="litige")
    no_litige = _position("belote", 4, seed=3, steps=5, litige=False)
    no_litige["pot"] = 40
    _refused("belote", no_litige, match="litige")


def test_belote_contree_redeal_queue_is_the_weak_hands_not_yet_asked() -> None:
    position = _position("belote_contree", 4, seed=5, steps=0)
    position["redeal_queue"] = [3, 1]
    position["phase"] = "redeal"
    position["current_player"] = 3
    _refused("belote_contree", position, match="redeal_queue")


# ---- issue 10: the seat to speak, hands as dealt, the follow rule, canonical hands ----------------------------------


@pytest.mark.parametrize("game", ["belote", "belote_contree"])
def test_the_seat_to_speak_in_the_auction_is_checked(game: str) -> None:
    position = _position(game, 4, seed=5, steps=1, **({"weak_hand_redeal": False} if game == "belote_contree" else {}))
    assert position["phase"] == "auction"
    position["current_player"] = (position["current_player"] + 2) % 4
    _refused(game, position, match="current_player")


def test_the_seat_to_answer_the_redeal_question_is_checked() -> None:
    position = next(p for p in (_position("belote_contree", 4, seed, 0) for seed in range(200))
                    if p["phase"] == "redeal")
    position["current_player"] = (position["current_player"] + 1) % 4
    _refused("belote_contree", position, match="current_player")


@pytest.mark.parametrize(("game", "players"), CASES)
def test_hands_are_the_ones_deal_deck_dealt(game: str, players: int) -> None:
    position = _in_play(game, players)
    hands = position["hands"]
    a, b = hands[0].pop(0), hands[1].pop(0)
    hands[0] = sorted([*hands[0], b], key=engine.cards.CODES.index)
    hands[1] = sorted([*hands[1], a], key=engine.cards.CODES.index)
    _refused(game, position, match=r"hands\[\d\] must hold what deal_deck dealt")


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_card_the_follow_rule_forbade_is_named(game: str, players: int) -> None:
    for seed in range(100):
        position = _in_play(game, players, tricks=2, seed_from=seed)
        now = position["trick"] or [[position["current_player"]]]
        leaders = [t[0][0] for t in position["tricks"][1:]] + [now[0][0]]  # each trick's winner leads the next
        for trick, winner in zip(position["tricks"], leaders, strict=True):
            if winner != trick[0][0]:
                continue  # a trick its leader won: a discard instead of a follower's card leaves the winner and turns
            led = trick[0][1][1]
            for entry in trick[1:]:
                seat, card = entry
                other = next((c for c in position["hands"][seat] if c[1] not in (led, position["trump"])), None)
                if card[1] == led and other is not None:
                    entry[1] = other
                    position["hands"][seat] = sorted([c for c in position["hands"][seat] if c != other] + [card],
                                                     key=engine.cards.CODES.index)
                    _refused(game, position, match=f"may not play {other}|plays {other}")
                    return
    raise AssertionError("no finished trick to break")


def test_a_hand_out_of_canonical_order_is_refused() -> None:
    position = _in_play("belote_contree", 4)
    position["hands"][0].reverse()
    _refused("belote_contree", position, match=r"hands\[0\] must list its cards in canonical order")
