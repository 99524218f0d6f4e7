# Cython's declarations for greedy.py beside it (see engine/tricks.pxd): the ranker is a Keyer (engine/bots/greedy.pxd)
# whose play is the Belote games' keying, in C.

from engine.bots.greedy cimport Keyer
from engine.bots.seen cimport Seen
from engine.games.belote_family.greedy cimport key_belote_play

cdef class BeloteContreeGreedy(Keyer):
    cpdef Py_ssize_t rank(self, Seen seen) except -1
