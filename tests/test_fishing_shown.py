"""The fishing games' ``shown_cards`` (engine/fishing.py, the hook the environments' encoder reads instead of building
an observation): at every move of random matches, for every seat, it is what the seat's observation shows beside its
hand and the table, as the encoder would read it from the observation; and Tablić's bottom card (§3.4) is shown as its
rules say."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.cards import mask_of, parse_cards
from engine.fishing import FishingState
from engine.rng import Rng
from envs.encoding import face_up_codes

FISHING_GAMES = [game for game in engine.list_games() if issubclass(engine.game_class(game), FishingState)]
CASES = [(game, players, {}) for game in FISHING_GAMES for players in engine.game_info(game).player_counts] + [
    ("tablanette", 2, {"initial_jack": "middle"}), ("tablanette", 3, {"jack_mode": "value12"}),
    ("tablanette", 4, {"partnerships": True}), ("tablic", 2, {"cut_mode": "knock"}),
    ("tablic", 4, {"cut_mode": "knock"})]


def random_states(game: str, players: int, options: dict[str, Any], seeds: int) -> Any:
    """Every state of ``seeds`` random two-deal matches."""
    for seed in range(seeds):
        rng = Rng(seed)
        state = engine.new_match(game, players=players, seed=seed, options={"max_deals": 2, **options})
        while not state.is_terminal:
            yield state
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.below(len(legal))])


def test_every_fishing_game_is_covered() -> None:
    assert {"tablanette", "tablic"} <= set(FISHING_GAMES)


@pytest.mark.parametrize(("game", "players", "options"), CASES,
                         ids=[f"{g}-{n}{'-' if o else ''}{'-'.join(f'{k}={v}' for k, v in o.items())}"
                              for g, n, o in CASES])
def test_the_shown_cards_are_those_the_observation_shows(game: str, players: int, options: dict[str, Any]) -> None:
    compared, shown_any = 0, 0
    for state in random_states(game, players, options, seeds=6):
        for seat in range(players):
            shown = state.shown_cards(seat)
            seen = state.observation(seat, history=False)
            assert shown == (mask_of(parse_cards(face_up_codes(seen))),
                             mask_of(parse_cards(seen.get("known_cards", []))),
                             seen.get("stock_size") or 0), (seat, state.to_position())
            compared += 1
            shown_any += bool(shown[0] or shown[1])
    assert compared > 1000
    if game == "tablic" or options.get("jack_mode", "special") == "special":
        assert shown_any  # (the bottom card, the jacks the table gave back: some states show some)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("mode", ["cut", "knock"])
def test_tablic_shows_the_bottom_card_where_its_rules_say(mode: str, players: int) -> None:
    """§3.4: the dealer (every seat when knocked) sees the bottom card while it is in the stock or the dealer's hand:
    face up, and known while not in the seat's own hand."""
    for state in random_states("tablic", players, {"cut_mode": mode}, seeds=2):
        bottom = state.deal_deck[-1]
        hidden = bottom in state.stock or state.hands[state.dealer] >> bottom & 1
        for seat in range(players):
            sees = (mode == "knock" or seat == state.dealer) and hidden
            own = state.hands[seat] >> bottom & 1
            assert state.shown_cards(seat) == (1 << bottom if sees else 0, 1 << bottom if sees and not own else 0,
                                               len(state.stock)), (seat, state.to_position())
