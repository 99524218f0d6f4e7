"""Playing one chunk of a job: the hot loop, and its compact result (integer counters and sums, no per-deal objects).

Everything in a :class:`ChunkResult` but ``seconds``, ``cpu_seconds`` and ``worker`` is a pure function of the job and
the chunk's deal numbers, and results add up exactly (integers), so summing chunk results in any grouping gives the
same totals.

>>> from workers.spec import JobSpec, validate
>>> spec = validate(JobSpec(game="german_whist", policies=("random",), count=20, seed=1))
>>> result = play_chunk(spec, Chunk(0, 0, 20))
>>> result.units, sum(result.wins) + result.draws
(20, 20)
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from engine.bots import label_parts, make_policies, play_out, policy_class
from engine.bots.plugins import CARDTABLE_PACKAGES
from engine.budget import Budget, Cancel, Cancelled
from replay.record import Recorder

from .counters import add_deal_counters
from .plan import Chunk, bot_seed, logged_numbers, match_seed, trace_stride
from .spec import JobSpec

# How many deals are played between two progress reports (and replay flushes, and looks whether to stop)...
REPORT_EVERY = 250
# ...or how long at most, when the deals are slow: a deal that ends this long after the last report reports, and a
# searching bot's decision (pimc, ismcts) under way then asks whether to stop, and is abandoned if so (the deal is not
# counted). A job's end so stops its tasks within about this long (see workers.runner).
LOOK_SECONDS = 0.2


class ReplaySink(Protocol):
    """Where a chunk's replays go: ``add`` buffers one, ``flush`` writes the buffer (one pipelined round trip)."""

    def add(self, number: int, data: bytes) -> None: ...

    def flush(self) -> None: ...


# Called with the number of deals done so far in the chunk; returning True stops the chunk (the job was cancelled, or
# its driver ended or left it).
OnProgress = Callable[[int], bool]


class DealFailed(RuntimeError):
    """A deal of a job could not be played: a policy raised, chose an illegal action or could not be built. The
    message names the policy, the deal and its seeds, and the move; playing the deal again fails the same way, so a
    chunk that raises it is not retried."""


class PolicyUnavailable(DealFailed):
    """A policy of the job cannot be loaded where the chunk runs (its code did not reach the worker, or fails to
    import there): no chunk of the job can be played there."""


def check_policies_load(spec: JobSpec) -> None:
    """Raise :class:`PolicyUnavailable` naming the first of the job's policies that cannot be loaded here."""
    for label in dict.fromkeys(spec.policies):
        try:
            policy_class(label_parts(label)[0])
        except Exception as exc:  # noqa: BLE001  (whatever the import raised, the job says it)
            reason = str(exc).removeprefix(f"policy {label_parts(label)[0]!r}: ")
            raise PolicyUnavailable(f"policy {label!r} cannot be loaded on worker {socket.gethostname()}:"
                                    f"{os.getpid()}: {reason}") from None


def deal_failure(spec: JobSpec, number: int, state: engine.State | None, exc: Exception) -> DealFailed:
    """What went wrong in deal (or match) ``number`` of a job (from 0, as its replay is numbered; a person reads it
    counted from 1), for a person to reproduce: ``state`` is the match as it was when ``exc`` was raised (None if the
    bots could not be built)."""
    seeds = f"match seed {match_seed(spec.seed, number)}, bot seed {bot_seed(spec.seed, number)}"
    where = _where_raised(exc)
    cause = f"{type(exc).__name__}: {exc}{where}"
    if state is None or state.current_player is None:
        return DealFailed(f"{spec.unit} {number + 1} of the job ({seeds}) could not be played: {cause}")
    seat = state.current_player
    return DealFailed(
        f"policy {spec.policies[seat]!r} (seat {seat}) failed at move {len(state.moves) + 1} of {spec.unit} "
        f"{number + 1} of the job ({seeds}; {spec.game} deal {state.deal_index + 1}, phase {state.phase}, legal "
        f"actions {', '.join(state.legal_actions())}): {cause}")


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OWN_CODE = tuple(os.path.join(_ROOT, package, "") for package in CARDTABLE_PACKAGES)


def _where_raised(exc: BaseException) -> str:
    """`` at FILE:LINE`` of the innermost frame outside cardtable's own code (a policy's line), or nothing."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if not frame.filename.startswith(_OWN_CODE)]
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


@dataclass
class ChunkResult:
    """What a chunk (or, summed, a whole job) played: per side totals, win counts, histograms and counters."""

    index: int
    first: int
    units: int = 0
    deals: int = 0
    moves: int = 0
    replays: int = 0
    score_sum: list[int] = field(default_factory=list)
    score_squares: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    draws: int = 0
    histograms: list[Counter] = field(default_factory=list)
    # Trace point -> [deals played, score sum of each side] over that stretch of deal numbers (see plan.trace_stride).
    trace: dict[int, list[int]] = field(default_factory=dict)
    counters: Counter = field(default_factory=Counter)
    # Each unit's score per side, in unit order, when the job keeps them (JobSpec.unit_scores: tournaments pair them).
    unit_scores: list[list[int]] = field(default_factory=list)
    # Each unit's row, as Arrow record batches, when the job keeps them (JobSpec.unit_rows: see workers.results):
    # handed to the driver's results file, never stored with the chunk's result.
    rows: list[Any] = field(default_factory=list)
    stopped: bool = False
    seconds: float = 0.0
    # The CPU time of the process that played it, while it did (its Redis writes included): what a deal costs a worker.
    cpu_seconds: float = 0.0
    worker: str = ""

    @classmethod
    def empty(cls, index: int, first: int, sides: int) -> ChunkResult:
        return cls(index, first, score_sum=[0] * sides, score_squares=[0] * sides, wins=[0] * sides,
                   histograms=[Counter() for _ in range(sides)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (histogram and trace keys become strings); :meth:`from_dict` reads it back."""
        return {
            "index": self.index, "first": self.first, "units": self.units, "deals": self.deals, "moves": self.moves,
            "replays": self.replays, "score_sum": self.score_sum, "score_squares": self.score_squares,
            "wins": self.wins, "draws": self.draws, "histograms": [dict(h) for h in self.histograms],
            "trace": self.trace, "counters": dict(self.counters), "unit_scores": self.unit_scores,
            "stopped": self.stopped,
            "seconds": self.seconds, "cpu_seconds": self.cpu_seconds, "worker": self.worker,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChunkResult:
        return cls(
            index=d["index"], first=d["first"], units=d["units"], deals=d["deals"], moves=d["moves"],
            replays=d["replays"], score_sum=list(d["score_sum"]), score_squares=list(d["score_squares"]),
            wins=list(d["wins"]), draws=d["draws"],
            histograms=[Counter({int(k): v for k, v in h.items()}) for h in d["histograms"]],
            trace={int(k): list(v) for k, v in d["trace"].items()}, counters=Counter(d["counters"]),
            unit_scores=[list(scores) for scores in d.get("unit_scores", [])],
            stopped=d["stopped"], seconds=d["seconds"], cpu_seconds=d.get("cpu_seconds", 0.0), worker=d["worker"],
        )


class _Watch(Cancel):
    """Whether a chunk should stop, asked of its ``on_progress`` at each report; and the cancel flag of its bots'
    decisions: a searching bot's meter looks at it every few milliseconds (see :mod:`engine.budget`), and a look
    ``LOOK_SECONDS`` after the last report asks again (reporting the same deals), so that a slow deal stops too."""

    __slots__ = ("ask", "reported", "next_look", "error")

    def __init__(self, ask: OnProgress) -> None:
        super().__init__()
        self.ask = ask
        self.reported = 0
        self.next_look = time.perf_counter() + LOOK_SECONDS
        self.error: Exception | None = None  # what a look from within a decision raised (raised again by play_chunk)

    def due(self) -> bool:
        return time.perf_counter() >= self.next_look

    def report(self, done: int) -> bool:
        """Report ``done`` deals (their replays written); True when the chunk should stop."""
        self.reported = done
        self.next_look = time.perf_counter() + LOOK_SECONDS
        if self.ask(done):
            self.reason = "the job's tasks were told to stop"
        return bool(self.reason)

    @property
    def why(self) -> str:
        if not self.reason and self.error is None and self.due():
            try:
                self.report(self.reported)
            except Exception as exc:  # noqa: BLE001  (a Redis outage, say: not the policy's fault, nor the deal's)
                self.error = exc
                self.reason = f"the chunk's progress report failed: {exc!r}"
        return self.reason


def play_chunk(spec: JobSpec, chunk: Chunk, sink: ReplaySink | None = None,
               on_progress: OnProgress | None = None, max_seconds: float | None = None) -> ChunkResult:
    """Play the chunk's deals (or matches) of a validated job; replays of the logged ones go to ``sink``. With
    ``max_seconds``, no deal is begun past that time: the result then holds the first deals only (``units``
    fewer than the chunk's), and the rest of the chunk can be played apart, the two results adding up to the chunk's.
    ``on_progress`` is called every ``REPORT_EVERY`` deals, or ``LOOK_SECONDS``, whichever comes first, and at the
    end; when it says to stop, the result holds the deals played (``stopped``; a deal under way is not counted).
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    until = started + max_seconds if max_seconds is not None else float("inf")
    check_policies_load(spec)
    game_class = engine.game_class(spec.game)
    options = spec.match_options()
    first_state = game_class.create(seed=match_seed(spec.seed, chunk.first), players=spec.players, options=options)
    side_of = first_state.side_of
    result = ChunkResult.empty(chunk.index, chunk.first, max(side_of) + 1)
    logged = set(logged_numbers(spec.log, spec.count, chunk)) if sink is not None else set()
    rows = _unit_rows(spec, first_state) if spec.unit_rows else None
    stride = trace_stride(spec.count)
    # Each decision of a searching bot stops at the job's time limit (the others are not slowed by it).
    budget = Budget(seconds=spec.bot_time_limit) if spec.bot_time_limit else None
    watch = _Watch(on_progress) if on_progress is not None else None
    for number in range(chunk.first, chunk.stop):
        state = first_state if number == chunk.first else game_class.create(
            seed=match_seed(spec.seed, number), players=spec.players, options=options)
        try:
            bots = make_policies(spec.policies, spec.game, bot_seed(spec.seed, number))
            if budget is not None or watch is not None:
                bots = [bot.bound(budget if budget is not None else bot.budget, watch) for bot in bots]
        except Exception as exc:
            raise deal_failure(spec, number, None, exc) from exc
        try:
            if sink is not None and number in logged:
                recorder = Recorder(state, spec.unit, spec.policies, seeded=True)
                moves = recorder.play_out(bots)
                sink.add(number, recorder.finish())
                result.replays += 1
            else:
                moves = play_out(state, bots)
        except Cancelled:  # a decision asked whether to stop (see _Watch): the deal under way is dropped
            if watch is not None and watch.error is not None:
                raise watch.error from None
            result.stopped = True
            break
        except Exception as exc:  # a policy's bug, or an engine's: either way, say where to look
            raise deal_failure(spec, number, state, exc) from exc
        result.moves += moves
        _count(result, state, side_of, number // stride)
        if rows is not None:
            rows.add(number, state, moves, logged=number in logged)
        if spec.unit_scores:
            result.unit_scores.append(list(state.side_scores))
        done = number - chunk.first + 1
        out_of_time = done < chunk.count and time.perf_counter() >= until
        if done % REPORT_EVERY == 0 or done == chunk.count or out_of_time or (watch is not None and watch.due()):
            if sink is not None:
                sink.flush()
            if watch is not None and watch.report(done) and done < chunk.count:
                result.stopped = True
                break
        if out_of_time:
            break
    if rows is not None:
        result.rows.append(rows.batch())
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu_started
    result.worker = f"{socket.gethostname()}:{os.getpid()}"
    return result


def _unit_rows(spec: JobSpec, first_state: engine.State) -> Any:
    from .results import UnitRows  # pyarrow (half a second to import) for the jobs that keep rows only

    return UnitRows(spec, first_state)


def _count(result: ChunkResult, state: engine.State, side_of: tuple[int, ...], trace_point: int) -> None:
    result.units += 1
    result.deals += len(state.deal_results)
    scores = state.side_scores
    point = result.trace.setdefault(trace_point, [0] * (len(scores) + 1))
    point[0] += 1
    for side, score in enumerate(scores):
        result.score_sum[side] += score
        result.score_squares[side] += score * score
        result.histograms[side][score] += 1
        point[side + 1] += score
    winning_sides = {side_of[seat] for seat in state.winners}
    if len(winning_sides) == 1:
        result.wins[winning_sides.pop()] += 1
    elif winning_sides:  # a tie at the top (a match nobody wins, as Boonaken's loser ends one, is neither)
        result.draws += 1
    for deal_result in state.deal_results:
        add_deal_counters(result.counters, deal_result)
