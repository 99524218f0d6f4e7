# Cython's declarations for engine/determinize.py (see engine/tricks.pxd): a sample's renaming of the cards, which the
# trick games call for every sample (TrickGame._relabel), is C calls from them (no Python call, no keyword parsing).

cpdef list relabeling(object slots, object dealt)
cpdef object relabel_mask(object mask, object new)
cpdef list relabel_masks(list masks, list new)
cpdef list relabel_cards(list cards, list new)
