# Cython's declarations for engine/rng.py (see engine/tricks.pxd): the generator as a C class whose fields and C
# methods other compiled modules reach in C (the trick loop draws a random policy's choice with ``pick_index``, no
# Python call). The .py stays the one source; from source the fields are plain attributes set by ``__init__``.

cdef class Rng:
    cdef unsigned long long _origin
    cdef Py_ssize_t _taken, _sure
    cdef tuple _ahead
    cdef public bint shared

    cdef unsigned long long _draw(self) noexcept
    cdef unsigned long long _below(self, unsigned long long n) noexcept
    cpdef Py_ssize_t pick_index(self, Py_ssize_t count) except -1
