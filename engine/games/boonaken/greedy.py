"""Greedy for Boonaken: bid only what the hand can make, keep the best six cards, then play the contract's way.

One sort key per legal action (higher is better), from the observation of the seat to act only:

- bidding (boonaken.md 5): a numeric bid up to what the hand is worth with its best trump (its roem, the points of
  its likely winners and what they capture), misère with a hand of low cards once the centre's face-up cards are
  counted, boonaak with five trumps headed by the jack, nine and ace; else pass;
- exchange (6), trump (7.2), roem (7.3): keep the six cards worth most for the contract, name the best trump,
  declare all the roem held;
- play (7.5): a trump-contract declarer wins points cheaply, a zwabber or boonaak declarer every trick; a misère
  declarer plays his highest card that loses the trick; the others play against the declarer: they take his tricks
  cheaply, and against misère they duck under a declarer's winning card and get rid of their high cards.

>>> obs = {"game": "boonaken", "phase": "play", "players": 3, "seat": 1, "declarers": [0], "contract": "misere",
...        "trump": None, "trick": [[0, "9H"]], "legal_actions": ["7H", "KH"]}
>>> from engine.bots.greedy import fields  # (a key is a tuple packed in one int: key_of)
>>> from engine.bots.seen import Seen  # (compiled, the module's Seen is a C type cimported in greedy.pxd)
>>> [fields(key) for key in rank_boonaken(Seen(obs))]  # duck under the misère declarer's nine
[(1, -1), (0, 7)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...bots.greedy import Keyer, key_of, register_greedy
from ...bots.policy import Observation
from ...bots.seen import Seen
from ...cards import CARD_OF_CODE, SUIT, SUITS, parse_cards
from ...tricks import NO_TRUMP, beats
from . import POINTS, RANKING, roem_of

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

TOP_TRUMPS = "J9AK"  # trumps that usually win their trick
CAPTURE = 4  # about what each other player's card in a won trick is worth
HIGH_PLAIN = "AKQJT"  # cards a misère hand cannot keep


@cython.cclass
class BoonakenGreedy(Keyer):
    """Boonaken's ranker (:data:`rank_boonaken`): each key :func:`key_of` a tuple."""

    @cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, legal=list)
    def rank(self, seen: Seen) -> int:
        obs = seen.obs
        legal = obs["legal_actions"]
        n = self.room(len(legal))
        if obs["phase"] == "play":
            _rank_cards(self, seen, legal)
            return n
        choice = _choice(obs)
        for i in range(n):
            self.keys[i] = key_of(legal[i] == choice)
        return n


rank_boonaken = register_greedy("boonaken")(BoonakenGreedy())


def _choice(obs: Observation) -> str:
    """The one action a phase before the play takes (its key 1, the others' 0)."""
    legal: list[str] = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "bidding":
        return _bid(obs)
    if phase == "exchange":
        return _discard(obs)
    if phase == "trump":
        hand = _mask(obs["hand"])
        return max(legal, key=lambda a: _worth(hand, SUITS.index(a[-1]), obs))
    return max(legal, key=lambda a: int(a.split(":")[1]))  # 7.3: declare every point of roem held


def _mask(codes: Sequence[str]) -> int:
    mask = 0
    for code in codes:
        mask |= 1 << CARD_OF_CODE[code]
    return mask


def _worth(hand: int, trump: int, obs: Observation) -> int:
    """What ``hand`` (a mask) may make with ``trump``: its roem, and for each likely winner (a top trump, a plain
    ace) its own points and what the others' cards bring."""
    six = obs["options"]["six_sequence_value"]
    total = roem_of(hand, trump, six)
    others = obs["players"] - 1
    for card in range(52):
        if not hand >> card & 1:
            continue
        rank = "23456789TJQKA"[card % 13]
        winner = rank in TOP_TRUMPS if SUIT[card] == trump else rank == "A"
        if winner:
            total += POINTS[trump][card] + CAPTURE * others
    return total


def _misere_hand(cards: list[int]) -> bool:
    """Whether the six lowest of ``cards`` (plain ranking) hold no ten or higher."""
    power = RANKING.power[NO_TRUMP]
    low = sorted(cards, key=lambda c: power[c])[:6]
    return not any("23456789TJQKA"[c % 13] in HIGH_PLAIN for c in low)


def _bid(obs: Observation) -> str:
    legal = obs["legal_actions"]
    hand = parse_cards(obs["hand"])
    mask = _mask(obs["hand"])
    seen = hand + parse_cards(obs.get("face_up", []))
    if "bid:misere" in legal and _misere_hand(seen):
        return "bid:misere"
    trump = max(range(4), key=lambda t: _worth(mask, t, obs))
    trumps = [c for c in hand if SUIT[c] == trump]
    held = {"23456789TJQKA"[c % 13] for c in trumps}
    if "bid:boonaak" in legal and len(trumps) >= 5 and {"J", "9", "A"} <= held:
        return "bid:boonaak"
    worth = _worth(mask, trump, obs)
    numeric = sorted(int(a[4:]) for a in legal if a[4:].isdigit())
    if numeric and numeric[0] <= worth:
        return f"bid:{numeric[0]}"
    return "pass"


def _discard(obs: Observation) -> str:
    """6.1: the discard that leaves the six cards worth most for the contract."""
    legal: list[str] = obs["legal_actions"]
    pool = _mask(obs["hand"]) | _mask(obs["centre"])
    contract = obs["contract"]
    power = RANKING.power[NO_TRUMP]

    def kept_value(action: str) -> int:
        kept = pool & ~_mask(action[8:].split(","))
        cards = [c for c in range(52) if kept >> c & 1]
        if contract == "misere":
            return -sum(power[c] ** 2 for c in cards)
        if contract == "zwabber":
            return sum(power[c] ** 2 for c in cards)
        return max(_worth(kept, t, obs) for t in range(4))

    return max(legal, key=kept_value)


@cython.cfunc
@cython.locals(keyer=Keyer, seen=Seen, i=cython.Py_ssize_t, trump=cython.int, card=cython.int, best=cython.int,
               cheap=cython.int, worth=cython.int, trick_points=cython.int, wins=cython.bint, declaring=cython.bint,
               misere=cython.bint, power=tuple, points=tuple, legal=list)
def _rank_cards(keyer: Keyer, seen: Seen, legal: list[str]) -> None:
    obs = seen.obs
    trump = NO_TRUMP if obs["trump"] is None else SUITS.index(obs["trump"])
    power, points = tuple(RANKING.power[trump]), tuple(POINTS[trump])
    declarers, contract = obs["declarers"], obs["contract"]
    declaring, misere = obs["seat"] in declarers, contract == "misere"
    trick = seen.trick
    best_seat, best, trick_points = -1, -1, 0
    if trick:  # the trick's facts, once for every card
        best_seat, best = seen.winning(trump, power)
        for _s, card in trick:
            trick_points += points[card]
    for i in range(len(legal)):
        card = CARD_OF_CODE[legal[i]]
        cheap = -power[card] - points[card]
        if not trick:
            keyer.keys[i] = _lead(card, declaring, misere, power)
            continue
        wins = beats(card, best, trump, power)
        if misere:
            if declaring:
                keyer.keys[i] = key_of(not wins, power[card] if not wins else -power[card])
            elif best_seat in declarers:
                keyer.keys[i] = key_of(not wins, -power[card] if not wins else power[card])  # duck under it
            else:
                keyer.keys[i] = key_of(0, power[card])  # get rid of high cards
            continue
        worth = trick_points + points[card]
        if declaring or best_seat in declarers:
            keyer.keys[i] = key_of(wins, worth + cheap if wins else -points[card])  # take it cheaply
        else:
            keyer.keys[i] = key_of(0, -points[card] - power[card])  # another opponent holds it: keep strength


@cython.cfunc
@cython.locals(card=cython.int, declaring=cython.bint, misere=cython.bint, power=tuple)
@cython.returns(cython.longlong)
def _lead(card: int, declaring: bool, misere: bool, power: tuple[int, ...]) -> int:
    if misere:
        return key_of(0, -power[card])  # a low lead
    if declaring:
        return key_of(0, power[card])  # a winner first
    return key_of(0, -power[card])
