"""Determinization: ``engine.determinize(state, seat, rng)`` is a state ``seat`` cannot tell from the real one.

For every game and player count, at many points of random matches and for every seat, each sample must: show the
seat the same observation; round-trip as a position; and be a deal the public history could have come from (dealing
the sample's deck again and replaying this deal's moves gives the sample, so every play was legal in it: voids,
known cards and the order of a gathered deck are respected). Over many samples the hidden cards really vary.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from game_cases import (
    FEW_EXAMPLES,
    GAME_CASES,
    MAX_STEPS_PER_DEAL,
    codes_in,
    seeds,
    start_variant,
    variant_options,
)
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.cards import CODES, SUIT_MASK, cards_in, parse_card
from engine.determinize import Slot, redeal, redeal_consistent, relabel_cards, relabel_mask, relabel_masks, relabeling
from engine.rng import Rng
from engine.tricks import cut

# Samples per seat at each checkpoint. A sampler that ignores what the seat saw errs at nearly every checkpoint, so
# two find what four did (redeal() made to deal freely, ignoring voids and known cards: the same games fail).
SAMPLES = 2
CHECK_EVERY = 5
SECRET = ("seed", "rng")


def without_secrets(position: dict) -> dict:
    return {k: v for k, v in position.items() if k not in SECRET}


def replay_dealing(start: engine.State, deck: list[int], moves: list[tuple[int, int]]) -> engine.State:
    """The state after dealing ``deck`` where ``start``'s dealing began and playing ``moves`` again, each by the seat
    that made it (ValueError if another seat is to act there: the history, which the seats see, would differ, though
    a position, which does not record who answered a question such as contrée's redeal, might not)."""
    probe = start.clone()
    probe._start_deal(list(deck))
    probe.deal_deck = list(deck)
    probe._legal = None
    for seat, action in moves:
        if probe.current_player != seat:
            raise ValueError(f"seat {probe.current_player} is to act where seat {seat} did")
        probe.apply_id(action)
    return probe


def check_samples(state: engine.State, start: engine.State, moves: list[tuple[int, int]], rng: Rng) -> bool:
    """Check SAMPLES determinizations for every seat; whether the hidden cards differed between samples."""
    varied = False
    for seat in range(state.players):
        seen = state.observation(seat)
        positions = []
        for _ in range(SAMPLES):
            sample = engine.determinize(state, seat, rng)
            assert sample.observation(seat) == seen, f"seat {seat} can tell a sample from the real state"
            position = sample.to_position()
            assert engine.from_position(state.game_id, position).to_position() == position
            if not state.is_terminal:
                # the sample's own moves of this dealing: a game may give a move the seat saw only in part (a set
                # declared by its size, Trappola 6.4) another form that fits the sample's cards
                again = replay_dealing(start, sample.deal_deck, sample.moves[len(sample.moves) - len(moves):])
                assert without_secrets(again.to_position()) == without_secrets(position), (
                    "the sample is not a deal the public history could come from"
                )
            positions.append(without_secrets(position))
        varied |= any(p != positions[0] for p in positions)
    return varied


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
@FEW_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_samples_are_consistent_with_what_the_seat_has_seen(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    state = start_variant(game, players, seed, options)
    rng = Rng(play_seed ^ 0xD1CE)
    start, moves, deck = state.clone(), [], state.deal_deck
    assert check_samples(state, start, moves, rng), "at the start of a match the hidden cards must vary"
    play = Rng(play_seed)
    for step in range(2 * MAX_STEPS_PER_DEAL):
        if state.is_terminal:
            break
        if step % CHECK_EVERY == 0:
            check_samples(state, start, moves, rng)
        seat, action = state.current_player, play.choice(state.legal_action_ids())
        state.apply_id(action)
        if state.deal_deck is not deck:  # a new dealing began: samples are checked against it from here
            start, moves, deck = state.clone(), [], state.deal_deck
        else:
            moves.append((seat, action))
    check_samples(state, start, moves, rng)


def test_redeal_respects_forbidden_cards_and_is_uniform() -> None:
    # Six cards into two hands of three; east may hold no spade (the two spades must be west's).
    cards = [0, 1, 2, 13, 39, 40]  # 2C 3C 4C 2D 2S 3S
    east, west = Slot(cards[:3], forbidden=SUIT_MASK[3]), Slot(cards[3:])
    valid = [set(h) for h in itertools.combinations(cards, 3) if not any(c >= 39 for c in h)]
    counts: Counter = Counter()
    rng = Rng(11)
    runs = 2000
    for _ in range(runs):
        dealt = redeal([east, west], rng)
        assert sorted(dealt[0] + dealt[1]) == sorted(cards)
        assert not any(c >= 39 for c in dealt[0])
        counts[frozenset(dealt[0])] += 1
    assert set(counts) == {frozenset(h) for h in valid}
    expected = runs / len(valid)
    assert all(abs(n - expected) < 0.25 * expected for n in counts.values()), counts


def test_redeal_deals_freely_first_exactly_uniform_without_a_walk() -> None:
    # A check most deals meet (east holds at most two clubs: 19 of the 20 splits of 2C 3C 4C 2D 3D 4D): redeal keeps
    # the first free deal that meets it, so even with no walk at all (sweeps=0) every valid split comes as often as
    # the others, never the chain's start alone; the hands' order is shuffled too.
    cards = [0, 1, 2, 13, 14, 15]
    east = Slot([0, 1, 13], check=lambda hand: sum(c < 13 for c in hand) <= 2)
    west = Slot([2, 14, 15])
    valid = [frozenset(h) for h in itertools.combinations(cards, 3) if sum(c < 13 for c in h) <= 2]
    counts: Counter = Counter()
    orders: set[tuple[int, ...]] = set()
    rng = Rng(5)
    runs = 3800
    for _ in range(runs):
        dealt = redeal([east, west], rng, sweeps=0)
        assert sorted(dealt[0] + dealt[1]) == cards
        counts[frozenset(dealt[0])] += 1
        orders.add(tuple(dealt[0]))
    assert set(counts) == set(valid)
    expected = runs / len(valid)
    assert all(abs(n - expected) < 0.25 * expected for n in counts.values()), counts
    assert len(orders) > len(valid)


def test_redeal_consistent_walks_without_favouring_a_deal() -> None:
    # A fact of the whole deal (east holds more clubs than west) with no independent deal tried: the walk (from a
    # consistent deal made from the cards alone) reaches each of the 10 consistent splits equally often, the real one
    # no more than the others.
    cards = [0, 1, 2, 13, 14, 15]  # 2C 3C 4C 2D 3D 4D
    east, west = Slot([0, 1, 13]), Slot([2, 14, 15])

    def more_clubs(contents: list[list[int]]) -> bool:
        return sum(c < 13 for c in contents[0]) > sum(c < 13 for c in contents[1])

    valid = {frozenset(h) for h in itertools.combinations(cards, 3)
             if more_clubs([list(h), [c for c in cards if c not in h]])}
    counts: Counter = Counter()
    rng = Rng(5)
    runs = 2000
    for _ in range(runs):
        dealt = redeal_consistent([east, west], rng, more_clubs, tries=0)
        assert sorted(dealt[0] + dealt[1]) == cards and more_clubs(dealt)
        counts[frozenset(dealt[0])] += 1
    assert set(counts) == valid and len(valid) == 10
    expected = runs / len(valid)
    assert all(abs(n - expected) < 0.25 * expected for n in counts.values()), counts
    with pytest.raises(ValueError, match="consistent"):
        redeal_consistent([west, east], rng, more_clubs, tries=0)


def test_redeal_deals_a_kept_list_of_slots_as_a_new_one() -> None:
    # redeal keeps what one list of slots shares for the next call with that list: the same list dealt again and again
    # gives the deals that a new list of the same slots gives each time, from the same stream (free deals, checks and
    # the walk alike); another list is another plan (here east's new void must be respected at once).
    cards = [0, 1, 2, 13, 14, 15, 39, 40, 41]  # 2C 3C 4C 2D 3D 4D 2S 3S 4S
    east = Slot([0, 1, 39], forbidden=SUIT_MASK[1], check=lambda hand: sum(c < 13 for c in hand) <= 2)
    west, north = Slot([2, 13, 40]), Slot([14, 15, 41], check=lambda hand: any(c >= 39 for c in hand))
    kept = [east, west, north]
    kept_rng, fresh_rng = Rng(8), Rng(8)
    for sweeps in (12, 0, 12):  # (sweeps=0: a walk that does not move, should the free deals fail)
        for _ in range(300):
            dealt = redeal(kept, kept_rng, sweeps)
            assert dealt == redeal([east, west, north], fresh_rng, sweeps)
            assert sorted(sum(dealt, [])) == cards and not any(13 <= c < 26 for c in dealt[0])
    spadeless = Slot([0, 1, 39], forbidden=SUIT_MASK[1] | SUIT_MASK[3])
    with pytest.raises(ValueError, match="slot 0"):  # its real cards break the new void: a new plan says so
        redeal([spadeless, west, north], Rng(1))
    north.forbidden |= SUIT_MASK[0]  # changed in place: a new list of the slots must be passed
    for seed in range(100):
        dealt = redeal(list(kept), Rng(seed))
        assert not any(c < 13 for c in dealt[2]) and not any(13 <= c < 26 for c in dealt[0])


def test_a_relabeling_renames_each_card_of_hands_and_piles_and_nothing_else() -> None:
    # The C loops a sample relabels with (relabel_masks, relabel_cards: typed lists, only changed places written) give
    # what renaming each card one by one gives, on full and partial decks and on hands of the top cards (bit 51).
    rng = Rng(11)
    for _ in range(200):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[k * 13:k * 13 + 13]) for k in range(4)]
        slots = [Slot(sorted(deck[k * 13:k * 13 + 13])[: 5 + k]) for k in range(1, 4)]
        dealt = [list(slot.cards) for slot in slots]
        pool = sum(dealt, [])
        rng.shuffle(pool)
        dealt = [pool[:6], pool[6:13], pool[13:]]
        new = relabeling(slots, dealt)
        assert sorted(new) == list(range(52)) and all(new[c] == c for c in deck[:13])
        assert relabel_cards(deck, new) == [new[c] for c in deck]
        assert relabel_cards(deck[20:30], new) == [new[c] for c in deck[20:30]]
        masks = relabel_masks(hands, new)
        assert masks == [relabel_mask(hand, new) for hand in hands] == [
            sum(1 << new[c] for c in cards_in(hand)) for hand in hands]
    with pytest.raises(ValueError, match="slot 0 holds 2 cards, dealt 1"):
        relabeling([Slot([0, 1])], [[1]])


def test_redeal_refuses_a_start_that_breaks_its_own_rules() -> None:
    with pytest.raises(ValueError, match="slot 0"):
        redeal([Slot([39], forbidden=SUIT_MASK[3]), Slot([0])], Rng(1))


def test_determinize_checks_the_seat() -> None:
    state = engine.new_match("tablic", seed=1)
    with pytest.raises(ValueError, match="seat"):
        engine.determinize(state, 2, Rng(1))


@pytest.mark.parametrize(("game", "options"), [("belote_contree", {"weak_hand_redeal": False}),
                                               ("belote", {"no_shuffle": True})])
def test_a_deal_cut_from_the_gathered_tricks_is_sampled_as_a_cut_of_them(game: str, options: dict) -> None:
    # belote_contree.md 3.4, 3.5, belote.md 8: every seat saw the previous deal's tricks, so a sample's deck is that
    # pack cut somewhere.
    state = engine.new_match(game, seed=8, options=options, first_dealer=0)
    play, cards, pack = Rng(8), [], None
    while not (pack is not None and state.phase == "play" and 0 < len(state.to_position()["tricks"]) < 8):
        deal = state.deal_index
        action = play.choice(state.legal_actions())
        state.apply(action)
        if not action[0].islower():
            cards.append(action[:2])
        if state.is_terminal:
            state, cards, pack = engine.new_match(game, seed=play.below(1000), options=options), [], None
        if state.deal_index != deal:
            pack, cards = (cards if len(cards) == 32 else None), []
    rng = Rng(9)
    for seat in range(4):
        for _ in range(5):
            deck = [CODES[c] for c in engine.determinize(state, seat, rng).deal_deck]
            assert any(deck == cut(pack, c) for c in range(3, 30))


def swapped(state: engine.State, seat: int, rng: Rng, start: engine.State,
            moves: list[tuple[int, int]]) -> engine.State | None:
    """The state with two cards of two other hands that ``seat`` does not see traded (renamed where the deal holds
    them, as a sample's cards are), if that is a deal the public history could come from (``replay_dealing`` from
    ``start``) that ``seat`` sees as the real one: a state it cannot tell apart that is not made by determinize, so
    that a fact of the hidden hands that every sample keeps shows."""
    seen = codes_in(state.observation(seat))
    hands = [[c for c in cards_in(hand) if CODES[c] not in seen] if s != seat else [] for s, hand in
             enumerate(getattr(state, "hands", []))]
    holders = [s for s, cards in enumerate(hands) if cards]
    if len(holders) < 2 or not hasattr(state, "_relabel"):
        return None
    a, b = holders[rng.below(len(holders))], holders[rng.below(len(holders))]
    if a == b:
        return None
    x, y = hands[a][rng.below(len(hands[a]))], hands[b][rng.below(len(hands[b]))]
    new = list(range(52))
    new[x], new[y] = y, x
    other = state.clone()
    other._relabel(new)
    other._legal = None
    try:
        again = replay_dealing(start, other.deal_deck, moves)
    except ValueError:  # (an IllegalAction too: a play the traded cards do not allow)
        return None
    valid = without_secrets(again.to_position()) == without_secrets(other.to_position())
    return other if valid and other.observation(seat) == state.observation(seat) else None


def check_blind_to_the_hidden_cards(state: engine.State, rng: Rng, start: engine.State,
                                    moves: list[tuple[int, int]]) -> None:
    """For every seat: a state dealt otherwise where the seat has not seen (a sample of it, and the real one with
    two hidden cards traded) gives the same samples from the same seeds as the real one, so a search cannot read the
    hidden cards through its samples."""
    for seat in range(state.players):
        others = [engine.determinize(state, seat, Rng(rng.next_u64())), swapped(state, seat, rng, start, moves)]
        for other in others:
            if other is None:
                continue
            seed = rng.next_u64()
            real = without_secrets(engine.determinize(state, seat, Rng(seed)).to_position())
            assert real == without_secrets(engine.determinize(other, seat, Rng(seed)).to_position()), (
                f"seat {seat}'s samples depend on the hidden cards (phase {state.phase}, deal {state.deal_index})"
            )


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
@FEW_EXAMPLES
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_samples_depend_only_on_what_the_seat_has_seen(
    game: str, players: int, seed: int, play_seed: int, data: st.DataObject
) -> None:
    options = {**data.draw(variant_options(game, players), label="options"), "max_deals": 2}
    play_and_check_blind(start_variant(game, players, seed, options), play_seed)


def play_and_check_blind(state: engine.State, play_seed: int) -> None:
    """Play ``state`` at random from ``play_seed``, checking every seat's samples every CHECK_EVERY moves."""
    rng, play = Rng(play_seed ^ 0xB11D), Rng(play_seed)
    start, moves, deck = state.clone(), [], state.deal_deck
    for step in range(2 * MAX_STEPS_PER_DEAL):
        if state.is_terminal:
            break
        if step % CHECK_EVERY == 0:
            check_blind_to_the_hidden_cards(state, rng, start, moves)
        seat, action = state.current_player, play.choice(state.legal_action_ids())
        state.apply_id(action)
        if state.deal_deck is not deck:
            start, moves, deck = state.clone(), [], state.deal_deck
        else:
            moves.append((seat, action))


def test_a_trade_that_moves_the_weak_hand_is_not_a_deal_the_seat_cannot_tell_apart() -> None:
    # Found by a random run. belote_contree.md 3.8: seat 0 (weak) was asked about a redeal and kept; trading its QD for
    # seat 3's AH makes seat 3 the weak hand instead, which the position (no record of who answered) does not show but
    # the history, which every seat sees, does: replayed, seat 3 would answer. The samples keep seat 0 weak, rightly.
    options = {"weak_hand_redeal": True, "shuffle_each_deal": False, "contre_scoring": "fixed160",
               "max_numeric_bid": 170, "max_deals": 2}
    state = engine.new_match("belote_contree", seed=2**64 - 1, players=4, options=options)
    start, play = state.clone(), Rng(609)
    for _ in range(5):
        state.apply_id(play.choice(state.legal_action_ids()))
    assert state.moves[0] == (0, state.ACTIONS.strings.index("keep")) and state.redeal_queue == []
    traded = list(range(52))
    traded[parse_card("QD")], traded[parse_card("AH")] = parse_card("AH"), parse_card("QD")
    other = state.clone()
    other._relabel(traded)
    assert other._weak(3) and not other._weak(0)
    with pytest.raises(ValueError, match="seat 3 is to act where seat 0 did"):
        replay_dealing(start, other.deal_deck, state.moves)
    play_and_check_blind(engine.new_match("belote_contree", seed=2**64 - 1, players=4, options=options), 609)


def test_a_start_for_checks_few_deals_meet_is_found_without_the_real_deal() -> None:
    # Found by a random run. thunee.md 3.4: seat 0 was asked about a redeal, so its unseen first round holds four of
    # the five kings and queens seat 1 has not seen; the one walk known_start tried from a deal of the known cards
    # missed it, the samples started from the real deal and differed in a sample of it.
    options = {"royals": True, "call_jump": True, "last_card_trump": True, "six_trip": True, "six_mooney": True,
               "max_deals": 2}
    state = engine.new_match("thunee", seed=16255895523639956554, players=4, options=options)
    play_and_check_blind(state, 12663392048017480143)


def test_a_mooney_callers_hand_is_drawn_of_his_suit_with_its_jack() -> None:
    # Found by a random run. thunee.md 8.2.3: seat 3 called mooney (four hearts with JH), which every seat knows; at
    # random a six-player deal rarely gives a hand one suit, so no drawn deal met it, the chain started from the real
    # deal and seat 5's samples followed the real face-down trump card. Now the caller's hand is drawn of hearts, JH
    # kept where it is.
    options = {"royals": False, "call_jump": False, "last_card_trump": False, "six_trip": False, "six_mooney": True,
               "max_deals": 2}
    state = engine.new_match("thunee", seed=0, players=6, options=options)
    play_and_check_blind(state.clone(), 63222)
    play = Rng(63222)
    while state.deal_index < 1 or state.phase != "play" or len(state.trick) < 4:
        state.apply_id(play.choice(state.legal_action_ids()))
    assert (state.contract, state.caller) == ("mooney", 3) and state.trick[0] == (3, parse_card("TH"))
    jack = parse_card("JH")
    for seat in (0, 1, 2, 4, 5):
        for k in range(20):
            hand = engine.determinize(state, seat, Rng(k)).hands[3]
            assert hand & ~SUIT_MASK[jack // 13] == 0 and hand & (1 << jack), (seat, cards_in(hand))


def test_a_seat_asked_about_a_redeal_does_not_see_whether_the_later_seats_are_weak() -> None:
    # belote_contree.md 3.8: the seats after the one asked now are asked later; whether they are weak is unseen, so
    # deals that differ only there (two cards of the deck traded) give the asked seat the same samples.
    compared = 0
    for seed in range(400):
        state = engine.new_match("belote_contree", seed=seed, first_dealer=0)
        if state.phase != "redeal":
            continue
        asked, deck, trades = state.current_player, [CODES[c] for c in state.deal_deck], Rng(seed)
        for _ in range(300):
            i, j = trades.below(len(deck)), trades.below(len(deck))
            traded = list(deck)
            traded[i], traded[j] = traded[j], traded[i]
            other = engine.new_match("belote_contree", seed=seed, first_dealer=0, deck=traded)
            if other.redeal_queue != state.redeal_queue and other.observation(asked) == state.observation(asked):
                for k in range(3):
                    assert without_secrets(engine.determinize(state, asked, Rng(k)).to_position()) == (
                        without_secrets(engine.determinize(other, asked, Rng(k)).to_position()))
                compared += 1
                break
    assert compared
