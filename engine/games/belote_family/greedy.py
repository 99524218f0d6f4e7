"""Greedy for the Belote games' play of the tricks (Belote, Belote contrée): one sort key per legal action, best
highest. Each game's own package ranks its auction (``engine/games/belote/greedy.py``,
``engine/games/belote_contree/greedy.py``) and hands the play to :func:`rank_belote_play`.

The rankers see only the observation of the seat to act (``state.observation(seat)``, which lists ``legal_actions``);
:class:`engine.bots.greedy.GreedyPolicy` plays an action with the highest key and breaks ties with its own RNG.

- Play: win a trick with the cheapest card that wins it when the trick is worth winning, give points to a partner
  who is winning it, otherwise throw the cheapest card (belote_contree.md / belote.md 5.2).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...bots.greedy import SortKey
from ...bots.policy import Observation
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS, cards_in, make_deck
from ...state import State
from ...trickgame import TrickGame
from ...tricks import NO_TRUMP, beats
from . import DECK_RANKS, POINTS, RANKING

POWER = RANKING.power
TRUMP_LENGTH_BONUS = 8  # what a hand is worth for the taker: a premium per trump held (trump_value)
BELOTE_DECK = tuple(make_deck(DECK_RANKS))


# ---- the Belote games: the play of the tricks ---------------------------------------------------------------------


def _unseen(seen: set[int]) -> set[int]:
    """The deck's cards this seat has not seen (``seen``: its hand and the cards played in this deal)."""
    return {card for card in BELOTE_DECK if card not in seen}


def _lead_key(card: int, trump: int, unseen: set[int]) -> SortKey:
    """Lead a master (no unseen card of its suit beats it), trumps first to draw them, then the richest; otherwise
    the cheapest card, keeping tens whose ace is still out."""
    power, points = POWER[trump], POINTS[trump]
    suit = SUIT[card]
    master = not any(SUIT[c] == suit and power[c] > power[card] for c in unseen)
    if master:
        return (2, SUIT[card] == trump, points[card])
    return (1, -points[card] - (20 if suit == trump else 0), -power[card])


def rank_belote_play(obs: Observation) -> Sequence[SortKey]:
    trick = [(seat, CARD_OF_CODE[code]) for seat, code in obs["trick"]]
    unseen = Seen(obs).unseen(BELOTE_DECK) if not trick else None
    plays = [(CARD_OF_CODE[action[:2]], action.endswith(":belote")) for action in obs["legal_actions"]]
    return _belote_play_keys(SUITS.index(obs["trump"]) if obs["trump"] else NO_TRUMP, trick,
                             obs["players"] == 4, obs["seat"], unseen, plays)


def rank_belote_play_state(state: State, seat: int, legal_ids: Sequence[int]) -> Sequence[SortKey] | None:
    """:func:`rank_belote_play` from the state (None outside the play): the trump, the trick, the seat's hand and
    the cards played in this deal."""
    assert isinstance(state, TrickGame)
    if state.phase != "play":
        return None
    trick = state.trick
    unseen = None
    if not trick:
        seen = set(cards_in(state.hands[seat]))
        seen.update(card for played in state.tricks for _seat, card in played)
        unseen = _unseen(seen)
    card_of, strings = state.ACTIONS.card_of, state.ACTIONS.strings
    plays = []
    for a in legal_ids:
        card = card_of[a]
        if card is None:  # a declaration (Belote 6.2): the observation's ranker decides
            return None
        plays.append((card, strings[a].endswith(":belote")))
    return _belote_play_keys(state.trump, trick, state.n_players == 4, seat, unseen, plays)


def _belote_play_keys(trump: int, trick: Sequence[tuple[int, int]], partners: bool, me: int,
                      unseen: set[int] | None, plays: Sequence[tuple[int, bool]]) -> list[SortKey]:
    """Each play's key: (card, whether it announces the belote) in ``plays``; ``unseen`` is needed for a lead."""
    power, points = POWER[trump], POINTS[trump]
    if trick:
        seat, best = trick[0]
        for other, card in trick[1:]:
            if beats(card, best, trump, power):
                seat, best = other, card
        partner_winning = partners and seat == (me + 2) % 4
    keys: list[SortKey] = []
    for card, announce in plays:  # 6.1: always announce the belote (20 points)
        is_trump = SUIT[card] == trump
        if not trick:
            assert unseen is not None
            keys.append((announce, *_lead_key(card, trump, unseen)))
        elif partner_winning:
            keys.append((announce, 1, points[card] - (30 if is_trump else 0)))  # give points, keep trumps
        elif beats(card, best, trump, power):
            keys.append((announce, 2, -power[card], -points[card]))  # the cheapest card that wins
        else:
            keys.append((announce, 0, -points[card] - (20 if is_trump else 0), -power[card]))
    return keys


def trump_value(hand: list[int], trump: int) -> int:
    """A hand's worth with ``trump``: its card points plus a premium for each trump held."""
    points = POINTS[trump]
    return sum(points[c] for c in hand) + TRUMP_LENGTH_BONUS * sum(SUIT[c] == trump for c in hand)
