# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker calls the trick rule and reads
# what the seat has seen (Seen's C methods) in C.

from engine.bots.seen cimport Seen
from engine.tricks cimport beats
