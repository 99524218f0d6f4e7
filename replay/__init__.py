"""Compact replays: the codec (bytes <-> header + moves), recording and reconstruction, the Redis store, export.

>>> import replay
>>> data = replay.record_deal("tablanette", seed=42)
>>> replay.decode(data).header.game
'tablanette'
"""

from .codec import FORMAT_VERSION, Header
from .errors import ReplayError
from .record import Recorder, Replay, Replayer, decode, encode_replay, record_deal, record_match, record_match_deals

__all__ = [
    "FORMAT_VERSION",
    "Header",
    "Recorder",
    "Replay",
    "ReplayError",
    "Replayer",
    "decode",
    "encode_replay",
    "record_deal",
    "record_match",
    "record_match_deals",
]
