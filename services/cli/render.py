"""Terminal rendering of observations, moves and results, generic over each game's observation dict.

An observation holds common keys (scores, dealer, phase, legal actions, ...) and each game's own keys (``hand``,
``table``, ``trick``, ``trump``, ...). The common keys go into a header line; every other key becomes a labelled row,
so a new game renders without changes here.

A value is shown as *atoms* (a card, a move, ``seat 1 8D``, ``side A (you + seat 2) 80``) and lines break only
between atoms, never inside one, whatever the terminal's width (:func:`flow`). In partnership games the scores and
the figures kept per side are shown per side, each side labelled with its seats.

>>> seating = Seating({0: "you", 1: "seat 1"}, (0, 1))
>>> plain(Text(" ").join(atoms(["QS", "3C"], seating))), plain(Text(" ").join(atoms([[1, "8D"], [0, "9D"]], seating)))
('QS 3C', 'seat 1 8D, you 9D')
>>> four = Seating({0: "you", 1: "seat 1", 2: "seat 2", 3: "seat 3"}, (0, 1, 0, 1))
>>> plain(Text(" ").join(four.scores([80, 60, 80, 60])))
'side A (you + seat 2) 80, side B (seat 1 + seat 3) 60'
>>> print(plain(flow([Text(word) for word in "one two three four".split()], width=9, indent=2)))
one two
  three
  four
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from engine import State
from engine.cards import CARD_OF_CODE

# Keys the header (or nobody) shows; everything else in an observation is the game's own and gets a row.
COMMON_KEYS = frozenset({
    "game", "seat", "players", "options", "deal_index", "dealer", "phase", "current_player", "scores",
    "legal_actions", "history", "winners",
})
# Keys whose number is a seat (shown by its name), and keys that mean nothing while they are 0 or null.
SEAT_KEYS = frozenset({"dealer", "taker", "declarer", "belote", "last_capturer"})
UNSET_HIDDEN = frozenset({"target"})
LABELS = {"hand": "Your hand"}
RED_SUITS = frozenset("HD")
SIDE_LETTERS = "ABCDEFGH"


def plain(text: Text) -> str:
    return text.plain


def aligned(rows: Sequence[Sequence[str]], gap: int = 2) -> str:
    """Rows of cells as lines with aligned columns (plain text: it reads in a terminal and pipes into ``cut``)."""
    widths = [max(len(row[col]) for row in rows if col < len(row)) for col in range(max(map(len, rows)))]
    return "\n".join((" " * gap).join(cell.ljust(widths[col]) for col, cell in enumerate(row)).rstrip()
                     for row in rows)


def flow(items: Sequence[Text], width: int, sep: str = " ", indent: int = 0, start: int = 0) -> Text:
    """``items`` joined by ``sep`` in lines of at most ``width`` characters, broken only between items; the first
    line starts at column ``start``, the next ones are indented by ``indent`` spaces (an item wider than a line gets a
    line of its own)."""
    out = Text()
    column = start
    for number, item in enumerate(items):
        if number and column + len(sep) + len(item) > width:
            out.append("\n" + " " * indent)
            column = indent
        elif number:
            out.append(sep)
            column += len(sep)
        out.append_text(item)
        column += len(item)
    return out


# ---- who sits where ---------------------------------------------------------------------------------------------

class Seating:
    """Each seat's name (``you``, ``seat 1``, ``seat 0 (greedy)``) and side: partners share a side, and a game without
    partnerships has a side per seat."""

    def __init__(self, names: Mapping[int, str], side_of: Sequence[int],
                 short_names: Mapping[int, str] | None = None) -> None:
        self.names = dict(names)
        self.short_names = dict(short_names or names)  # what a side's label calls its seats
        self.side_of = tuple(side_of)
        self.sides = [tuple(s for s, side in enumerate(self.side_of) if side == number)
                      for number in range(max(self.side_of) + 1)]

    @classmethod
    def of(cls, state: State, names: Mapping[int, str], short_names: Mapping[int, str] | None = None) -> Seating:
        return cls(names, state.side_of, short_names)

    @property
    def partnerships(self) -> bool:
        return len(self.sides) < len(self.side_of)

    def name(self, seat: int) -> str:
        return self.names.get(seat, f"seat {seat}")

    def side_label(self, side: int) -> str:
        """``side A (you + seat 2)``; without partnerships a side is its seat's name."""
        if not self.partnerships:
            return self.name(self.sides[side][0])
        return f"side {SIDE_LETTERS[side]} ({' + '.join(self.short_names[s] for s in self.sides[side])})"

    def per_side(self, values: Sequence[Any]) -> list[Text]:
        """One figure per side, labelled, as atoms: ``side A (you + seat 2) 80,`` ``side B (seat 1 + seat 3) 60``."""
        return _punctuated([[atoms_of_side(self, side, value)] for side, value in enumerate(values)], ",")

    def scores(self, per_seat: Sequence[int]) -> list[Text]:
        """Match scores (one per seat, partners sharing theirs), per side."""
        return self.per_side([per_seat[seats[0]] for seats in self.sides])

    def counts_sides(self, value: Any) -> bool:
        return _is_figures(value) and len(value) == len(self.sides)

    def counts_seats(self, value: Any) -> bool:
        return _is_figures(value) and len(value) == len(self.side_of)


def atoms_of_side(seating: Seating, side: int, value: Any) -> Text:
    return Text(f"{seating.side_label(side)} ").append_text(Text(" ").join(atoms(value, seating)))


def _is_figures(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


# ---- values as atoms --------------------------------------------------------------------------------------------

def card_text(code: str) -> Text:
    return Text(code, style="red" if code[1] in RED_SUITS else "bold")


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v in CARD_OF_CODE for v in value)


def _is_play(value: Any) -> bool:
    """A ``[seat, card]`` entry of a trick."""
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[0], int)
            and not isinstance(value[0], bool) and isinstance(value[1], str))


def _is_trick_list(value: Any) -> bool:
    """A list of finished tricks, each a list of ``[seat, card]`` entries."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(t, list) and t and all(_is_play(p) for p in t) for t in value))


def atoms(value: Any, seating: Seating, key: str = "") -> list[Text]:
    """``value`` as the atoms a line is made of: cards, ``seat 1 8D`` entries, ``key: value`` pairs, ``yes``/``no``
    for truth values, a seat's name for the keys that hold a seat; ``-`` for nothing."""
    if value is None or (isinstance(value, list | Mapping) and not value):
        return [Text("-", style="dim")]
    if isinstance(value, str) and value in CARD_OF_CODE:
        return [card_text(value)]
    if _is_card_list(value):
        return [card_text(code) for code in value]
    if _is_play(value):
        return [Text(f"{seating.name(value[0])} ").append_text(atoms(value[1], seating)[0])]
    if isinstance(value, bool):
        return [Text("yes" if value else "no")]
    if isinstance(value, int) and key in SEAT_KEYS:
        return [Text(seating.name(value))]
    if seating.counts_sides(value):
        return seating.per_side(value)
    if isinstance(value, list):
        return _punctuated([atoms(item, seating) for item in value], ",")
    if isinstance(value, Mapping):
        return _punctuated([labelled(f"{name}:", atoms(item, seating, name)) for name, item in value.items()], ";")
    return [action_text(value) if isinstance(value, str) else Text(str(value))]


def _punctuated(parts: list[list[Text]], mark: str) -> list[Text]:
    """The parts' atoms in one list, ``mark`` closing every part but the last (``a,`` ``b,`` ``c``)."""
    out: list[Text] = []
    for number, part in enumerate(parts):
        part = list(part)
        if number < len(parts) - 1:
            part[-1] = part[-1].copy().append(mark)
        out.extend(part)
    return out


def labelled(label: str, items: list[Text]) -> list[Text]:
    return [Text(f"{label} ").append_text(items[0]), *items[1:]]


def label_of(key: str) -> str:
    return LABELS.get(key, key.replace("_", " ").capitalize())


# ---- observations -----------------------------------------------------------------------------------------------

def header_line(obs: Mapping[str, Any], seating: Seating, width: int) -> Text:
    """``Deal 1  dealer: seat 1  phase: play  scores: you 6, seat 1 5``."""
    items = [Text(f"Deal {obs['deal_index'] + 1}", style="bold"), Text(f" dealer: {seating.name(obs['dealer'])}"),
             Text(f" phase: {obs['phase']}"), *labelled(" scores:", seating.scores(obs["scores"]))]
    return flow(items, width, indent=2)


def game_rows(obs: Mapping[str, Any], seating: Seating) -> list[tuple[str, list[list[Text]]]]:
    """The observation's game-specific keys as (label, lines of atoms); finished tricks get a line each."""
    rows = []
    for key, value in obs.items():
        if key in COMMON_KEYS or (key in UNSET_HIDDEN and not value):
            continue
        if _is_trick_list(value):
            lines = [labelled(f"{number}:", _punctuated([atoms(play, seating) for play in trick], ","))
                     for number, trick in enumerate(value, 1)]
        elif seating.counts_seats(value):
            lines = [_punctuated([[Text(f"{seating.name(s)} {v}")] for s, v in enumerate(value)], ",")]
        else:
            lines = [atoms(value, seating, key)]
        rows.append((label_of(key), lines))
    return rows


def observation_lines(obs: Mapping[str, Any], seating: Seating, width: int) -> Text:
    """One row per game-specific key of the observation, labels in a column, values flowing between atoms."""
    rows = game_rows(obs, seating)
    column = max((len(label) for label, _ in rows), default=0) + 2
    lines = []
    for label, value_lines in rows:
        for number, items in enumerate(value_lines):
            line = Text(label if number == 0 else "", style="cyan")
            line.pad_right(column - len(line))
            lines.append(line.append_text(flow(items, width, indent=column, start=column)))
    return Text("\n").join(lines)


def card_line(obs: Mapping[str, Any], seating: Seating) -> list[Text]:
    """The observation's non-empty card lists (hand, table, trick) as atoms: ``hand 7C`` ``9C`` ``| table QS``."""
    out: list[Text] = []
    for key, value in obs.items():
        if key in COMMON_KEYS or not isinstance(value, list) or not value or _is_trick_list(value):
            continue
        if not all(isinstance(v, str) or _is_play(v) for v in value):
            continue
        items = labelled(("| " if out else "") + key.replace("_", " "), atoms(value, seating))
        out.extend(items)
    return out


# ---- moves ------------------------------------------------------------------------------------------------------

def hand_order(legal: Sequence[str], hand: Sequence[str] | None) -> list[str]:
    """The legal actions ordered by the position of their card in the hand (as the hand is shown), then as the
    engine lists them; actions without a card of the hand (bids, ``pass``) keep their order, after the cards.

    >>> hand_order(["3C", "9D:7H", "AD", "9D"], ["AD", "9D", "3C"])
    ['AD', '9D:7H', '9D', '3C']
    """
    if not hand:
        return list(legal)
    place = {card: number for number, card in enumerate(hand)}
    return sorted(legal, key=lambda action: place.get(action.partition(":")[0], len(place)))


def numbered_moves(moves: Sequence[str], width: int) -> Text:
    """``1) 7H   2) QS:3C,TD`` ..., the numbers a person may type instead of the move, broken only between moves."""
    items = [Text.assemble((f"{number})", "dim"), " ", action_text(move)) for number, move in enumerate(moves, 1)]
    return flow(items, width, sep="   ")


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


# ---- results ----------------------------------------------------------------------------------------------------

def deal_summary(result: Mapping[str, Any], scores: Sequence[int], seating: Seating, width: int) -> Text:
    """A finished deal: its points per side, its counters, and the match scores after it."""
    items = [Text(f"Deal {result['deal'] + 1} over.", style="bold"),
             *_closed(labelled("Points:", seating.per_side(result["points"])), ".")]
    for key, value in result.items():
        if key not in ("deal", "dealer", "points"):
            items.extend(_closed(labelled(f"{key.replace('_', ' ').capitalize()}:", atoms(value, seating, key)), "."))
    items += _closed(labelled("Match scores:", seating.scores(scores)), ".")
    return flow(items, width, indent=2)


def _closed(items: list[Text], mark: str) -> list[Text]:
    return [*items[:-1], items[-1].copy().append(mark)]


def match_result(state: State, seating: Seating, width: int) -> Text:
    """The end of a match: the winning seat (or side), the seats or sides that share first place, or no winner (a
    game whose rules end a match so, Boonaken 8.2)."""
    winners = state.winners or []
    sides = sorted({seating.side_of[seat] for seat in winners})
    who = _closed(_punctuated([[Text(seating.side_label(side))] for side in sides], " and"), ".") if sides else []
    verdict = labelled("Draw between" if len(sides) > 1 else "Winner:", who) if sides else [Text("No winner.")]
    items = [Text("Match over.", style="bold green"), *verdict,
             *_closed(labelled("Final scores:", seating.scores(state.scores)), ".")]
    return flow(items, width, indent=2)
