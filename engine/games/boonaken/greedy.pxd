# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker is a Keyer (engine/bots/greedy.pxd)
# that packs its keys with key_of and calls the trick rule in C.

from engine.bots.greedy cimport Keyer, key_of
from engine.bots.seen cimport Seen
from engine.tricks cimport beats

cdef class BoonakenGreedy(Keyer):
    cpdef Py_ssize_t rank(self, Seen seen) except -1
