# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker is a Keyer (engine/bots/greedy.pxd)
# whose play is the Belote games' keying, in C.

from engine.bots.greedy cimport Keyer
from engine.bots.seen cimport Seen
from engine.games.belote_family.greedy cimport key_belote_play, trump_value

cdef class BeloteContreeGreedy(Keyer):
    cdef tuple _words
    cdef list _points, _suits, _passes
    cpdef Py_ssize_t rank(self, Seen seen) except -1
