"""``cardtable play GAME``: a person plays a match in the terminal against bots.

The person sees their hand, the table (or trick), the scores and the numbered legal moves (in the order of the hand),
each a whole turn as the rules files write it (a fishing capture with its cards: ``AD:7H,4S``, never its engine
steps), and answers with the number or the move; a capture's cards may be typed in any order (``AD:4S,7H``), and a
card alone is enough when it has exactly one legal move (``KC`` for ``KC:5H,9S``). A move that is the only legal one
is played for the person, with a line saying so. Works with piped input; the end of the input
leaves the match cleanly (exit code 1), Ctrl-C too (exit code 130). ``--save`` keeps the finished match as a replay.

    cardtable play tablanette --seed 7 --opponents greedy:epsilon=0.3 --option max_deals=1 --save
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import click
from rich.console import Console
from rich.text import Text

from engine import IllegalAction, State
from engine.bots import Policy, greedy_games, make_policies, seat_observer
from engine.fishing import join_turns
from engine.rng import fresh_seed
from replay import ReplayError
from replay.record import Recorder

from .matchargs import game_argument, option_option, option_pairs_param, players_option, seed_option, start_match
from .policies import POLICY_LABEL
from .redis_url import check_reachable
from .redis_url import redis_url_option as shared_redis_url_option
from .refusals import as_usage_error
from .render import (
    Seating,
    action_text,
    deal_summary,
    game_rows,
    hand_order,
    header_line,
    match_result,
    numbered_moves,
    observation_lines,
)

QUIT_WORDS = frozenset({"q", "quit", "exit"})
HUMAN = "human"  # a person's seat in a replay header
SAVED_COLLECTION = "played"
INTERRUPTED = 130  # the shell's code for a command ended by Ctrl-C (128 + SIGINT)


class MoveError(ValueError):
    """What the person typed is not a move here; the message says what is."""


def resolve_move(text: str, legal: Sequence[str]) -> str:
    """The legal action meant by ``text``: its number (1-based, in the order of ``legal``), the action itself (any
    case, a capture's cards in any order), or a card alone when that card has exactly one legal action.

    >>> resolve_move("2", ["7H", "QS:3C,TD"]), resolve_move("qs", ["7H", "QS:3C,TD"])
    ('QS:3C,TD', 'QS:3C,TD')
    >>> resolve_move("qs:td,3c", ["7H", "QS:3C,TD"])
    'QS:3C,TD'
    """
    text = "".join(text.split())
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        raise MoveError(f"there is no move number {number}; type a number from 1 to {len(legal)}")
    if text in legal:
        return text
    as_typed = move_key(text)
    by_key = [a for a in legal if move_key(a) == as_typed]
    if len(by_key) == 1:
        return by_key[0]
    with_card = [a for a in legal if a.partition(":")[0].lower() == text.lower()]
    if len(with_card) == 1:
        return with_card[0]
    if with_card:
        raise MoveError(f"{text!r} can be played in {len(with_card)} ways; choose one: {', '.join(with_card)}")
    raise MoveError(f"{text!r} is not a legal move here; type a number from 1 to {len(legal)} or a move as listed")


def move_key(action: str) -> tuple[str, tuple[str, ...]]:
    """What a move is whatever the case and the order of its captured cards: ``ad:4s,7h`` is ``AD:7H,4S``."""
    card, _, rest = action.upper().partition(":")
    return card, tuple(sorted(rest.split(","))) if rest else ()


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
            text = input("Your move > ")  # not click.prompt, which makes Ctrl-C and the end of input one Abort
        except EOFError:
            raise LeftMatch(1, "No more input: leaving the match unfinished.") from None
        except KeyboardInterrupt:
            console.print()  # ends the prompt's line
            raise
        if text.strip().lower() in QUIT_WORDS:
            raise LeftMatch(0, "You left the match.")
        if not text.strip():
            continue
        typed = "".join(text.split()).upper()
        if whole_move is not None and typed not in legal and whole_move(typed):
            return typed
        try:
            return resolve_move(text, legal)
        except MoveError as exc:
            console.print(Text.assemble(("Not a legal move: ", "yellow"), f"{exc}."))


def report_new_deals(console: Console, state: State, shown: int, seating: Seating) -> int:
    """Print the deals that finished since ``shown`` were printed; return how many are printed now."""
    for result in state.deal_results[shown:]:
        console.print(deal_summary(result, state.scores, seating, console.width))
    return len(state.deal_results)


def default_policy(game: str) -> str:
    """The strongest built-in bot that knows ``game``."""
    return "greedy" if game in greedy_games() else "random"


def seat_bots(labels: Sequence[str], game: str, seed: int, param_hint: str) -> list[Policy]:
    """A bot per seat from policy labels; a policy that cannot play ``game`` is a usage error."""
    try:
        return make_policies(labels, game, seed)
    except ValueError as exc:
        raise as_usage_error(click.BadParameter, exc, param_hint=param_hint) from None


def match_replay(start: State, state: State, policies: Sequence[str]) -> bytes:
    """The replay of the match that went from ``start`` to the finished ``state`` (every move checked again)."""
    recorder = Recorder(start, "match", policies)
    for _, action_id in state.moves:
        recorder.play(action_id)
    return recorder.finish()


def save_replay(console: Console, start: State, state: State, policies: Sequence[str], redis_url: str | None,
                collection: str) -> None:
    """Store the finished match as a replay and print its id and how to see it again."""
    if not state.is_terminal:
        console.print("The match is unfinished, so it is not saved.")
        return
    import redis  # Redis's client: for --save alone

    from replay.connect import open_store

    data = match_replay(start, state, policies)
    try:
        with open_store(redis_url) as store:
            replay_id = store.save(data, collection)
    except (ConnectionError, redis.RedisError, ReplayError) as exc:
        raise click.ClickException(f"the match could not be saved: {exc}") from None
    console.print(f"Saved as replay {replay_id}: cardtable replay stream {replay_id}")


def check_save_store(redis_url: str | None) -> None:
    """With ``--save`` and a Redis named: that it answers, before the match is played rather than after it."""
    if redis_url is not None:  # (else the embedded Valkey, started when the match is saved)
        check_reachable(redis_url, "--save: ")


@contextmanager
def interruptible(console: Console, seed: int) -> Iterator[None]:
    """Ctrl-C ends the command with one line and exit code 130, not a traceback."""
    try:
        yield
    except KeyboardInterrupt:
        console.print(f"Interrupted: the match is left unfinished (play it again with --seed {seed}).")
        raise click.exceptions.Exit(INTERRUPTED) from None


save_option = click.option("--save", is_flag=True,
                           help=f"Save the finished match as a replay (collection {SAVED_COLLECTION!r}) and print its "
                                "id, for `cardtable replay stream ID`.")
redis_url_option = shared_redis_url_option("Where --save stores the replay (default: $REDIS_URL, else the embedded "
                                           "Valkey).")


@click.command()
@game_argument
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat.")
@seed_option
@players_option
@click.option("--opponents", type=POLICY_LABEL, default=None,
              help="The bots' policy, with parameters as NAME:PARAM=VALUE (greedy:epsilon=0.3); default: greedy "
                   "where the game has it, else random. `cardtable policies` lists them.")
@option_option
@save_option
@redis_url_option
@click.pass_context
def play(ctx: click.Context, game: str, seat: int, seed: int | None, players: int | None, opponents: str | None,
         option_pairs: tuple[str, ...], save: bool, redis_url: str | None) -> None:
    """Play GAME in the terminal against bots (type a move's number or the move; q quits)."""
    options = option_pairs_param(ctx, game, option_pairs)
    if save:
        check_save_store(redis_url)
    seed = fresh_seed() if seed is None else seed
    state = start_match(game, seed, players, options)
    opponents = opponents or default_policy(game)
    if seat >= state.players:
        raise click.BadParameter(f"{game} has seats 0..{state.players - 1} with {state.players} players",
                                 param_hint="'--seat'")
    policies = [HUMAN if s == seat else opponents for s in range(state.players)]
    bots = seat_bots([opponents] * state.players, game, seed, "'--opponents'")
    seating = Seating.of(state, {s: "you" if s == seat else f"seat {s}" for s in range(state.players)})
    console = Console(highlight=False)
    console.print(f"[bold]{state.INFO.name}[/], {state.players} players, seed {seed}. You are seat {seat}; "
                  f"opponents: {opponents}. Type a move's number or the move itself; q quits.")
    start = state.clone()
    with interruptible(console, seed):
        try:
            _play_match(console, state, seat, bots, seating)
        except LeftMatch as left:
            console.print(f"{left} (play it again with --seed {seed})")
            ctx.exit(left.exit_code)
    if save:
        save_replay(console, start, state, policies, redis_url, SAVED_COLLECTION)


def _play_match(console: Console, state: State, seat: int, bots: Sequence[Policy], seating: Seating) -> None:
    shown = printed = 0
    while not state.is_terminal:
        actor = state.current_player
        if actor == seat:
            state.apply(_ask(console, state, seating))
        else:
            bot = bots[actor]
            state.apply_id(bot.choose_id(state.legal_action_ids(), seat_observer(state, actor, bot)))
        printed = _print_turns(console, state, seat, seating, printed)
        shown = report_new_deals(console, state, shown, seating)
    console.print(match_result(state, seating, console.width))


def _is_legal(state: State, text: str) -> bool:
    try:
        state.action_ids(text)
    except IllegalAction:
        return False
    return True


def _print_turns(console: Console, state: State, seat: int, seating: Seating, printed: int) -> int:
    """Print the turns played since the ``printed`` first moves of the history, once each is whole (a fishing
    capture is decided in steps: it is shown as the rules write it, ``KS:4C,TD``)."""
    if state.phase == "capture":
        return printed
    history = [(actor, action) for actor, action in state.observation(seat)["history"]]  # as the person sees it
    for actor, turn in join_turns(history[printed:]):
        console.print("You play " if actor == seat else f"{seating.name(actor)} plays ", action_text(turn), sep="")
    return len(history)


def _ask(console: Console, state: State, seating: Seating) -> str:
    """Show the person what they see and their moves, each a whole turn (a fishing capture with its cards,
    ``AC:7D,4S``), in the order of their hand; return the move they choose. A move that is the only legal one is
    played for them, with a line saying so."""
    obs = state.observation(state.current_player)
    width = console.width
    moves = hand_order(state.turn_choices(), obs.get("hand"))
    console.print()
    console.print(header_line(obs, seating, width))
    if game_rows(obs, seating):
        console.print(observation_lines(obs, seating, width))
    if len(moves) == 1:
        console.print(Text.assemble("Your only legal move, played for you: ", action_text(moves[0])))
        return moves[0]
    console.print(numbered_moves(moves, width))
    return ask_move(console, moves, lambda text: _is_legal(state, text))
