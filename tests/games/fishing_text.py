"""The fishing games restated from their rules texts on card codes (tablanette.md 2, 5.3-5.9, 7; tablic.md 2,
5.3-5.6, 7), as the rules files write them, and a random-play loop that compares the engine with them at every turn:
its whole-turn listing, the turn its step actions add up to, whose turn it is, every deal score and the match end.

>>> capture_turns("KC", ["2C", "3D", "5H", "9S"], Rules(jack_takes_all=True, max_sum_cards=3, compulsory=True))
['KC:2C,3D,9S', 'KC:5H,9S']
>>> capture_turns("9C", ["2C", "3D", "4H", "7S"], Rules(jack_takes_all=False, max_sum_cards=0, compulsory=False))
['9C', '9C:2C,3D,4H', '9C:2C,7S']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from rules_text import drawn_dealer, fresh_deck

import engine
from engine.rng import Rng

RANKS = "23456789TJQKA"
VALUES = {**{r: (int(r),) for r in "23456789"}, "T": (10,), "J": (12,), "Q": (13,), "K": (14,), "A": (1, 11)}
POINTS = {"A": 1, "K": 1, "Q": 1, "J": 1, "T": 1}  # 2.2 of both files, with TD 2 and 2C 1


class Rules(NamedTuple):
    jack_takes_all: bool  # Tablanette's special jack (tablanette.md 5.6)
    max_sum_cards: int  # 0 = any number of cards in a sum group
    compulsory: bool  # only maximal captures, and a trail only without a capture


def canon(cards: list[str] | set[str]) -> list[str]:
    """Suit-major C < D < H < S, then rank 2 < ... < A."""
    return sorted(cards, key=lambda c: ("CDHS".index(c[1]), RANKS.index(c[0])))


def sums(cards: list[str]) -> set[int]:
    """Every total of the cards' values, each ace 1 or 11."""
    out = {0}
    for c in cards:
        out = {s + v for s in out for v in VALUES[c[0]]}
    return out


def groups(played: str, v: int, table: list[str], rules: Rules) -> list[frozenset[str]]:
    """5.3: a card of the played card's rank, or two or more cards whose values can add up to v."""
    found = [frozenset([c]) for c in table if c[0] == played[0]]
    limit = rules.max_sum_cards or len(table)

    def grow(start: int, chosen: list[str]) -> None:
        if len(chosen) >= 2 and v in sums(chosen):
            found.append(frozenset(chosen))
        if len(chosen) == limit:
            return
        for k in range(start, len(table)):
            if min(sums([*chosen, table[k]])) <= v:
                grow(k + 1, [*chosen, table[k]])
    grow(0, [])
    return found


def unions(found: list[frozenset[str]], maximal: bool) -> set[frozenset[str]]:
    """The unions of pairwise-disjoint groups; a packing is maximal when every group meets its union."""
    out: set[frozenset[str]] = {frozenset()}
    for g in found:
        out |= {u | g for u in out if not u & g}
    if maximal:
        out = {u for u in out if all(g & u for g in found)}
    return out


def capture_sets(played: str, table: list[str], rules: Rules) -> dict[frozenset[str], list[int]]:
    """Each capture set of the played card with the values of it that give it (tablanette.md 5.4, tablic.md 5.4)."""
    if played[0] == "J" and rules.jack_takes_all:
        return {frozenset(table): [0]}
    fishable = [c for c in table if not (rules.jack_takes_all and c[0] == "J")]
    out: dict[frozenset[str], list[int]] = {}
    for v in VALUES[played[0]]:
        for u in unions(groups(played, v, fishable, rules), rules.compulsory):
            out.setdefault(u, []).append(v)
    if rules.compulsory and any(out):
        out.pop(frozenset(), None)
    else:
        out.setdefault(frozenset(), [])
    return out


def turn_string(played: str, captured: frozenset[str] | set[str]) -> str:
    return played + ":" + ",".join(canon(captured)) if captured else played


def capture_turns(played: str, table: list[str], rules: Rules) -> list[str]:
    return sorted(turn_string(played, c) for c in capture_sets(played, table, rules))


def legal_turns(hand: list[str], table: list[str], rules: Rules) -> list[str]:
    """The union over the cards in hand."""
    return sorted({t for p in hand for t in capture_turns(p, table, rules)})


def card_points(cards: set[str]) -> int:
    """2.2: A K Q J 1 each, a ten 1 (TD 2), 2C 1."""
    return sum(2 if c == "TD" else 1 if c == "2C" else POINTS.get(c[0], 0) for c in cards)


def most_cards(sizes: list[int]) -> list[int]:
    """3 for strictly the most captured cards; a shared largest count scores nobody."""
    top = max(sizes)
    return [3 if s == top and sizes.count(top) == 1 else 0 for s in sizes]


def sweep_worth(played: str, captured: frozenset[str], table: list[str], rules: Rules) -> int:
    """tablanette.md 5.7, 9.2: the captured table cards plus the played card, each ace at the value giving the
    greatest total among the ways the capture is legal: a sum group is worth the played card's value v, a card taken
    by rank match its own value (an ace 11), the played card v."""
    def worth(rest: frozenset[str], found: list[frozenset[str]], v: int) -> int | None:
        """The best split of ``rest`` into disjoint groups (None if there is none)."""
        if not rest:
            return 0
        low = canon(rest)[0]
        splits = [(v if len(g) > 1 else max(VALUES[low[0]])) + sub for g in found
                  if low in g and g <= rest and (sub := worth(rest - g, found, v)) is not None]
        return max(splits, default=None)

    totals = [v + (worth(captured, groups(played, v, list(captured), rules), v) or 0)
              for v in capture_sets(played, table, rules)[captured]]
    return max(totals)


class Deal:
    """One deal's captures restated: each side's pile, its sweeps and who captured last."""

    def __init__(self, sides: int) -> None:
        self.piles: list[set[str]] = [set() for _ in range(sides)]
        self.sweeps = [0] * sides  # points
        self.swept = [0] * sides  # how many
        self.last: int | None = None


def parse(turn: str) -> tuple[str, frozenset[str]]:
    played, _, rest = turn.partition(":")
    return played, frozenset(rest.split(",")) if rest else frozenset()


def turn_taken(history: list[tuple[int, str]], start: int) -> str:
    """The whole turn that the step actions ``history[start:]`` make (``P:`` then ``+X`` each, ``next``, ``done``)."""
    steps = [a for _s, a in history[start:]]
    if len(steps) == 1:
        return steps[0]
    return turn_string(steps[0][:-1], {a[1:] for a in steps if a.startswith("+")})


class Dealt(NamedTuple):
    """A deal's cards as the rules text deals them from its deck: the hands of each dealing round (seat -> cards),
    the table and the stock after the first round."""
    rounds: list[list[list[str]]]
    table: list[str]
    stock: list[str]


def step_turns(state: engine.State) -> set[str]:
    """Every whole turn the step actions reach from a turn's start, each step tried on a clone: a capture's steps
    (``+X``, ``next``, ``done``, docs/fishing_moves.md) must always lead on to the end of the turn."""
    start = len(state.history)
    reached: set[str] = set()

    def explore(node: engine.State) -> None:
        actions = node.legal_action_ids()
        assert actions, node.to_position()  # no dead end
        for action in actions:
            after = node.clone()
            after.apply_id(action)
            if after.is_terminal or after.to_position().get("turn_card") is None:
                reached.add(turn_taken(after.history, start))
            else:
                explore(after)
    explore(state)
    return reached


def play_turns_checked(state: engine.State, seed: int, rules: Rules,
                       sweep_points: Callable[[str, frozenset[str], list[str], bool], int],
                       match_over: Callable[[list[int]], bool], dealt: Callable[[dict], Dealt],
                       explore_tables: int = 0) -> None:
    """Play random whole turns (by their strings) or random step actions to the match end. At each turn: the
    whole-turn listing is ``legal_turns`` of the hand and table, the seat to play is the dealer's left at a deal's
    start and the next seat after each turn, and a turn played by steps is one of them; at a deal's end its points
    are the restated captures' card points, most cards and ``sweep_points(played, captured, table, last_play)`` per
    sweep. ``match_over(totals)`` says whether the match ends after a deal with those totals; ``dealt(position)``
    gives the hands, table and stock each deal's deck must deal. On a table of at most ``explore_tables`` cards
    every step is tried: the steps reach exactly the whole turns."""
    rng = Rng(seed)
    n = state.players
    sides = 2 if n == 4 and state.to_position()["options"].get("partnerships", True) else n
    deal, seat_next, totals = Deal(sides), None, [0] * sides
    rounds: list[list[list[str]]] = []
    redealt = False
    while not state.is_terminal:
        p = state.to_position()
        seat = p["current_player"]
        if seat_next is None:  # a deal's start
            expected = dealt(p)
            rounds = expected.rounds[1:]
            assert p["hands"] == [canon(h) for h in expected.rounds[0]] and p["stock"] == expected.stock, p
            assert canon(p["table"]) == canon(expected.table), p
        elif redealt:  # every hand was empty: the hands are dealt again from the stock
            assert p["hands"] == [canon(h) for h in rounds.pop(0)], p
        assert seat == (seat_next if seat_next is not None else (p["dealer"] + 1) % n), p
        turns = legal_turns(p["hands"][seat], p["table"], rules)
        assert state.legal_turns() == turns, p
        if len(p["table"]) <= explore_tables:
            assert sorted(step_turns(state)) == turns, p
        start, deals = len(state.history), len(state.deal_results)
        if rng.below(2):
            state.apply(rng.choice(turns))
        else:  # step by step: ``P:`` then the cards to take, ``next`` and ``done`` as they come
            state.apply_id(rng.choice(state.legal_action_ids()))
            while not state.is_terminal and state.to_position().get("turn_card") is not None:
                state.apply_id(rng.choice(state.legal_action_ids()))
        turn = turn_taken(state.history, start)
        assert turn in turns, (turn, turns)
        played, captured = parse(turn)
        table = [c for c in p["table"] if c not in captured] + ([played] if not captured else [])
        redealt = sum(len(h) for h in p["hands"]) == 1
        last_play = redealt and not p["stock"]
        side = seat % sides
        if captured:
            deal.piles[side] |= captured | {played}
            deal.last = side
            if not table and (worth := sweep_points(played, captured, p["table"], last_play)):
                deal.sweeps[side] += worth
                deal.swept[side] += 1
                if state.game_id == "tablanette" and totals[side] + deal.sweeps[side] >= state.target:
                    assert state.is_terminal, p  # tablanette.md 7.5: it wins at once
        seat_next = (seat + 1) % n
        if len(state.deal_results) == deals:
            continue
        result = state.deal_results[-1]
        if result.get("ended_match"):  # tablanette.md 7.5: a sweep reached the target during the deal
            assert state.game_id == "tablanette", "tablic.md 7.2: every deal is played to the end"
            assert deal.sweeps == result["points"] and totals[side] + deal.sweeps[side] >= state.target
            return
        assert last_play and not rounds, p
        if deal.last is not None:  # the table's remainder goes to the last capturer, never a sweep
            deal.piles[deal.last] |= set(table)
        bonus = most_cards([len(pile) for pile in deal.piles])
        points = [card_points(pile) + bonus[s] + deal.sweeps[s] for s, pile in enumerate(deal.piles)]
        assert result["points"] == points, (result, points)
        assert result["cards"] == [len(pile) for pile in deal.piles]  # the counters: cards, sweeps that scored
        assert result.get("tablanettes", result.get("tablas")) == deal.swept, (result, deal.swept)
        totals = [t + x for t, x in zip(totals, points, strict=True)]
        assert match_over(totals) == state.is_terminal, totals
        assert state.is_terminal or state.dealer == (p["dealer"] + 1) % n
        deal, seat_next = Deal(sides), None


def deal_hands(deck: list[str], start: int, order: list[int], packets: list[int]) -> tuple[list[list[str]], int]:
    """Packets from ``deck[start:]`` to the seats in ``order``, round after round; the hands and the next index."""
    hands: list[list[str]] = [[] for _ in order]
    for size in packets:
        for seat in order:
            hands[seat] += deck[start:start + size]
            start += size
    return hands, start


def check_first_dealer_and_deck(game: str, players: int, draw: str, ranks: str) -> None:
    """3.1 and 3.3 of both fishing games: over 15 seeds, the first dealer is drawn from one fresh pack (``ranks`` low to
    high, ``draw`` the lowest or highest card deals, ties drawn again from what is left) and the first deck is then a
    shuffle of a fresh pack by the same RNG."""
    for seed in range(15):
        rng = Rng(seed)
        dealer = drawn_dealer(rng, players, fresh_deck("23456789TJQKA"), lambda c: ranks.index(c[0]),
                              lowest=draw == "low", fresh_for_ties=False)
        pack = fresh_deck("23456789TJQKA")
        rng.shuffle(pack)
        state = engine.new_match(game, seed=seed, players=players, options={"first_dealer_draw": draw})
        assert state.first_dealer == dealer and state.to_position()["deal_deck"] == pack
