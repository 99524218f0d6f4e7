# Cython's declarations for engine/bots/ismcts.py (see engine/tricks.pxd): the tree descent draws its untried move
# with the generator's C method (Rng.pick_index), no Python call.

from engine.rng cimport Rng
