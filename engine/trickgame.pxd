# Cython's declarations for engine/trickgame.py (see engine/tricks.pxd): the trick machinery calls the legal-card
# rule in C and draws a random policy's move with the generator's C method, and TrickCore's field copy calls the
# clone's field copier.

from engine.clone cimport field_copy
from engine.tricks cimport legal_mask
from engine.rng cimport Rng
from engine.pairs cimport pair
