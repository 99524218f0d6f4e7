# Cython's declarations for engine/tricks.py (pure-Python mode: the .py stays the one source of the rules; this file
# only gives C signatures to the functions other compiled modules call on their hot paths, so that a module whose
# own .pxd cimports them calls them in C, not through Python). engine/_native.py hashes this file with tricks.py
# and with every module that cimports it: a change rebuilds them all.

cpdef bint beats(int card, int best, int trump, object power) except -1
cpdef unsigned long long legal_mask(object rule, unsigned long long hand, object led, int trump,
                                    unsigned long long over, bint partner_winning) except? 0
