# Cython's declarations for engine/trickgame.py (see engine/tricks.pxd): the trick machinery calls the legal-card
# rule in C, and TrickCore's field copy the clone's field copier.

from engine.clone cimport field_copy
from engine.tricks cimport legal_mask
