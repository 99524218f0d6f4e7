# Cython's declarations for engine/state.py: a move's (seat, action) pair is recorded with a C call (engine/pairs.pxd).

from engine.pairs cimport pair
