# Cython's declarations for engine/bots/greedy.py (see engine/tricks.pxd): the policy brings the seat's Seen to its
# turn in C (Seen.at, a C method).

from engine.bots.seen cimport Seen
