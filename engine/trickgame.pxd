# Cython's declarations for engine/trickgame.py (see engine/tricks.pxd): the trick machinery calls the legal-card
# rule in C.

from engine.tricks cimport legal_mask
