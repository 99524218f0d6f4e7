"""Whole-match transcripts of the trick games, pinned as files so that a refactoring of the engine is checked to
change nothing: the same seed, options and moves give the same history, deal results, scores and positions.

``python tests/games/trick_transcripts.py`` (re)writes tests/fixtures/transcripts/*.json from the current engine;
run it only when a rules change is meant to change play.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine
from engine.bots import make_policies

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
# Positions are pinned at these move numbers (and at the end of the match).
POSITION_AT = (0, 1, 9, 30, 77, 150)

# name -> (game, players, seed, options, first_dealer, policy: "random" or a list of policy names per seat)
CASES: dict[str, tuple[str, int, int, dict[str, Any], int | None, Any]] = {
    "german_whist-single": ("german_whist", 2, 11, {}, None, "random"),
    "german_whist-target": ("german_whist", 2, 12, {"target_score": 30, "deal_scoring": "difference"}, 0, "random"),
    "german_whist-face_down": ("german_whist", 2, 13, {"face_down_four": True, "score_all_tricks": True,
                                                      "target_score": 20}, None, ["greedy", "random"]),
    "belote_contree-match": ("belote_contree", 4, 24, {"max_deals": 5}, None, "random"),
    "belote_contree-options": ("belote_contree", 4, 22, {"num_deals": 4, "contre_scoring": "multiply",
                                                        "max_numeric_bid": 180, "shuffle_each_deal": True}, 1,
                               ["greedy", "random", "greedy", "random"]),
    "belote_contree-greedy": ("belote_contree", 4, 23, {"max_deals": 6, "weak_hand_redeal": False}, 2, "greedy"),
    "belote-4p": ("belote", 4, 31, {"target_score": 400}, None, "random"),
    "belote-3p": ("belote", 3, 32, {"target_score": 500, "no_shuffle": True}, 0, ["greedy", "random", "greedy"]),
    "belote-2p": ("belote", 2, 33, {"target_score": 600, "litige": False}, None, "greedy"),
    "belote-4p-no_shuffle": ("belote", 4, 34, {"max_deals": 5, "no_shuffle": True}, 3,
                             ["greedy", "greedy", "random", "random"]),
    "tres-match": ("tres", 2, 41, {}, None, "random"),
    "tres-options": ("tres", 2, 42, {"target_score": 90, "additive_trick_point": True, "trump_suit": "C",
                                     "removed_card": "5H"}, 1, ["greedy", "random"]),
    "trappola-single": ("trappola", 2, 51, {}, None, ["greedy", "random"]),
    "trappola-target": ("trappola", 2, 52, {"target_score": 150, "public_declaration_ranks": True}, 0, "random"),
    "trappola-options": ("trappola", 2, 53, {"target_score": 100, "allow_redeal": False, "declarations": False}, 1,
                         "greedy"),
    "two_ten_jack-2p": ("two_ten_jack", 2, 41, {}, None, "random"),
    "two_ten_jack-5p-options": ("two_ten_jack", 5, 42, {"num_games": 3, "hand_size": 3, "must_trump": True,
                                                      "same_two": False, "reversal": False, "fixed_trump": "H"}, 4,
                                ["greedy", "random", "random", "greedy", "random"]),
    "two_ten_jack-7p": ("two_ten_jack", 7, 43, {"num_games": 2}, 0, "greedy"),
    "boonaken-4p": ("boonaken", 4, 61, {}, None, "random"),
    "boonaken-3p-plus": ("boonaken", 3, 64, {"plus_to_win": 1}, 0, ["greedy", "random", "greedy"]),
    "boonaken-4p-elimination": ("boonaken", 4, 62, {"elimination": True, "minus_to_lose": 3}, 0, "greedy"),
    "boonaken-5p-options": ("boonaken", 5, 63, {"min_bid": 60, "max_bid": 200, "bid_step": 10, "minus_to_lose": 3,
                                                "six_sequence_value": 100}, 2, "greedy"),
    "thunee-4p": ("thunee", 4, 61, {"target_balls": 4}, None, "greedy"),
    "thunee-4p-options": ("thunee", 4, 62, {"target_balls": 5, "call_jump": True, "last_card_trump": True,
                                            "royals": False, "thunee_balls": 3, "redeal_max_points": 20}, 1,
                          ["greedy", "random", "greedy", "random"]),
    "thunee-6p": ("thunee", 6, 63, {"target_balls": 8, "royals_balls": 6}, None,
                  ["greedy", "random", "random", "greedy", "greedy", "random"]),
    "thunee-6p-options": ("thunee", 6, 64, {"max_deals": 6, "six_trip": False, "six_mooney": False}, 0, "greedy"),
    "botifarra-match": ("botifarra", 4, 61, {}, None, "random"),
    "botifarra-options": ("botifarra", 4, 62, {"target_score": 60, "max_double": "recontro", "double_values": "2-3-4",
                                               "botifarra_multiplier": 3, "play_rules": "relaxed"}, 1,
                          ["greedy", "random", "greedy", "random"]),
    "botifarra-rotation": ("botifarra", 4, 63, {"three_game_rotation": True, "target_score": 40, "max_double": "none"},
                           2, "greedy"),
}


def play(game: str, players: int, seed: int, options: dict[str, Any], first_dealer: int | None,
         policy: Any) -> dict[str, Any]:
    """Play one match through the string API and record what a refactoring must keep."""
    state = engine.new_match(game, seed=seed, players=players, options=options, first_dealer=first_dealer)
    names = [policy] * players if isinstance(policy, str) else policy
    bots = make_policies(names, game, seed=seed + 1000)
    positions: dict[str, Any] = {}
    legal: dict[str, list[str]] = {}
    observations: dict[str, list[dict]] = {}
    moves = 0
    while not state.is_terminal:
        if moves in POSITION_AT:
            positions[str(moves)] = state.to_position()
            legal[str(moves)] = state.legal_actions()
            observations[str(moves)] = [state.observation(seat, history=False) for seat in range(players)]
        seat = state.current_player
        state.apply(bots[seat](state.observation(seat)))
        moves += 1
    positions["end"] = state.to_position()
    return {
        "case": {"game": game, "players": players, "seed": seed, "options": options, "first_dealer": first_dealer,
                 "policies": names},
        "history": [[seat, action] for seat, action in state.history],
        "deal_results": state.deal_results,
        "scores": state.scores,
        "winners": state.winners,
        "legal_actions": legal,
        "observations": observations,
        "positions": positions,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items():
        record = play(*case)
        (OUT / f"{name}.json").write_text(json.dumps(record, separators=(",", ":")) + "\n")
        print(name, len(record["history"]), "moves", record["scores"])


if __name__ == "__main__":
    main()
