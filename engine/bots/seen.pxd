# Cython's declarations for engine/bots/seen.py (see engine/tricks.pxd): a Seen's fields are a C struct's, and the
# facts a ranker reads at every turn (trump, the trick's lead, the face-up card, the legal cards) are C methods that
# a ranker whose own .pxd cimports Seen calls without a Python call. The state it reads (of_state) is a TrickCore,
# whose fields (the trick, trump, hands, tricks, phase) it reads as C struct fields.

from engine.tricks cimport beats
from engine.trickgame cimport TrickCore

cdef class Seen:
    cdef TrickCore _state
    cdef object _obs, _legal_ids, _legal, _seat, _players, _played_dealing, _read, _phase, _trick
    cdef unsigned long long _played_mask
    cdef Py_ssize_t _played_count
    cdef object _legal_cards
    cdef bint _history, _face_up_shown, _tricks_shown
    cdef int _trump
    cdef tuple _card_of, _suffixes
    cdef tuple _card_int, _strings
    cdef int *_cards_c  # (_card_int as a C array, of _cards_size ints)
    cdef Py_ssize_t _cards_size
    cdef Py_ssize_t _card_array(self) except -1
    cdef Py_ssize_t _width
    cdef Seen _bind(self, TrickCore state)
    cpdef Seen at(self, object legal_ids)
    cdef int trump_suit(self) except -2
    cdef int lead_card(self) except -2
    cdef int face_up_card(self) except -2
    cdef list cards(self)
    cdef object current_phase(self)
    cdef Py_ssize_t legal_id(self, Py_ssize_t i) except -2
    cdef tuple words(self)
    cpdef list hand(self)
    cdef Py_ssize_t legal_count(self) except -1
    cdef int card_at(self, Py_ssize_t i) except -2
    cdef bint plays_with(self, Py_ssize_t i, str suffix) except -1
    cpdef list highest_unseen(self, object deck, object power, object also=*)
    cpdef tuple winning(self, int trump, object power)
    cdef object _played_cards(self)
    cdef object _seen_mask(self, object also)
