"""One slow request never stalls the others: bots' moves (CreateGame, Act) and replay decoding, streaming and export
run off the server's event loop. A gate holds the slow request inside its slow part; a cheap call made meanwhile must
be answered while the slow one is still pending (an ordering, not a timing: the waits only bound a deadlock)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence

import pytest
from matchplay import ONE_DEAL, PERSON, bot, create, observe, play_to_end

from engine.bots import registry
from engine.bots.policy import RandomPolicy
from replay import Replayer
from services import replay_service
from services.app import replays as replay_reads
from services.generated.cardtable.v1 import game_service_pb2, replay_service_pb2, replay_service_pb2_grpc

DEADLOCK_S = 60  # a bound on waiting for what must happen; a passing run never comes near it


class Gate:
    """Holds whoever calls :meth:`pass_through` until :meth:`open`; says when someone is held."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def pass_through(self) -> None:
        self.entered.set()
        assert self.opened.wait(DEADLOCK_S), "the gate was never opened"

    def close(self) -> None:
        self.entered.clear()
        self.opened.clear()

    def open(self) -> None:
        self.opened.set()


@pytest.fixture
def gate() -> Iterator[Gate]:
    gate = Gate()
    yield gate
    gate.open()  # never leave a server thread held


@pytest.fixture
def gated_policy(gate: Gate, monkeypatch: pytest.MonkeyPatch) -> str:
    """A policy ``gated`` that plays like ``random`` once the gate lets it through."""

    class GatedPolicy(RandomPolicy):
        name = "gated"
        summary = "Plays a random move when the test's gate opens."

        def choose_id(self, legal_ids: Sequence[int], observe: Callable) -> int:
            gate.pass_through()
            return super().choose_id(legal_ids, observe)

    monkeypatch.setitem(registry._POLICIES, "gated", GatedPolicy)
    return "gated"


def _answered_while_held(gate: Gate, slow, cheap: Callable[[], object]) -> None:
    """``slow`` (a call future) is held at the gate; ``cheap()`` is answered before it; then the gate opens."""
    assert gate.entered.wait(DEADLOCK_S), "the slow request never reached its slow part"
    quick = cheap()
    assert quick.result(timeout=DEADLOCK_S) is not None  # before the fix: blocked behind the held request
    assert not slow.done(), "the slow request was not held after all"
    gate.open()
    slow.result(timeout=DEADLOCK_S)


def _list_games(games):
    return lambda: games.ListGames.future(game_service_pb2.ListGamesRequest())


def test_bots_playing_a_whole_match_at_creation_do_not_stall_other_calls(games, gate, gated_policy) -> None:
    request = game_service_pb2.CreateGameRequest(game_id="german_whist", seats=[bot(gated_policy), bot(gated_policy)],
                                                 seed=3, options=ONE_DEAL)
    slow = games.CreateGame.future(request)
    _answered_while_held(gate, slow, _list_games(games))
    assert slow.result().view.game_over


def test_a_bot_replying_to_a_move_does_not_stall_other_calls(games, gate, gated_policy) -> None:
    gate.open()  # the bot's opening moves, if any, pass
    created, tokens = create(games, [PERSON, bot(gated_policy)], game_id="german_whist", seed=5)
    other, other_tokens = create(games, [PERSON, bot("random")], seed=8)  # a second match, served meanwhile
    view = observe(games, created.match_id, 0, tokens[0])
    assert view.current_player == 0  # the bot's opening moves were played at creation
    gate.close()
    slow = games.Act.future(game_service_pb2.ActRequest(
        match_id=created.match_id, seat=0, seat_token=tokens[0], action=view.legal_actions[0],
        expected_move_number=view.move_number))
    _answered_while_held(gate, slow, lambda: games.GetObservation.future(game_service_pb2.GetObservationRequest(
        match_id=other.match_id, seat=0, seat_token=other_tokens[0])))
    assert slow.result().moves[0].action == view.legal_actions[0]


@pytest.fixture(scope="module")
def replay_id(games) -> str:
    created, tokens = create(games, [PERSON, bot("random")], seed=41)
    return play_to_end(games, created.match_id, tokens)[-1].replay_id


@pytest.fixture
def replays(channel) -> replay_service_pb2_grpc.ReplayServiceStub:
    return replay_service_pb2_grpc.ReplayServiceStub(channel)


@pytest.fixture
def gated_decoding(gate: Gate, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay service's decoder (the real one) and JSON export wait at the gate first."""

    class GatedReplayer(Replayer):
        def __init__(self, data: bytes) -> None:
            gate.pass_through()
            super().__init__(data)

    real_export = replay_service.export_json

    def gated_export(data: bytes) -> str:
        gate.pass_through()
        return real_export(data)

    monkeypatch.setattr(replay_reads, "Replayer", GatedReplayer)  # the decoder the replay service calls
    monkeypatch.setattr(replay_service, "export_json", gated_export)


@pytest.mark.parametrize("call", ["GetReplay", "StreamReplay", "ExportReplay"])
def test_decoding_a_replay_does_not_stall_other_calls(games, replays, replay_id, gate, gated_decoding,
                                                      call: str) -> None:
    if call == "StreamReplay":
        stream = replays.StreamReplay(replay_service_pb2.StreamReplayRequest(replay_id=replay_id))
        slow = _Consumed(stream)
    else:
        request = getattr(replay_service_pb2, f"{call}Request")(replay_id=replay_id)
        slow = getattr(replays, call).future(request)
    _answered_while_held(gate, slow, _list_games(games))


class _Consumed:
    """A server stream read to its end in a thread, with a future's ``done`` and ``result``."""

    def __init__(self, stream) -> None:
        self.items: list = []
        self.thread = threading.Thread(target=lambda: self.items.extend(stream), daemon=True)
        self.thread.start()

    def done(self) -> bool:
        return not self.thread.is_alive()

    def result(self, timeout: float) -> list:
        self.thread.join(timeout)
        assert not self.thread.is_alive()
        return self.items
