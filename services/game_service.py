"""GameService: the gRPC face of live matches (see protos/cardtable/v1/game_service.proto).

The matches themselves are :class:`services.app.live_matches.LiveMatches`' (shared with the web app): this module
translates requests and answers.

    servicer = GameServicer(MatchStore(redis_client), replay_sink)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, server)
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc

import engine
from engine.budget import Budget, Cancel
from engine.rng import fresh_seed

from .app.allowed_policies import PolicyAllowList
from .app.budgets import DEFAULT_BOT_BUDGET
from .app.convert import game_info_response, game_summary, options_from_request, policy_label_of
from .app.errors import InvalidArgument, redis_address
from .app.limits import Clients
from .app.live_matches import LiveMatches, ReplaySink, start_replay_builder
from .app.matches import BOT, PERSON, Seat
from .app.paging import page
from .app.views import match_summary, move_message, played_message, public_view, seat_view, view
from .app.watchers import MatchWatchers
from .generated.cardtable.v1 import common_pb2, game_service_pb2, game_service_pb2_grpc
from .match_store import MatchStore
from .rpc import streaming, unary

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name

_SEAT_KINDS = {game_service_pb2.SEAT_KIND_BOT: BOT, game_service_pb2.SEAT_KIND_PERSON: PERSON}


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """Lists games, creates matches, shows views, takes moves, streams matches."""

    redis_address = ""  # the Redis URL (no credentials) named when Redis cannot be reached: see services.rpc

    def __init__(self, store: MatchStore, save_replay: ReplaySink | None = None, cache_size: int = 4096,
                 watchers: MatchWatchers | None = None, clients: Clients | None = None,
                 policies: PolicyAllowList | None = None, budget: Budget = DEFAULT_BOT_BUDGET,
                 stopping: Cancel | None = None) -> None:
        self.clients = clients or Clients()
        self.matches = LiveMatches(store, save_replay, cache_size, self.clients, budget, stopping)
        self.watchers = watchers or MatchWatchers(store)
        self.policies = policies or PolicyAllowList()  # the policies a bot's seat may name

    @unary
    async def ListGames(self, request: game_service_pb2.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> game_service_pb2.ListGamesResponse:
        games, next_token = page(engine.list_games(), request.page_size, request.page_token)
        return game_service_pb2.ListGamesResponse(games=[game_summary(g) for g in games], next_page_token=next_token)

    @unary
    async def GetGameInfo(self, request: game_service_pb2.GetGameInfoRequest,
                          context: grpc.aio.ServicerContext) -> game_service_pb2.GetGameInfoResponse:
        players = request.players if request.HasField("players") else None
        return game_info_response(request.game_id, players)

    @unary
    async def CreateGame(self, request: game_service_pb2.CreateGameRequest,
                         context: grpc.aio.ServicerContext) -> game_service_pb2.CreateGameResponse:
        game_id = engine.game_info(request.game_id).id  # an unknown game is refused first
        seats = [_seat(n, spec, self.policies) for n, spec in enumerate(request.seats)]
        seed = request.seed if request.HasField("seed") else fresh_seed()
        first_dealer = request.first_dealer if request.HasField("first_dealer") else None
        created = await self.matches.create(game_id, seats, options_from_request(request.options, game_id), seed,
                                            first_dealer, self.clients.of_call(context))
        match = created.match
        return game_service_pb2.CreateGameResponse(
            match_id=match.match_id, seat_tokens=[game_service_pb2.SeatToken(seat=s, token=t)
                                                  for s, t in created.tokens.items()],
            moves=[_move(p) for p in created.played],
            view=view(match.state, common_pb2.PERSPECTIVE_PUBLIC, 0, match.version))

    @unary
    async def GetObservation(self, request: game_service_pb2.GetObservationRequest,
                             context: grpc.aio.ServicerContext) -> game_service_pb2.GetObservationResponse:
        match = await self.matches.load(request.match_id)
        match.authorize(request.seat, request.seat_token)
        return game_service_pb2.GetObservationResponse(view=seat_view(match.state, request.seat, match.version))

    @unary
    async def Act(self, request: game_service_pb2.ActRequest,
                  context: grpc.aio.ServicerContext) -> game_service_pb2.ActResponse:
        acted = await self.matches.act(request.match_id, request.seat, request.seat_token, request.action,
                                     request.expected_move_number)
        match = acted.match
        answer = game_service_pb2.ActResponse(replay_id=acted.replay_id)
        add_move = answer.moves.add  # filled in place: a message passed to the constructor would be copied
        for played in acted.played:
            add_move(number=played.number, seat=played.seat, action=played.seen_by(request.seat),
                     deal_index=played.deal_index)
        seat_view(match.state, request.seat, match.version, history=False, into=answer.view)
        return answer

    @streaming
    async def WatchGame(self, request: game_service_pb2.WatchGameRequest,
                        context: grpc.aio.ServicerContext) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        perspective = request.perspective or common_pb2.PERSPECTIVE_PUBLIC
        if perspective not in (common_pb2.PERSPECTIVE_PUBLIC, common_pb2.PERSPECTIVE_SEAT):
            raise InvalidArgument("a live match is watched from PERSPECTIVE_PUBLIC or PERSPECTIVE_SEAT; the full view "
                                  "is for replays (ReplayService.StreamReplay)")
        seat = request.seat if perspective == common_pb2.PERSPECTIVE_SEAT else None
        async for watched in self.matches.watch(self.watchers, request.match_id, seat, request.seat_token):
            state, move = watched.state, watched.move
            shown = view(state, perspective, request.seat, watched.number)
            if move is None:
                yield game_service_pb2.WatchGameResponse(kind=game_service_pb2.WATCH_EVENT_KIND_SNAPSHOT, view=shown,
                                                         replay_id=watched.replay_id)
                continue
            yield game_service_pb2.WatchGameResponse(
                kind=game_service_pb2.WATCH_EVENT_KIND_MOVE,
                move=move_message(move.number, move.seat, move.seen_by(seat), move.deal_index), view=shown,
                replay_id=watched.replay_id)

    @unary
    async def ListMatches(self, request: game_service_pb2.ListMatchesRequest,
                          context: grpc.aio.ServicerContext) -> game_service_pb2.ListMatchesResponse:
        matches, next_token = await self.matches.page_in_play(request.page_token, request.page_size)
        shown = [match_summary(m, public_view(m.state, m.version, history=False)) for m in matches]
        return game_service_pb2.ListMatchesResponse(matches=shown, next_page_token=next_token)


def _seat(number: int, spec: game_service_pb2.SeatSpec, policies: PolicyAllowList) -> Seat:
    kind = _SEAT_KINDS.get(spec.kind)
    if kind is None:
        raise InvalidArgument(f"seat {number}: kind must be SEAT_KIND_BOT or SEAT_KIND_PERSON")
    if kind == PERSON:
        if spec.policy or spec.params:
            raise InvalidArgument(f"seat {number} is a person's: it takes no policy (a bot's seat does)")
        return Seat(PERSON)
    if not spec.policy:
        raise InvalidArgument(f"seat {number} is a bot: name its policy (for example 'random' or 'greedy')")
    try:
        return Seat(BOT, policy_label_of(spec.policy, spec.params, policies))
    except InvalidArgument as exc:
        raise InvalidArgument(f"seat {number}: {exc}") from None


_move = played_message


def install(server: grpc.aio.Server, store: MatchStore, save_replay: ReplaySink | None,
            watchers: MatchWatchers | None = None, redis_url: str = "", clients: Clients | None = None,
            policies: PolicyAllowList | None = None, budget: Budget = DEFAULT_BOT_BUDGET,
            stopping: Cancel | None = None) -> str:
    """Add the GameService to ``server`` (over the Redis at ``redis_url``, named when it cannot be reached; its
    callers held to the limits of ``clients``; its bots play the ``policies`` allowed, by default no import path,
    their decisions bounded by ``budget`` and abandoned when ``stopping`` is raised); returns its full name (for
    health checks and reflection)."""
    if save_replay is not None:
        start_replay_builder()
    servicer = GameServicer(store, save_replay, watchers=watchers, clients=clients, policies=policies, budget=budget,
                            stopping=stopping)
    servicer.redis_address = redis_address(redis_url)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, server)
    return SERVICE_NAME
