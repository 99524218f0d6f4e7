"""``cardtable watch GAME``: bots play a whole match and every move is printed (what ``make demo`` shows).

Each line shows the acting seat's cards (its hand and the public cards it sees) before its move, then the move.

    cardtable watch tablanette --seed 7 --policy greedy --policy random
"""

from __future__ import annotations

from collections.abc import Mapping

import click
from rich.console import Console
from rich.text import Text

from engine.bots import make_policy, play_out, policy_names
from engine.rng import fresh_seed

from .matchargs import game_argument, option_option, option_pairs_param, players_option, seed_option, start_match
from .play import default_policy, report_new_deals
from .render import COMMON_KEYS, action_text, format_value, match_result


def card_rows(obs: Mapping, names: Mapping[int, str]) -> Text:
    """The observation's non-empty game-specific card lists (hand, table, trick, ...) on one line."""
    parts = [Text(f"{key.replace('_', ' ')} ").append_text(format_value(value, names))
             for key, value in obs.items()
             if key not in COMMON_KEYS and isinstance(value, list) and value and _holds_cards(value)]
    return Text(" | ").join(parts)


def _holds_cards(value: list) -> bool:
    """A list of card codes, or of ``[seat, card]`` entries (a trick)."""
    return all(isinstance(v, str) or (isinstance(v, list) and v and isinstance(v[-1], str)) for v in value)


@click.command()
@game_argument
@click.option("--policy", "policies", multiple=True, type=click.Choice(policy_names()),
              help="Policy per seat, in seat order (repeat it; the list is cycled). Default: greedy where the game "
                   "has it, else random.")
@seed_option
@players_option
@option_option
@click.pass_context
def watch(ctx: click.Context, game: str, policies: tuple[str, ...], seed: int | None, players: int | None,
          option_pairs: tuple[str, ...]) -> None:
    """Watch bots play a whole match of GAME, move by move."""
    options = option_pairs_param(ctx, game, option_pairs)
    seed = fresh_seed() if seed is None else seed
    state = start_match(game, seed, players, options)
    policies = policies or (default_policy(game),)
    chosen = [policies[seat % len(policies)] for seat in range(state.players)]
    try:
        bots = [make_policy(name, game, s, seed) for s, name in enumerate(chosen)]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--policy'") from None
    names = {s: f"seat {s} ({name})" for s, name in enumerate(chosen)}
    console = Console(highlight=False)
    console.print(f"[bold]{state.INFO.name}[/], {state.players} players, seed {seed}: "
                  + ", ".join(names.values()))
    shown = 0
    deal = -1

    def show(actor: int, action_id: int) -> None:
        nonlocal shown, deal
        shown = report_new_deals(console, state.deal_results, state.scores, shown, names)
        if state.deal_index != deal:
            deal = state.deal_index
            console.print(Text(f"Deal {deal + 1}, dealer {names[state.dealer]}", style="bold"))
        rows = card_rows(state.observation(actor), names)
        console.print(Text.assemble(f"  {names[actor]}: ", rows, "  ->  ", action_text(state.action_string(action_id))))

    play_out(state, bots, on_move=show)
    report_new_deals(console, state.deal_results, state.scores, shown, names)
    console.print(match_result(state, names))
