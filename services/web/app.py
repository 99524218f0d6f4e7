"""The web app: one page, its assets and a small HTTP/JSON API, plus server-sent events (a live match's moves, the
jobs' progress); the endpoints are listed in docs/web.md.

Everything goes through the use cases the gRPC services call (:mod:`services.app`: live matches, replays, jobs);
this module only translates: a job's and a replay summary's JSON is the message the gRPC service answers with, mapped
to the web's names (:mod:`services.web.mapping`). A refused request gets the gRPC call's message with the HTTP status
of its code (``{"error": {"code": "INVALID_ARGUMENT", "message": ...}}``, :data:`HTTP_STATUS`) and changes nothing.
With an API key, every ``/api/`` call must carry it (``x-api-key: <key>`` or ``Authorization: Bearer <key>``), as
gRPC calls do; the page and its assets hold no data and stay open.

    app = create_app(redis_url="redis://127.0.0.1:6379", api_key=None)
    uvicorn.run(app, host="127.0.0.1", port=8080)
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import engine
from engine.bots import policy_names
from engine.budget import Budget
from engine.rng import fresh_seed

from ..app.allowed_policies import PolicyAllowList
from ..app.auth import API_KEY_HEADER, ApiKeys, key_from_metadata
from ..app.backends import Backends, open_backends, redis_answers
from ..app.budgets import DEFAULT_BOT_BUDGET
from ..app.convert import policy_label_of
from ..app.errors import (
    MAX_TEXT,
    InvalidArgument,
    PermissionDenied,
    ServiceError,
    TextTooLong,
    quoted,
    redis_address,
    refusal,
)
from ..app.jobs import JobStore, job_store, list_jobs, load_job
from ..app.limits import ClientLimits, Clients, Quotas
from ..app.live_matches import LiveMatches, start_replay_builder
from ..app.matches import BOT, PERSON, LiveMatch, Seat
from ..app.replays import Replays, list_entry, summary, summary_of
from ..app.results import plot_results
from .analysis import NODES, Analyses
from .frames import replay_frames
from .mapping import game_info_json, games_json, job_json, moves_json, replay_json, view_json
from .serving import while_connected
from .wire import WireResponse, dumps

log = logging.getLogger("cardtable.web")

STATIC = Path(__file__).parent / "static"
SEAT_TOKEN_HEADER = "x-seat-token"
MAX_BODY_BYTES = 16_384
JOB_EVENTS_INTERVAL_S = 0.5
OPTION_TYPES = (bool, int, str, type(None))

# The HTTP status of each refusal's status (gRPC's code names, as Google's APIs map them to HTTP).
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400, "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403, "NOT_FOUND": 404, "ABORTED": 409, "ALREADY_EXISTS": 409, "RESOURCE_EXHAUSTED": 429,
    "DATA_LOSS": 500, "INTERNAL": 500, "UNAVAILABLE": 503,
}


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {dumps(data)}\n\n"


def error_response(status: str, message: str) -> JSONResponse:
    """A refusal as the web answers it: ``status`` is the name of its gRPC status code (``NOT_FOUND``)."""
    return JSONResponse({"error": {"code": status, "message": message}}, status_code=HTTP_STATUS.get(status, 500))


Handler = Callable[[Request], Awaitable[Response]]


def api(handler: Callable[[Request], Awaitable[Any]]) -> Handler:
    """A JSON endpoint: its result as JSON, a refusal (:func:`services.app.errors.refusal`) as its status and
    message, anything else as a logged 500."""

    async def endpoint(request: Request) -> Response:
        try:
            result = await handler(request)
        except Exception as exc:  # noqa: BLE001  (a traceback never leaks: the log has it)
            refused = refusal(exc)
            if refused is not None:
                return error_response(refused.status, refused.message)
            log.exception("unexpected error", extra={"path": request.url.path})
            return error_response("INTERNAL", f"internal error in {request.url.path}; the server logged it")
        return result if isinstance(result, Response) else WireResponse(result)

    return endpoint


class ApiKeyMiddleware:
    """Refuses every ``/api/`` request without one of the API keys, as :class:`services.rpc.ApiKeyInterceptor`
    does."""

    def __init__(self, app: ASGIApp, api_keys: ApiKeys) -> None:
        self.app = app
        self._keys = api_keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        headers = [(key.decode("latin-1").lower(), value.decode("latin-1")) for key, value in scope["headers"]]
        given = key_from_metadata(headers)
        if self._keys.name_of(given) is not None:
            await self.app(scope, receive, send)
            return
        reason = "wrong API key" if given else f"missing API key: send it in the {API_KEY_HEADER!r} header"
        await error_response("UNAUTHENTICATED", reason)(scope, receive, send)


# ---- request reading ----------------------------------------------------------------------------------------------

async def json_body(request: Request, fields: dict[str, tuple[type, ...]]) -> dict[str, Any]:
    """The request's JSON object, checked: only ``fields`` (name -> allowed types), texts of at most MAX_TEXT."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise InvalidArgument("send the request body as JSON (Content-Type: application/json)")
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise InvalidArgument(f"the request body is {len(raw)} bytes; at most {MAX_BODY_BYTES} are accepted")
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise InvalidArgument("the request body is a JSON object")
    for name, value in body.items():
        if name not in fields:
            raise InvalidArgument(f"unknown field {quoted(name)}; the fields are {', '.join(fields)}")
        allowed = fields[name]
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
            raise InvalidArgument(f"field {quoted(name)} is {names}, got {quoted(value)}")
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise TextTooLong(name, len(value))
    return body


def query_int(request: Request, name: str, default: int | None = None, low: int = 0,
              high: int = 2**31 - 1) -> int | None:
    """An integer query parameter (``default`` when absent); InvalidArgument names a bad one."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise InvalidArgument(f"{name} is a whole number from {low} to {high}, got {quoted(text)}")
    return int(text)


def query_text(request: Request, name: str) -> str:
    text = request.query_params.get(name, "")
    if len(text) > MAX_TEXT:
        raise TextTooLong(name, len(text))
    return text


def seed_of(given: int | str) -> int:
    """A seed sent as a number or, as the page sends it (a double cannot hold every 64-bit seed), a decimal string."""
    seed = int(given) if isinstance(given, str) and given.isascii() and given.isdigit() else given
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InvalidArgument(f"seed is a whole number from 0 to 2**64 - 1 (a number or a decimal string), got "
                              f"{quoted(given)}")
    return seed


def seat_token(request: Request) -> str:
    token = request.headers.get(SEAT_TOKEN_HEADER, "")
    if not token:
        raise PermissionDenied(f"the seat's token is missing: send it in the {SEAT_TOKEN_HEADER!r} header")
    return token


# ---- answers --------------------------------------------------------------------------------------------------------

def match_view(match: LiveMatch, seat: int | None, history: bool = True) -> dict[str, Any]:
    """What the person at ``seat`` (None: anyone) sees of a live match."""
    return view_json(match.state, match, seat, match.version, match.replay_id, history and match.has_history)


# ---- the app --------------------------------------------------------------------------------------------------------

class WebApi:
    """The endpoints, over one process's backends (opened when the app starts); the trick games' replays are
    analysed with a budget of ``analysis_nodes`` double-dummy nodes per position, and the live table's bots play
    the ``policies`` allowed (by default no import path)."""

    def __init__(self, analysis_nodes: int = NODES, api_keys: ApiKeys | None = None,
                 limits: ClientLimits | None = None, policies: PolicyAllowList | None = None) -> None:
        self.analyses = Analyses(analysis_nodes)
        self.api_keys = api_keys
        self.limits = limits or ClientLimits()
        self.clients = Clients(api_keys)
        self.policies = policies or PolicyAllowList()
        self.backends: Backends | None = None
        self.matches: LiveMatches | None = None
        self.replays: Replays | None = None
        self.jobs: JobStore | None = None

    def attach(self, backends: Backends) -> None:
        self.backends = backends
        quotas = Quotas(backends.redis, self.limits, matches_ttl_s=backends.matches.retention.abandoned_after)
        self.clients = Clients(self.api_keys, quotas if self.limits else None)
        self.matches = LiveMatches(backends.matches, backends.save_replay, clients=self.clients,
                                   budget=backends.bot_budget, stopping=backends.stopping)
        self.replays = Replays(backends)
        self.jobs = job_store(backends)

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.redis.close()
        self.analyses.close()

    def routes(self) -> list[Route | Mount]:
        return [
            Route("/", index),
            Route("/healthz", self.healthz),
            Route("/api/games", api(self.list_games)),
            Route("/api/games/{game_id}", api(self.game_info)),
            Route("/api/policies", api(self.list_policies)),
            Route("/api/collections", api(self.list_collections)),
            Route("/api/replays", api(self.list_replays)),
            Route("/api/replays/{replay_id:path}/analysis", api(self.get_analysis)),
            Route("/api/replays/{replay_id:path}", api(self.get_replay)),
            Route("/api/jobs", api(self.list_jobs)),
            Route("/api/jobs/{job_id}/plot.svg", api(self.job_plot)),
            Route("/api/jobs/{job_id}", api(self.get_job)),
            Route("/api/events/jobs", api(self.job_events)),
            Route("/api/matches", api(self.create_match), methods=["POST"]),
            Route("/api/matches", api(self.list_matches), methods=["GET"]),
            Route("/api/matches/{match_id}", api(self.get_match)),
            Route("/api/matches/{match_id}/act", api(self.act), methods=["POST"]),
            Route("/api/matches/{match_id}/events", api(self.match_events)),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    async def healthz(self, request: Request) -> Response:
        """SERVING (200) while Redis answers, NOT_SERVING (503) while it does not: for a load balancer's probe."""
        assert self.backends is not None
        if await redis_answers(self.backends.redis):
            return JSONResponse({"status": "SERVING"})
        return JSONResponse({"status": "NOT_SERVING", "reason": f"cannot reach Redis at "
                                                                f"{redis_address(self.backends.redis_url)}"},
                            status_code=503)

    # ---- games ----

    async def list_games(self, request: Request) -> list[dict[str, Any]]:
        return games_json()

    async def game_info(self, request: Request) -> dict[str, Any]:
        """A game's player counts and its options for ``players`` (default: the game's usual count)."""
        game_id = engine.game_info(request.path_params["game_id"]).id  # an unknown game is refused first
        return game_info_json(game_id, query_int(request, "players"))

    async def list_policies(self, request: Request) -> list[str]:
        return policy_names()

    # ---- replays ----

    async def list_collections(self, request: Request) -> list[dict[str, Any]]:
        assert self.replays is not None
        return [{"name": name, "count": count} for name, count in await self.replays.collections()]

    async def list_replays(self, request: Request) -> dict[str, Any]:
        assert self.replays is not None
        found = await self.replays.page(query_text(request, "collection"), query_text(request, "page_token"),
                                        query_int(request, "page_size", 0) or 0)
        summaries = await asyncio.to_thread(lambda: [replay_json(summary_of(list_entry(i, d)))
                                                     for i, d in found.items])
        return {"replays": summaries, "next_page_token": found.next_page_token}

    async def get_replay(self, request: Request) -> dict[str, Any]:
        assert self.replays is not None
        replay_id = request.path_params["replay_id"]
        perspective = request.query_params.get("perspective", "full")
        if perspective not in ("full", "seat"):
            raise InvalidArgument(f"perspective is 'full' or 'seat', got {quoted(perspective)}")
        seat = query_int(request, "seat", 0) if perspective == "seat" else None
        data = await self.replays.fetch(replay_id)
        shown = await asyncio.to_thread(replay_frames, data, replay_id, seat)
        return {"replay": replay_json(summary(replay_id, data)), "perspective": perspective, "seat": seat, **shown}

    async def get_analysis(self, request: Request) -> dict[str, Any]:
        """The move-by-move analysis of a trick game's replay (``cardtable replay analyze``'s report), from trick
        ``from_trick`` (default 1) on, with the server's node budget; kept for the next request."""
        assert self.replays is not None
        replay_id = request.path_params["replay_id"]
        from_trick = query_int(request, "from_trick", 1, low=1, high=1000) or 1
        data = await self.replays.fetch(replay_id)
        return await self.analyses.report(replay_id, data, from_trick)

    # ---- jobs ----

    async def list_jobs(self, request: Request) -> dict[str, Any]:
        assert self.jobs is not None
        records, next_token = await list_jobs(self.jobs, query_text(request, "page_token"),
                                              query_int(request, "page_size", 0) or 0)
        return {"jobs": [job_json(r, with_results=False) for r in records], "next_page_token": next_token}

    async def get_job(self, request: Request) -> dict[str, Any]:
        assert self.jobs is not None
        return job_json(await load_job(self.jobs, request.path_params["job_id"]))

    async def job_plot(self, request: Request) -> Response:
        assert self.jobs is not None
        record = await load_job(self.jobs, request.path_params["job_id"])
        if record.results is None:
            raise InvalidArgument(f"job {record.job_id} has no results yet ({record.state})")
        return Response(await asyncio.to_thread(_plot_svg, record.results), media_type="image/svg+xml")

    async def job_events(self, request: Request) -> StreamingResponse:
        """Server-sent events: the first page of jobs (without results) whenever a job's progress changes."""
        assert self.jobs is not None
        jobs = self.jobs

        async def events() -> AsyncIterator[str]:
            last = None
            while not await request.is_disconnected():
                records, _ = await list_jobs(jobs, "", 0)
                page = [job_json(r, with_results=False) for r in records]
                if page != last:
                    yield sse("jobs", page)
                    last = page
                await asyncio.sleep(JOB_EVENTS_INTERVAL_S)

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    # ---- live matches ----

    async def create_match(self, request: Request) -> dict[str, Any]:
        assert self.matches is not None
        body = await json_body(request, {"game": (str,), "players": (int,), "seat": (int,), "policy": (str,),
                                         "seed": (int, str), "options": (dict,)})
        game_id = engine.game_info(body.get("game", "")).id
        players = engine.check_players(game_id, body.get("players"))
        seat = body.get("seat", 0)
        if not 0 <= seat < players:
            raise InvalidArgument(f"seat {seat} does not exist: a {players}-player match has seats 0..{players - 1}")
        policy = policy_label_of(body.get("policy", "greedy"), {}, self.policies)
        options = body.get("options", {})
        engine.check_options(game_id, options)
        for name, value in options.items():
            if not isinstance(value, OPTION_TYPES):
                raise InvalidArgument(f"option {quoted(name)} is a number, true/false, text or null, got "
                                      f"{quoted(value)}")
        seed = seed_of(body.get("seed", fresh_seed()))
        seats = [Seat(PERSON) if n == seat else Seat(BOT, policy) for n in range(players)]
        client = self.clients.of_request(request.headers, request.client.host if request.client else None)
        created = await while_connected(request, self.matches.create(game_id, seats, options, seed, client=client))
        return {"token": created.tokens[seat], "moves": moves_json(created.played, seat),
                "view": match_view(created.match, seat, history=False)}

    async def list_matches(self, request: Request) -> dict[str, Any]:
        """A page of the matches in play, newest first, as anyone sees them (GameService.ListMatches)."""
        assert self.matches is not None
        matches, next_token = await self.matches.page_in_play(query_text(request, "page_token"),
                                                            query_int(request, "page_size", 0) or 0)
        return {"matches": [match_view(m, None, history=False) for m in matches], "next_page_token": next_token}

    async def get_match(self, request: Request) -> dict[str, Any]:
        assert self.matches is not None
        match = await self.matches.load(request.path_params["match_id"])
        seat = query_int(request, "seat", 0) or 0
        match.authorize(seat, seat_token(request))
        if match.state.is_terminal and not match.replay_id:
            match.replay_id = await self.matches.replay_id_of(match)
        return {"view": match_view(match, seat)}

    async def act(self, request: Request) -> dict[str, Any]:
        assert self.matches is not None
        body = await json_body(request, {"seat": (int,), "action": (str,), "expected_move_number": (int,)})
        for name in ("action", "expected_move_number"):
            if name not in body:
                raise InvalidArgument(f"{name} is missing")
        seat = body.get("seat", 0)
        acted = await while_connected(request, self.matches.act(request.path_params["match_id"], seat,
                                                              seat_token(request), body["action"],
                                                              body["expected_move_number"]))
        match = acted.match
        match.replay_id = acted.replay_id
        state = match.state
        # the deals these moves ended (the view already shows the next deal): their results, for the page to show
        first_deal = acted.played[0].deal_index
        ended = [r for r in state.deal_results if r["deal"] >= first_deal]
        return {"moves": moves_json(acted.played, seat), "view": match_view(match, seat, history=False),
                "deal_results": ended}


    async def match_events(self, request: Request) -> StreamingResponse:
        """Server-sent events of a live match: a "snapshot" event, then a "move" event per move, until it is over;
        from a seat (``?seat=N`` with its token) or, without a seat, as anyone sees it."""
        assert self.matches is not None and self.backends is not None
        matches, watchers = self.matches, self.backends.watchers
        match_id = request.path_params["match_id"]
        seat = query_int(request, "seat")
        token = seat_token(request) if seat is not None else ""
        match = await matches.load(match_id, with_history=False)  # refuse a bad request before the stream starts
        if seat is not None:
            match.authorize(seat, token)

        async def events() -> AsyncIterator[str]:
            try:
                async for watched in matches.watch(watchers, match_id, seat, token):
                    move = watched.move
                    shown = view_json(watched.state, match, seat, watched.number, watched.replay_id)
                    if move is None:
                        yield sse("snapshot", {"view": shown})
                    else:
                        yield sse("move", {"move": moves_json([move], seat)[0], "view": shown})
            except ServiceError as exc:  # the stream has begun: the refusal (too many watchers) is its last event
                yield sse("error", {"error": {"code": exc.status, "message": exc.message}})

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def _plot_svg(results: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    plot_results(results, out, file_format="svg")
    return out.getvalue()


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def create_app(redis_url: str | None, api_key: str | ApiKeys | None = None, data_dir: Path | None = None,
               backends: Backends | None = None, analysis_nodes: int = NODES,
               allowed_hosts: Sequence[str] | None = None, limits: ClientLimits | None = None,
               policies: PolicyAllowList | None = None, bot_budget: Budget = DEFAULT_BOT_BUDGET) -> Starlette:
    """The web app over Redis at ``redis_url`` (None: the embedded Valkey, in ``data_dir``), or over ``backends``
    already open (which the caller then closes); ``analysis_nodes`` is the replay analysis' double-dummy budget per
    position (its search is exact where it settles a position within it). With
    ``allowed_hosts``, a request naming any other host (its Host header) is refused: a page elsewhere that points its
    own host name at 127.0.0.1 (DNS rebinding) cannot read a loopback server's API. Each client (its API key's name
    among ``api_key``, else its address) is held to ``limits`` (none by default). A live table's bot plays a built-in
    policy, an installed entry point, or an import path that ``policies`` allows (by default none); its decision
    spends at most ``bot_budget`` (of backends opened here; ``backends`` given carry their own)."""
    keys = ApiKeys.of(api_key)
    web = WebApi(analysis_nodes, keys, limits, policies)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = backends is None
        opened = await open_backends(redis_url, data_dir, bot_budget=bot_budget) if backends is None else backends
        web.attach(opened)
        start_replay_builder()
        log.info("web app ready", extra={"redis": opened.redis_url, "api_key": bool(api_key)})
        try:
            yield
        finally:
            web.close()
            if own:
                await opened.close()

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))] if allowed_hosts else []
    if keys:
        middleware.append(Middleware(ApiKeyMiddleware, api_keys=keys))
    return Starlette(routes=web.routes(), middleware=middleware, lifespan=lifespan)
