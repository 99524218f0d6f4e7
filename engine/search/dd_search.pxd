# Cython's declarations for engine/search/dd_search.py (see engine/tricks.pxd): the search calls the legal-card
# rule in C.

from engine.tricks cimport legal_mask
