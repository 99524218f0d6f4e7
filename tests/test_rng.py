"""engine.rng against the committed SplitMix64 vectors (tests/vectors/rng.json) and for unbiased bounded draws.

The vectors come from an independent reference implementation (tests/tools/make_rng_vectors.py), so a change in the
engine's generator fails here, and another language can check its port against the same file.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import pickle
import sys
from collections import Counter
from pathlib import Path

import pytest

import engine
from engine.cards import card_code, make_deck
from engine.rng import GOLDEN, Rng, derive_seed, mix, outputs

VECTORS = json.loads((Path(__file__).parent / "vectors" / "rng.json").read_text())
STREAMS = VECTORS["streams"]
SEED_IDS = [f"seed={s['seed']}" for s in STREAMS]

# Published first output of SplitMix64 seeded with 0 (Vigna's reference splitmix64.c).
PUBLISHED_SEED0_FIRST = 0xE220A8397B1DCDAF


class CountingRng(Rng):
    """An Rng that counts its raw 64-bit draws (to see rejection sampling at work), by how far its state has moved:
    each draw adds GOLDEN, whichever method made it."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.start = self.state

    @property
    def draws(self) -> int:
        return (self.state - self.start) * pow(GOLDEN, -1, 2**64) % 2**64


def chi_square(counts: Counter, categories: int, total: int) -> float:
    expected = total / categories
    return sum((counts[k] - expected) ** 2 / expected for k in range(categories))


def test_vectors_file_is_what_the_reference_generator_writes() -> None:
    path = Path(__file__).parent / "tools" / "make_rng_vectors.py"
    spec = importlib.util.spec_from_file_location("make_rng_vectors", path)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.render(generator.build_vectors()) == (Path(__file__).parent / "vectors" / "rng.json").read_text()


def test_vectors_start_from_the_published_splitmix64_value() -> None:
    seed0 = next(s for s in STREAMS if s["seed"] == 0)
    assert seed0["next_u64"][0] == PUBLISHED_SEED0_FIRST
    assert Rng(0).next_u64() == PUBLISHED_SEED0_FIRST


@pytest.mark.parametrize("stream", STREAMS, ids=SEED_IDS)
def test_next_u64_matches_the_vectors(stream: dict) -> None:
    rng = Rng(stream["seed"])
    assert [rng.next_u64() for _ in stream["next_u64"]] == stream["next_u64"]


@pytest.mark.parametrize("stream", STREAMS, ids=SEED_IDS)
def test_below_matches_the_vectors(stream: dict) -> None:
    rng = Rng(stream["seed"])
    assert [[n, rng.below(n)] for n, _ in stream["below"]] == stream["below"]


@pytest.mark.parametrize("stream", STREAMS, ids=SEED_IDS)
def test_shuffled_deck_matches_the_vectors(stream: dict) -> None:
    deck = make_deck()
    Rng(stream["seed"]).shuffle(deck)
    assert [card_code(c) for c in deck] == stream["shuffled_deck"]


@pytest.mark.parametrize("case", VECTORS["derive_seed"], ids=lambda c: f"{c['seed']}/{c['path']}")
def test_derive_seed_matches_the_vectors(case: dict) -> None:
    assert derive_seed(case["seed"], *case["path"]) == case["derived"]


def test_the_vectors_exercise_rejection_sampling() -> None:
    # Bounds such as 3 * 2**62 reject a quarter of the raw draws; the vectors must cover that path.
    draws = calls = 0
    for stream in STREAMS:
        rng = CountingRng(stream["seed"])
        for n, _ in stream["below"]:
            rng.below(n)
            calls += 1
        draws += rng.draws
    assert draws > calls


def test_seed_is_taken_modulo_2_to_the_64() -> None:
    assert Rng(2**64 + 5).next_u64() == Rng(5).next_u64()


@pytest.mark.parametrize("bad", [1.5, "7", None, True])
def test_rng_rejects_a_seed_that_is_not_an_integer(bad: object) -> None:
    with pytest.raises(ValueError, match="seed must be an integer"):
        Rng(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bound", [0, -3])
def test_below_rejects_a_bound_that_is_not_positive(bound: int) -> None:
    with pytest.raises(ValueError, match="positive bound"):
        Rng(1).below(bound)


@pytest.mark.parametrize("seed", [0, 7, -1, -(1 << 70) + 3, (1 << 64) - 1, 1 << 64, (1 << 90) + 5])
@pytest.mark.parametrize("path", [(), (0,), (-1,), ((1 << 64) - 1,), (1 << 64, 3), (-(1 << 70), 12, (1 << 63) + 1)])
def test_derive_seed_is_mix_as_specified_for_any_int(seed: int, path: tuple[int, ...]) -> None:
    # the compiled build derives in C integers: any int's value modulo 2**64, as the specification's form below
    expected = seed & ((1 << 64) - 1)
    for p in path:
        expected = mix(expected ^ mix(p + GOLDEN))
    assert derive_seed(seed, *path) == expected


def test_derive_seed_gives_distinct_streams() -> None:
    seeds = {derive_seed(7, chunk) for chunk in range(1000)} | {derive_seed(7, 0, seat) for seat in range(1000)}
    assert len(seeds) == 2000
    assert derive_seed(7) == 7


def test_below_is_unbiased_on_a_small_bound() -> None:
    # Fixed seed, so the statistic is a fixed number; 20.52 is the 0.1% critical value of chi-square with 5 d.o.f.
    rng, total = Rng(20240601), 60_000
    counts = Counter(rng.below(6) for _ in range(total))
    assert set(counts) == set(range(6))
    assert chi_square(counts, 6, total) < 20.52


def test_below_is_unbiased_on_a_bound_where_plain_modulo_is_not() -> None:
    # For n = 3 * 2**62, r % n without rejection puts half the mass in the lowest third of [0, n).
    n, rng, total = 3 * 2**62, Rng(99), 30_000
    counts = Counter(rng.below(n) * 3 // n for _ in range(total))
    assert chi_square(counts, 3, total) < 13.82  # 0.1% critical value, 2 d.o.f.
    biased = Rng(99)
    modulo_counts = Counter((biased.next_u64() % n) * 3 // n for _ in range(total))
    assert chi_square(modulo_counts, 3, total) > 1000  # the same statistic does see plain modulo's bias


def test_shuffle_is_a_permutation_and_uniform_over_small_lists() -> None:
    rng, total = Rng(5), 24_000
    counts = Counter(tuple(_shuffled(rng, [0, 1, 2, 3])) for _ in range(total))
    assert len(counts) == 24
    ordered = Counter({i: counts[p] for i, p in enumerate(sorted(counts))})
    assert chi_square(ordered, 24, total) < 49.73  # 0.1% critical value, 23 d.o.f.


def _unmix(value: int) -> int:
    """The z with ``mix(z) == value`` (each step of SplitMix64's output function undone)."""
    def unshift(z: int, bits: int) -> int:
        x = z
        for _ in range(64 // bits + 1):
            x = z ^ (x >> bits)
        return x
    z = unshift(value, 31)
    z = unshift(z * pow(0x94D049BB133111EB, -1, 2**64) % 2**64, 27)
    return unshift(z * pow(0xBF58476D1CE4E5B9, -1, 2**64) % 2**64, 30)


def _sequential_shuffle(rng: Rng, items: list) -> list:
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


@pytest.mark.parametrize(("step", "draw"), [(0, 3), (0, 16), (0, 40), (1, 0), (1, 1), (20, 5), (50, 0)])
def test_shuffle_takes_the_same_draws_when_one_is_small_or_rejected(step: int, draw: int) -> None:
    # A state whose draw number ``step`` is ``draw``: below 52, so the batch of draws is not used as it is; below
    # the threshold of its bound (16 for 52, 1 for 51), so it is rejected and every later step takes the next draw.
    seed = (_unmix(draw) - (step + 1) * 0x9E3779B97F4A7C15) % 2**64
    assert mix(seed + (step + 1) * 0x9E3779B97F4A7C15) == draw
    for size in (52, 32):
        fast, slow = Rng(seed), CountingRng(seed)
        assert _shuffled(fast, list(range(size))) == _sequential_shuffle(slow, list(range(size)))
        assert fast.state == slow.state and slow.draws == size - 1 + (draw < ((2**64 - size + step) % (size - step)))


@pytest.mark.parametrize(("step", "draw"), [(0, 0), (0, 2**48 - 1), (2, 1), (3, 2**48), (20, 7), (70, 3)])
def test_pick_takes_below_s_draws_when_one_is_small_or_rejected(step: int, draw: int) -> None:
    # A state whose draw number ``step`` is ``draw``: under SURE (2**48), so pick checks it as below does, and below
    # rejects it when it is under its bound's threshold.
    seed = (_unmix(draw) - (step + 1) * 0x9E3779B97F4A7C15) % 2**64
    counts = [3, 6, 13, 1, 2, 200, 7] * 15
    fast, slow = Rng(seed), CountingRng(seed)
    picked = [fast.pick(range(count)) for count in counts]
    assert picked == [slow.below(count) if count > 1 else 0 for count in counts] and fast.state == slow.state
    drawn = [count for count in counts if count > 1]  # the picks that draw: drawn[step] takes the small draw
    assert slow.draws == len(drawn) + (draw < (2**64 - drawn[step]) % drawn[step])


def test_outputs_are_the_next_draws() -> None:
    for seed in (0, 1, 2**64 - 1, 0x9E3779B97F4A7C15):
        rng = Rng(seed)
        assert outputs(seed, 60) == tuple(rng.next_u64() for _ in range(60))


def test_choice_draws_with_below() -> None:
    items = ["a", "b", "c", "d", "e"]
    assert Rng(11).choice(items) == items[Rng(11).below(5)]


def _shuffled(rng: Rng, items: list) -> list:
    rng.shuffle(items)
    return items


def test_a_seed_nobody_gave_is_exact_as_a_json_number() -> None:
    """Every fresh seed (a match's, a job's, the CLI's) comes from one place and stays below 2**53."""
    seeds = [engine.new_match("tablic").seed for _ in range(20)]
    assert all(0 <= seed < 2**53 for seed in seeds) and len(set(seeds)) == 20
    assert all(float(seed) == seed for seed in seeds)


def test_a_pickled_generator_draws_on_as_its_original() -> None:
    """Generators travel pickled with the states that hold them (clones shipped to workers): by their state, which
    either engine loads (the compiled one keeps it in C, the source computes draws ahead in batches)."""
    rng = Rng(99)
    rng.below(7), rng.pick(range(13)), rng.shuffle(list(range(52)))
    rng.shared = True
    twin = pickle.loads(pickle.dumps(rng))
    assert type(twin) is Rng and twin.state == rng.state and twin.shared
    assert [twin.next_u64() for _ in range(70)] == [rng.next_u64() for _ in range(70)]
    assert copy.deepcopy(rng).state == rng.copy().state == rng.state


def test_the_generator_without_cython_draws_what_the_engine_s_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """engine.rng runs compiled where it is built (its state in C, each draw computed as it is taken) and from its
    source elsewhere, through the engine's shim of Cython's names when Cython is absent (draws computed ahead in
    batches): the same streams of draws, bounded draws, picks and shuffles."""
    monkeypatch.setitem(sys.modules, "cython", None)  # import cython fails
    source = Path(engine.__file__).parent / "rng.py"
    spec = importlib.util.spec_from_file_location("engine._rng_without_cython", source)
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    assert plain.cython.__name__ == "engine._cython_shim"
    for seed in (0, 1, 2**64 - 1, 12345):
        ours, theirs = Rng(seed), plain.Rng(seed)
        for k in range(300):
            bound = 1 + k % 60 if k % 7 else 2**63 + k
            assert (ours.below(bound), ours.pick(range(1 + k % 5), None)) == \
                (theirs.below(bound), theirs.pick(range(1 + k % 5), None))
            if k % 50 == 0:
                deck, same = list(range(52)), list(range(52))
                ours.shuffle(deck), theirs.shuffle(same)
                assert deck == same
            assert ours.state == theirs.state
        assert [ours.next_u64() for _ in range(100)] == [theirs.next_u64() for _ in range(100)]
