"""Greedy for Tablić: the fishing games' ranker (:mod:`engine.bots.fishing`)."""

from ...bots.fishing import rank_fishing
from ...bots.greedy import register_greedy

register_greedy("tablic")(rank_fishing)
