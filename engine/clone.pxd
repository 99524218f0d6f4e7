# Cython's declarations for engine/clone.py (see engine/tricks.pxd): the C classes' field copies (TrickCore,
# FishingCore, AuctionCore) call the one field copier in C.

cpdef object field_copy(object value, object how)
