"""The namespace of cardtable's keys in Redis: ``$CARDTABLE_KEY_PREFIX`` starts every key that a store writes by
default (the replay store, the match store, the job store), and is empty unless set. Several deployments, or test
runs, can share one Redis, each under a prefix of its own that one ``SCAN`` finds whole.

>>> os.environ["CARDTABLE_KEY_PREFIX"] = "staging:"  # doctest: +SKIP
>>> namespaced("cardtable:replay")                    # doctest: +SKIP
'staging:cardtable:replay'
"""

from __future__ import annotations

import os

KEY_PREFIX_ENV = "CARDTABLE_KEY_PREFIX"


def namespaced(prefix: str) -> str:
    """A store's key prefix in the current namespace."""
    return os.environ.get(KEY_PREFIX_ENV, "") + prefix
