"""Live matches as the APIs serve them: create, load, play a person's move, save a finished match's replay.

The gRPC GameService and the web app (:mod:`services.web`) both call this; each only translates requests and answers.
Every call loads the match from Redis, works on it with the engine and writes it back with a compare-and-set on its
version, so any number of server processes can share one Redis. The only thing a process keeps is a cache of the
matches it saved last (``MatchCache``): a move computed on a cached match is checked by the same compare-and-set.

    matches = LiveMatches(MatchStore(redis_client), backends.save_replay)
    created = await matches.create("tablanette", [Seat("person"), Seat("bot", "greedy")], {}, seed=7)
    acted = await matches.act(created.match.match_id, 0, created.tokens[0], "7H", created.match.version)
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import secrets
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.budget import Budget, Cancel
from engine.state import State

from ..lifecycle import abandonable, follow_parent
from ..logs import logged_process
from ..match_store import MatchStore, Move
from .budgets import DEFAULT_BOT_BUDGET
from .errors import Aborted, InvalidArgument, NotFound, ServiceError, quoted
from .limits import Clients
from .matches import LiveMatch, MatchCache, Played, Seat, build_replay
from .paging import page_size, start_of, token_of
from .watchers import MatchWatchers

log = logging.getLogger("cardtable.matches")

DEFAULT_LIVE_PAGE, MAX_LIVE_PAGE = 20, 100  # matches in play per page (each one loaded and viewed)
# How long the quick bots' replies to a move may play on the event loop before the rest goes to a worker thread.
QUICK_SLICE_S = 0.002
REPLAY_ID_WAIT_S = 5.0  # how long a watcher waits for the final move's replay id (written right after that move)

# Saves a finished match's replay bytes and returns its replay id.
ReplaySink = Callable[[bytes], Awaitable[str]]

T = TypeVar("T")

_replay_builders: ProcessPoolExecutor | None = None


@dataclass
class Created:
    """A new match, its person seats' tokens and the bots' opening moves."""

    match: LiveMatch
    tokens: dict[int, str]
    played: list[Played]


@dataclass
class Watched:
    """What a watcher gets: the match's state after ``number`` moves and, but for the first event (the snapshot), the
    move that led there; ``replay_id`` once the match is over. The state is the watch's own and moves on after the
    next event is asked for: read it before."""

    state: State
    number: int
    move: Played | None
    replay_id: str


@dataclass
class Acted:
    """The match after a person's move, the moves played (the person's and the bots' replies) and, once the match
    is over, its replay id."""

    match: LiveMatch
    played: list[Played]
    replay_id: str


class LiveMatches:
    """Live matches in a :class:`MatchStore`; finished ones are saved as replays through ``save_replay``. Each bot
    decision is bounded by ``budget`` and abandoned when its call is cancelled (a deadline passed, the client left) or
    when ``stopping`` (the server's flag) is raised."""

    def __init__(self, store: MatchStore, save_replay: ReplaySink | None = None, cache_size: int = 4096,
                 clients: Clients | None = None, budget: Budget = DEFAULT_BOT_BUDGET,
                 stopping: Cancel | None = None) -> None:
        self.store = store
        self.save_replay = save_replay
        self.cache = MatchCache(cache_size)
        self.clients = clients or Clients()
        self.budget = budget
        self.stopping = stopping or Cancel()

    async def create(self, game_id: str, seats: Sequence[Seat], options: dict[str, Any], seed: int,
                     first_dealer: int | None = None, client: str = "") -> Created:
        """Create a match (the bots to act first play at once) and store it; ``client`` (who asks) is held to the
        per-client limits (ResourceExhausted beyond one)."""
        async with self.clients.match_place(client, self.store.in_play) as place:
            created = await self._create(game_id, seats, options, seed, first_dealer)
            place.take(created.match.match_id)
        return created

    async def _create(self, game_id: str, seats: Sequence[Seat], options: dict[str, Any], seed: int,
                      first_dealer: int | None) -> Created:
        match_id = secrets.token_hex(8)
        match, tokens, played = await self._bots_move(LiveMatch.create, game_id, seats, options, seed,
                                                      first_dealer, match_id)
        if not await self.store.create(match_id, match.meta, match.state.to_position(), match.new_moves(),
                                       finished=match.state.is_terminal):
            raise Aborted(f"match id {match_id} is taken; create the match again")
        log.info("match created", extra={"match_id": match_id, "game": game_id, "seats": [s.policy for s in seats]})
        match.saved()
        await self._finish_if_over(match)
        if not match.state.is_terminal:
            self.cache.put(match)
        return Created(match, tokens, played)

    async def load(self, match_id: str, with_history: bool = True) -> LiveMatch:
        """The stored match; NotFound if there is none."""
        if not match_id:
            raise InvalidArgument("match_id is empty")
        stored = await self.store.load(match_id, with_log=with_history)
        if stored is None:
            raise NotFound(f"no match {quoted(match_id)}")
        return LiveMatch.load(stored)

    async def page_in_play(self, page_token: str, size: int) -> tuple[list[LiveMatch], str]:
        """A page of the matches in play, newest first, without their histories (``size`` 0: the default page, at
        most MAX_LIVE_PAGE), and the token of the next page ("" after the last)."""
        stored, next_start = await self.store.live(page_size(size, DEFAULT_LIVE_PAGE, MAX_LIVE_PAGE),
                                                   start_of(page_token))
        return await asyncio.to_thread(lambda: [LiveMatch.load(s) for s in stored]), token_of(next_start)

    async def act(self, match_id: str, seat: int, token: str, action: str, expected_move_number: int) -> Acted:
        """Play a person's move and the bots' replies, and store them; nothing changes if the move is refused.

        The move and the quick bots' replies are played right here (a few dozen microseconds, less than handing them
        to a worker thread costs); a searching bot, or what is left after ``QUICK_SLICE_S``, in a worker thread."""
        cached = self.cache.take(match_id)
        fresh = cached is None or cached.version != expected_move_number
        match = await self.load(match_id, with_history=False) if fresh or cached is None else cached
        request = (seat, token, action, expected_move_number)
        try:
            played = match.play_move(*request)
        except ServiceError:
            if fresh:
                raise
            # The cached match may be behind the store: judge the request on the stored match.
            match = await self.load(match_id, with_history=False)
            played = match.play_move(*request)
        played += match.play_bots(self.budget, quick_for=QUICK_SLICE_S)
        if match.bot_to_act():
            played += await self._bots_move(match.play_bots)
        before = match.loaded_version
        if not await self.store.commit(match.match_id, before, match.state.to_position, match.new_moves(),
                                       finished=match.state.is_terminal):
            raise Aborted(f"stale move number: match {match.match_id} moved on from move {before} while this move "
                          "was being played; read the match again")
        match.saved()
        replay_id = await self._finish_if_over(match)
        if not match.state.is_terminal:
            self.cache.put(match)
        return Acted(match, played, replay_id)

    async def _bots_move(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args, budget, cancel)`` in a worker thread (:func:`services.lifecycle.abandonable`): the bots'
        moves of one match (a whole match of bots, or a slow policy) must not stall the event loop, which serves every
        other call of this process meanwhile. The match object is this request's own (taken out of the cache, or
        loaded), so no other request touches it while the thread runs. The bots' decisions are bounded by this
        server's budget and abandoned with the call or the server (the match is left as it was stored)."""
        return await abandonable(call, *args, self.budget, stopping=self.stopping, what="the bots' move")

    async def watch(self, watchers: MatchWatchers, match_id: str, seat: int | None = None,
                    token: str = "") -> AsyncIterator[Watched]:
        """The match as it is, then each move as it is played until the match is over; a seat's watch needs its
        token (``seat`` None: the public watch). The watch joins the match's feed before reading the snapshot, so
        no move falls between the two."""
        if not match_id:
            raise InvalidArgument("match_id is empty")
        async with watchers.watch(match_id) as feed:
            match = await self.load(match_id)
            if seat is not None:
                match.authorize(seat, token)
            state = match.state
            yield Watched(state, match.version, None, await self.replay_id_of(match) if state.is_terminal else "")
            version = match.version
            while not state.is_terminal:
                for number, (actor, action_id) in await feed.moves_after(version):
                    deal_index = state.deal_index
                    state.apply_id(action_id)
                    version = number
                    action = state.action_string(action_id)
                    played = Played(number, actor, action, deal_index, state.action_seen_by(None, actor, action))
                    yield Watched(state, number, played,
                                  await self.replay_id_of(match) if state.is_terminal else "")

    async def replay_id_of(self, match: LiveMatch) -> str:
        """A finished match's replay id, waiting a little for the process that played its last move to save it."""
        if self.save_replay is None:
            return ""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REPLAY_ID_WAIT_S
        while not (replay_id := await self.store.replay_id(match.match_id)) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        return replay_id

    async def _finish_if_over(self, match: LiveMatch) -> str:
        """Save the replay of a match that just ended (only the process that played its last move gets here)."""
        if not match.state.is_terminal or self.save_replay is None:
            return ""
        moves = match.state.moves if match.has_history else await self.store.log(match.match_id)
        replay_id = await self.save_replay(await _build_replay(match, moves))
        await self.store.set_replay_id(match.match_id, replay_id)
        log.info("match over", extra={"match_id": match.match_id, "replay_id": replay_id,
                                      "scores": match.state.scores, "moves": match.version})
        return replay_id


async def _build_replay(match: LiveMatch, moves: list[Move]) -> bytes:
    """``match``'s replay, built in a worker process: replaying a whole match takes ~10 ms of CPU, which on the event
    loop (or in a thread, under the GIL) would stall every other match's calls together. One worker per server
    process, started when the service is installed ("spawn": the server's gRPC threads must not be forked)."""
    global _replay_builders
    try:
        return await asyncio.get_running_loop().run_in_executor(start_replay_builder(), build_replay, match.meta,
                                                                moves)
    except BrokenProcessPool:  # the worker died (killed, out of memory): build here, start a new one next time
        _replay_builders = None
        return match.replay_bytes(moves)


def _replay_builder_started(server: int) -> None:
    """The replay worker ignores SIGINT (a Ctrl-C in the server's terminal stops the server, which then stops its
    worker) and exits when the server is gone, however it died (multiprocessing's resource tracker then goes too:
    it stops when the last process holding its pipe does)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    follow_parent(server)


def start_replay_builder() -> ProcessPoolExecutor:
    """This process's replay worker, started (in the background) on first call."""
    global _replay_builders
    if _replay_builders is None:
        level = logging.getLevelName(logging.getLogger("cardtable").getEffectiveLevel())
        _replay_builders = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=logged_process,
                                               initargs=(level, f"{__name__}:_replay_builder_started", os.getpid()))
        _replay_builders.submit(int)  # starts the worker now rather than when the first match ends
    return _replay_builders
