"""SimulationService: the gRPC face of simulation jobs and tournaments (see
protos/cardtable/v1/simulation_service.proto). The jobs, their drivers and their messages are
:mod:`services.app.jobs`'; this module translates requests and answers.

    servicer = SimulationServicer(start_jobs(backends))
    simulation_service_pb2_grpc.add_SimulationServiceServicer_to_server(servicer, server)
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import grpc

from .app.backends import Backends
from .app.errors import redis_address
from .app.jobs import (
    WATCH_INTERVAL_S,
    Jobs,
    job_message,
    spec_from_proto,
    start_jobs,
    tournament_from_proto,
    tournament_message,
)
from .generated.cardtable.v1 import simulation_service_pb2 as sim_pb2
from .generated.cardtable.v1 import simulation_service_pb2_grpc
from .rpc import streaming, unary

log = logging.getLogger("cardtable.simulations")

SERVICE_NAME = sim_pb2.DESCRIPTOR.services_by_name["SimulationService"].full_name


class SimulationServicer(simulation_service_pb2_grpc.SimulationServiceServicer):
    """Submits, reads, watches, cancels and lists simulation jobs; submits and reads tournaments."""

    redis_address = ""  # the Redis URL (no credentials) named when Redis cannot be reached: see services.rpc

    def __init__(self, jobs: Jobs, watch_interval_s: float = WATCH_INTERVAL_S) -> None:
        self.jobs = jobs
        self.watch_interval_s = watch_interval_s

    @unary
    async def SubmitJob(self, request: sim_pb2.SubmitJobRequest,
                        context: grpc.aio.ServicerContext) -> sim_pb2.SubmitJobResponse:
        spec = spec_from_proto(request.spec, self.jobs.policies)
        record = await self.jobs.submit(spec, self.jobs.clients.of_call(context))
        return sim_pb2.SubmitJobResponse(job=job_message(record))

    @unary
    async def GetJob(self, request: sim_pb2.GetJobRequest, context: grpc.aio.ServicerContext) -> sim_pb2.GetJobResponse:
        return sim_pb2.GetJobResponse(job=job_message(await self.jobs.get(request.job_id)))

    @streaming
    async def WatchJob(self, request: sim_pb2.WatchJobRequest,
                       context: grpc.aio.ServicerContext) -> AsyncIterator[sim_pb2.WatchJobResponse]:
        async for record in self.jobs.watch(request.job_id, self.watch_interval_s):
            yield sim_pb2.WatchJobResponse(job=job_message(record))

    @unary
    async def CancelJob(self, request: sim_pb2.CancelJobRequest,
                        context: grpc.aio.ServicerContext) -> sim_pb2.CancelJobResponse:
        return sim_pb2.CancelJobResponse(job=job_message(await self.jobs.cancel(request.job_id)))

    @unary
    async def ListJobs(self, request: sim_pb2.ListJobsRequest,
                       context: grpc.aio.ServicerContext) -> sim_pb2.ListJobsResponse:
        records, next_token = await self.jobs.page(request.page_token, request.page_size)
        return sim_pb2.ListJobsResponse(jobs=[job_message(r, with_results=False) for r in records],
                                        next_page_token=next_token)

    @unary
    async def SubmitTournament(self, request: sim_pb2.SubmitTournamentRequest,
                               context: grpc.aio.ServicerContext) -> sim_pb2.SubmitTournamentResponse:
        spec = tournament_from_proto(request.spec, self.jobs.policies)
        record = await self.jobs.submit_tournament(spec, self.jobs.clients.of_call(context))
        return sim_pb2.SubmitTournamentResponse(tournament=tournament_message(record))

    @unary
    async def GetTournament(self, request: sim_pb2.GetTournamentRequest,
                            context: grpc.aio.ServicerContext) -> sim_pb2.GetTournamentResponse:
        record = await self.jobs.get_tournament(request.tournament_id)
        return sim_pb2.GetTournamentResponse(tournament=tournament_message(record))


def install(server: grpc.aio.Server, backends: Backends, prefix: str | None = None) -> str:
    """Add the SimulationService to ``server`` (jobs under ``prefix``, by default the key namespace's; their replays
    in the server's replay store) and resume the jobs left unfinished; returns its full name."""
    # Ray's own log lines are shown when cardtable's are at debug level (`cardtable serve --verbose`).
    servicer = SimulationServicer(start_jobs(backends, prefix, verbose=log.isEnabledFor(logging.DEBUG)))
    servicer.redis_address = redis_address(backends.redis_url)
    simulation_service_pb2_grpc.add_SimulationServiceServicer_to_server(servicer, server)
    return SERVICE_NAME
