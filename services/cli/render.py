"""Terminal rendering of observations, moves and results, generic over each game's observation dict.

An observation holds common keys (scores, dealer, phase, legal actions, ...) and each game's own keys (``hand``,
``table``, ``trick``, ``trump``, ...). The common keys go into a header line; every other key becomes a labelled row,
so a new game renders without changes here.

>>> plain(format_value(["QS", "3C"])), plain(format_value([[1, "8D"], [0, "9D"]], {0: "you"}))
('QS 3C', 'seat 1 8D, you 9D')
>>> count_of(1, "replay"), count_of(200, "match"), count_of(12_000, "deal"), count_of(0, "retry")
('1 replay', '200 matches', '12,000 deals', '0 retries')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from engine import State
from engine.cards import CARD_OF_CODE

# Keys the header (or nobody) shows; everything else in an observation is the game's own and gets a row.
COMMON_KEYS = frozenset({
    "game", "seat", "players", "options", "deal_index", "dealer", "phase", "current_player", "scores",
    "legal_actions", "history", "winners",
})
LABELS = {"hand": "Your hand"}
RED_SUITS = frozenset("HD")


def plain(text: Text) -> str:
    return text.plain


def plural(noun: str) -> str:
    """``deal`` -> ``deals``, ``match`` -> ``matches``, ``retry`` -> ``retries``."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{noun}es"
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return f"{noun[:-1]}ies"
    return f"{noun}s"


def count_of(number: int, noun: str) -> str:
    """A number and its noun, singular or plural: ``1 replay``, ``200 matches``."""
    return f"{number:,} {noun if number == 1 else plural(noun)}"


def aligned(rows: Sequence[Sequence[str]], gap: int = 2) -> str:
    """Rows of cells as lines with aligned columns (plain text: it reads in a terminal and pipes into ``cut``)."""
    widths = [max(len(row[col]) for row in rows if col < len(row)) for col in range(max(map(len, rows)))]
    return "\n".join((" " * gap).join(cell.ljust(widths[col]) for col, cell in enumerate(row)).rstrip()
                     for row in rows)


def card_text(code: str) -> Text:
    return Text(code, style="red" if code[1] in RED_SUITS else "bold")


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v in CARD_OF_CODE for v in value)


def format_value(value: Any, names: Mapping[int, str] | None = None) -> Text:
    """Cards as coloured codes, lists joined, ``[seat, card]`` entries (a trick) as ``seat 1 8D``, mappings as
    ``key: value``; anything else as its text."""
    if isinstance(value, str) and value in CARD_OF_CODE:
        return card_text(value)
    if _is_card_list(value):
        return Text(" ").join(card_text(code) for code in value)
    if isinstance(value, list):
        if not value:
            return Text("-", style="dim")
        return Text(", ").join(_entry(item, names or {}) if isinstance(item, list) else format_value(item, names)
                               for item in value)
    if isinstance(value, Mapping):
        if not value:
            return Text("-", style="dim")
        return Text("; ").join(Text(f"{key}: ").append_text(format_value(item, names)) for key, item in value.items())
    if value is None:
        return Text("-", style="dim")
    return Text(str(value))


def _entry(items: list, names: Mapping[int, str]) -> Text:
    """A small list inside a list: a trick entry ``[seat, card]`` names its seat; others are space-separated."""
    if len(items) == 2 and isinstance(items[0], int) and not isinstance(items[0], bool):
        return Text(f"{seat_label(items[0], names)} ").append_text(format_value(items[1], names))
    return Text(" ").join(format_value(item, names) for item in items)


def label_of(key: str) -> str:
    return LABELS.get(key, key.replace("_", " ").capitalize())


def seat_label(seat: int, names: Mapping[int, str]) -> str:
    return names.get(seat, f"seat {seat}")


def header_line(obs: Mapping[str, Any], names: Mapping[int, str]) -> Text:
    return Text.assemble(
        (f"Deal {obs['deal_index'] + 1}", "bold"),
        f"  dealer: {seat_label(obs['dealer'], names)}  phase: {obs['phase']}  scores: ",
        per_seat(obs["scores"], names),
    )


def _is_per_seat(value: Any, players: int) -> bool:
    return (isinstance(value, list) and len(value) == players
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


def per_seat(values: Sequence[int], names: Mapping[int, str]) -> Text:
    """``you 6, seat 1 5``: one figure per seat, named."""
    return Text(", ").join(Text(f"{seat_label(seat, names)} {v}") for seat, v in enumerate(values))


def observation_table(obs: Mapping[str, Any], names: Mapping[int, str]) -> Table:
    """One row per game-specific key of the observation (per-seat figures are named by seat)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="cyan", no_wrap=True)
    grid.add_column()
    for key, value in obs.items():
        if key in COMMON_KEYS:
            continue
        shown = per_seat(value, names) if _is_per_seat(value, obs["players"]) else format_value(value, names)
        grid.add_row(label_of(key), shown)
    return grid


def numbered_moves(legal: Sequence[str]) -> Text:
    """``1) 7H   2) QS:3C,TD`` ..., the numbers a person may type instead of the action."""
    return Text("   ").join(Text.assemble((f"{i})", "dim"), " ", action_text(a)) for i, a in enumerate(legal, 1))


def action_text(action: str) -> Text:
    """An action with its card codes coloured: ``QS:3C,TD``."""
    out = Text()
    for token, sep in _tokens(action):
        out.append_text(card_text(token) if token in CARD_OF_CODE else Text(token))
        out.append(sep)
    return out


def _tokens(action: str) -> list[tuple[str, str]]:
    tokens, current = [], ""
    for ch in action:
        if ch in ":,":
            tokens.append((current, ch))
            current = ""
        else:
            current += ch
    tokens.append((current, ""))
    return tokens


def deal_summary(result: Mapping[str, Any], scores: Sequence[int], names: Mapping[int, str]) -> Text:
    """One line for a finished deal: its points per side, its counters, and the match scores after it."""
    extras = {k: v for k, v in result.items() if k not in ("deal", "dealer", "points")}
    text = Text.assemble((f"Deal {result['deal'] + 1} over.", "bold"), f" Points per side: {result['points']}.")
    if extras:
        text.append(" ").append_text(format_value(extras)).append(".")
    return text.append(" Match scores: ").append_text(per_seat(scores, names)).append(".")


def match_result(state: State, names: Mapping[int, str]) -> Text:
    """The end of a match: the winning seat (or partners), or the seats that share first place."""
    winners = state.winners or []
    seats = " and ".join(seat_label(seat, names) for seat in winners)
    drawn = len({state.side_of[seat] for seat in winners}) > 1
    verdict = f"Draw between {seats}." if drawn else f"Winner: {seats}."
    return Text.assemble(("Match over. ", "bold green"), verdict, " Final scores: ", per_seat(state.scores, names), ".")
