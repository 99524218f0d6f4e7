"""The live match store's checkpoints and the quick bots' slice: a move writes the position only every few moves, yet
every load (with or without the log, by any process) rebuilds the exact state; the bots' replies are the same however
a server splits them between its event loop and a worker thread."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence

import pytest
import redis.asyncio

from engine.bots import registry
from engine.bots.policy import RandomPolicy
from services.app.live_matches import LiveMatches
from services.app.matches import LiveMatch, Seat
from services.match_store import POSITION_EVERY, MatchStore

PERSON_AND_BOT = [Seat("person"), Seat("bot", "random")]


def _run(redis_url: str, body: Callable[[MatchStore, redis.asyncio.Redis], object]) -> None:
    async def main() -> None:
        async with redis.asyncio.Redis.from_url(redis_url, decode_responses=True) as client:
            await body(MatchStore(client), client)

    asyncio.run(main())


class _Position:
    """A commit's ``position()``: the match's position, noting that the store asked for it."""

    def __init__(self, match: LiveMatch) -> None:
        self.match = match
        self.asked = False

    def __call__(self) -> dict:
        self.asked = True
        return self.match.state.to_position()


def _same_state(loaded: LiveMatch, played: LiveMatch) -> None:
    assert loaded.version == played.version
    assert loaded.state.to_position() == played.state.to_position()
    assert loaded.state.legal_actions() == played.state.legal_actions()


def test_positions_are_checkpoints_and_every_load_rebuilds_the_state(redis_url):
    async def body(store: MatchStore, client: redis.asyncio.Redis) -> None:
        rng = random.Random(4)
        match, tokens, _ = LiveMatch.create("tablanette", PERSON_AND_BOT, {"max_deals": 1}, seed=9, first_dealer=None,
                                            match_id=f"ckpt{rng.getrandbits(32):08x}")
        assert await store.create(match.match_id, match.meta, match.state.to_position(), match.new_moves())
        match.saved()
        record = f"{store.prefix}{{{match.match_id}}}"
        checkpoints = set()
        while not match.state.is_terminal:
            before = match.version
            match.play_person(0, tokens[0], rng.choice(match.state.legal_actions()), before)
            position = _Position(match)
            assert await store.commit(match.match_id, before, position, match.new_moves(),
                                      finished=match.state.is_terminal)
            match.saved()
            crossed = before // POSITION_EVERY != match.version // POSITION_EVERY
            assert position.asked == (crossed or match.state.is_terminal)
            checkpoints.add(await client.hget(record, "position_log"))
            for with_log in (False, True):
                stored = await store.load(match.match_id, with_log=with_log)
                assert len(stored.after_position) < POSITION_EVERY
                loaded = LiveMatch.load(stored)
                _same_state(loaded, match)
                if with_log:
                    assert loaded.state.moves == stored.moves and len(stored.moves) == match.version
        assert len(checkpoints) > 2  # the position moved on now and then, not on every move
        assert await store.in_play([match.match_id]) == [False]  # the final position is written

    _run(redis_url, body)


def test_a_record_from_before_checkpoints_loads_and_moves_on(redis_url):
    """A match stored when every move wrote the position (no position_log field) keeps its state through moves that
    write none."""
    async def body(store: MatchStore, client: redis.asyncio.Redis) -> None:
        match, tokens, _ = LiveMatch.create("german_whist", PERSON_AND_BOT, {}, seed=5, first_dealer=None,
                                            match_id=f"old{random.getrandbits(32):08x}")
        assert await store.create(match.match_id, match.meta, match.state.to_position(), match.new_moves())
        match.saved()
        record = f"{store.prefix}{{{match.match_id}}}"
        rng = random.Random(2)
        without_checkpoint = commits = 0
        while commits < 2 * POSITION_EVERY and not match.state.is_terminal:
            commits += 1
            # the record as the store wrote it before checkpoints: the position after every move, no position_log
            await client.hset(record, "position", json.dumps(match.state.to_position()))
            await client.hdel(record, "position_log")
            before = match.version
            match.play_person(0, tokens[0], rng.choice(match.state.legal_actions()), before)
            position = _Position(match)
            assert await store.commit(match.match_id, before, position, match.new_moves())
            match.saved()
            without_checkpoint += not position.asked
            _same_state(LiveMatch.load(await store.load(match.match_id, with_log=False)), match)
        assert commits > POSITION_EVERY / 2 and without_checkpoint > commits / 2

    _run(redis_url, body)


def test_two_processes_take_turns_on_one_match(redis_url):
    """Two servers over one Redis, a move each in turn: each move is made on a match loaded from a checkpoint and the
    moves after it (the other server's cache is stale), and both end with the same replay."""
    async def body(store: MatchStore, client: redis.asyncio.Redis) -> None:
        replays: list[bytes] = []

        async def save(data: bytes) -> str:
            replays.append(data)
            return f"r{len(replays)}"

        servers = [LiveMatches(store, save), LiveMatches(MatchStore(client), save)]
        created = await servers[0].create("tablanette", PERSON_AND_BOT, {"max_deals": 1}, seed=12)
        match_id, token = created.match.match_id, created.tokens[0]
        twin, twin_tokens, _ = LiveMatch.create("tablanette", PERSON_AND_BOT, {"max_deals": 1}, seed=12,
                                                first_dealer=None)
        rng = random.Random(6)
        turn = 0
        while True:
            view = LiveMatch.load(await store.load(match_id, with_log=False))
            action = rng.choice(view.state.legal_actions())
            acted = await servers[turn % 2].act(match_id, 0, token, action, view.version)
            expected = twin.play_person(0, twin_tokens[0], action, twin.version)
            assert [(p.seat, p.action) for p in acted.played] == [(p.seat, p.action) for p in expected]
            _same_state(acted.match, twin)
            turn += 1
            if acted.match.state.is_terminal:
                break
        assert replays == [twin.replay_bytes(twin.state.moves)] and acted.replay_id == "r1"

    _run(redis_url, body)


@pytest.fixture
def slow_policy(monkeypatch: pytest.MonkeyPatch) -> str:
    """A policy that plays like ``random`` but is none of the quick ones (a policy of one's own)."""

    class Derived(RandomPolicy):
        name = "derived"
        summary = "Random, by another name."

        def choose_id(self, legal_ids: Sequence[int], observe: Callable) -> int:
            return super().choose_id(legal_ids, observe)

    monkeypatch.setitem(registry._POLICIES, "derived", Derived)
    return "derived"


@pytest.mark.parametrize("slice_s", [0.0, 10.0])
def test_the_quick_slice_plays_the_same_bots_moves(slice_s, slow_policy):
    seats = [Seat("person"), Seat("bot", "random"), Seat("bot", slow_policy)]
    whole, tokens, _ = LiveMatch.create("tablanette", seats, {"max_deals": 1}, seed=3, first_dealer=None)
    split, split_tokens, _ = LiveMatch.create("tablanette", seats, {"max_deals": 1}, seed=3, first_dealer=None)
    rng = random.Random(1)
    while not whole.state.is_terminal:
        action = rng.choice(whole.state.legal_actions())
        expected = whole.play_person(0, tokens[0], action, whole.version)
        played = split.play_move(0, split_tokens[0], action, split.version)
        quick = split.play_bots(quick_for=slice_s)
        # the slice plays the random seat's reply if it comes first (unless spent at once), never the other policy's
        first_reply = expected[len(played)].seat if len(expected) > len(played) else None
        assert all(p.seat == 1 for p in quick) and bool(quick) == (slice_s > 0 and first_reply == 1)
        rest = split.play_bots() if split.bot_to_act() else []
        assert not split.bot_to_act()
        assert [(p.seat, p.action, p.number) for p in played + quick + rest] == \
            [(p.seat, p.action, p.number) for p in expected]
        assert split.state.to_position() == whole.state.to_position()
