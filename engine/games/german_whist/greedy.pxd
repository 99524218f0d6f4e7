# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker is a Keyer (engine/bots/greedy.pxd)
# that reads what the seat has seen (Seen's C methods) and calls the trick rule in C.

from engine.bots.greedy cimport Keyer
from engine.bots.seen cimport Seen
from engine.tricks cimport beats

cdef class GermanWhistGreedy(Keyer):
    cdef int _power[5][52]  # (CARDS: greedy.py's)
    cdef int _suit[52]
    cpdef Py_ssize_t rank(self, Seen seen) except -1
