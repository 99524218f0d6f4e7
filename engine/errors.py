"""The engine's errors: each says exactly what was wrong and what is allowed."""

from typing import Any

QUOTE_LIMIT = 64  # characters of a caller's text that a message quotes


def quoted(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as a message quotes it: its repr, cut to ``limit`` characters with the length of the whole said.

    >>> quoted("live/17"), quoted("x" * 5000, limit=8)
    ("'live/17'", "'xxxxxxxx'... (5000 characters)")
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit + 2 else f"{text[:limit]}... ({len(text)} characters)"


class IllegalAction(ValueError):
    """An action that is not legal in the current state; the state is left exactly as it was."""

    def __init__(self, action: object, legal: list[str], where: str = "", turns: list[str] | None = None) -> None:
        """``turns``: the legal whole turns where the game decides a turn in several steps (``legal`` lists those
        steps), named too unless they are the same."""
        self.action = action
        self.legal = legal
        self.turns = legal if turns is None else turns
        context = f" ({where})" if where else ""
        whole = f"; legal turns: [{_listed(turns)}]" if turns is not None and turns != legal else ""
        super().__init__(f"illegal action {action!r}{context}; legal actions: [{_listed(legal)}]{whole}")


def _listed(actions: list[str]) -> str:
    return ", ".join(actions) if len(actions) <= 60 else ", ".join(actions[:60]) + f", ... ({len(actions)} in all)"


class UnknownGame(ValueError):
    """A game id that is not registered; the message names the games.

    >>> raise UnknownGame("snap", ["belote", "tablanette"])
    Traceback (most recent call last):
    engine.errors.UnknownGame: unknown game 'snap'; games are belote, tablanette
    """

    def __init__(self, game_id: object, games: list[str]) -> None:
        self.game_id = game_id
        super().__init__(f"unknown game {quoted(game_id)}; games are {', '.join(games)}")


class UnknownOption(ValueError):
    """Option names that a game (``owner``; None: a set of options of its own, a policy's parameters) does not
    declare; the message names the declared ones.

    >>> raise UnknownOption(["nope"], ["target", "first_dealer"], "tablanette")
    Traceback (most recent call last):
    engine.errors.UnknownOption: unknown option 'nope' for tablanette; its options are 'first_dealer', 'target'
    """

    def __init__(self, names: list[str], known: list[str], owner: str | None = None) -> None:
        self.names = names
        where = f" for {owner}" if owner else ""
        listed = ", ".join(quoted(name) for name in names)
        plural = "s" if len(names) > 1 else ""
        options = ", ".join(map(repr, sorted(known)))
        super().__init__(f"unknown option{plural} {listed}{where}; its options are {options}")


class UnknownPolicy(ValueError):
    """A policy name that is not known (here: among ``choices``, the policies said in words).

    >>> raise UnknownPolicy("clever", "policies are greedy, random")
    Traceback (most recent call last):
    engine.errors.UnknownPolicy: unknown policy 'clever'; policies are greedy, random
    """

    def __init__(self, name: object, choices: str) -> None:
        self.name = name
        super().__init__(f"unknown policy {quoted(name)}; {choices}")


class UnsupportedPlayers(ValueError):
    """A player count that the game is not played by.

    >>> raise UnsupportedPlayers("tablanette", 7, (2, 3, 4))
    Traceback (most recent call last):
    engine.errors.UnsupportedPlayers: tablanette is played by 2, 3, 4 players, not 7
    """

    def __init__(self, game_id: str, players: object, counts: tuple[int, ...]) -> None:
        self.players = players
        super().__init__(f"{game_id} is played by {', '.join(map(str, counts))} players, not {players!r}")


class PositionError(ValueError):
    """A position (JSON document) that does not describe a valid state of the game."""


class ActionLimitExceeded(RuntimeError):
    """A state with more legal actions than the engine will list (see ``engine.fishing.MAX_CAPTURE_CHOICES``).

    Only Tablić's optional partial captures get there: every union of disjoint groups is its own action, so a table
    that everyone has trailed onto for many turns offers exponentially many captures.
    """
