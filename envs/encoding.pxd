# Cython's declarations for envs/encoding.py: the encoder reads the state's per-move fields (the seat to act, the
# phase, the hands, the trick or table, the stock) as the C struct fields of a trick game's TrickCore or a fishing
# game's FishingCore, not through Python's attribute look-up.

from engine.trickgame cimport TrickCore
from engine.fishing cimport FishingCore
