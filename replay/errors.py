"""The one error of the replay package: every bad replay, in bytes, JSON or Redis, raises it."""

from __future__ import annotations


class ReplayError(ValueError):
    """A replay that cannot be read or does not replay: says what is wrong, at which move and under which key.

    >>> str(ReplayError("ordinal 9 is out of range", move=3, key="ct:replay:job:b:0 field 7"))
    'ordinal 9 is out of range (at move 3) [key ct:replay:job:b:0 field 7]'
    """

    def __init__(self, message: str, *, move: int | None = None, key: str | None = None) -> None:
        self.reason = message
        self.move = move
        self.key = key
        text = message
        if move is not None:
            text += f" (at move {move})"
        if key is not None:
            text += f" [key {key}]"
        super().__init__(text)
