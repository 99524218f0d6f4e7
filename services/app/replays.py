"""Replays as the APIs serve them: fetched, listed page by page and replayed, with the store's and the codec's
failures as service errors (a replay that does not decode is DATA_LOSS, with the codec's message: what is wrong, at
which move; in a listing it is marked with that message, among the others).

The gRPC ReplayService and the web app (:mod:`services.web`) both call this; each only translates requests and
answers. The store is synchronous, so its calls run in worker threads.

    replays = Replays(backends)
    data = await replays.fetch("live/17")
    steps = replay_steps(open_replayer(data, "live/17"), "live/17")
    report = analysis_of(data, "live/17", from_trick=1, max_nodes=50_000)  # in a worker thread
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.budget import Cancel, Cancelled
from replay import Replayer, ReplayError
from replay.analysis import analyze
from replay.codec import Header, decode_frame
from replay.record import Step
from replay.store import LIVE_COLLECTION, check_collection, parse_id

from ..generated.cardtable.v1 import replay_service_pb2
from .errors import DataLoss, InvalidArgument, NotFound, Unavailable, quoted
from .paging import page_size, start_of, token_of

if TYPE_CHECKING:  # the servers' backends (the match store, async Redis): `cardtable replay` reads its own store
    from .backends import Backends

DEFAULT_PAGE = 50
MAX_PAGE = 1000


@dataclass
class ReplayHeader:
    """What a replay's frame says, read without replaying its moves."""

    replay_id: str
    header: Header
    move_count: int
    size_bytes: int


@dataclass
class UnreadableReplay:
    """A replay of a listing whose bytes do not decode (corrupt, or forged): its id, its size and why."""

    replay_id: str
    size_bytes: int
    error: str


@dataclass
class ReplayPage:
    """One page of a collection: (replay id, bytes) in index order, and the token of the next page ("": none)."""

    items: list[tuple[str, bytes]]
    next_page_token: str


class Replays:
    """Reads the replay store of ``backends``."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends

    async def fetch(self, replay_id: str) -> bytes:
        """A replay's bytes; InvalidArgument for a malformed id, NotFound if there is no such replay."""
        try:
            parse_id(replay_id)
        except ValueError:
            raise InvalidArgument(f"a replay id is <collection>/<index>, such as 'live/17', got {quoted(replay_id)}") \
                from None
        try:
            data: bytes = await self._store_call(self.backends.replays.get, replay_id)
        except KeyError:
            raise NotFound(f"no replay {quoted(replay_id)}") from None
        return data

    async def page(self, collection: str, page_token: str, size: int) -> ReplayPage:
        """The page of ``collection`` (default: the live matches') that ``page_token`` names; ``size`` 0 is the
        default page size, and at most MAX_PAGE are given."""
        collection = collection or LIVE_COLLECTION
        try:
            check_collection(collection)
        except ValueError:
            raise InvalidArgument(f"a collection name is 1 to 128 letters, digits or _.:- characters, got "
                                  f"{quoted(collection)}") from None
        start = start_of(page_token) or 0
        # unchecked: a replay that does not decode is marked by list_entry, and the others are listed all the same
        found = await self._store_call(self.backends.replays.page, collection, start,
                                       page_size(size, DEFAULT_PAGE, MAX_PAGE), False)
        return ReplayPage([(f"{collection}/{index}", data) for index, data in found.items],
                          token_of(found.next_start))

    async def collections(self) -> list[tuple[str, int]]:
        """Every collection's name and number of replays."""
        found: list[tuple[str, int]] = await self._store_call(self.backends.replays.collections)
        return found

    async def _store_call(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return await self.backends.replay(call, *args)
        except ReplayError as exc:
            raise DataLoss(str(exc)) from None


def list_entry(replay_id: str, data: bytes) -> ReplayHeader | UnreadableReplay:
    """A replay as every listing shows it (gRPC, the web, `cardtable replay list`): its header, or why it cannot be
    read, so that one bad replay never fails the listing of the others."""
    try:
        frame = decode_frame(data)
    except ReplayError as exc:
        return UnreadableReplay(replay_id, len(data), str(exc))
    return ReplayHeader(replay_id, frame.header, frame.move_count, len(data))


def read_header(replay_id: str, data: bytes) -> ReplayHeader:
    """The header of a replay's bytes; DataLoss if they do not decode."""
    entry = list_entry(replay_id, data)
    if isinstance(entry, UnreadableReplay):
        raise DataLoss(f"replay {replay_id} does not decode: {entry.error}")
    return entry


def open_replayer(data: bytes, replay_id: str) -> Replayer:
    """A replayer at the start of the replay; DataLoss if its bytes do not decode."""
    try:
        return Replayer(data)
    except ReplayError as exc:
        raise DataLoss(f"replay {replay_id} does not decode: {exc}") from None


def replay_steps(replayer: Replayer, replay_id: str) -> Iterator[Step]:
    """The replayer's moves, one by one; DataLoss at the first that does not replay."""
    try:
        yield from replayer
    except ReplayError as exc:
        raise DataLoss(f"replay {replay_id} does not decode: {exc}") from None


def analysis_of(data: bytes, replay_id: str, from_trick: int, max_nodes: int,
                cancel: Cancel | None = None) -> dict[str, Any]:
    """:func:`replay.analysis.analyze`'s report of a replay (run it in a worker thread; raising ``cancel`` abandons
    it); DataLoss if its bytes do not decode, InvalidArgument for a game without the analysis (not a trick game) or
    a bad ``from_trick``."""
    try:
        return analyze(data, from_trick, max_nodes, cancel)
    except ReplayError as exc:
        raise DataLoss(f"replay {replay_id} does not decode: {exc}") from None
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    except Cancelled as exc:
        raise Unavailable(f"the analysis was abandoned: {exc}") from None


# ---- the projection: a replay as the API's message, which the gRPC service answers with and the web maps to JSON

def summary(replay_id: str, data: bytes) -> replay_service_pb2.ReplaySummary:
    """What a replay's header says (read without replaying the moves); DataLoss if it does not decode."""
    return summary_of(read_header(replay_id, data))


def summary_of(entry: ReplayHeader | UnreadableReplay) -> replay_service_pb2.ReplaySummary:
    """A listed replay as the proto message: its header, or (marked) why it cannot be read."""
    if isinstance(entry, UnreadableReplay):
        return replay_service_pb2.ReplaySummary(replay_id=entry.replay_id, size_bytes=entry.size_bytes,
                                                error=entry.error)
    header = entry.header
    return replay_service_pb2.ReplaySummary(
        replay_id=entry.replay_id, game_id=header.game, players=header.players, seed=header.seed,
        scope=header.scope, policies=header.policies, move_count=entry.move_count, size_bytes=entry.size_bytes,
        header_json=json.dumps(header.to_dict()))
