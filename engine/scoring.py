"""Scoring machinery shared by trick games: card-point tables, last-trick bonuses, trick values and match targets.

A game states its card points as data (rank -> points in a plain suit and in the trump suit) and gets one table per
trump suit; a game that values whole tricks by the special cards in them (Très) states a :class:`TrickBonus`; the
match end is one of a few standard rules over the sides' cumulative scores.

>>> table = point_table({"A": 11, "T": 10}, {"J": 20, "9": 14, "A": 11, "T": 10}, )
>>> from engine.cards import parse_card
>>> table[2][parse_card("JH")], table[2][parse_card("JS")], table[2][parse_card("AS")]
(20, 0, 11)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import BIT, CODES, RANKS, SUIT, SUIT_MASK, mask_of


def point_table(plain: Mapping[str, int], trump: Mapping[str, int] | None = None) -> tuple[tuple[int, ...], ...]:
    """Card points per trump suit: ``table[trump][card]`` (trump index 4 = no trump); unlisted ranks score 0."""
    trump = plain if trump is None else trump
    return tuple(
        tuple((trump if SUIT[card] == t else plain).get(RANKS[card % 13], 0) for card in range(52)) for t in range(5)
    )


def sides_at_or_over(scores: Sequence[int], target: int) -> list[int]:
    """The sides whose cumulative score has reached ``target``."""
    return [side for side, s in enumerate(scores) if s >= target]


def leaders(scores: Sequence[int]) -> list[int]:
    """The sides with the highest score (more than one on a tie)."""
    top = max(scores)
    return [side for side, s in enumerate(scores) if s == top]


def single_leader(scores: Sequence[int]) -> list[int] | None:
    """The side with the highest score, alone; None while the highest scores are tied (play goes on)."""
    top = leaders(scores)
    return top if len(top) == 1 else None


def highest_once_target_reached(scores: Sequence[int], target: int) -> list[int] | None:
    """The common match end: once some side has reached ``target``, the single highest side wins.

    While the highest scores are tied, play goes on (None), as do matches where nobody has reached the target.

    >>> highest_once_target_reached([1010, 990], 1000), highest_once_target_reached([1010, 1010], 1000)
    ([0], None)
    """
    return single_leader(scores) if sides_at_or_over(scores, target) else None


def target_or_deals(scores: Sequence[int], target: int, played: int, deals: int) -> list[int] | None:
    """A match to ``target`` (``highest_once_target_reached``) or, with target 0, of ``deals`` deals: after the last
    (``played`` counts them) the highest sides win, equal totals a draw.

    >>> target_or_deals([12, 9], 0, 1, 2), target_or_deals([12, 12], 0, 2, 2), target_or_deals([12, 12], 11, 2, 2)
    (None, [0, 1], None)
    """
    if target:
        return highest_once_target_reached(scores, target)
    return leaders(scores) if played >= deals else None


def deals_to_target(target: int, deals: int, least_points: int, tied: int = 10) -> int:
    """The most deals of a two-player match of ``deals`` deals or, with ``target`` > 0, to that total, when every deal
    hands out at least ``least_points``: the higher total gains half of them a deal, so it reaches the target within
    2 x target / least_points deals; then ``tied`` more while the highest totals stay tied (Trappola, Très 7.3).

    >>> deals_to_target(0, 2, 17), deals_to_target(100, 1, 6), deals_to_target(101, 2, 17)
    (2, 44, 22)
    """
    return deals if target == 0 else -(-2 * target // least_points) + tied


def over_half(points: Sequence[int], half: int, multiplier: int = 1) -> list[int]:
    """Each side's score when only a side holding more than ``half`` of a deal's points scores, its excess times
    ``multiplier`` (Botifarra 7.2); at exactly half nobody scores.

    >>> over_half([45, 27], 36), over_half([45, 27], 36, 8), over_half([36, 36], 36)
    ([9, 0], [72, 0], [0, 0])
    """
    return [(p - half) * multiplier if p > half else 0 for p in points]


def two_side_points(attack: int, base: list[int], declarations: list[int], belote: list[int],
                    litige: bool = True) -> tuple[list[int], str, int]:
    """A taker's contract between two sides (Belote 7.3 with 2 or 4 players): each side's points, the outcome and
    the points held back. The attack must score more than the defence (``made``: both score their totals); else it
    is ``dedans`` (the defence scores every point of the deal, the attack keeps only its belote), or with
    ``litige`` at equal totals the defence scores its own and the attack's, less its belote, are held back.

    ``base`` is card points + last trick (+ a capot's bonus) per side; ``declarations`` the scoring declarations.

    >>> two_side_points(0, [100, 62], [20, 0], [20, 0])  # Belote 10.8
    ([140, 62], 'made', 0)
    >>> two_side_points(0, [81, 81], [0, 0], [0, 0]), two_side_points(0, [60, 102], [0, 20], [0, 0])
    (([0, 81], 'litige', 81), ([0, 182], 'dedans', 0))
    """
    defence = 1 - attack
    totals = [base[s] + declarations[s] + belote[s] for s in (0, 1)]
    points = [0, 0]
    if totals[attack] > totals[defence]:
        return totals, "made", 0
    points[attack] = belote[attack]
    if totals[attack] == totals[defence] and litige:
        points[defence] = totals[defence]
        return points, "litige", totals[attack] - belote[attack]
    points[defence] = sum(base) + sum(declarations) + belote[defence]  # dedans
    return points, "dedans", 0


def three_player_points(taker: int, totals: list[int], belote: list[int], order: list[int]) -> tuple[list[int], str]:
    """A taker against two opponents (Belote 7.5): he must score more than each of them; else (``dedans``) they
    share his points, less his belote (the odd point to the first of them in ``order``, clockwise from the dealer's
    left)."""
    if all(totals[taker] > totals[s] for s in range(3) if s != taker):
        return list(totals), "made"
    points = [0, 0, 0]
    points[taker] = belote[taker]
    share = totals[taker] - belote[taker]
    for k, seat in enumerate(s for s in order if s != taker):
        points[seat] = totals[seat] + share // 2 + (share % 2 if k == 0 else 0)
    return points, "dedans"


def ranks_mask(ranks: str) -> int:
    """The cards of the given ranks in every suit, as a mask (``"234"``: the twelve 2s, 3s and 4s)."""
    mask = 0
    for card in range(52):
        if RANKS[card % 13] in ranks:
            mask |= BIT[card]
    return mask


@dataclass(frozen=True)
class TrickBonus:
    """A won trick's value from the special cards it holds (Très 7.1), only the highest applicable value counting.

    ``special`` is the special cards (a mask); a trick holding k of them earns ``by_count[k]``; a trick made of
    special cards only earns instead ``by_suits[s]`` when its cards are of s suits and s is listed (as pairs
    (s, value)). A trick is worth ``trick_point`` or its bonus, the higher (:meth:`value`), or with ``additive``
    the two added.

    >>> from engine.cards import parse_cards
    >>> tres = TrickBonus(ranks_mask("234"), by_count=(0, 2, 4, 8), by_suits=((1, 16), (3, 16)))
    >>> [tres.value(parse_cards(t)) for t in (["AS", "KS", "QS"], ["3S", "4C", "AH"], ["2H", "3D", "4H"])]
    [1, 4, 8]
    >>> tres.value(parse_cards(["2H", "2C", "2D"])), tres.value(parse_cards(["3S", "4C", "AH"]), additive=True)
    (16, 5)
    """

    special: int
    by_count: tuple[int, ...]
    by_suits: tuple[tuple[int, int], ...] = ()

    def bonus(self, cards: Sequence[int]) -> int:
        held = 0
        for card in cards:
            held |= BIT[card]
        special = held & self.special
        count = special.bit_count()
        if count == len(cards) and self.by_suits:
            suits = sum(1 for suit_cards in SUIT_MASK if special & suit_cards)
            for number, value in self.by_suits:
                if number == suits:
                    return value
        return self.by_count[count]

    def value(self, cards: Sequence[int], trick_point: int = 1, additive: bool = False) -> int:
        bonus = self.bonus(cards)
        return trick_point + bonus if additive else max(trick_point, bonus)


@dataclass(frozen=True)
class WinningCardBonus:
    """Bonuses for the tricks a special card wins (Trappola 7.1.3 - 7.1.5): each such trick earns its winner a bonus
    (counted here), the last trick's winner earns ``last``; a deal that ends with a run of such tricks pays
    ``per_run_trick`` for each trick of the run to its last winner instead, and its tricks count for nothing else.

    >>> bonus = WinningCardBonus(last=6, per_run_trick=26)
    >>> bonus.score([(0, True), (1, False), (0, False)], 2), bonus.score([(1, False), (0, True), (1, True)], 2)
    (([1, 0], [6, 0], 0), ([0, 0], [0, 52], 2))
    """

    last: int
    per_run_trick: int

    def score(self, winners: Sequence[tuple[int, bool]], seats: int) -> tuple[list[int], list[int], int]:
        """For (winner, won by the special card) of each trick in order: per seat its special tricks outside the final
        run, per seat the last trick's or the run's points, and the run's length."""
        run = 0
        while run < len(winners) and winners[-1 - run][1]:
            run += 1
        special, bonus = [0] * seats, [0] * seats
        for seat, by_special in winners[:len(winners) - run]:
            special[seat] += by_special
        if winners:
            bonus[winners[-1][0]] = self.per_run_trick * run if run else self.last
        return special, bonus, run


class PileValues:
    """Card values summed over a pile (a mask) in four table look-ups, one per suit: ``points[card]`` for each card.

    >>> from engine.cards import mask_of, parse_cards
    >>> PileValues(point_table({"A": 11, "T": 10})[4]).pile_points(mask_of(parse_cards(["AS", "TH", "9C"])))
    21
    """

    def __init__(self, points: Sequence[int]) -> None:
        self.points: tuple[int, ...] = tuple(points)
        # by_suit[suit][ranks]: the points of that suit's cards of a 13-bit rank mask
        self.by_suit = tuple(_suit_sums(self.points[13 * s:13 * s + 13]) for s in range(4))

    def pile_points(self, pile: int) -> int:
        """The points of the cards of ``pile`` (a mask), signs as given."""
        clubs, diamonds, hearts, spades = self.by_suit
        return (clubs[pile & 0x1FFF] + diamonds[pile >> 13 & 0x1FFF] + hearts[pile >> 26 & 0x1FFF]
                + spades[pile >> 39 & 0x1FFF])


class PlusMinusCards(PileValues):
    """Scoring cards worth plus or minus points, and the reversal: a pile that holds every minus card turns the sign
    of every pile's points (Two-Ten-Jack 7.2; the idea of Hearts' shooting the moon).

    >>> from engine.cards import mask_of, parse_cards
    >>> cards = PlusMinusCards({"2H": 10, "KH": 5, "AS": -15, "QS": -5})
    >>> cards.scores([mask_of(parse_cards(["2H"])), mask_of(parse_cards(["AS", "QS", "KH"]))])
    ([-10, 15], 1)
    >>> cards.scores([mask_of(parse_cards(["2H", "QS"])), mask_of(parse_cards(["AS", "KH"]))])
    ([5, -10], None)
    """

    def __init__(self, points: Mapping[str, int]) -> None:
        unknown = sorted(set(points) - set(CODES))
        if unknown:
            raise ValueError(f"not card codes: {unknown}")
        super().__init__([points.get(code, 0) for code in CODES])
        self.minus = mask_of(c for c, p in enumerate(self.points) if p < 0)

    def shooter(self, piles: Sequence[int]) -> int | None:
        """The index of the pile that holds every minus card, if one does."""
        return next((k for k, pile in enumerate(piles) if pile & self.minus == self.minus), None)

    def scores(self, piles: Sequence[int], reversal: bool = True) -> tuple[list[int], int | None]:
        """Each pile's points and the pile that reversed the signs (None: no reversal, or ``reversal`` off)."""
        points = [self.pile_points(pile) for pile in piles]
        shooter = self.shooter(piles) if reversal else None
        return ([-p for p in points] if shooter is not None else points), shooter


def _suit_sums(values: Sequence[int]) -> tuple[int, ...]:
    """For each 13-bit mask, the sum of ``values`` at its set bits."""
    sums = [0]
    for m in range(1, 1 << 13):
        low = m & -m
        sums.append(sums[m ^ low] + values[low.bit_length() - 1])
    return tuple(sums)
