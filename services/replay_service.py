"""ReplayService: the gRPC face of the replay store (see protos/cardtable/v1/replay_service.proto).

Replays are read through :mod:`services.app.replays` (shared with the web app) and replayed through the engine with
:mod:`replay`; a replay that does not decode is reported as DATA_LOSS with the codec's message (what is wrong, at which
move; a listing marks it with that message and lists the others). Decoding, replaying and exporting run in worker
threads, a stream's moves in batches: a long replay never stalls the event loop, which serves every other call
meanwhile.

    replay_service.install(server, backends)
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc

from replay import ReplayError
from replay.analysis import BEFORE, EXACT, MAX_NODES, TOO_LARGE
from replay.export import export_json, text_record

from .app.backends import Backends
from .app.errors import DataLoss, InvalidArgument, redis_address
from .app.replays import (
    Replays,
    analysis_of,
    list_entry,
    open_replayer,
    replay_steps,
    summary,
    summary_of,
)
from .app.views import move_message, view
from .generated.cardtable.v1 import common_pb2, replay_service_pb2, replay_service_pb2_grpc
from .lifecycle import abandonable
from .rpc import streaming, unary

SERVICE_NAME = replay_service_pb2.DESCRIPTOR.services_by_name["ReplayService"].full_name
MAX_PACE_MS = 10_000
MOST_NODES = 10_000_000  # an Analyze call's node budget per position, at most
STREAM_BATCH = 64  # moves (and their views) replayed per trip to a worker thread

_CONTENT_TYPES = {replay_service_pb2.EXPORT_FORMAT_JSON: "application/json",
                  replay_service_pb2.EXPORT_FORMAT_TEXT: "text/plain"}


class ReplayServicer(replay_service_pb2_grpc.ReplayServiceServicer):
    """Fetches, lists, streams and exports replays."""

    redis_address = ""  # the Redis URL (no credentials) named when Redis cannot be reached: see services.rpc

    def __init__(self, backends: Backends) -> None:
        self.replays = Replays(backends)
        self.stopping = backends.stopping  # an analysis under way stops with the server, or with its call

    @unary
    async def GetReplay(self, request: replay_service_pb2.GetReplayRequest,
                        context: grpc.aio.ServicerContext) -> replay_service_pb2.GetReplayResponse:
        data = await self.replays.fetch(request.replay_id)
        return await asyncio.to_thread(_whole_replay, request.replay_id, data)

    @unary
    async def ListReplays(self, request: replay_service_pb2.ListReplaysRequest,
                          context: grpc.aio.ServicerContext) -> replay_service_pb2.ListReplaysResponse:
        found = await self.replays.page(request.collection, request.page_token, request.page_size)
        summaries = await asyncio.to_thread(lambda: [summary_of(list_entry(replay_id, data))
                                                     for replay_id, data in found.items])
        return replay_service_pb2.ListReplaysResponse(replays=summaries, next_page_token=found.next_page_token)

    @streaming
    async def StreamReplay(self, request: replay_service_pb2.StreamReplayRequest,
                           context: grpc.aio.ServicerContext) -> AsyncIterator[replay_service_pb2.StreamReplayResponse]:
        perspective = request.perspective or common_pb2.PERSPECTIVE_FULL
        if request.pace_ms > MAX_PACE_MS:
            raise InvalidArgument(f"pace_ms is at most {MAX_PACE_MS}, got {request.pace_ms}")
        data = await self.replays.fetch(request.replay_id)
        replayer = await asyncio.to_thread(open_replayer, data, request.replay_id)
        if perspective == common_pb2.PERSPECTIVE_SEAT and not 0 <= request.seat < replayer.header.players:
            raise InvalidArgument(f"seat {request.seat} does not exist: this replay has seats "
                                  f"0..{replayer.header.players - 1}")
        yield replay_service_pb2.StreamReplayResponse(view=view(replayer.state, perspective, request.seat, 0))
        steps = replay_steps(replayer, request.replay_id)
        while batch := await asyncio.to_thread(_stream_batch, steps, replayer.state, perspective, request.seat):
            for response in batch:
                if request.pace_ms:
                    await asyncio.sleep(request.pace_ms / 1000)
                yield response

    @unary
    async def ExportReplay(self, request: replay_service_pb2.ExportReplayRequest,
                           context: grpc.aio.ServicerContext) -> replay_service_pb2.ExportReplayResponse:
        export_format = request.format or replay_service_pb2.EXPORT_FORMAT_JSON
        if export_format not in _CONTENT_TYPES:
            raise InvalidArgument(f"unknown export format {export_format}; use EXPORT_FORMAT_JSON or _TEXT")
        data = await self.replays.fetch(request.replay_id)
        exporter = export_json if export_format == replay_service_pb2.EXPORT_FORMAT_JSON else text_record
        try:
            content = await asyncio.to_thread(exporter, data)
        except ReplayError as exc:
            raise DataLoss(f"replay {request.replay_id} does not decode: {exc}") from None
        return replay_service_pb2.ExportReplayResponse(format=export_format,
                                                       content_type=_CONTENT_TYPES[export_format], content=content)

    @unary
    async def Analyze(self, request: replay_service_pb2.AnalyzeRequest,
                      context: grpc.aio.ServicerContext) -> replay_service_pb2.AnalyzeResponse:
        max_nodes = request.max_nodes or MAX_NODES
        if max_nodes > MOST_NODES:
            raise InvalidArgument(f"max_nodes is at most {MOST_NODES:,}, got {max_nodes:,}")
        data = await self.replays.fetch(request.replay_id)
        report = await abandonable(analysis_of, data, request.replay_id, request.from_trick or 1, max_nodes,
                                   stopping=self.stopping, what="the analysis")
        return analysis_message(request.replay_id, report)


_STATUSES = {EXACT: replay_service_pb2.ANALYSIS_STATUS_EXACT, TOO_LARGE: replay_service_pb2.ANALYSIS_STATUS_TOO_LARGE,
             BEFORE: replay_service_pb2.ANALYSIS_STATUS_BEFORE_FROM_TRICK}


def analysis_message(replay_id: str, report: dict[str, Any]) -> replay_service_pb2.AnalyzeResponse:
    """:func:`replay.analysis.analyze`'s report as the proto message."""
    moves = [replay_service_pb2.AnalyzedMove(
        move=m["move"], deal_index=m["deal"], trick=m["trick"], seat=m["seat"], card=m["card"],
        status=_STATUSES[m["status"]], values=[replay_service_pb2.CardValue(card=c, value=v)
                                               for c, v in m.get("values", {}).items()],
        value=m.get("value", 0), best=m.get("best", 0), loss=m.get("loss", 0)) for m in report["moves"]]
    return replay_service_pb2.AnalyzeResponse(
        replay_id=replay_id, game_id=report["game"], unit=report["unit"],
        exact_from_move=report["exact_from_move"] or 0, turning_points=report["turning_points"], moves=moves)


def _whole_replay(replay_id: str, data: bytes) -> replay_service_pb2.GetReplayResponse:
    """A replay with every move, replayed through the engine (run in a worker thread)."""
    replayer = open_replayer(data, replay_id)
    moves = [move_message(s.number, s.seat, s.action, s.deal_index) for s in replay_steps(replayer, replay_id)]
    return replay_service_pb2.GetReplayResponse(replay=summary(replay_id, data), moves=moves,
                                                scores=replayer.state.scores, data=data)


def _stream_batch(steps: Iterator[Any], state: Any, perspective: int,
                  seat: int) -> list[replay_service_pb2.StreamReplayResponse]:
    """The next moves of a stream with the view after each (run in a worker thread); empty at the end."""
    batch = []
    viewer = seat if perspective == common_pb2.PERSPECTIVE_SEAT else None
    for step in itertools.islice(steps, STREAM_BATCH):
        # the full view shows every move whole; a seat or the public sees a move as the rules let it
        action = step.action if perspective == common_pb2.PERSPECTIVE_FULL else state.action_seen_by(
            viewer, step.seat, step.action)
        batch.append(replay_service_pb2.StreamReplayResponse(
            move=move_message(step.number, step.seat, action, step.deal_index),
            view=view(state, perspective, seat, step.number)))
    return batch


def install(server: grpc.aio.Server, backends: Backends) -> str:
    """Add the ReplayService to ``server``; returns its full name."""
    servicer = ReplayServicer(backends)
    servicer.redis_address = redis_address(backends.redis_url)
    replay_service_pb2_grpc.add_ReplayServiceServicer_to_server(servicer, server)
    return SERVICE_NAME

