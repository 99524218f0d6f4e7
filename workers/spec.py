"""A simulation job, as data: which game, which bots in which seats, how many deals or matches, what to log.

A spec is checked once, up front (:func:`validate`), so a bad job fails with one clear message before anything runs;
the checked spec is what gets stored and planned. It round-trips through JSON (``to_dict`` / ``from_dict``).

A seat's policy is a label: its name and any parameters, ``greedy:epsilon=0.2`` (see :mod:`engine.bots.registry`);
the checked spec holds canonical labels, so the same bots always make the same spec.

>>> spec = validate(JobSpec(game="tablanette", policies=("greedy:epsilon=0.10", "random"), count=1000, seed=7))
>>> spec.players, spec.policies, spec.log.describe()
(2, ('greedy:epsilon=0.1', 'random'), 'none')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import engine
from engine.bots import canonical_label, make_policies

UNITS = ("deal", "match")
UNIT_PLURALS = {"deal": "deals", "match": "matches"}
LOG_MODES = ("none", "all", "sample")
MAX_COUNT = 1_000_000_000
MAX_CHUNK_SIZE = 100_000
# A job's chunks each cost a task and a stored result (the driver reads them all back to add them up): a job of the
# most deals still fits in this many chunks of the largest size.
MAX_CHUNKS = 100_000
MAX_SEED = (1 << 64) - 1
# Chunks are cheap but not free (one task, one Redis round trip or two): aim for about this many per job.
TARGET_CHUNKS = 64
DEFAULT_MAX_CHUNK = 1000
# A bot's decision may be limited to this many seconds at most (0: no limit): past a minute a job of a few hundred
# deals takes days, and a longer search than that is asked for in work (the policies' own parameters), not time.
MAX_BOT_TIME_LIMIT = 60.0


class JobSpecError(ValueError):
    """A job that cannot run, with a message that says what to change."""


@dataclass(frozen=True)
class LogSpec:
    """Which replays go to the store: ``none``, ``all``, or ``sample`` (``size`` deals spread evenly over the job).

    >>> LogSpec.parse("sample:50")
    LogSpec(mode='sample', size=50)
    """

    mode: str = "none"
    size: int = 0

    @classmethod
    def parse(cls, text: str) -> LogSpec:
        """``"all"``, ``"none"`` or ``"sample:K"``; JobSpecError otherwise."""
        mode, _, size = text.strip().lower().partition(":")
        if mode == "sample":
            try:
                return cls("sample", int(size))
            except ValueError:
                raise JobSpecError(f"a sample is written sample:K (K deals), not {text!r}") from None
        if mode in ("all", "none") and not size:
            return cls(mode)
        raise JobSpecError(f"log must be all, none or sample:K, not {text!r}")

    def describe(self) -> str:
        return f"sample:{self.size}" if self.mode == "sample" else self.mode


@dataclass(frozen=True)
class JobSpec:
    """What to simulate. ``policies`` labels one policy per seat (or one for every seat, or one per side);
    ``count`` is how many ``unit``s to play (single deals, or whole matches); ``chunk_size`` 0 picks one."""

    game: str
    policies: tuple[str, ...]
    count: int
    seed: int
    unit: str = "deal"
    players: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    log: LogSpec = LogSpec()
    chunk_size: int = 0
    unit_scores: bool = False  # keep each unit's side scores in the results (tournaments pair the deals)
    unit_rows: bool = False  # a row per unit for a results file (workers.results; `cardtable simulate --results`)
    # Seconds of wall clock each decision of a searching bot may take (engine.budget; 0: no limit). Under a limit,
    # where a search stops depends on the machine and its load, so the results are no longer a function of the seed.
    bot_time_limit: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["policies"] = list(self.policies)
        out["options"] = dict(self.options)
        out["log"] = self.log.describe()
        if not self.bot_time_limit:  # left out unless set: a job without one stores (and shows) as it did before
            del out["bot_time_limit"]
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> JobSpec:
        """The inverse of :meth:`to_dict` (the result is not validated again)."""
        return cls(game=d["game"], policies=tuple(d["policies"]), count=d["count"], seed=d["seed"], unit=d["unit"],
                   players=d["players"], options=dict(d["options"]), log=LogSpec.parse(d["log"]),
                   chunk_size=d["chunk_size"], unit_scores=d.get("unit_scores", False),
                   unit_rows=d.get("unit_rows", False), bot_time_limit=d.get("bot_time_limit", 0.0))

    def match_options(self) -> dict[str, Any]:
        """The options each match is created with: a deal job plays single-deal matches."""
        return {**self.options, "max_deals": 1} if self.unit == "deal" else dict(self.options)


def validate(spec: JobSpec) -> JobSpec:
    """The spec with its defaults resolved (players, a policy per seat, chunk size); JobSpecError when it cannot run."""
    try:
        engine.game_info(spec.game)
    except engine.UnknownGame as exc:
        raise JobSpecError(str(exc)) from None
    if spec.unit not in UNITS:
        raise JobSpecError(f"unit must be one of {', '.join(UNITS)}, not {spec.unit!r}")
    _check_int("count", spec.count, 1, MAX_COUNT, what=f"the number of {UNIT_PLURALS[spec.unit]}")
    _check_int("seed", spec.seed, 0, MAX_SEED)
    _check_int("chunk_size", spec.chunk_size, 0, MAX_CHUNK_SIZE, what="deals per chunk (0 picks one)")
    check_bot_time_limit(spec.bot_time_limit)
    if spec.unit == "deal" and spec.options.get("max_deals", 1) != 1:
        raise JobSpecError("a deal job plays single deals, so max_deals cannot be set; simulate whole matches "
                           "(unit 'match') to play several deals per match")
    probe = _probe_match(spec)
    policies = _policies_per_seat(spec.policies, probe)
    try:
        make_policies(policies, spec.game, 0)
    except ValueError as exc:
        raise JobSpecError(str(exc)) from None
    log = _check_log(spec.log, spec.count)
    chunk_size = spec.chunk_size or default_chunk_size(spec.count)
    _check_chunks(spec.count, chunk_size, UNIT_PLURALS[spec.unit])
    return replace(spec, players=probe.players, policies=tuple(policies), log=log, chunk_size=chunk_size,
                   options=dict(spec.options))


def default_chunk_size(count: int) -> int:
    """Enough chunks to keep every worker busy and to retry cheaply, few enough that task overhead stays small (and
    never more than ``MAX_CHUNKS``)."""
    return max(1, min(DEFAULT_MAX_CHUNK, math.ceil(count / TARGET_CHUNKS)), math.ceil(count / MAX_CHUNKS))


def _check_chunks(count: int, chunk_size: int, units: str) -> None:
    chunks = math.ceil(count / chunk_size)
    if chunks > MAX_CHUNKS:
        raise JobSpecError(f"{count:,} {units} in chunks of {chunk_size:,} make {chunks:,} chunks, more than the "
                           f"{MAX_CHUNKS:,} a job may have: use chunks of at least {math.ceil(count / MAX_CHUNKS):,} "
                           f"{units} (or 0 to pick a size)")


def check_bot_time_limit(seconds: Any) -> None:
    """JobSpecError unless ``seconds`` is a number of seconds from 0 (no limit) to ``MAX_BOT_TIME_LIMIT``.

    >>> check_bot_time_limit(-1)
    Traceback (most recent call last):
    workers.spec.JobSpecError: a bot's time limit must be from 0 (no limit) to 60 seconds a decision, not -1
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        raise JobSpecError(f"a bot's time limit is a number of seconds a decision, not {seconds!r}")
    if not 0 <= seconds <= MAX_BOT_TIME_LIMIT:  # NaN fails this too
        raise JobSpecError(f"a bot's time limit must be from 0 (no limit) to {MAX_BOT_TIME_LIMIT:g} seconds a "
                           f"decision, not {seconds!r}")


def _check_int(name: str, value: Any, low: int, high: int, what: str | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise JobSpecError(f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        named = f"{name} ({what})" if what else name
        raise JobSpecError(f"{named} must be between {low:,} and {high:,}, not {value:,}")


def _probe_match(spec: JobSpec) -> engine.State:
    try:
        return engine.new_match(spec.game, seed=0, players=spec.players, options=spec.match_options())
    except ValueError as exc:
        raise JobSpecError(str(exc)) from None


def _policies_per_seat(labels: Sequence[str], probe: engine.State) -> list[str]:
    """One canonical label per seat, from one per seat, one for all seats, or one per side (partners play alike)."""
    try:
        names = [canonical_label(str(label)) for label in labels]  # canonical: the same bots make the same spec
    except ValueError as exc:
        raise JobSpecError(str(exc)) from None
    seats = probe.players
    sides = max(probe.side_of) + 1
    if len(names) == seats:
        return names
    if len(names) == 1:
        return names * seats
    if len(names) == sides:
        return [names[probe.side_of[seat]] for seat in range(seats)]
    per_side = f" or {sides} (one per side)" if sides != seats else ""
    raise JobSpecError(f"{probe.INFO.name} with {seats} players needs {seats} policies (one per seat){per_side} "
                       f"or 1 for every seat, got {len(names)}: {','.join(names) or 'none'}")


def _check_log(log: LogSpec, count: int) -> LogSpec:
    if log.mode not in LOG_MODES:
        raise JobSpecError(f"log must be all, none or sample:K, not {log.mode!r}")
    if log.mode != "sample":
        return LogSpec(log.mode)
    if not 1 <= log.size <= count:
        raise JobSpecError(f"a sample logs between 1 and {count:,} (the job's size) replays, not {log.size:,}")
    return log
