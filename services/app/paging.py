"""Pages and page tokens, for every list call (ListGames, ListReplays, ListJobs) and the command line.

A page token is opaque to a client, which passes back the ``next_page_token`` it was given ("" for the first page).
Inside, it is where the next page starts (an offset into a list, or a store's cursor): a non-negative integer
written in at most 18 ASCII digits. Anything else is INVALID_ARGUMENT, quoted short: a Unicode digit such as "²" or
"٣" is no token, and neither is a number too long to be one.

>>> start_of(""), start_of("40"), token_of(40), token_of(None)
(None, 40, '40', '')
>>> page(list(range(5)), 2, "2")
([2, 3], '4')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .errors import InvalidArgument, quoted

MAX_TOKEN_DIGITS = 18  # below 2**63: every offset and cursor of a store fits
_DIGITS = frozenset("0123456789")

T = TypeVar("T")


def start_of(token: str) -> int | None:
    """Where the page of ``token`` starts; None for the first page (the empty token)."""
    if not token:
        return None
    if len(token) > MAX_TOKEN_DIGITS or not _DIGITS.issuperset(token):
        raise InvalidArgument(f"bad page_token {quoted(token)}: pass back a next_page_token, or none for the first "
                              "page")
    return int(token)


def token_of(start: int | None) -> str:
    """The token of the page that starts at ``start``; "" when there is no next page (None)."""
    return "" if start is None else str(start)


def page_size(requested: int, default: int, maximum: int) -> int:
    """The size of a page: ``default`` when the request says 0, at most ``maximum``."""
    return min(requested or default, maximum)


def page(items: Sequence[T], size: int, token: str) -> tuple[list[T], str]:
    """One page of ``items`` (offsets as tokens) and the token of the next; a size of 0 means all of them."""
    start = start_of(token) or 0
    end = start + (size or len(items))
    return list(items[start:end]), token_of(end if end < len(items) else None)
