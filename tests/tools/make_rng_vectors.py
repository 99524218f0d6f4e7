"""Write tests/vectors/rng.json: SplitMix64 test vectors computed independently of ``engine.rng``.

The reference generator below is written from the algorithm text in ``engine/rng.py``'s docstring, in the plainest
form (no shared helpers), so the vectors are evidence about the engine rather than a copy of its output. Before
writing, the script checks the reference against the published SplitMix64 value for seed 0 and against the engine.

    .venv/bin/python tests/tools/make_rng_vectors.py          # rewrite the file
    .venv/bin/python tests/tools/make_rng_vectors.py --check  # exit 1 if the file is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "rng.json"

# Published first output of SplitMix64 seeded with 0 (Vigna's splitmix64.c; also the first value of Java's
# SplittableRandom(0).nextLong() read as unsigned).
PUBLISHED_SEED0_FIRST = 0xE220A8397B1DCDAF

SEEDS = [0, 1, 42, 2024, 0xDEADBEEF, 2**63 - 1, 2**64 - 1]
BOUNDS = [1, 2, 3, 6, 7, 52, 1000, 2**32 + 1, 3 * 2**62, 2**63 + 1]
DERIVE_PATHS: list[list[int]] = [[], [0], [1], [0, 0], [3, 7], [1, 2, 3]]
# Card codes in the canonical order of the rules files (shared/rules/README.md): suit first, then rank.
CARD_CODES = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


class ReferenceSplitMix64:
    """SplitMix64 exactly as engine/rng.py's docstring words it."""

    M = 2**64

    def __init__(self, seed: int) -> None:
        self.state = seed % self.M

    @classmethod
    def output(cls, z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % cls.M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % cls.M
        return z ^ (z >> 31)

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) % self.M
        return self.output(self.state)

    def below(self, n: int) -> int:
        threshold = (self.M - n) % n
        while True:
            r = self.next_u64()
            if r >= threshold:
                return r % n

    def shuffle(self, items: list) -> None:
        i = len(items) - 1
        while i >= 1:
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
            i -= 1


def reference_derive_seed(seed: int, path: list[int]) -> int:
    s = seed
    for p in path:
        s = ReferenceSplitMix64.output(s ^ ReferenceSplitMix64.output((p + 0x9E3779B97F4A7C15) % 2**64))
    return s


def build_vectors() -> dict:
    """Every vector from the reference generator alone."""
    streams = []
    for seed in SEEDS:
        outputs_rng = ReferenceSplitMix64(seed)
        outputs = [outputs_rng.next_u64() for _ in range(10)]
        below_rng = ReferenceSplitMix64(seed)
        below = [[n, below_rng.below(n)] for n in BOUNDS for _ in range(3)]
        deck = list(CARD_CODES)
        ReferenceSplitMix64(seed).shuffle(deck)
        streams.append({"seed": seed, "next_u64": outputs, "below": below, "shuffled_deck": deck})
    derived = [
        {"seed": seed, "path": path, "derived": reference_derive_seed(seed, path)}
        for seed in (0, 42, 2**64 - 1)
        for path in DERIVE_PATHS
    ]
    return {
        "algorithm": "SplitMix64 as specified in engine/rng.py (next_u64, below, Fisher-Yates shuffle, derive_seed)",
        "generator": "tests/tools/make_rng_vectors.py (an independent reference implementation)",
        "notes": {
            "below": "[n, value] pairs drawn in order from one generator per seed",
            "shuffled_deck": "the 52 card codes in canonical order (2C..AC, 2D..AS), shuffled in place by one "
            "generator per seed; the deck is listed top first",
        },
        "streams": streams,
        "derive_seed": derived,
    }


def cross_check(vectors: dict) -> None:
    """Fail loudly when the reference disagrees with the published value or with the engine."""
    seed0 = next(s for s in vectors["streams"] if s["seed"] == 0)
    if seed0["next_u64"][0] != PUBLISHED_SEED0_FIRST:
        first = seed0["next_u64"][0]
        raise SystemExit(f"reference SplitMix64(0) gives {first:#x}, published {PUBLISHED_SEED0_FIRST:#x}")
    sys.path.insert(0, str(VECTORS.parents[2]))
    from engine.cards import card_code, make_deck
    from engine.rng import Rng, derive_seed

    for stream in vectors["streams"]:
        rng = Rng(stream["seed"])
        if [rng.next_u64() for _ in range(10)] != stream["next_u64"]:
            raise SystemExit(f"engine.rng next_u64 disagrees with the reference for seed {stream['seed']}")
        deck = make_deck()
        Rng(stream["seed"]).shuffle(deck)
        if [card_code(c) for c in deck] != stream["shuffled_deck"]:
            raise SystemExit(f"engine.rng shuffle disagrees with the reference for seed {stream['seed']}")
    for case in vectors["derive_seed"]:
        if derive_seed(case["seed"], *case["path"]) != case["derived"]:
            raise SystemExit(f"engine.rng derive_seed disagrees with the reference for {case}")


def render(vectors: dict) -> str:
    """Indented JSON with each list of numbers or codes on one line, so the file reads like a table."""

    def compact(value: object, depth: int) -> str:
        pad = " " * depth
        if isinstance(value, dict):
            items = [f"{pad} {json.dumps(k)}: {compact(v, depth + 1)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + f"\n{pad}}}"
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            return "[\n" + ",\n".join(f"{pad} {compact(v, depth + 1)}" for v in value) + f"\n{pad}]"
        return json.dumps(value)

    return compact(vectors, 0) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    args = parser.parse_args()
    vectors = build_vectors()
    cross_check(vectors)
    text = render(vectors)
    if args.check:
        if VECTORS.read_text() != text:
            raise SystemExit(f"{VECTORS} is out of date; run {Path(__file__).name} to rewrite it")
        print(f"{VECTORS} is up to date")
        return
    VECTORS.parent.mkdir(parents=True, exist_ok=True)
    VECTORS.write_text(text)
    print(f"wrote {VECTORS} ({len(vectors['streams'])} seeds, {len(vectors['derive_seed'])} derive_seed cases)")


if __name__ == "__main__":
    main()
