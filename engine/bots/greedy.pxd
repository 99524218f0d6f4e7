# Cython's declarations for engine/bots/greedy.py (see engine/tricks.pxd): the policy brings the seat's Seen to its
# turn in C (Seen.at), and a game's Keyer (a ranker whose keys are C integers) ranks in C.

from engine.bots.seen cimport Seen

cdef class Keyer:
    cdef long long keys[128]  # KEYS_MOST
    cpdef Py_ssize_t rank(self, Seen seen) except -1
    cpdef Py_ssize_t room(self, Py_ssize_t count) except -1

cdef class GreedyChooser:
    cdef object policy, rng, rank, observer
    cdef Keyer keyer
    cdef Seen seen
