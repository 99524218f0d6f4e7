"""The replay format, version 2: bytes <-> a header and the packed move ordinals.

Layout (all varints are unsigned LEB128, see :mod:`replay.packing`)::

    magic          2 bytes  b"CT"
    version        varint   2 (1 is still read: see below)
    flags          varint   1 scope is the match (else one deal) | 2 options follow | 4 explicit deck |
                            8 a later deal (deal index, dealer, scores follow) | 16 one policy per seat |
                            32 the first dealer was given (else the engine drew it) | 64 carried values follow
    game           varint   index + 1 in GAME_CODES, or 0 and the game id as text (varint length + UTF-8)
    players        varint
    seed           varint
    first dealer   varint   (flag 32)
    policies       varint   one (or, with flag 16, one per seat): index + 1 in POLICY_CODES, or 0 and text
    options        (flag 2) varint count, then per option: varint index in the game's declared options
                   (``engine.game_info(game).all_options()``) and a tagged value: 0 null, 1 false, 2 true,
                   3 int (zigzag varint), 4 text; only options that differ from the default are written
    later deal     (flag 8) varint deal index, varint dealer, zigzag varint match score of each seat before the deal,
                   8 bytes (little-endian) the engine RNG's state at the deal's start (a redeal may cut with it)
    carried        (flag 64, with flag 8) varint count, then per value: varint index in the game's ``CARRIED`` keys
                   (``engine.game_class(game).CARRIED``: what a deal inherits from the deals before it, such as the
                   deals thrown in so far and Belote's litige pot) and its zigzag varint; only values that are not 0
    move count     varint
    ordinals       the rest but 4 bytes: one mixed-radix integer (minimal little-endian) whose digits are, least
                   significant first, the Lehmer code of the deck (flag 4) then each move's ordinal in the legal-
                   action list (radix: the number of legal actions; a forced move costs nothing)
    crc            4 bytes  CRC-32 (zlib, little-endian) of everything before it

Version 2 stores each move as its ordinal in ``legal_action_ids()``; in the fishing games a capture is decided in
steps (``KS:``, ``+4C``, ``+TD``; see :mod:`engine.fishing`), each step a move. Version 1 is the same layout, but
a fishing game's move was a whole turn: its ordinal in ``legal_turn_ids()`` (every whole turn, in string order),
which :mod:`replay.record` replays as the steps that make it up. Version 1 is read, never written.

A deal replay without flags 4 and 8 starts from ``engine.new_match(game, seed, players, options, first_dealer)``,
so the common case (a fresh match, a seeded shuffle) needs no deck. The radices come from replaying the engine:
see :mod:`replay.record`, which turns a frame into moves and checks every one.

>>> header = Header(game="tablanette", players=2, seed=7, policies=("random", "random"))
>>> frame = decode_frame(encode(header, [(1, 3), (0, 1)], move_count=2))
>>> frame.header == header, frame.move_count, frame.digits.take(3)
(True, 2, 1)
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine

from .errors import ReplayError
from .packing import ByteReader, ByteWriter, IntDigits, digits_to_int, int_to_bytes

MAGIC = b"CT"
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
CRC_BYTES = 4
RNG_BYTES = 8
MAX_PLAYERS = 16

# Append-only tables: a game or policy keeps its code forever (others are written as text).
GAME_CODES = ("tablanette", "tablic", "german_whist", "belote_contree", "belote", "trappola", "two_ten_jack",
              "tres", "botifarra", "thunee", "boonaken")
POLICY_CODES = ("", "random", "greedy", "pimc", "human", "ismcts")

SCOPE_MATCH = 1
HAS_OPTIONS = 2
EXPLICIT_DECK = 4
LATER_DEAL = 8
PER_SEAT_POLICIES = 16
FIRST_DEALER_GIVEN = 32
CARRIED = 64
KNOWN_FLAGS = 127

SCOPES = ("deal", "match")

_NULL, _FALSE, _TRUE, _INT, _TEXT = range(5)


@dataclass(frozen=True)
class Header:
    """What a replay starts from.

    ``options`` holds only non-default values; ``first_dealer`` is None when the engine drew it; ``policies`` names
    each seat's player (``""`` when unknown): a policy label, so a bot with parameters is written as text with them
    (``greedy:epsilon=0.2``; see :mod:`engine.bots.registry`) while a plain name keeps its one-byte code. A later
    deal of a match (``deal_index > 0``) also carries its ``dealer``, the match ``scores`` before it, its ``deck`` and
    the engine ``rng`` state at its start and, in ``carried``, what else it inherits from the deals before it
    (the game's ``CARRIED`` position keys whose value is not 0); ``deck`` (card codes, top first) is also set when
    the first deal's deck did not come from the seeded shuffle.
    """

    game: str
    players: int
    seed: int
    scope: str = "deal"
    options: Mapping[str, Any] = field(default_factory=dict)
    first_dealer: int | None = None
    policies: tuple[str, ...] = ()
    deal_index: int = 0
    dealer: int | None = None
    scores: tuple[int, ...] | None = None
    deck: tuple[str, ...] | None = None
    rng: int | None = None
    carried: Mapping[str, int] = field(default_factory=dict)

    @property
    def is_later_deal(self) -> bool:
        return self.deal_index > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; :func:`header_from_dict` reads it back."""
        out: dict[str, Any] = {
            "game": self.game,
            "players": self.players,
            "options": dict(self.options),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "policies": list(self.policies),
            "scope": self.scope,
            "deal_index": self.deal_index,
        }
        if self.is_later_deal:
            out["dealer"] = self.dealer
            out["scores_before"] = list(self.scores or ())
            out["rng"] = self.rng
            if self.carried:
                out["carried"] = dict(self.carried)
        if self.deck is not None:
            out["deck"] = list(self.deck)
        return out


def header_from_dict(d: Mapping[str, Any]) -> Header:
    """The header of an exported JSON replay; ReplayError for a missing or mistyped field."""
    if not isinstance(d, Mapping):
        raise ReplayError("bad replay JSON header: it is not an object")
    try:
        players = _json_field(d, "players", int)
        if not 1 <= players <= MAX_PLAYERS:
            raise ReplayError(f"bad replay JSON header: players must be 1..{MAX_PLAYERS}, got {players}")
        later = _json_field(d, "deal_index", int, 0) > 0
        options = _json_field(d, "options", dict, {})
        policies = _json_field(d, "policies", list, [""] * players)
        deck = _json_field(d, "deck", list, None)
        header = Header(
            game=_json_field(d, "game", str), players=players, seed=_json_field(d, "seed", int),
            scope=_json_field(d, "scope", str, "deal"), options=options,
            first_dealer=_json_field(d, "first_dealer", int, None), policies=tuple(policies),
            deal_index=_json_field(d, "deal_index", int, 0),
            dealer=_json_field(d, "dealer", int) if later else None,
            scores=tuple(_json_field(d, "scores_before", list)) if later else None,
            rng=_json_field(d, "rng", int) if later else None,
            carried=_json_field(d, "carried", dict, {}) if later else {},
            deck=tuple(deck) if deck is not None else None,
        )
    except KeyError as exc:
        raise ReplayError(f"bad replay JSON header: missing field {exc}") from None
    if not all(isinstance(k, str) for k in options) or not all(isinstance(p, str) for p in policies):
        raise ReplayError("bad replay JSON header: option names and policies are strings")
    return header


def _json_field(d: Mapping[str, Any], name: str, kind: type, *default: Any) -> Any:
    value = d.get(name, *default) if default else d[name]
    if value is None and default and default[0] is None:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise ReplayError(f"bad replay JSON header: {name} must be {kind.__name__}, got {value!r}")
    return value


@dataclass
class Frame:
    """A checked replay frame: the header (its deck still packed in ``digits``) and the ordinals to take."""

    header: Header
    explicit_deck: bool
    move_count: int
    digits: IntDigits
    version: int = FORMAT_VERSION


# ---- encoding -----------------------------------------------------------------------------------------------------

def encode(header: Header, digits: Sequence[tuple[int, int]], move_count: int) -> bytes:
    """The replay bytes of ``header`` and its ``(digit, radix)`` pairs (deck Lehmer code first, then the moves)."""
    _check_header(header)
    flags = _flags(header)
    w = ByteWriter()
    w.raw(MAGIC)
    w.varint(FORMAT_VERSION)
    w.varint(flags)
    _write_code(w, header.game, GAME_CODES)
    w.varint(header.players)
    w.varint(header.seed)
    if header.first_dealer is not None:  # flag FIRST_DEALER_GIVEN
        w.varint(header.first_dealer)
    for name in header.policies if flags & PER_SEAT_POLICIES else header.policies[:1]:
        _write_code(w, name, POLICY_CODES)
    if flags & HAS_OPTIONS:
        _write_options(w, header)
    if flags & LATER_DEAL:
        assert header.dealer is not None and header.scores is not None and header.rng is not None  # _check_header
        w.varint(header.deal_index)
        w.varint(header.dealer)
        for score in header.scores:
            w.signed(score)
        w.raw(header.rng.to_bytes(RNG_BYTES, "little"))
    if flags & CARRIED:
        keys = engine.game_class(header.game).CARRIED
        w.varint(len(header.carried))
        for index, key in enumerate(keys):
            if key in header.carried:
                w.varint(index)
                w.signed(header.carried[key])
    w.varint(move_count)
    w.raw(int_to_bytes(digits_to_int(digits)))
    w.raw(zlib.crc32(w.data).to_bytes(CRC_BYTES, "little"))
    return bytes(w.data)


def _check_header(h: Header) -> None:
    if h.scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {h.scope!r}")
    if len(h.policies) != h.players:
        raise ValueError(f"policies must name each of the {h.players} seats, got {list(h.policies)}")
    if not 0 <= h.seed < 1 << 64:
        raise ValueError(f"seed must fit in 64 bits, got {h.seed}")
    if h.is_later_deal:
        if h.scope != "deal" or h.dealer is None or h.scores is None or h.deck is None or h.rng is None:
            raise ValueError("a later deal is replayed on its own: scope 'deal' with its dealer, scores, deck, rng")
        if not 0 <= h.rng < 1 << 64:
            raise ValueError(f"rng must be a 64-bit state, got {h.rng}")
        if len(h.scores) != h.players:
            raise ValueError(f"scores must list {h.players} seats, got {list(h.scores)}")
    if h.carried:
        keys = engine.game_class(h.game).CARRIED
        if not h.is_later_deal:
            raise ValueError("only a later deal carries values from the deals before it")
        unknown = sorted(set(h.carried) - set(keys))
        if unknown:
            raise ValueError(f"{h.game} carries no {', '.join(unknown)} from deal to deal; "
                             f"it carries {', '.join(keys)}")
        if not all(type(v) is int and v != 0 for v in h.carried.values()):
            raise ValueError(f"carried values are integers other than 0, got {dict(h.carried)}")


def _flags(h: Header) -> int:
    flags = SCOPE_MATCH if h.scope == "match" else 0
    if h.options:
        flags |= HAS_OPTIONS
    if h.deck is not None:
        flags |= EXPLICIT_DECK
    if h.is_later_deal:
        flags |= LATER_DEAL
    if len(set(h.policies)) > 1:
        flags |= PER_SEAT_POLICIES
    if h.first_dealer is not None:
        flags |= FIRST_DEALER_GIVEN
    if h.carried:
        flags |= CARRIED
    return flags


def _write_code(w: ByteWriter, name: str, table: tuple[str, ...]) -> None:
    if name in table:
        w.varint(table.index(name) + 1)
    else:
        w.varint(0)
        w.text(name)


def _write_options(w: ByteWriter, h: Header) -> None:
    engine.check_options(h.game, h.options)
    declared = [o.name for o in engine.game_info(h.game).all_options()]
    w.varint(len(h.options))
    for index, name in enumerate(declared):
        if name in h.options:
            w.varint(index)
            _write_value(w, h.options[name])


def _write_value(w: ByteWriter, value: Any) -> None:
    if value is None:
        w.varint(_NULL)
    elif isinstance(value, bool):
        w.varint(_TRUE if value else _FALSE)
    elif isinstance(value, int):
        w.varint(_INT)
        w.signed(value)
    elif isinstance(value, str):
        w.varint(_TEXT)
        w.text(value)
    else:
        raise ValueError(f"an option value is null, a bool, an int or a string, got {value!r}")


# ---- decoding -----------------------------------------------------------------------------------------------------

def check_bytes(data: bytes) -> None:
    """The cheap checks of a stored replay, without the engine: magic, format version and CRC."""
    if (type(data) is bytes and len(data) > len(MAGIC) + CRC_BYTES and data.startswith(MAGIC)
            and data[len(MAGIC)] in READ_VERSIONS
            and zlib.crc32(memoryview(data)[:-CRC_BYTES]) == int.from_bytes(data[-CRC_BYTES:], "little")):
        return  # the fast path of a good replay; anything else is looked at closely below
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ReplayError(f"a replay is bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) < len(MAGIC) + 1 + CRC_BYTES:
        raise ReplayError(f"truncated replay: {len(data)} bytes is shorter than the smallest replay")
    if data[:len(MAGIC)] != MAGIC:
        raise ReplayError(f"not a cardtable replay: it starts with {data[:len(MAGIC)].hex()}, not {MAGIC.hex()}")
    version = ByteReader(data, len(MAGIC)).varint("the format version")
    if version not in READ_VERSIONS:
        raise ReplayError(f"replay format version {version} is not supported (this cardtable reads versions "
                          f"{', '.join(map(str, READ_VERSIONS))})")
    body_end = len(data) - CRC_BYTES
    stored = int.from_bytes(data[body_end:], "little")
    actual = zlib.crc32(data[:body_end])
    if stored != actual:
        raise ReplayError(f"corrupt or truncated replay: CRC-32 is {actual:08x} but the record says {stored:08x}")


def decode_frame(data: bytes) -> Frame:
    """Check the magic, version and CRC and read the header; the ordinals stay packed for the engine to take."""
    check_bytes(data)
    data = bytes(data)
    body_end = len(data) - CRC_BYTES
    r = ByteReader(data, len(MAGIC), body_end)
    version = r.varint("the format version")
    flags = r.varint("the flags")
    if flags & ~KNOWN_FLAGS:
        raise ReplayError(f"corrupt replay: unknown flag bits {flags & ~KNOWN_FLAGS:#x}")
    game = _read_code(r, GAME_CODES, "game")
    try:
        engine.game_info(game)
    except engine.UnknownGame as exc:
        raise ReplayError(str(exc)) from None
    players = r.varint("the player count")
    if players not in engine.game_info(game).player_counts:
        raise ReplayError(f"{game} is not played by {players} players")
    seed = r.varint("the seed")
    if seed >= 1 << 64:
        raise ReplayError(f"corrupt replay: seed {seed} does not fit in 64 bits")
    first_dealer = _read_seat(r, players, "the first dealer") if flags & FIRST_DEALER_GIVEN else None
    if flags & PER_SEAT_POLICIES:
        policies = tuple(_read_code(r, POLICY_CODES, f"seat {seat}'s policy") for seat in range(players))
    else:
        policies = (_read_code(r, POLICY_CODES, "the policy"),) * players
    options = _read_options(r, game) if flags & HAS_OPTIONS else {}
    deal_index, dealer, scores, rng = 0, None, None, None
    if flags & LATER_DEAL:
        if flags & SCOPE_MATCH or not flags & EXPLICIT_DECK:
            raise ReplayError("corrupt replay: a later deal must be a deal replay with its deck")
        deal_index = r.varint("the deal index")
        if deal_index == 0:
            raise ReplayError("corrupt replay: a later deal has deal index 0")
        dealer = _read_seat(r, players, "the dealer")
        scores = tuple(r.signed(f"seat {seat}'s score") for seat in range(players))
        rng = int.from_bytes(r.raw(RNG_BYTES, "the RNG state"), "little")
    carried = _read_carried(r, game) if flags & CARRIED else {}
    if carried and not flags & LATER_DEAL:
        raise ReplayError("corrupt replay: only a later deal carries values from the deals before it")
    move_count = r.varint("the move count")
    header = Header(game=game, players=players, seed=seed, scope=SCOPES[flags & SCOPE_MATCH], options=options,
                    first_dealer=first_dealer, policies=policies, deal_index=deal_index, dealer=dealer,
                    scores=scores, rng=rng, carried=carried)
    _check_move_count(header, move_count)
    return Frame(header, bool(flags & EXPLICIT_DECK), move_count, IntDigits.from_bytes(r.rest()), version)


def _check_move_count(header: Header, move_count: int) -> None:
    """A forged count (past 2**32, say) is refused with the header: no match of the game has that many moves."""
    try:
        most = engine.game_length(header.game, header.players, header.options).moves
    except (ValueError, TypeError) as exc:
        raise ReplayError(f"the header does not start a {header.game} match: {exc}") from None
    if move_count > most:
        raise ReplayError(f"corrupt replay: it holds {move_count:,} moves, more moves than a {header.game} match "
                          f"can take ({most:,}, engine.game_length)")


def _read_code(r: ByteReader, table: tuple[str, ...], field_name: str) -> str:
    code = r.varint(field_name)
    if code == 0:
        return r.text(field_name)
    if code > len(table):
        raise ReplayError(f"corrupt replay: {field_name} code {code} is unknown (codes go up to {len(table)})")
    return table[code - 1]


def _read_seat(r: ByteReader, players: int, field_name: str) -> int:
    seat = r.varint(field_name)
    if seat >= players:
        raise ReplayError(f"corrupt replay: {field_name} is seat {seat} of a {players}-player game")
    return seat


def _read_carried(r: ByteReader, game: str) -> dict[str, int]:
    keys = engine.game_class(game).CARRIED
    return _read_indexed(r, game, "carried", keys, lambda key: r.signed(f"the carried {key}"))


def _read_options(r: ByteReader, game: str) -> dict[str, Any]:
    names = tuple(option.name for option in engine.game_info(game).all_options())
    return _read_indexed(r, game, "option", names, lambda name: _read_value(r, name))


def _read_indexed(r: ByteReader, game: str, what: str, names: tuple[str, ...],
                  read: Callable[[str], Any]) -> dict[str, Any]:
    """A count, then that many (index in ``names``, value) pairs, indexes strictly rising."""
    count = r.varint(f"the {what} count")
    values: dict[str, Any] = {}
    last = -1
    for _ in range(count):
        index = r.varint(f"a {what} index")
        if not last < index < len(names):
            raise ReplayError(f"corrupt replay: {what} index {index} is out of order or unknown "
                              f"({game} has {len(names)} {what} values)")
        last = index
        values[names[index]] = read(names[index])
    return values


def _read_value(r: ByteReader, name: str) -> Any:
    tag = r.varint(f"option {name}")
    if tag == _NULL:
        return None
    if tag in (_FALSE, _TRUE):
        return tag == _TRUE
    if tag == _INT:
        return r.signed(f"option {name}")
    if tag == _TEXT:
        return r.text(f"option {name}")
    raise ReplayError(f"corrupt replay: option {name} has unknown value tag {tag}")
