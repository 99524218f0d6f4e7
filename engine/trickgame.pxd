# Cython's declarations for engine/trickgame.py (see engine/tricks.pxd): the trick machinery calls the legal-card
# rule in C and draws a random policy's move with the generator's C method, and TrickCore's field copy calls the
# clone's field copier. TrickCore's fields are declared here, so that a compiled module that cimports TrickCore
# (engine/bots/seen.pxd, engine/search/dd_search.pxd) reads them as C struct fields through a typed reference.

from engine.clone cimport field_copy
from engine.tricks cimport legal_mask
from engine.rng cimport Rng
from engine.pairs cimport pair

cdef class TrickCore:
    cdef public object current_player, phase, moves, _legal, n_players, side_of, hands, trump, trick, tricks
    cdef public object trick_size, best_seat, best_card, overtrumps, card_points, tricks_won, last_trick_side
    cdef public object stock, stock_top

# s48-apply: the check of a chosen move (engine/state.pxd)
from engine.state cimport listed

# s48-det: a sample's renaming of the cards, C calls into engine/determinize.py
from engine.determinize cimport relabeling, relabel_cards, relabel_masks
