# Cython's declarations for engine/fishing.py (see engine/tricks.pxd): its C class's field copy calls the clone's field
# copier in C.

from engine.clone cimport field_copy

# FishingCore's fields are declared here, so that a compiled module that cimports FishingCore (envs/encoding.pxd) reads
# them as C struct fields through a typed reference.
cdef class FishingCore:
    cdef public object current_player, phase, moves, _legal, n_players, dealer, hands, table, stock, captured
    cdef public object last_capturer, turn, capture_rules, _groups
