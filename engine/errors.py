"""The engine's errors: each says exactly what was wrong and what is allowed."""


class IllegalAction(ValueError):
    """An action that is not legal in the current state; the state is left exactly as it was."""

    def __init__(self, action: object, legal: list[str], where: str = "") -> None:
        self.action = action
        self.legal = legal
        shown = ", ".join(legal) if len(legal) <= 60 else ", ".join(legal[:60]) + f", ... ({len(legal)} in all)"
        context = f" ({where})" if where else ""
        super().__init__(f"illegal action {action!r}{context}; legal actions: [{shown}]")


class PositionError(ValueError):
    """A position (JSON document) that does not describe a valid state of the game."""


class ActionLimitExceeded(RuntimeError):
    """A state with more legal actions than the engine will list (see ``engine.fishing.MAX_CAPTURE_CHOICES``).

    Only Tablić's optional partial captures get there: every union of disjoint groups is its own action, so a table
    that everyone has trailed onto for many turns offers exponentially many captures.
    """
