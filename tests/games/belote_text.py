"""The Belote family's card play restated from the rules texts on card codes (belote_contree.md 2, 5.2, 5.3, 6.1;
belote.md 2, 5.2, 5.3, 6.4), as the rules files write it, for the audits of test_belote_contree.py and
test_belote.py.

>>> legal_cards(["JS", "8S", "AD", "KH"], [[1, "9S"], [2, "7S"]], "S", 3, 4)  # belote_contree.md 10.1
['JS']
>>> trick_winner([[2, "TH"], [3, "AH"], [0, "7C"], [1, "8C"]], "C")  # 10.8
1
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TRUMP_ORDER = "78QKTA9J"  # low -> high (2.1)
PLAIN_ORDER = "789JQKTA"  # low -> high (2.2)
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


def card(action: str) -> str:
    return action.split(":")[0]


def strength(code: str, led: str, trump: str) -> int:
    """2.5: any trump beats any plain card; only the led suit can win among plain cards."""
    if code[1] == trump:
        return 100 + TRUMP_ORDER.index(code[0])
    return 10 + PLAIN_ORDER.index(code[0]) if code[1] == led else 0


def trick_winner(trick: list[list[Any]], trump: str) -> int:
    """5.3: the highest trump if any, else the highest card of the led suit."""
    led = card(trick[0][1])[1]
    return max(trick, key=lambda play: strength(card(play[1]), led, trump))[0]


def card_points(code: str, trump: str) -> int:
    return (TRUMP_POINTS if code[1] == trump else PLAIN_POINTS)[code[0]]


def legal_cards(hand: list[str], trick: list[list[Any]], trump: str, seat: int, players: int) -> list[str]:
    """5.2 word for word; partners (seat + 2) exist only with 4 players."""
    if not trick:
        return sorted(hand)
    led = card(trick[0][1])[1]
    trumps = [c for c in hand if c[1] == trump]
    in_trick = [card(a) for _, a in trick if card(a)[1] == trump]
    best = max(in_trick, key=lambda c: TRUMP_ORDER.index(c[0])) if in_trick else None

    def higher(x: str | None) -> list[str]:
        return [c for c in trumps if x is None or TRUMP_ORDER.index(c[0]) > TRUMP_ORDER.index(x[0])]

    partner_winning = players == 4 and trick_winner(trick, trump) == (seat + 2) % 4
    if led == trump:
        legal = (higher(best) or trumps) if trumps else hand
    elif any(c[1] == led for c in hand):
        legal = [c for c in hand if c[1] == led]
    elif partner_winning and best is None:
        legal = hand
    elif partner_winning:
        legal = [c for c in hand if c[1] != trump] + (higher(best) or trumps)
    else:
        legal = (higher(best) or trumps) if trumps else hand
    return sorted(legal)


def with_belote(legal: list[str], hand: list[str], trump: str) -> list[str]:
    """6.1 / 6.4: a holder of both trump K and Q may add ``:belote`` to the first of them he plays."""
    if not {"K" + trump, "Q" + trump} <= set(hand):
        return legal
    return sorted(legal + [c + ":belote" for c in legal if c in ("K" + trump, "Q" + trump)])


def hands_played(tricks: list[list[list[Any]]], players: int) -> list[list[str]]:
    """Each seat's hand at the start of play: the cards it played in the deal's tricks."""
    hands: list[list[str]] = [[] for _ in range(players)]
    for trick in tricks:
        for seat, action in trick:
            hands[seat].append(card(action))
    return hands


def trick_points(tricks: list[list[list[Any]]], trump: str, teams: int) -> tuple[list[int], list[int], list[int]]:
    """Card points, trick counts and the last trick's 10 (5.4) per team (seat % teams)."""
    cards, won, der = [0] * teams, [0] * teams, [0] * teams
    for trick in tricks:
        team = trick_winner(trick, trump) % teams
        cards[team] += sum(card_points(card(a), trump) for _, a in trick)
        won[team] += 1
    der[trick_winner(tricks[-1], trump) % teams] = 10
    return cards, won, der


def leader(tricks: list[list[list[Any]]], dealer: int, trump: str, players: int) -> int:
    """5.1: the dealer's left leads the first trick, the winner of each trick leads the next."""
    return trick_winner(tricks[-1], trump) if tricks else (dealer + 1) % players


class DealerRotation:
    """Called with the position before every move: whenever a new deal is dealt, its dealer must be the previous
    deal's next seat (belote_contree.md 3.2, belote.md 3.2), or the same seat where ``keeps(previous position)``."""

    def __init__(self, keeps: Callable[[dict[str, Any]], bool] = lambda p: False) -> None:
        self.keeps, self.previous = keeps, None

    def __call__(self, p: dict[str, Any]) -> None:
        before, self.previous = self.previous, p
        if before is None or before["deal_deck"] == p["deal_deck"]:
            return
        step = 0 if self.keeps(before) else 1
        assert p["dealer"] == (before["dealer"] + step) % p["players"], (before, p)
