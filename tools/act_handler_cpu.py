"""The gRPC ``Act`` handler's own CPU per call, in-process (no network, no gRPC server): a GameServicer over the Redis
at ``--redis-url`` (its database flushed first: give it one of its own), Tablanette matches of a person's seat
against a ``random`` bot as ``cardtable bench --grpc`` plays them, the person's moves random legal ones, its heap
settled as the server's (``services.server.settle_heap``).

    CARDTABLE_ENGINE=python python tools/act_handler_cpu.py --acts 3000            # µs of CPU per Act
    CARDTABLE_ENGINE=python python tools/act_handler_cpu.py --acts 3000 --profile  # and cProfile's top functions
    CARDTABLE_ENGINE=python PYTHONHASHSEED=0 valgrind --tool=callgrind --dump-before=os_getppid \
        --callgrind-out-file=/tmp/act.%p python tools/act_handler_cpu.py --acts 1000    # the loop: /tmp/act.<pid>.2

Under callgrind, the loop's instructions over ``acts`` are the steady figure (the loop also creates the matches and
builds the requests: the same work in any two checkouts).

The match ids, tokens and seeds are fixed, so two checkouts play the same moves: ``digest`` (a hash of every answer's
bytes and every stored record) is the same for two implementations that answer and store the same; ``answers_digest``
(of the answers alone) for two that answer the same (what the clients see) and store it differently.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import os
import pstats
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's services/, not the installed one's


class _Context:
    """What the handlers ask of a gRPC call's context when nothing fails."""

    def invocation_metadata(self) -> tuple:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"


async def _run(redis_url: str, acts: int, profile: bool) -> dict[str, Any]:
    import redis.asyncio

    from services.game_service import GameServicer
    from services.generated.cardtable.v1 import game_service_pb2 as pb
    from services.match_store import MatchStore
    from services.server import settle_heap

    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    store = MatchStore(client, prefix="ct:bench:")
    servicer = GameServicer(store)
    settle_heap()  # as the server does once it serves
    context = _Context()
    rng = random.Random(7)
    counter = iter(range(1 << 30))
    secrets.token_hex = lambda n=8: f"{next(counter):0{2 * n}x}"  # fixed match ids and tokens: a reproducible run
    secrets.token_urlsafe = lambda n=24: f"token{next(counter)}"
    digest, answers = hashlib.sha256(), hashlib.sha256()
    answer_bytes: list[bytes] = []
    match_ids = []
    cpu = 0.0
    done = 0
    profiler = cProfile.Profile(time.process_time) if profile else None
    os.getppid()  # under callgrind --dump-before=os_getppid, the loop is the region between two dumps
    while done < acts:
        created = await servicer.CreateGame(pb.CreateGameRequest(
            game_id="tablanette", seed=rng.getrandbits(63),
            seats=[pb.SeatSpec(kind=pb.SEAT_KIND_PERSON), pb.SeatSpec(kind=pb.SEAT_KIND_BOT, policy="random")]),
            context)
        match_ids.append(created.match_id)
        token = created.seat_tokens[0].token
        view = (await servicer.GetObservation(pb.GetObservationRequest(match_id=created.match_id, seat=0,
                                                                       seat_token=token), context)).view
        while not view.game_over and done < acts:
            request = pb.ActRequest(match_id=created.match_id, seat=0, seat_token=token,
                                    action=rng.choice(view.legal_actions), expected_move_number=view.move_number)
            if profiler is not None:
                profiler.enable()
            started = time.process_time()
            answer = await servicer.Act(request, context)
            cpu += time.process_time() - started
            if profiler is not None:
                profiler.disable()
            done += 1
            answer_bytes.append(answer.SerializeToString(deterministic=True))  # hashed after the loop
            view = answer.view
    os.getppid()
    for data in answer_bytes:
        digest.update(data)
        answers.update(data)
    for match_id in match_ids:
        record, log = store._keys(match_id)[:2]
        digest.update(repr(sorted((await client.hgetall(record)).items())).encode())
        digest.update((await client.get(log) or "").encode())
    await store.close()
    await client.flushdb()
    await client.aclose()
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return {"acts": done, "matches": len(match_ids), "us_per_act": round(1e6 * cpu / done, 1),
            "digest": digest.hexdigest()[:16], "answers_digest": answers.hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--acts", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:  # the server's loop (services.server)
        print(runner.run(_run(args.redis_url, args.acts, args.profile)))


if __name__ == "__main__":
    main()
