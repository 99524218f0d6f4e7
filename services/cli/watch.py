"""``cardtable watch GAME``: bots play a whole match and every move is printed (what ``make demo`` shows).

Each line shows the acting seat's cards (its hand and the public cards it sees) before its move, then the move;
``--delay`` paces the moves, Ctrl-C ends the command with one line (exit code 130), ``--save`` keeps the match as a
replay.

    cardtable watch tablanette --seed 7 --policy greedy:epsilon=0.3 --policy random --delay 0.5 --save
"""

from __future__ import annotations

import time

import click
from rich.console import Console
from rich.text import Text

from engine.bots import play_out
from engine.fishing import join_turns
from engine.rng import fresh_seed

from .matchargs import game_argument, option_option, option_pairs_param, players_option, seed_option, start_match
from .play import (
    SAVED_COLLECTION,
    check_save_store,
    default_policy,
    interruptible,
    redis_url_option,
    report_new_deals,
    save_option,
    save_replay,
    seat_bots,
)
from .policies import POLICY_LABEL
from .render import Seating, action_text, card_line, flow, labelled, match_result


@click.command()
@game_argument
@click.option("--policy", "policies", multiple=True, type=POLICY_LABEL,
              help="Policy per seat, in seat order, with parameters as NAME:PARAM=VALUE (repeat it; the list is "
                   "cycled). Default: greedy where the game has it, else random.")
@seed_option
@players_option
@option_option
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait after each move.")
@save_option
@redis_url_option
@click.pass_context
def watch(ctx: click.Context, game: str, policies: tuple[str, ...], seed: int | None, players: int | None,
          option_pairs: tuple[str, ...], delay: float, save: bool, redis_url: str | None) -> None:
    """Watch bots play a whole match of GAME, move by move."""
    options = option_pairs_param(ctx, game, option_pairs)
    if save:
        check_save_store(redis_url)
    seed = fresh_seed() if seed is None else seed
    state = start_match(game, seed, players, options)
    policies = policies or (default_policy(game),)
    chosen = [policies[seat % len(policies)] for seat in range(state.players)]
    bots = seat_bots(chosen, game, seed, "'--policy'")
    seating = Seating.of(state, {s: f"seat {s}" for s in range(state.players)})  # the heading names the policies
    console = Console(highlight=False)
    width = console.width
    console.print(f"[bold]{state.INFO.name}[/], {state.players} players, seed {seed}: "
                  + ", ".join(f"seat {s} ({name})" for s, name in enumerate(chosen)))
    start = state.clone()
    shown = printed = 0
    deal = -1
    turn_cards: list[list[Text]] = []  # the actor's cards when each turn not yet printed began

    def print_turns() -> None:
        """Print the turns played since the last printed one, once each is whole (a fishing capture is decided in
        steps and shown as the rules write it, ``KS:4C,TD``), then the deals that ended."""
        nonlocal shown, printed
        if state.phase == "capture":
            return
        for (actor, turn), cards in zip(join_turns(state.history[printed:]), turn_cards, strict=True):
            move = Text("-> ").append_text(action_text(turn))
            console.print(flow(labelled(f"  {seating.name(actor)}:", [*cards, move]), width, indent=4))
            if delay:
                time.sleep(delay)
        turn_cards.clear()
        printed = len(state.history)
        shown = report_new_deals(console, state, shown, seating)

    def show(actor: int, action_id: int) -> None:
        """Called before each move: print what is whole, a new deal's heading, and note a new turn's cards."""
        nonlocal deal
        print_turns()
        if state.deal_index != deal:
            deal = state.deal_index
            console.print(Text(f"Deal {deal + 1}, dealer {seating.name(state.dealer)}", style="bold"))
        if state.phase != "capture":
            turn_cards.append(card_line(state.observation(actor), seating))

    with interruptible(console, seed):
        play_out(state, bots, on_move=show)
        print_turns()
        console.print(match_result(state, seating, width))
    if save:
        save_replay(console, start, state, chosen, redis_url, SAVED_COLLECTION)
