# Cython's declarations for engine/fishing.py (see engine/tricks.pxd): its C class's field copy calls the clone's field
# copier in C.

from engine.clone cimport field_copy
