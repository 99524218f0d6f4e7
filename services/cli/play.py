"""``cardtable play GAME``: a person plays a match in the terminal against bots.

The person sees their hand, the table (or trick), the scores and the numbered legal moves, and answers with the
number or the action string; a card alone is enough when it has exactly one legal action (``KC`` for ``KC:5H,9S``).
Works with piped input; the end of the input leaves the match cleanly (exit code 1).

    cardtable play tablanette --seed 7 --opponents greedy --option max_deals=1
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import click
from rich.console import Console
from rich.text import Text

from engine import IllegalAction, State
from engine.bots import Policy, greedy_games, make_policy, policy_names
from engine.fishing import join_turns
from engine.rng import fresh_seed

from .matchargs import game_argument, option_option, option_pairs_param, players_option, seed_option, start_match
from .render import action_text, deal_summary, header_line, match_result, numbered_moves, observation_table

QUIT_WORDS = frozenset({"q", "quit", "exit"})


class MoveError(ValueError):
    """What the person typed is not a move here; the message says what is."""


def resolve_move(text: str, legal: Sequence[str]) -> str:
    """The legal action meant by ``text``: its number (1-based), the action itself (any case), or a card alone
    when that card has exactly one legal action.

    >>> resolve_move("2", ["7H", "QS:3C,TD"]), resolve_move("qs", ["7H", "QS:3C,TD"])
    ('QS:3C,TD', 'QS:3C,TD')
    """
    text = text.strip()
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        raise MoveError(f"there is no move number {number}; type a number from 1 to {len(legal)}")
    if text in legal:
        return text
    by_case = [a for a in legal if a.lower() == text.lower()]
    if len(by_case) == 1:
        return by_case[0]
    with_card = [a for a in legal if a.partition(":")[0].lower() == text.lower()]
    if len(with_card) == 1:
        return with_card[0]
    if with_card:
        raise MoveError(f"{text!r} can be played in {len(with_card)} ways; choose one: {', '.join(with_card)}")
    raise MoveError(f"{text!r} is not a legal move here; type a number from 1 to {len(legal)} or a move as listed")


class LeftMatch(Exception):
    """The person left (typed quit, or the input ended)."""

    def __init__(self, exit_code: int, message: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def ask_move(console: Console, legal: Sequence[str], whole_move: Callable[[str], bool] | None = None) -> str:
    """The move the person types; ``whole_move`` also accepts a move made of several listed actions (a fishing
    game's whole capture, ``KS:TD,4C``, its cards in any order)."""
    while True:
        try:
            text = click.prompt("Your move", default="", show_default=False, prompt_suffix=" > ")
        except click.Abort:
            raise LeftMatch(1, "No more input: leaving the match unfinished.") from None
        if text.strip().lower() in QUIT_WORDS:
            raise LeftMatch(0, "You left the match.")
        if not text.strip():
            continue
        if whole_move is not None and text.strip().upper() not in legal and whole_move(text.strip().upper()):
            return text.strip().upper()
        try:
            return resolve_move(text, legal)
        except MoveError as exc:
            console.print(Text.assemble(("Not a legal move: ", "yellow"), f"{exc}."))


def report_new_deals(console: Console, deal_results: list[dict], scores: Sequence[int], shown: int,
                     names: Mapping[int, str]) -> int:
    """Print the deals that finished since ``shown`` were printed; return how many are printed now."""
    for result in deal_results[shown:]:
        console.print(deal_summary(result, scores, names))
    return len(deal_results)


def default_policy(game: str) -> str:
    """The strongest built-in bot that knows ``game``."""
    return "greedy" if game in greedy_games() else "random"


@click.command()
@game_argument
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat.")
@seed_option
@players_option
@click.option("--opponents", type=click.Choice(policy_names()), default=None,
              help="The bots' policy (default: greedy where the game has it, else random).")
@option_option
@click.pass_context
def play(ctx: click.Context, game: str, seat: int, seed: int | None, players: int | None, opponents: str | None,
         option_pairs: tuple[str, ...]) -> None:
    """Play GAME in the terminal against bots (type a move's number or the move; q quits)."""
    options = option_pairs_param(ctx, game, option_pairs)
    seed = fresh_seed() if seed is None else seed
    state = start_match(game, seed, players, options)
    opponents = opponents or default_policy(game)
    if seat >= state.players:
        raise click.BadParameter(f"{game} has seats 0..{state.players - 1} with {state.players} players",
                                 param_hint="'--seat'")
    try:
        bots = {s: make_policy(opponents, game, s, seed) for s in range(state.players) if s != seat}
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--opponents'") from None
    names = {s: "you" if s == seat else f"seat {s}" for s in range(state.players)}
    console = Console(highlight=False)
    console.print(f"[bold]{state.INFO.name}[/], {state.players} players, seed {seed}. You are seat {seat}; "
                  f"opponents: {opponents}. Type a move's number or the move itself; q quits.")
    try:
        _play_match(console, state, seat, bots, names)
    except LeftMatch as left:
        console.print(f"{left} (replay this match with --seed {seed})")
        ctx.exit(left.exit_code)


def _play_match(console: Console, state: State, seat: int, bots: Mapping[int, Policy],
                names: Mapping[int, str]) -> None:
    shown = printed = 0
    while not state.is_terminal:
        actor = state.current_player
        if actor == seat:
            obs = state.observation(seat)
            console.print()
            console.print(header_line(obs, names))
            console.print(observation_table(obs, names))
            console.print(numbered_moves(obs["legal_actions"]))
            state.apply(ask_move(console, obs["legal_actions"], lambda text: _is_legal(state, text)))
        else:
            state.apply(bots[actor](state.observation(actor)))
        printed = _print_turns(console, state, seat, names, printed)
        shown = report_new_deals(console, state.deal_results, state.scores, shown, names)
    console.print(match_result(state, names))


def _is_legal(state: State, text: str) -> bool:
    try:
        state.action_ids(text)
    except IllegalAction:
        return False
    return True


def _print_turns(console: Console, state: State, seat: int, names: Mapping[int, str], printed: int) -> int:
    """Print the turns played since the ``printed`` first moves of the history, once each is whole (a fishing
    capture is decided in steps: it is shown as the rules write it, ``KS:4C,TD``)."""
    if state.phase == "capture":
        return printed
    history = state.history
    for actor, turn in join_turns(history[printed:]):
        console.print("You play " if actor == seat else f"{names[actor]} plays ", action_text(turn), sep="")
    return len(history)
    console.print(match_result(state, names))
