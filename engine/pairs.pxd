# Cython's declarations for engine/pairs.py: the trick loop and State.apply_id record each move's pair with a C call.

cdef Py_ssize_t SEATS, IDS
cdef tuple PAIRS

cpdef tuple pair(Py_ssize_t seat, object x)
