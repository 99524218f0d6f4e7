# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the play's ranker is a Keyer
# (engine/bots/greedy.pxd) that reads what the seat has seen (Seen's C methods) and calls the trick rule in C; its
# keying is C for Belote contrée's ranker too.

from engine.bots.greedy cimport Keyer
from engine.bots.seen cimport Seen
from engine.tricks cimport beats

cpdef Py_ssize_t key_belote_play(Keyer keyer, Seen seen) except -1
cpdef int trump_value(list hand, int trump) except? -1

cdef class BelotePlayGreedy(Keyer):
    cpdef Py_ssize_t rank(self, Seen seen) except -1
