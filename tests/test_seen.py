"""The one helper bots rank from (engine/bots/seen.py): what a seat has seen reads the same from the state, in
play-outs, as from the seat's observation, at every move of every game, and tells nothing the seat may not know."""

from __future__ import annotations

from typing import Any, cast

import pytest

import engine
from engine.bots import greedy as greedy_module
from engine.bots.greedy import greedy_games, load_game_greedies
from engine.bots.seen import Seen
from engine.bots.view import SeatObserver
from engine.cards import SUITS, mask_of, parse_cards
from engine.rng import Rng
from engine.trickgame import TrickGame
from engine.tricks import NO_TRUMP
from envs.encoding import face_up_codes

load_game_greedies()
CASES = [(game, {}) for game in engine.list_games()] + [("german_whist", {"face_down_four": True})]


def facts(seen: Seen) -> dict[str, Any]:
    """Every fact a Seen gives, as plain values."""
    return {"seat": seen.seat, "players": seen.players, "phase": seen.phase, "trump": seen.trump,
            "legal": list(seen.legal), "legal_cards": list(seen.legal_cards), "face_up": seen.face_up(),
            **({"trick": list(seen.trick), "hand": sorted(seen.hand())} if "trick" in seen.obs else {}),
            **({"unseen": seen.unseen(range(52)), "voids": seen.voids(), "tricks_played": seen.tricks_played(),
                "highest_unseen": seen.highest_unseen(range(52), range(52))} if "tricks" in seen.obs else {}),
            **({"partner": seen.partner()} if "partners" in seen.obs else {})}


@pytest.mark.parametrize(("game", "options"), CASES, ids=[f"{g}{'-' if o else ''}{'-'.join(o)}" for g, o in CASES])
def test_the_seat_view_reads_what_the_observation_shows_and_no_more(game: str, options: dict[str, Any]) -> None:
    """At every move of random deals, the seat's view (one per seat for the whole deal, its caches kept) gives the
    facts and the greedy keys of the seat's observation; on a sample of what the seat has not seen, the same."""
    rng, compared = Rng(3), 0
    for seed in range(6):
        state = engine.new_match(game, seed=seed, options={"max_deals": 1, **options})
        views = [SeatObserver(state, seat) for seat in range(state.players)]
        while not state.is_terminal:
            seat, legal = state.current_player, state.legal_action_ids()
            assert seat is not None
            fast, plain = views[seat].seen(legal), Seen(state.observation(seat, history=False))
            assert facts(fast) == facts(plain), state.to_position()
            if game in greedy_games():
                ranker = greedy_module._RANKERS[game]
                keys = list(ranker(fast))
                assert keys == list(ranker(plain)), state.to_position()
                sample = engine.determinize(state, seat, rng)
                other = SeatObserver(sample, seat).seen(sample.legal_action_ids())
                assert facts(other) == facts(fast) and list(ranker(other)) == keys, state.to_position()
            compared += 1
            state.apply_id(legal[rng.below(len(legal))])
    assert compared > 50


TRICK_CASES = [(game, options) for game, options in CASES if issubclass(engine.game_class(game), TrickGame)]


@pytest.mark.parametrize(("game", "options"), TRICK_CASES,
                         ids=[f"{g}{'-' if o else ''}{'-'.join(o)}" for g, o in TRICK_CASES])
def test_the_shown_cards_are_those_the_observation_shows(game: str, options: dict[str, Any]) -> None:
    """At every move of random matches, for every seat: ``shown_cards`` (the game's, or TrickGame's from its phases
    and class data), when a game gives it, is the face-up cards, known cards and stock size of the seat's observation,
    as the environments' encoder would read them from it, and ``trump_seen`` its trump."""
    rng, compared = Rng(5), 0
    for seed in range(4):
        state = engine.new_match(game, seed=seed, options={"max_deals": 2, **options})
        while not state.is_terminal:
            for seat in range(state.players):
                shown = state.shown_cards(seat)  # type: ignore[attr-defined]
                if shown is None:
                    continue
                seen = state.observation(seat, history=False)
                assert shown == (mask_of(parse_cards(face_up_codes(seen))),
                                 mask_of(parse_cards(seen.get("known_cards", []))),
                                 seen.get("stock_size") or 0), (seat, state.to_position())
                trump = state.trump_seen(seat)  # type: ignore[attr-defined]
                assert (None if trump == NO_TRUMP else SUITS[trump]) == seen.get("trump"), (seat, state.to_position())
                compared += 1
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.below(len(legal))])
    if not engine.game_info(game).shown_every_move:
        assert compared > 100  # (a game whose shown cards change at any move is read from its observation)


def test_a_view_rebound_to_another_game_reads_that_games_actions() -> None:
    """A Seen of the state (of_state) rebound to a state of another game reads that game's actions again (each
    action id's card, its string): at every move of a contrée deal, the facts and greedy keys of a new view of it, and
    back on German Whist those of German Whist's."""
    rank = greedy_module._RANKERS
    rng = Rng(5)
    contree = engine.new_match("belote_contree", seed=2, options={"max_deals": 1})
    whist = engine.new_match("german_whist", seed=2, options={"max_deals": 1})
    compared = 0
    while not contree.is_terminal and compared < 40:
        seat, legal = contree.current_player, contree.legal_action_ids()
        assert seat is not None
        seen = Seen.of_state(cast(TrickGame, whist), seat)
        seen.rebind(cast(TrickGame, contree))
        rebound, fresh = seen.at(legal), Seen.of_state(cast(TrickGame, contree), seat).at(legal)
        assert facts(rebound) == facts(fresh) and list(rank["belote_contree"](rebound)) == list(
            rank["belote_contree"](fresh)), contree.to_position()
        if whist.current_player == seat:
            seen.rebind(cast(TrickGame, whist))
            ids = whist.legal_action_ids()
            back = seen.at(ids)
            assert list(rank["german_whist"](back)) == list(
                rank["german_whist"](Seen.of_state(cast(TrickGame, whist), seat).at(ids)))
        compared += 1
        contree.apply_id(legal[rng.below(len(legal))])
    assert compared == 40
