# Cython's declarations for engine/state.py: a move's (seat, action) pair is recorded with a C call (engine/pairs.pxd).

from engine.pairs cimport pair

# s48-apply: apply_id's (and the trick loop's) check of a chosen move, a C call
cpdef bint listed(object action, object legal) except -1
