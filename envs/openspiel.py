"""cardtable's games registered with OpenSpiel (``pip install cardtable[openspiel]``; docs/environments.md).

Importing this module registers every game as the Python game ``cardtable_<game>`` (``cardtable_belote``, ...), so
OpenSpiel's algorithms run on cardtable's rules unchanged: ``pyspiel.load_game("cardtable_tablanette",
{"players": 3})``. A game is one deal. Its chance nodes choose the dealer, then the deck's order card by card (each
remaining card equally likely: the shuffle); from there the engine deals and plays by the rules, and redeals that a
deal's rules call for draw from the match's RNG, seeded by the ``seed`` parameter. Actions are the indexes of
:class:`envs.encoding.ActionCodec`; the observation tensor is :mod:`envs.encoding`'s vector; the information state
string is the seat's observation with its public history (JSON), the observation string the same without history.
Returns: 1 for each seat of the winning side, -1 for the others, 0 to everyone if the sides tie.
:func:`resampler` makes OpenSpiel's ISMCTS sample worlds through ``engine.determinize`` (``bot.set_resampler``).

>>> import pyspiel
>>> game = pyspiel.load_game("cardtable_german_whist")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), game.num_distinct_actions(), game.max_chance_outcomes()
(True, 56, 52)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

import engine
from engine.cards import CODES
from engine.rng import Rng

from .encoding import ActionCodec, ObservationEncoder
from .text import render_text

PREFIX = "cardtable_"
DEAL = {"max_deals": 1}


def short_name(game_id: str) -> str:
    return PREFIX + game_id


def game_type(game_id: str) -> pyspiel.GameType:
    info = engine.game_info(game_id)
    return pyspiel.GameType(
        short_name=short_name(game_id), long_name=f"cardtable {info.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(info.player_counts), min_num_players=min(info.player_counts),
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": info.default_players, "seed": 0})


class DealSpec:
    """What the states of one game, player count and seed share (kept out of the states: OpenSpiel copies those)."""

    def __init__(self, game_id: str, players: int, seed: int) -> None:
        probe = engine.new_match(game_id, seed=seed, players=players, options=DEAL)  # checks the player count
        self.game_id = game_id
        self.players = probe.players
        self.seed = seed
        self.deck_cards = sorted(probe._deck_cards())
        self.codec = ActionCodec.for_game(game_id)
        self.encoder = ObservationEncoder(self.players, game_id)

    def __deepcopy__(self, memo: dict[int, Any]) -> DealSpec:
        return self  # shared by the states (OpenSpiel clones a Python state by deep copy), never changed


_SPECS: dict[tuple[str, int, int], DealSpec] = {}


def deal_spec(game_id: str, players: int, seed: int) -> DealSpec:
    key = (game_id, players, seed)
    if key not in _SPECS:
        _SPECS[key] = DealSpec(game_id, players, seed)
    return _SPECS[key]


class CardtableGame(pyspiel.Game):  # type: ignore[misc]
    """One deal of a cardtable game for OpenSpiel; ``params``: ``players`` and ``seed`` (the match RNG's)."""

    game_id: str  # set on each game's subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        kind = game_type(self.game_id)
        spec = deal_spec(self.game_id, int(params.get("players", kind.parameter_specification["players"])),
                         int(params.get("seed", 0)))
        length = engine.game_length(self.game_id, spec.players, DEAL)
        info = pyspiel.GameInfo(num_distinct_actions=spec.codec.size, max_chance_outcomes=len(CODES),
                                num_players=spec.players, min_utility=-1.0, max_utility=1.0,
                                max_game_length=length.moves)
        super().__init__(kind, info, {"players": spec.players, "seed": spec.seed})

    def spec(self) -> DealSpec:
        params = self.get_parameters()
        return deal_spec(self.game_id, params["players"], params["seed"])

    def new_initial_state(self) -> CardtableState:
        return CardtableState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CardtableObserver:
        if params:
            raise ValueError(f"cardtable's observers take no parameters, got {params}")
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return CardtableObserver(self.spec().encoder, perfect_recall)


class CardtableState(pyspiel.State):  # type: ignore[misc]
    """A deal: chance chooses the dealer and the deck's order, then the engine's match (``self.match``) plays."""

    def __init__(self, game: CardtableGame) -> None:
        super().__init__(game)
        self.spec = game.spec()
        self.dealer: int | None = None
        self.deck: list[int] = []
        self.match: engine.State | None = None

    def current_player(self) -> int:
        if self.match is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.match.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.match.current_player)  # type: ignore[arg-type]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.match is not None  # a player acts only once the deal is dealt
        return sorted(self.spec.codec.legal_by_index(self.match.legal_action_ids()))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealer is None:
            return [(seat, 1.0 / self.spec.players) for seat in range(self.spec.players)]
        dealt = set(self.deck)
        left = [card for card in self.spec.deck_cards if card not in dealt]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.match is not None:
            self.match.apply_id(self.spec.codec.legal_by_index(self.match.legal_action_ids())[action])
        elif self.dealer is None:
            self.dealer = action
        else:
            self.deck.append(action)
            if len(self.deck) == len(self.spec.deck_cards):
                spec = self.spec
                self.match = engine.new_match(spec.game_id, seed=spec.seed, players=spec.players, options=DEAL,
                                              first_dealer=self.dealer, deck=[CODES[c] for c in self.deck])

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return self.spec.codec.index_string(action)
        return f"dealer {action}" if self.dealer is None and not self.deck else f"deal {CODES[action]}"

    def is_terminal(self) -> bool:
        return self.match is not None and self.match.is_terminal

    def returns(self) -> list[float]:
        match = self.match
        if match is None or not match.is_terminal:
            return [0.0] * self.spec.players
        winners = match.winners or []
        if len({match.side_of[seat] for seat in winners}) > 1:
            return [0.0] * self.spec.players  # a tie between sides
        return [1.0 if seat in winners else -1.0 for seat in range(self.spec.players)]

    def __str__(self) -> str:
        if self.match is None:
            return f"dealing: dealer {self.dealer}, {len(self.deck)} of {len(self.spec.deck_cards)} cards"
        return render_text(self.match)


class CardtableObserver:
    """OpenSpiel's observer: :mod:`envs.encoding`'s tensor, and the seat's observation as JSON (with its public
    history for an information state)."""

    def __init__(self, encoder: ObservationEncoder, perfect_recall: bool) -> None:
        self.encoder = encoder
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardtableState, player: int) -> None:
        if state.match is None:
            self.tensor.fill(0)
            return
        # One deal: its public moves are all the match's moves.
        self.tensor[:] = self.encoder.encode_afresh(state.match, player)

    def string_from(self, state: CardtableState, player: int) -> str:
        if state.match is None:
            return f"dealing {len(state.deck)}"
        return json.dumps(state.match.observation(player, history=self.perfect_recall), sort_keys=True)


def resampler(seed: int) -> Callable[[CardtableState, int], CardtableState]:
    """OpenSpiel ISMCTS's resampler (``bot.set_resampler(resampler(7))``): a copy of the state that the player cannot
    tell from it, every card it has not seen dealt again at random (``engine.determinize``), drawn from ``seed``."""
    rng = Rng(seed)

    def determinized(state: CardtableState, player: int) -> CardtableState:
        assert state.match is not None  # a decision node: the deal is dealt
        sample = state.clone()
        sample.match = engine.determinize(state.match, player, rng)
        return sample

    return determinized


def register_all() -> list[str]:
    """Register every engine game with OpenSpiel (once); returns the short names."""
    names = []
    registered = set(pyspiel.registered_names())
    for game_id in engine.list_games():
        name = short_name(game_id)
        if name not in registered:
            game = type(f"Cardtable_{game_id}", (CardtableGame,), {"game_id": game_id})
            pyspiel.register_game(game_type(game_id), game)
        names.append(name)
    return names


GAMES = register_all()
