"""GameService: the gRPC face of live matches (see protos/cardtable/v1/game_service.proto).

Each call loads the match from Redis, works on it with the engine and writes it back with a compare-and-set on its
version, so any number of server processes can share one Redis. The only thing a process keeps is a cache of the
matches it saved last (``MatchCache``): a move computed on a cached match is checked by the same compare-and-set.

    servicer = GameServicer(GameStore(redis_client), replay_sink)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, server)
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import secrets
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import grpc

import engine
from engine.rng import fresh_seed

from .convert import game_info_response, game_summary, known_game, options_from_request, policy_label_of
from .errors import Aborted, InvalidArgument, NotFound, ServiceError, quoted
from .game_store import GameStore, Move
from .generated.cardtable.v1 import common_pb2, game_service_pb2, game_service_pb2_grpc
from .matches import BOT, PERSON, LiveMatch, MatchCache, Played, Seat, build_replay
from .paging import page
from .rpc import streaming, unary
from .views import move_message, seat_view, view
from .watchers import MatchWatchers

log = logging.getLogger("cardtable.games")

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
REPLAY_ID_WAIT_S = 5.0  # how long a watcher waits for the final move's replay id (written right after that move)

# Saves a finished match's replay bytes and returns its replay id.
ReplaySink = Callable[[bytes], Awaitable[str]]

T = TypeVar("T")

_SEAT_KINDS = {game_service_pb2.SEAT_KIND_BOT: BOT, game_service_pb2.SEAT_KIND_PERSON: PERSON}

_replay_builders: ProcessPoolExecutor | None = None


async def _build_replay(match: LiveMatch, moves: list[Move]) -> bytes:
    """``match``'s replay, built in a worker process: replaying a whole match takes ~10 ms of CPU, which on the event
    loop (or in a thread, under the GIL) would stall every other match's calls together. One worker per server
    process, started when the service is installed ("spawn": the server's gRPC threads must not be forked)."""
    global _replay_builders
    try:
        return await asyncio.get_running_loop().run_in_executor(_replay_builder(), build_replay, match.meta, moves)
    except BrokenProcessPool:  # the worker died (killed, out of memory): build here, start a new one next time
        _replay_builders = None
        return match.replay_bytes(moves)


def _replay_builder() -> ProcessPoolExecutor:
    """This process's replay worker, started (in the background) on first call."""
    global _replay_builders
    if _replay_builders is None:
        # The worker ignores SIGINT: a Ctrl-C in the server's terminal stops the server, which then stops its worker.
        _replay_builders = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
        _replay_builders.submit(int)  # starts the worker now rather than when the first match ends
    return _replay_builders


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """Lists games, creates matches, shows views, takes moves, streams matches."""

    def __init__(self, store: GameStore, save_replay: ReplaySink | None = None, cache_size: int = 4096,
                 watchers: MatchWatchers | None = None) -> None:
        self.store = store
        self.save_replay = save_replay
        self.cache = MatchCache(cache_size)
        self.watchers = watchers or MatchWatchers(store)

    @unary
    async def ListGames(self, request: game_service_pb2.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> game_service_pb2.ListGamesResponse:
        games, next_token = page(engine.list_games(), request.page_size, request.page_token)
        return game_service_pb2.ListGamesResponse(games=[game_summary(g) for g in games], next_page_token=next_token)

    @unary
    async def GetGameInfo(self, request: game_service_pb2.GetGameInfoRequest,
                          context: grpc.aio.ServicerContext) -> game_service_pb2.GetGameInfoResponse:
        players = request.players if request.HasField("players") else None
        return game_info_response(known_game(request.game_id), players)

    @unary
    async def CreateGame(self, request: game_service_pb2.CreateGameRequest,
                         context: grpc.aio.ServicerContext) -> game_service_pb2.CreateGameResponse:
        game_id = known_game(request.game_id)
        seats = [_seat(n, spec) for n, spec in enumerate(request.seats)]
        seed = request.seed if request.HasField("seed") else fresh_seed()
        first_dealer = request.first_dealer if request.HasField("first_dealer") else None
        match_id = secrets.token_hex(8)
        match, tokens, played = await off_loop(LiveMatch.create, game_id, seats,
                                               options_from_request(request.options, game_id), seed, first_dealer,
                                               match_id)
        if not await self.store.create(match_id, match.meta, match.state.to_position(), match.new_moves(),
                                       finished=match.state.is_terminal):
            raise Aborted(f"match id {match_id} is taken; create the match again")
        log.info("match created", extra={"match_id": match_id, "game": game_id, "seats": [s.policy for s in seats]})
        match.saved()
        await self._finish_if_over(match)
        if not match.state.is_terminal:
            self.cache.put(match)
        return game_service_pb2.CreateGameResponse(
            match_id=match_id, seat_tokens=[game_service_pb2.SeatToken(seat=s, token=t)
                                                       for s, t in tokens.items()],
            moves=[_move(p) for p in played], view=view(match.state, common_pb2.PERSPECTIVE_PUBLIC, 0, match.version))

    @unary
    async def GetObservation(self, request: game_service_pb2.GetObservationRequest,
                             context: grpc.aio.ServicerContext) -> game_service_pb2.GetObservationResponse:
        match = await self._load(request.match_id)
        match.authorize(request.seat, request.seat_token)
        return game_service_pb2.GetObservationResponse(view=seat_view(match.state, request.seat, match.version))

    @unary
    async def Act(self, request: game_service_pb2.ActRequest,
                  context: grpc.aio.ServicerContext) -> game_service_pb2.ActResponse:
        cached = self.cache.take(request.match_id)
        fresh = cached is None or cached.version != request.expected_move_number
        match = await self._load(request.match_id, with_history=False) if fresh else cached
        try:
            played = await _play_person(match, request)
        except ServiceError:
            if fresh:
                raise
            # The cached match may be behind the store: judge the request on the stored match.
            match = await self._load(request.match_id, with_history=False)
            played = await _play_person(match, request)
        before = match.loaded_version
        if not await self.store.commit(match.match_id, before, match.state.to_position(), match.new_moves(),
                                       finished=match.state.is_terminal):
            raise Aborted(f"stale move number: match {match.match_id} moved on from move {before} while this move "
                          "was being played; read the match again")
        match.saved()
        replay_id = await self._finish_if_over(match)
        if not match.state.is_terminal:
            self.cache.put(match)
        return game_service_pb2.ActResponse(moves=[_move(p, request.seat) for p in played],
                                            view=seat_view(match.state, request.seat, match.version, history=False),
                                            replay_id=replay_id)

    @streaming
    async def WatchGame(self, request: game_service_pb2.WatchGameRequest,
                        context: grpc.aio.ServicerContext) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        perspective = request.perspective or common_pb2.PERSPECTIVE_PUBLIC
        if perspective not in (common_pb2.PERSPECTIVE_PUBLIC, common_pb2.PERSPECTIVE_SEAT):
            raise InvalidArgument("a live match is watched from PERSPECTIVE_PUBLIC or PERSPECTIVE_SEAT; the full view "
                                  "is for replays (ReplayService.StreamReplay)")
        if not request.match_id:
            raise InvalidArgument("match_id is empty")
        async with self.watchers.watch(request.match_id) as feed:  # joined before the snapshot: no move is missed
            match = await self._load(request.match_id)
            if perspective == common_pb2.PERSPECTIVE_SEAT:
                match.authorize(request.seat, request.seat_token)
            state = match.state
            yield game_service_pb2.WatchGameResponse(
                kind=game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT,
                view=view(state, perspective, request.seat, match.version),
                replay_id=await self._wait_for_replay_id(match) if state.is_terminal else "")
            version = match.version
            viewer = request.seat if perspective == common_pb2.PERSPECTIVE_SEAT else None
            while not state.is_terminal:
                for number, (seat, action_id) in await feed.moves_after(version):
                    deal_index = state.deal_index
                    state.apply_id(action_id)
                    version = number
                    replay_id = await self._wait_for_replay_id(match) if state.is_terminal else ""
                    action = state.action_seen_by(viewer, seat, state.action_string(action_id))
                    yield game_service_pb2.WatchGameResponse(
                        kind=game_service_pb2.WATCH_EVENT_KIND_MOVE,
                        move=move_message(number, seat, action, deal_index),
                        view=view(state, perspective, request.seat, number), replay_id=replay_id)

    # ---- helpers ------------------------------------------------------------------------------------------------

    async def _load(self, match_id: str, with_history: bool = True) -> LiveMatch:
        if not match_id:
            raise InvalidArgument("match_id is empty")
        stored = await self.store.load(match_id, with_log=with_history)
        if stored is None:
            raise NotFound(f"no match {quoted(match_id)}")
        return LiveMatch.load(stored)

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

    async def _wait_for_replay_id(self, match: LiveMatch) -> str:
        if self.save_replay is None:
            return ""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REPLAY_ID_WAIT_S
        while not (replay_id := await self.store.replay_id(match.match_id)) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        return replay_id


async def off_loop(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread: the bots' moves of one match (a whole match of bots, or a slow policy) must
    not stall the event loop, which serves every other call of this process meanwhile. The match object is this
    request's own (taken out of the cache, or loaded), so no other request touches it while the thread runs."""
    return await asyncio.to_thread(call, *args)


async def _play_person(match: LiveMatch, request: game_service_pb2.ActRequest) -> list[Played]:
    """The person's move and the bots' replies, off the event loop."""
    return await off_loop(match.play_person, request.seat, request.seat_token, request.action,
                          request.expected_move_number)


def _seat(number: int, spec: game_service_pb2.SeatSpec) -> Seat:
    kind = _SEAT_KINDS.get(spec.kind)
    if kind is None:
        raise InvalidArgument(f"seat {number}: kind must be SEAT_KIND_BOT or SEAT_KIND_PERSON")
    if kind == PERSON:
        return Seat(PERSON)
    if not spec.policy:
        raise InvalidArgument(f"seat {number} is a bot: name its policy (for example 'random' or 'greedy')")
    try:
        return Seat(BOT, policy_label_of(spec.policy, spec.params))
    except InvalidArgument as exc:
        raise InvalidArgument(f"seat {number}: {exc}") from None


def _move(played: Played, viewer: int | None = None) -> common_pb2.Move:
    """A move as ``viewer`` (the seat that asked, or None: anyone) may see it."""
    return move_message(played.number, played.seat, played.seen_by(viewer), played.deal_index)


def install(server: grpc.aio.Server, store: GameStore, save_replay: ReplaySink | None,
            watchers: MatchWatchers | None = None) -> str:
    """Add the GameService to ``server``; returns its full name (for health checks and reflection)."""
    if save_replay is not None:
        _replay_builder()
    game_service_pb2_grpc.add_GameServiceServicer_to_server(GameServicer(store, save_replay, watchers=watchers),
                                                            server)
    return SERVICE_NAME
