"""The web API's JSON: 64-bit integers travel as decimal strings.

A browser reads a JSON number as a double, exact only below 2**53: a seed such as 3331525659724964719 would arrive
as 3331525659724965000, which deals other cards. So the fields that hold a 64-bit number (``SIXTY_FOUR_BIT``: seeds
and RNG states) are always strings, whatever their value, and any other integer that reaches 2**53 is a string too
(a safety net: no number the page reads is ever rounded).

>>> wire({"seed": 7, "header": {"seed": 3331525659724964719, "players": 4}, "scores": [2**60, -3]})
{'seed': '7', 'header': {'seed': '3331525659724964719', 'players': 4}, 'scores': ['1152921504606846976', -3]}
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER
SIXTY_FOUR_BIT = frozenset({"seed", "rng"})


def wire(value: Any, key: str = "") -> Any:
    """``value`` with its 64-bit fields, and every integer a double cannot hold exactly, as decimal strings."""
    if isinstance(value, dict):
        return {k: wire(v, k) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and (key in SIXTY_FOUR_BIT
                                                                   or not -SAFE_INTEGER <= value <= SAFE_INTEGER):
        return str(value)
    return value


def dumps(value: Any) -> str:
    """JSON text of ``value`` as the web API sends it."""
    return json.dumps(wire(value))


class WireResponse(JSONResponse):
    """A JSONResponse whose 64-bit integers are strings."""

    def render(self, content: Any) -> bytes:
        return super().render(wire(content))
