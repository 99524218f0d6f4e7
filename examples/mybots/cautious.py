"""A cautious Tablanette and Tablić player, the finished example of docs/bots.md.

It captures whenever it can, with its highest card, and takes every card a capture offers; otherwise it trails its
lowest card, keeping tens and aces (card points) back. With ``risk`` it plays a random legal move instead, that often.

    cardtable simulate tablanette --deals 2000 --policies mybots.cautious:Cautious,greedy
    cardtable simulate tablanette --deals 2000 --policies mybots.cautious:Cautious:risk=0.2,greedy
"""

from __future__ import annotations

from engine.bots import Policy
from engine.options import Option

RANKS = "23456789TJQKA"
KEPT_BACK = "TA"  # tens and aces score card points: trail them last


def rank(card: str) -> int:
    return RANKS.index(card[0])


def trail_order(card: str) -> tuple[bool, int]:
    return card[0] in KEPT_BACK, rank(card)


class Cautious(Policy):
    """Captures whenever it can, with its highest card; otherwise trails its lowest card, tens and aces last."""

    param_spec = (Option("risk", float, 0.0, "probability of a uniformly random legal move instead",
                         minimum=0.0, maximum=1.0, noun="parameter"),)

    @classmethod
    def games(cls) -> list[str]:
        return ["tablanette", "tablic"]

    def __init__(self, game_id: str, seat: int, seed: int, params: dict | None = None) -> None:
        if game_id not in self.games():
            raise ValueError(f"Cautious plays {', '.join(self.games())}, not {game_id}")
        super().__init__(game_id, seat, seed, params)

    def choose(self, observation: dict) -> str:
        legal = observation["legal_actions"]
        if self.params["risk"] and self.rng.below(1_000_000) < self.params["risk"] * 1_000_000:
            return self.rng.choice(legal)
        takes = [action for action in legal if action.startswith("+")]  # during a capture: take one more card
        if takes:
            return takes[0]
        if "next" in legal:  # a group is complete: start another one rather than stop
            return "next"
        if "done" in legal:
            return "done"
        captures = [action for action in legal if ":" in action]  # "KS:" starts a capture, "JS:..." takes all
        if captures:
            return max(captures, key=rank)
        return min(legal, key=trail_order)
