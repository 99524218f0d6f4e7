"""Auction inference: samples of the unseen cards that fit the bids the other seats made.

:func:`engine.determinize` deals the unseen cards within the hard facts of play (voids, known cards) and nothing
more: a world where the seat that bid 100 in hearts holds no heart honour is as likely as any. Strong card-game
programs (bridge's and belote's PIMC bots) draw their worlds consistent with the auction. Here a searching policy
(``pimc``, ``ismcts``: their ``infer`` option) assumes every other seat bids as ``greedy`` does (the bidder the bots
themselves use by default, ``bids=greedy``, and colver's agent too, ``envs.colver``): a world in which greedy, holding
that world's hand, would not have made a bid that was made is unlikely. :func:`infer_sample` draws up to ``tries``
worlds (:meth:`engine.bots.view.SeatView.sample`, so every hard fact holds) and keeps the first that fits every
bid, else the one that misfits the least (the first among equals): a bounded number of draws from the policy's own
RNG, so the decision stays a function of the seed. (Worlds that fit a whole auction exactly are too rare to wait for:
session 43 found 2 in 440.)

A world's fit is read at each move another seat made outside the play of the cards (bids, contre, redeal answers)
with a choice: greedy's keys for that seat's hand in that world, a move made fitting if greedy rates none of the
legal moves above it and misfitting by one for each it rates above it (a pass where greedy would have bid the
cheapest of five bids within its reach misfits by five, where it would have bid one, by one) (:func:`misfits`).
Every world of a position passes through the same auction positions (the sample keeps the hard facts: who was asked
about a redeal, what was bid), only the hands differ; so the dealing is replayed once a position, from its first
draw, into one state at each move to fit (:func:`auction_stations`), and each draw is scored by giving those states
its hands (:func:`misfits_at`): in Belote contrée a draw costs a fifth of the replay it took. A game that deals
cards after its auction (Belote's second round), where a hand at a bid is not the hand at the end, replays each
draw's dealing from its ``deal_deck`` and dealer (:func:`misfits`). Games without a greedy heuristic, or with no such
move, are sampled as without inference.

>>> import engine
>>> from engine.bots import make_policies, play_out
>>> state = engine.new_match("belote_contree", seed=4, first_dealer=0)
>>> bots = make_policies(["pimc:samples=2:dd_cards=8:infer=4", "greedy"] * 2, "belote_contree", seed=1)
>>> play_out(state, bots) > 0 and state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..budget import SAMPLE_WORK
from ..cards import BIT, CODES
from ..options import Option
from ..rng import Rng
from ..state import State
from ..trickgame import TrickGame
from .greedy import _RANKERS, load_game_greedies
from .seen import Seen
from .view import SeatObserver, SeatView

PLAY_PHASES = ("play", "capture")  # (engine.bots.search's: the play of the cards, which inference does not read)


def bids_to_fit(world: State, seat: int) -> list[int]:
    """The indices in ``world.moves`` of the moves of the current dealing that other seats than ``seat`` made
    outside the play of the cards with a choice (what a sample's hands should explain), read from ``world`` (a
    sample: which moves had a choice there is public); empty for a game that is not a trick game or has no greedy
    heuristic, or where the dealing cannot be replayed to the world's hands (a position loaded in the middle of it;
    a game whose deal depends on more than its deck and dealer)."""
    if not isinstance(world, TrickGame) or world.is_terminal:
        return []
    if world.game_id not in _RANKERS:
        load_game_greedies()
        if world.game_id not in _RANKERS:
            return []
    replay = _deal_start(world)
    if replay is None:
        return []
    out = []
    for i in range(world.dealing_start, len(world.moves)):
        if replay.phase in PLAY_PHASES:
            break
        mover, action = world.moves[i]
        legal = replay.legal_action_ids()
        if replay.current_player != mover or action not in legal:
            return []  # (not this dealing's first moves: a loaded position's)
        word = world.action_string(action)
        if world.action_seen_by(seat, mover, word) != word:
            return []  # a move the seat did not see (Thunee's trump card, chosen face down): not replayed
        if mover != seat and len(legal) > 1:
            out.append(i)
        replay.apply_id(action)
    # the replay must hold the world's hands (one whose deal depends on more than its deck and dealer does not)
    for s in range(world.players):
        if replay.hands[s] != world.hands[s] | world._played_since(s):
            return []
    return out


def _deal_start(world: State) -> TrickGame | None:
    """The world's current dealing as it was dealt (its ``deal_deck`` from its dealer), or None if the game cannot be
    made so."""
    try:
        start = type(world).create(seed=world.seed, players=world.players, options=world.options,
                                   first_dealer=world.dealer, deck=[CODES[c] for c in world.deal_deck])
    except ValueError:
        return None
    return start if isinstance(start, TrickGame) else None


def misfits(world: State, moves: Sequence[int], bound: int = 1 << 30) -> int:
    """How far the moves at ``moves`` (indices in ``world.moves``, as :func:`bids_to_fit` gives) are from greedy's
    with the hands of ``world``: for each, how many legal moves greedy rates above the one made (0: every move is one
    greedy rates best); -1 if the deal cannot be replayed (a move made not legal there). Once the count reaches
    ``bound`` it is returned as it is (a world no better than one already drawn). The world's dealing is replayed
    from its start (what :func:`misfits_at` does once a position)."""
    replay = _deal_start(world)
    if replay is None:
        return -1
    rank = _RANKERS[world.game_id]
    count = 0
    for mover, action in _replayed_to(replay, world, moves):
        above = _rated_above(replay, SeatObserver(replay, mover), action, rank)
        if above < 0:
            return -1  # (a world where the move could not have been made: the first draw's facts kept it out)
        count += above
        if count >= bound:
            return count
    return count


def _replayed_to(replay: State, world: State, moves: Sequence[int]) -> Iterator[tuple[int, int]]:
    """``world``'s dealing replayed on ``replay`` (a state at its start), stopping before each of ``moves`` (indices
    in ``world.moves``) to yield its mover and move; each move is applied once the caller asks for the next."""
    k = 0
    history = world.moves
    for i in range(world.dealing_start, len(history)):
        if k == len(moves):
            return
        mover, action = history[i]
        if i == moves[k]:
            k += 1
            yield mover, action
        replay.apply_id(action)


def _rated_above(state: State, observer: SeatObserver, action: int, rank: Callable[[Seen], Any]) -> int:
    """How many of ``state``'s legal moves greedy (``rank``) rates above ``action`` for the seat to act there
    (``observer``'s, of ``state``); -1 if ``action`` is not legal there."""
    legal = state.legal_action_ids()
    if action not in legal:
        return -1
    seen: Seen = observer.seen(legal)
    keys: list[Any] = list(rank(seen))  # (all ints, or all tuples)
    made = keys[legal.index(action)]
    count = 0
    for key in keys:  # (a bid further from greedy's misfits more: a pass where it would bid 90 or 120)
        if key > made:
            count += 1
    return count


def _hands_held(world: TrickGame) -> list[int]:
    """Each seat's cards (masks) as dealt this dealing, if no card left its hand but by being played (its hand and
    what it played: ``world.hands[s] | world._played_since(s)`` for every seat, in one pass over the tricks)."""
    held = list(world.hands)
    for played in world.tricks:
        for s, card in played:
            held[s] |= BIT[card]
    for s, card in world.trick:
        held[s] |= BIT[card]
    return held


def auction_stations(world: State, moves: Sequence[int]) -> list[tuple[TrickGame, SeatObserver, int]] | None:
    """The dealing of ``world`` replayed once, a state kept at each of ``moves`` (indices in ``world.moves``, as
    :func:`bids_to_fit` gives) with the observer of the seat that made the move there (its Seen kept: read from the
    state, so good for any hands the state is given) and the move: what :func:`misfits_at` scores
    every draw of the position against. None where a hand at one of the moves is not that seat's hand at the end
    (cards dealt after the auction, or exchanged): each draw's dealing is then replayed (:func:`misfits`)."""
    replay = _deal_start(world)
    if replay is None or not isinstance(world, TrickGame):
        return None
    held = _hands_held(world)
    stations = []
    for mover, action in _replayed_to(replay, world, moves):
        if replay.hands != held:
            return None
        station = replay.clone()
        assert isinstance(station, TrickGame)  # (a clone is of its state's class)
        stations.append((station, SeatObserver(station, mover), action))
    return stations


def misfits_at(world: State, stations: Sequence[tuple[TrickGame, SeatObserver, int]], bound: int = 1 << 30) -> int:
    """:func:`misfits` of ``world`` read at ``stations`` (:func:`auction_stations` of a world of the same position),
    each given the hands of ``world``: the same count, without replaying its dealing."""
    assert isinstance(world, TrickGame)  # (stations are made only for trick games)
    rank = _RANKERS[world.game_id]
    held = _hands_held(world)
    count = 0
    for station, observer, action in stations:
        station.hands = held  # (read, never written, by the legal moves and greedy's keys)
        station._legal = None
        above = _rated_above(station, observer, action, rank)
        if above < 0:
            return -1
        count += above
        if count >= bound:
            return count
    return count


def infer_sample(view: SeatView, rng: Rng, tries: int, charge: Callable[[int], None] | None = None) -> State:
    """A sample of ``view`` (:meth:`~engine.bots.view.SeatView.sample`'s hard facts hold) that fits the other
    seats' bids: the first of up to ``tries`` draws that greedy's bids fit, else the one that misfits least (the first
    among equals). ``charge``, if given, is charged a sample's work for each draw after the first (a search's budget:
    what it raises ends the search there), so that a game with no bids to fit costs one draw, as without inference."""
    best = view.sample(rng)
    if tries <= 1 or view.fixed():
        return best
    memo = view._memo  # (one per position: the moves to fit, and the states to score them at, worked out once)
    moves = memo.get("bids")
    if moves is None:
        moves = memo["bids"] = bids_to_fit(best, view.seat)
        if moves:
            memo["stations"] = auction_stations(best, moves)
    if not moves:
        return best
    stations = memo["stations"]
    least = misfits(best, moves) if stations is None else misfits_at(best, stations)
    for _ in range(tries - 1):
        if least <= 0:
            break
        if charge is not None:
            charge(SAMPLE_WORK)
        world = view.sample(rng)
        count = misfits(world, moves, least) if stations is None else misfits_at(world, stations, least)
        if 0 <= count < least:
            best, least = world, count
    return best


def infer_option(default: int) -> Option:
    """A searching policy's ``infer``: draws per sample among which the one that best fits the bids is kept."""
    return Option("infer", int, default, "worlds drawn per sample, the first that fits the other seats' bids as "
                  "greedy would make them kept (else the one that misfits least): auction inference (0 or 1: none)",
                  minimum=0, maximum=1000, noun="parameter")
