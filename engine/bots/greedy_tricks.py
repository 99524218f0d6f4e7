"""Greedy for the trick games (German Whist, Belote contrée, Belote): one sort key per legal action, best highest.

The rankers see only the observation of the seat to act (``state.observation(seat)``, which lists ``legal_actions``);
:class:`engine.bots.greedy.GreedyPolicy` plays an action with the highest key and breaks ties with its own RNG.

- Play: win a trick with the cheapest card that wins it when the trick is worth winning, give points to a partner
  who is winning it, otherwise throw the cheapest card (german_whist.md 5.3-5.5; belote_contree.md / belote.md 5.2).
- Bidding and taking: bid or take what the hand can make, counting on a partner only where there is one.

>>> obs = {"game": "german_whist", "legal_actions": ["2C", "AC"], "trump": "H", "trick": [], "face_up": "AH"}
>>> rank_german_whist(obs)
[(1, 1), (1, 13)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import CARD_OF_CODE, SUIT, SUITS, cards_in, make_deck
from ..games import belote_family, german_whist
from ..games.belote_family import DECK_RANKS, POINTS
from ..state import State
from ..trickgame import TrickGame
from ..tricks import NO_TRUMP, beats
from .greedy import SortKey, register_greedy, register_state_ranker
from .policy import Observation
from .seen import Seen

WHIST_POWER = german_whist.RANKING.power
POWER = belote_family.RANKING.power
# Belote: what a hand is worth for the taker; a partner brings about this many points (4 players only).
PARTNER_SHARE = 40
TRUMP_LENGTH_BONUS = 8
BELOTE_DECK = tuple(make_deck(DECK_RANKS))


# ---- German Whist -----------------------------------------------------------------------------------------------


@register_greedy("german_whist")
def rank_german_whist(obs: Observation) -> Sequence[SortKey]:
    """Phase 1: fight for a face-up card worth having (a trump or a ten and up), else duck; phase 2: win cheaply.

    A ``down:<slot>`` card (face_down_four) is unknown, so it ranks below every hand card.
    """
    face_up = obs.get("face_up")
    trick = obs["trick"]
    return _whist_keys(SUITS.index(obs["trump"]), None if face_up is None else CARD_OF_CODE[face_up],
                       CARD_OF_CODE[trick[0][1]] if trick else None,
                       [CARD_OF_CODE.get(action) for action in obs["legal_actions"]])


@register_state_ranker("german_whist")
def rank_german_whist_state(state: State, seat: int, legal_ids: Sequence[int]) -> Sequence[SortKey]:
    """:func:`rank_german_whist` from the state: the trump, the face-up card, the trick's lead and the legal cards."""
    assert isinstance(state, TrickGame)
    stock, top, trick, card_of = state.stock, state.stock_top, state.trick, state.ACTIONS.card_of
    return _whist_keys(state.trump, stock[top] if top < len(stock) else None, trick[0][1] if trick else None,
                       [card_of[a] for a in legal_ids])


def _whist_keys(trump: int, face_up: int | None, lead: int | None, cards: Sequence[int | None]) -> list[SortKey]:
    power = WHIST_POWER[trump]
    worth_winning = face_up is None or SUIT[face_up] == trump or power[face_up] >= 10
    keys: list[SortKey] = []
    for card in cards:
        if card is None:
            keys.append((0, 0))
        elif lead is None:
            keys.append((1, power[card] if worth_winning else -power[card]))
        elif worth_winning and beats(card, lead, trump, power):
            keys.append((2, -power[card]))  # the cheapest winner
        else:
            keys.append((1, -power[card] - (50 if SUIT[card] == trump else 0)))  # the cheapest discard, trumps kept
    return keys


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


def _rank_belote_play(obs: Observation) -> Sequence[SortKey]:
    trick = [(seat, CARD_OF_CODE[code]) for seat, code in obs["trick"]]
    unseen = Seen(obs).unseen(BELOTE_DECK) if not trick else None
    plays = [(CARD_OF_CODE[action[:2]], action.endswith(":belote")) for action in obs["legal_actions"]]
    return _belote_play_keys(SUITS.index(obs["trump"]) if obs["trump"] else NO_TRUMP, trick,
                             obs["players"] == 4, obs["seat"], unseen, plays)


def rank_belote_play_state(state: State, seat: int, legal_ids: Sequence[int]) -> Sequence[SortKey] | None:
    """:func:`_rank_belote_play` from the state (None outside the play): the trump, the trick, the seat's hand and
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
    return _belote_play_keys(state.trump, trick, state.n == 4, seat, unseen, plays)


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


# ---- Belote contrée: the auction ----------------------------------------------------------------------------------


register_state_ranker("belote_contree", "belote")(rank_belote_play_state)


@register_greedy("belote_contree")
def rank_belote_contree(obs: Observation) -> Sequence[SortKey]:
    """Redeal a weak hand (3.8); bid the cheapest contract in the best suit that the pair can make (4.2); play."""
    legal = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "play":
        return _rank_belote_play(obs)
    if phase == "redeal":
        return [(action == "redeal",) for action in legal]
    hand = [CARD_OF_CODE[c] for c in obs["hand"]]
    suit = max(range(4), key=lambda s: trump_value(hand, s))
    reach = (trump_value(hand, suit) + PARTNER_SHARE) // 10 * 10
    keys = []
    for action in legal:
        parts = action.split(":")
        if action == "pass":
            keys.append((1, 0))
        elif parts[0] == "bid" and parts[1].isdigit() and parts[2] == SUITS[suit] and int(parts[1]) <= reach:
            keys.append((2, -int(parts[1])))
        else:
            keys.append((0, 0))
    return keys


# ---- Belote: the taking rounds and declarations -------------------------------------------------------------------


# Minimum taking value (:func:`taking_value`) per player count, for ``take`` (round 1) and ``take:<suit>`` (round 2).
# Without a partner the taker gets no turn-up card (3.6) but bold taking pays: rivals who take at random often fail.
TAKE_AT = {2: (50, 45), 3: (50, 45), 4: (60, 52)}


def taking_value(hand: list[int], turn_up: int, suit: int, players: int) -> int:
    """What the 5-card hand is worth with ``suit`` as trump; with 4 players the taker also gets the turn-up (3.5)."""
    return trump_value([*hand, turn_up] if players == 4 else hand, suit)


@register_greedy("belote")
def rank_belote(obs: Observation) -> Sequence[SortKey]:
    """Declare every combination (6.2); take the turn-up or name a suit when the hand is strong enough (4.1-4.2)."""
    legal = obs["legal_actions"]
    if "declare" in legal:
        return [(action == "declare",) for action in legal]
    if obs["phase"] == "play":
        return _rank_belote_play(obs)
    hand = [CARD_OF_CODE[c] for c in obs["hand"]]
    turn_up = CARD_OF_CODE[obs["turn_up"]]
    players = obs["players"]
    take_at, name_at = TAKE_AT[players]
    keys = []
    for action in legal:
        if action == "pass":
            keys.append((1, 0))
            continue
        suit = SUIT[turn_up] if action == "take" else SUITS.index(action[-1])
        value = taking_value(hand, turn_up, suit, players)
        keys.append((2 if value >= (take_at if action == "take" else name_at) else 0, value))
    return keys
