"""What a bot's decision may spend in a server, and the parameter sets refused for asking far more.

A server bounds each decision of its searching bots (``pimc``, ``ismcts``) by a :class:`engine.budget.Budget`:
``--bot-budget`` work units (a move played in a searched world, 32 double-dummy nodes, 100 for a sampled world; the
search stops there and plays the best it has, the same move for the same seed on any machine) and
``--bot-time-limit`` seconds (a last resort for slow machines: where it cuts, play depends on the machine). The
defaults answer within a second or two on a 2-core machine whatever the parameters.

A bot whose parameters ask, by their nominal reckoning (``Policy.work_cost``), more than ``REFUSE_FACTOR`` times the
work budget is refused where it is named (a live match's seat, a job's or a tournament's policies): most of what it
asks would be cut. A job's bots are not cut (a job's results stay those of the parameters it names): the refusal is
their bound.

>>> check_cost("pimc:samples=10000:rollouts=1000:dd_cards=52", DEFAULT_BOT_BUDGET)  # doctest: +ELLIPSIS
Traceback (most recent call last):
services.app.errors.InvalidArgument: pimc:samples=10000:rollouts=1000:dd_cards=52 asks about ...
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.bots import parse_policy, policy_class
from engine.budget import Budget

from .errors import InvalidArgument

# ~1 s of Belote play-outs here (compiled), ~4 s of Tablanette's, 3.2 million double-dummy nodes (0.5-1.5 s)
DEFAULT_BOT_WORK = 100_000
DEFAULT_BOT_SECONDS = 2.0
DEFAULT_BOT_BUDGET = Budget(DEFAULT_BOT_WORK, DEFAULT_BOT_SECONDS)
REFUSE_FACTOR = 10


def check_cost(label: str, budget: Budget) -> None:
    """InvalidArgument when the bot ``label`` (a checked policy label) asks more than ``REFUSE_FACTOR`` times
    ``budget``'s work a decision; nothing when the budget has no bound on work."""
    if not budget.work:
        return
    name, params = parse_policy(label)
    cost = policy_class(name).work_cost(params)
    most = REFUSE_FACTOR * budget.work
    if cost is None or cost.work <= most:
        return
    raise InvalidArgument(f"{label} asks about {cost.work:,} work units a decision ({cost.reckoning}), more than "
                          f"{most:,}, {REFUSE_FACTOR} times this server's bot budget of {budget.work:,} "
                          f"(--bot-budget); lower {cost.knobs}")


def check_costs(labels: Iterable[str], budget: Budget) -> None:
    """:func:`check_cost` for each label (a job's or a tournament's policies)."""
    for label in dict.fromkeys(labels):
        check_cost(label, budget)
