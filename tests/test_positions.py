"""The position documentation: docs/positions.md (common keys, building a position elsewhere) and one page per game.

Every registered game has a page, linked from the index, whose example positions load and round-trip and which
documents every key the game's positions use; a first deal follows from its seed as the index says.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from game_cases import GAME_CASES, GAMES, MAX_STEPS_PER_DEAL, play_randomly, start

import engine
from engine.cards import card_code, make_deck, parse_card
from engine.rng import Rng

DOCS = Path(__file__).resolve().parents[1] / "docs"
INDEX = DOCS / "positions.md"
VECTORS = Path(__file__).parent / "vectors" / "rng.json"
FENCED = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)

each_game = pytest.mark.parametrize("game", GAMES)


def _page(game: str) -> Path:
    return DOCS / "positions" / f"{game}.md"


def _blocks(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCED.findall(text) if lang == language]


def _documented(text: str) -> set[str]:
    """Names written as code in a page: `key`."""
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text))


def _positions_along_a_match(game: str, players: int) -> list[dict]:
    state = start(game, players, 21, {"max_deals": 2})
    positions = [state.to_position()]
    for steps in (5, 25, 2 * MAX_STEPS_PER_DEAL):
        play_randomly(state, Rng(steps), steps)
        positions.append(state.to_position())
    return positions


def _common_keys() -> set[str]:
    keys = [set(p) for game, players in (c.values for c in GAME_CASES) for p in _positions_along_a_match(game, players)]
    return set.intersection(*keys) | {"winners"} if keys else set()


def test_the_index_documents_every_common_key() -> None:
    missing = _common_keys() - _documented(INDEX.read_text())
    assert not missing, f"docs/positions.md does not document {sorted(missing)}"


@each_game
def test_each_game_has_a_page_linked_from_the_index(game: str) -> None:
    assert _page(game).is_file(), f"docs/positions/{game}.md is missing"
    assert f"(positions/{game}.md)" in INDEX.read_text(), f"docs/positions.md does not link {game}'s page"


@each_game
def test_the_pages_examples_load_and_round_trip(game: str) -> None:
    examples = [json.loads(block) for block in _blocks(_page(game).read_text(), "json")]
    examples = [e for e in examples if isinstance(e, dict) and e.get("game") == game]
    assert examples, f"docs/positions/{game}.md has no full example position"
    for example in examples:
        state = engine.from_position(game, example)
        assert state.to_position() == example
        assert state.is_terminal or state.legal_actions()


@each_game
def test_a_finished_match_with_no_winner_loads_only_in_a_game_that_declares_it(game: str) -> None:
    state = start(game, engine.game_info(game).default_players, 5, {"max_deals": 1})
    play_randomly(state, Rng(5), 10 * MAX_STEPS_PER_DEAL)
    assert state.is_terminal
    unwon = {**state.to_position(), "winners": []}
    if engine.game_class(game).NO_WINNER_POSSIBLE:
        assert engine.from_position(game, unwon).winners == []
    else:
        with pytest.raises(engine.PositionError, match="winners must list the winning seats"):
            engine.from_position(game, unwon)


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
def test_the_page_documents_every_key_of_the_games_positions(game: str, players: int) -> None:
    documented = _documented(_page(game).read_text()) | _documented(INDEX.read_text())
    used = {key for position in _positions_along_a_match(game, players) for key in position}
    assert not used - documented, f"docs/positions/{game}.md does not document {sorted(used - documented)}"


@pytest.mark.parametrize(("game", "players"), GAME_CASES)
@pytest.mark.parametrize("seed", [0, 42, 2**64 - 1])
def test_a_first_deal_follows_from_its_seed(game: str, players: int, seed: int) -> None:
    # With first_dealer given, the first deck is the canonical deck shuffled by Rng(seed), cut where the rules cut.
    dealt = engine.new_match(game, seed=seed, players=players, first_dealer=0).to_position()["deal_deck"]
    deck = sorted(map(parse_card, dealt))
    Rng(seed).shuffle(deck)
    shuffled = [card_code(c) for c in deck]
    cuts = [shuffled[k:] + shuffled[:k] for k in range(len(shuffled))]
    assert dealt in cuts, f"{game}: the first deck is neither Rng(seed)'s shuffle of the deck nor a cut of it"


@pytest.mark.integration  # a node process
def test_the_javascript_port_in_the_index_reproduces_the_vectors(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    (port,) = _blocks(INDEX.read_text(), "javascript")
    checks = """
const vectors = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));  // 64-bit numbers as strings
for (const stream of vectors.streams) {
  const next = splitmix64(stream.seed);
  const outputs = stream.next_u64.map(() => next());
  if (outputs.some((v, i) => v !== BigInt(stream.next_u64[i]))) throw new Error(`next_u64, seed ${stream.seed}`);
  const draws = splitmix64(stream.seed);
  stream.below.forEach(([n, want]) => { if (BigInt(below(draws, n)) !== BigInt(want)) throw new Error(`below ${n}`); });
  const deck = shuffle(splitmix64(stream.seed), [...canonical]);
  if (deck.join() !== stream.shuffled_deck.join()) throw new Error(`shuffle, seed ${stream.seed}`);
}
console.log(JSON.stringify(shuffle(splitmix64(42), [...canonical])));
"""
    script, vectors = tmp_path / "port.js", tmp_path / "rng.json"
    script.write_text(port + checks)
    vectors.write_text(json.dumps(_ints_as_strings(json.loads(VECTORS.read_text()))))
    done = subprocess.run([node, str(script), str(vectors)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    tablanette = engine.new_match("tablanette", seed=42, first_dealer=0).to_position()["deal_deck"]
    assert json.loads(done.stdout) == tablanette == [card_code(c) for c in _shuffled(make_deck(), 42)]


def _ints_as_strings(value: object) -> object:
    """Every integer written as a string: JavaScript numbers lose 64-bit precision."""
    if isinstance(value, bool) or not isinstance(value, int | list | dict):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return [_ints_as_strings(v) for v in value]
    return {k: _ints_as_strings(v) for k, v in value.items()}


def _shuffled(deck: list[int], seed: int) -> list[int]:
    Rng(seed).shuffle(deck)
    return deck
