# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker calls the trick rule in C.

from engine.tricks cimport beats
