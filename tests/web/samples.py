"""Samples of what the web answers with (tests/web/test_projection.py), built without Redis and deterministically.
The jobs: every state, with and without results, policy parameters, several options, a 64-bit seed, a tournament's
job (unit_scores), a sample log, a game this server does not know, times with sub-millisecond digits. The replays:
three games, both scopes, options, a 64-bit seed, and bytes that do not decode. The views of live matches, moves and
games: see :func:`sample_views`, :func:`sample_moves`, :func:`sample_game_infos`.

tests/web/data/web_json.json holds the web's JSON of each (``wire.dumps``) as the web answered before its JSON was
mapped from the API's messages (the hand-written ``job_summary``, ``replay_json``, ``state_view``, ``played_moves``,
``list_games`` and ``game_info`` of services/web/app.py at commit 3c94fe6)."""

from __future__ import annotations

import engine
from engine.state import State
from replay.record import record_deal, record_match
from services.app.matches import BOT, PERSON, LiveMatch, Played, Seat
from workers.chunk import play_chunk
from workers.jobstore import JobRecord
from workers.plan import job_chunks
from workers.spec import JobSpec, LogSpec, validate
from workers.stats import side_seats, summarize, total

BIG_SEED = 3331525659724964719
CREATED = 1765036000.1234567


def _results(spec: JobSpec) -> dict:
    done = [play_chunk(spec, chunk) for chunk in job_chunks(spec)]
    return {**summarize(spec, total(done, len(side_seats(spec))), 1.5), "cpu_seconds": 0.25}  # measured: fixed here


def sample_jobs() -> list[JobRecord]:
    tablic = validate(JobSpec("tablic", ("greedy:epsilon=0.25", "random"), 40, seed=1, chunk_size=20))
    belote = validate(JobSpec("belote", ("random",), 6, seed=BIG_SEED, unit="deal",
                              options={"target_score": 501, "litige": False}, log=LogSpec("sample", 2), chunk_size=3))
    whist = validate(JobSpec("german_whist", ("greedy", "random"), 4, seed=7, unit="match", log=LogSpec("all"),
                             unit_scores=True))
    unknown = JobSpec("no_such_game", ("random", "random"), 10, seed=BIG_SEED, players=2, chunk_size=5)
    return [
        JobRecord("sim-000000000001", tablic, "queued", 1, CREATED),
        JobRecord("sim-000000000002", tablic, "running", 2, CREATED, started=CREATED + 0.0004567, units_done=20,
                  chunks_done=1, chunks_total=2),
        JobRecord("sim-000000000003", tablic, "succeeded", 3, CREATED, started=CREATED + 1.25,
                  finished=CREATED + 9.8765432, units_done=40, chunks_done=2, chunks_total=2,
                  results=_results(tablic)),
        JobRecord("sim-000000000004", belote, "failed", 4, CREATED, started=CREATED + 1, finished=CREATED + 2,
                  error="chunk 1 of the job failed: boom", units_done=3, chunks_done=1, chunks_total=2,
                  results=_results(belote)),
        JobRecord("sim-000000000005", whist, "cancelled", 5, CREATED, started=CREATED + 1, finished=CREATED + 3,
                  cancel_requested=True, units_done=4, chunks_done=1, chunks_total=1, results=_results(whist)),
        JobRecord("sim-000000000006", unknown, "queued", 6, 1765036000.0),
    ]


def sample_replays() -> list[tuple[str, bytes]]:
    """Replays of several games and scopes (a 64-bit seed, options, a whole match), and bytes that do not decode."""
    return [
        ("sample/0", record_deal("belote_contree", seed=BIG_SEED, policies=("greedy",) * 4)),
        ("sample/1", record_deal("tablanette", seed=7, policies=("greedy:epsilon=0.25", "random"))),
        ("sample/2", record_match("german_whist", seed=11, options={"max_deals": 2})),
        ("sample/3", b"\x00not a replay"),
    ]


def sample_views() -> list[tuple[LiveMatch, State, int | None, int, bool]]:
    """Views of live matches (match, state, seat or None for anyone, move number, with the history): a fishing
    game's whole turns, an auction, a bot's parameters, a finished match with its replay, each from a seat and as
    anyone sees it."""
    tablanette, _, _ = LiveMatch.create("tablanette", [Seat(PERSON), Seat(BOT, "greedy:epsilon=0.25")], {},
                                        seed=BIG_SEED, first_dealer=None, match_id="m0")
    contree, _, _ = LiveMatch.create("belote_contree", [Seat(BOT, "random"), Seat(PERSON)] + [Seat(BOT, "greedy")] * 2,
                                     {"target_score": 1000}, seed=5, first_dealer=None, match_id="m1")
    state = engine.new_match("german_whist", seed=3, options={"max_deals": 1})
    while not state.is_terminal:
        state.apply_id(state.legal_action_ids()[0])
    meta = {"game": "german_whist", "seats": [Seat(PERSON).to_dict(), Seat(BOT, "random").to_dict()]}
    over = LiveMatch("m2", meta, state, len(state.history), replay_id="live/7")
    views = []
    for match in (tablanette, contree, over):
        for seat in (0, 1, None):
            for history in (True, False):
                views.append((match, match.state, seat, match.version, history))
    return views


def sample_moves() -> list[tuple[list[Played], int | None]]:
    """The bots' opening moves of a match (an auction), as the person's seat, another seat and anyone see them."""
    _, _, played = LiveMatch.create("belote_contree", [Seat(BOT, "greedy")] * 3 + [Seat(PERSON)], {}, seed=9,
                                    first_dealer=3, match_id="m3")
    return [(played, viewer) for viewer in (3, 0, None)]


def sample_game_infos() -> list[tuple[str, str]]:
    """Every game at each of its player counts, and at its default (an empty ``players``): (game id, players)."""
    return [(game_id, str(players)) for game_id in engine.list_games()
            for players in ("", *engine.game_info(game_id).player_counts)]
