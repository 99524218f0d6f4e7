"""The PettingZoo environment's step and the AEC protocol's floor step counted in instructions (callgrind), game by
game: the loops of ``cardtable bench --env pettingzoo`` (``services.bench.envs.env_steps`` and ``protocol_steps``),
steadier than its wall clock on a shared machine.

    python tools/callgrind_env.py [--deals N] [--root CHECKOUT] [--switch-off encoder|encoder+moved] [--keep DIR]
                                  [GAME ...]
    python tools/callgrind_env.py --vector [--deals N] [--steps S] [--num-envs M] [--root CHECKOUT] [GAME ...]

It runs itself under ``valgrind --tool=callgrind`` (PYTHONHASHSEED=0, CARDTABLE_ENGINE=python unless set) and prints
one JSON line per game: the instructions per step of N seeded one-deal matches of each loop, played between two
``os.getppid()`` calls (``--dump-before=os_getppid``) after a warm-up match and a full garbage collection, and
``ratio``, the protocol's instructions per step over the environment's (the instruction count's
``env_steps_per_s / protocol_steps_per_s``). ``--switch-off encoder`` returns each seat's vector as it stands instead
of encoding (what the encoder costs), ``encoder+moved`` also tells it of no move (from source only: compiled, the
encoder is a typed field that no stand-in can fill).

``--keep DIR`` keeps callgrind's dumps there (``env.out.2``, the first game's floor region, ``env.out.4`` its
environment's, then 6, 8, ... for the next games') for ``callgrind_annotate --inclusive=yes``.

``--vector`` counts ``cardtable bench --env vector``'s loops instead: the engine's step loop (N single deals, as above)
and S steps of the vector environment's M single-deal matches (random legal actions from ``sample_actions``, copies
returned, after 5 steps), and prints the instructions per engine move, per match step of the vector environment, and
``env_to_engine``, their ratio (the instruction count's ``env_steps_per_s / engine_moves_per_s``).

What the count does not weigh (docs/environments.md, session 43): the region starts after a full collection, and 40
steps see none of the full collections that 64 matches in play bring about (German Whist's and Two-Ten-Jack's take
8-14% of their wall clock: ``cardtable bench --env vector`` reports the share); a new zeroed array is valgrind's own
``calloc`` here, zeroed instruction by instruction (Boonaken's 2.4 MB masks a step: about 29,000 instructions a match
step that glibc does not spend); cache misses (``--cache-sim=yes`` shows them, not what they cost).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

GAMES = ("belote", "belote_contree", "boonaken", "botifarra", "german_whist", "tablanette", "tablic", "thunee",
         "trappola", "tres", "two_ten_jack")


def play(games: list[str], deals: int, switch_off: str | None) -> None:
    """The measured regions (in the child, under callgrind); prints the steps each region played."""
    import numpy as np

    import envs.pettingzoo
    from envs.encoding import ObservationEncoder
    from services.bench.envs import env_steps, protocol_steps

    class SwitchedOff:
        """The environment's encoder with its ``encode`` returning each seat's vector as it stands (and with
        ``encoder+moved`` told of no move). (A wrapper: compiled, the encoder's class takes no new methods.)"""

        def __init__(self, players: int, game: str) -> None:
            self.encoder = ObservationEncoder(players, game)
            self.size = self.encoder.size
            self.vectors = [np.zeros(self.size, dtype=np.float32) for _ in range(players)]

        def new_match(self, state: object) -> None:
            self.encoder.new_match(state)

        def moved(self, state: object, action: int) -> None:
            if switch_off != "encoder+moved":
                self.encoder.moved(state, action)

        _moved = moved  # (SeatMoves tells its encoder of a move by this name)

        def encode(self, state: object, seat: int) -> np.ndarray:
            return self.vectors[seat].copy()

    if switch_off:
        envs.pettingzoo.ObservationEncoder = SwitchedOff  # type: ignore[misc,assignment]
    for game in games:
        for make in (protocol_steps, env_steps):
            print(_measured(make(game, None, 1), deals), flush=True)


def _measured(loop: Callable[[int], int], deals: int) -> int:
    """``loop``'s steps over ``deals`` deals (1 to ``deals``) between two ``os.getppid()`` marks, after a warm-up deal
    (0) and a full garbage collection outside them."""
    loop(0)
    gc.collect()
    steps = 0
    os.getppid()
    for k in range(1, deals + 1):
        steps += loop(k)
    os.getppid()
    return steps


def play_vector(games: list[str], deals: int, steps: int, num_envs: int) -> None:
    """The measured regions of ``--vector`` (in the child, under callgrind); prints the moves each region played."""
    import numpy as np

    from envs.vector import CardtableVectorEnv
    from services.bench.envs import DEAL, engine_steps

    for game in games:
        print(_measured(engine_steps(game, None, 1), deals), flush=True)
        venv = CardtableVectorEnv(game, num_envs, None, options=DEAL)
        venv.reset(seed=1)
        rng = np.random.default_rng(1)
        for _ in range(5):
            venv.step(venv.sample_actions(rng))
        gc.collect()
        os.getppid()
        for _ in range(steps):
            venv.step(venv.sample_actions(rng))
        os.getppid()
        print(steps * num_envs, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--deals", type=int, default=5)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--switch-off", choices=("encoder", "encoder+moved"), default=None)
    ap.add_argument("--vector", action="store_true", help="the vector environment's step against the engine's move")
    ap.add_argument("--steps", type=int, default=40, help="--vector: the vector environment's steps counted")
    ap.add_argument("--num-envs", type=int, default=64, help="--vector: its matches")
    ap.add_argument("--keep", type=Path, default=None, help="keep callgrind's dumps in this directory")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.vector:
            play_vector(args.games, args.deals, args.steps, args.num_envs)
        else:
            play(args.games, args.deals, args.switch_off)
        return
    root = args.root.resolve()
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    env.setdefault("CARDTABLE_ENGINE", "python")
    if args.switch_off and env["CARDTABLE_ENGINE"] != "python":
        # compiled, SeatMoves holds its encoder as a typed ObservationEncoder: a stand-in class cannot take its place
        ap.error("--switch-off replaces the encoder's class, which only the engine's source allows: "
                 "run it with CARDTABLE_ENGINE=python")
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        out = (args.keep.resolve() if args.keep else Path(tmp)) / "env.out"
        child = [sys.executable, __file__, "--child", "--deals", str(args.deals), *args.games]
        if args.switch_off:
            child += ["--switch-off", args.switch_off]
        if args.vector:
            child += ["--vector", "--steps", str(args.steps), "--num-envs", str(args.num_envs)]
        run = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=os_getppid",
                              f"--callgrind-out-file={out}", *child],
                             env=env, cwd=root, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
        steps = [int(line) for line in run.stdout.split()]
        for g, game in enumerate(args.games):
            per_step = []
            for j in range(2):  # dumps: .1 the start and the first warm-up, .2 the first region, .3 ...
                k = 2 * g + j
                found = re.search(r"^(?:summary|totals): (\d+)", Path(f"{out}.{2 * k + 2}").read_text(), re.M)
                assert found, f"no totals in {out}.{2 * k + 2}"
                per_step.append(int(found.group(1)) / steps[k])
            if args.vector:
                print(json.dumps({"game": game, "engine": env["CARDTABLE_ENGINE"], "deals": args.deals,
                                  "steps": args.steps, "num_envs": args.num_envs,
                                  "engine_instr_per_move": round(per_step[0]),
                                  "env_instr_per_step": round(per_step[1]),
                                  "env_to_engine": round(per_step[0] / per_step[1], 3)}), flush=True)
                continue
            print(json.dumps({"game": game, "engine": env["CARDTABLE_ENGINE"], "deals": args.deals,
                              "protocol_instr_per_step": round(per_step[0]), "env_instr_per_step": round(per_step[1]),
                              "ratio": round(per_step[0] / per_step[1], 3)}), flush=True)


if __name__ == "__main__":
    main()
