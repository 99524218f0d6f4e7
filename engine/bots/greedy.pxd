# Cython's declarations for engine/bots/greedy.py (see engine/tricks.pxd): the policy brings the seat's Seen to its
# turn in C (Seen.at), and a game's Keyer (a ranker whose keys are C integers) ranks in C, its tuples packed by key_of
# (a C call from a game's .pxd that cimports it).

from engine.bots.seen cimport Seen

cdef class Keyer:
    cdef long long *keys  # (room makes room for size of them)
    cdef Py_ssize_t size
    cpdef Py_ssize_t rank(self, Seen seen) except -1
    cpdef Py_ssize_t room(self, Py_ssize_t count) except -1

cdef class FunctionKeyer(Keyer):
    cdef public object function

cpdef long long key_of(long long a, long long b=*, long long c=*, long long d=*)

cdef class GreedyChooser:
    cdef object policy, rng, observer
    cdef Keyer keyer
    cdef Seen seen
