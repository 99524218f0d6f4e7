"""Greedy heuristics for the trick games: German Whist, Belote contrée and Belote.

``choose(obs, rng) -> action string`` sees only the observation of the seat to act (``state.observation(seat)``, which
lists ``legal_actions``) and breaks ties with ``rng`` (an :class:`engine.rng.Rng`). It bids what its hand can make
and plays sensibly: win a trick cheaply when it is worth it, give points to a winning partner, otherwise throw the
cheapest card.

>>> from engine.rng import Rng
>>> choose({"game": "german_whist", "legal_actions": ["2C", "AC"], "hand": ["2C", "AC"], "trump": "H",
...         "trick": [], "face_up": "AH"}, Rng(1))
'AC'
"""

from __future__ import annotations

from collections.abc import Callable

from ..cards import SUIT, SUITS, parse_card
from ..games.belote_family import POINTS, POWER
from ..rng import Rng
from ..tricks import NO_TRUMP, Ranking

WHIST_POWER = Ranking("AKQJT98765432").power


def choose(obs: dict, rng: Rng) -> str:
    """The greedy action of the seat whose observation this is."""
    legal = obs["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    pick = _GAMES[obs["game"]]
    return pick(obs, legal, rng)


def _best(items: list[str], key: Callable[[str], float], rng: Rng) -> str:
    top = max(key(a) for a in items)
    best = [a for a in items if key(a) == top]
    return best[rng.below(len(best))] if len(best) > 1 else best[0]


def _winning(trick: list, trump: int, power: tuple[int, ...]) -> tuple[int, int] | None:
    """(seat, card) now winning the trick."""
    best = None
    for seat, code in trick:
        card = parse_card(code)
        if best is None or (power[card] > power[best[1]] and (SUIT[card] in (SUIT[best[1]], trump))):
            best = (seat, card)
    return best


def _beats(card: int, best: int, trump: int, power: tuple[int, ...]) -> bool:
    return power[card] > power[best] and SUIT[card] in (SUIT[best], trump)


# ---- German Whist -----------------------------------------------------------------------------------------------


def _german_whist(obs: dict, legal: list[str], rng: Rng) -> str:
    trump = SUITS.index(obs["trump"])
    power = WHIST_POWER[trump]
    cards = [a for a in legal if not a.startswith("down:")]
    if not cards:
        return legal[rng.below(len(legal))]
    face_up = obs.get("face_up")
    worth_winning = face_up is None or SUIT[parse_card(face_up)] == trump or power[parse_card(face_up)] >= 10

    def strength(code: str) -> int:
        return power[parse_card(code)]

    if not obs["trick"]:
        if worth_winning:
            return _best(cards, strength, rng)
        return _best(cards, lambda a: -strength(a), rng)
    lead = parse_card(obs["trick"][0][1])
    winners = [a for a in cards if _beats(parse_card(a), lead, trump, power)]
    if winners and worth_winning:
        return _best(winners, lambda a: -strength(a), rng)
    return _best(cards, lambda a: -strength(a) - (50 if SUIT[parse_card(a)] == trump else 0), rng)


# ---- the Belote games -------------------------------------------------------------------------------------------


def _trump_value(hand: list[int], trump: int) -> int:
    """A hand's worth with ``trump``: its card points plus a premium for trump length and the J and 9 of trump."""
    points = POINTS[trump]
    trumps = [c for c in hand if SUIT[c] == trump]
    return sum(points[c] for c in hand) + 8 * len(trumps)


def _play_belote(obs: dict, legal: list[str], rng: Rng) -> str:
    belote = [a for a in legal if a.endswith(":belote")]
    if belote:
        return belote[0]
    trump = SUITS.index(obs["trump"]) if obs["trump"] else NO_TRUMP
    power, points = POWER[trump], POINTS[trump]
    cards = [parse_card(a) for a in legal]
    trick = obs["trick"]

    def code_of(card: int) -> str:
        return legal[cards.index(card)]

    if not trick:
        return code_of(max(cards, key=lambda c: (power[c] if power[c] >= 7 else -points[c] - power[c] / 100)))
    seat, best = _winning(trick, trump, power)
    partner = obs["players"] == 4 and seat == (obs["seat"] + 2) % 4
    if partner:
        return code_of(max(cards, key=lambda c: (points[c] - (30 if SUIT[c] == trump else 0), rng.below(2))))
    winners = [c for c in cards if _beats(c, best, trump, power)]
    if winners:
        return code_of(min(winners, key=lambda c: (power[c], points[c])))
    return code_of(min(cards, key=lambda c: (points[c] + (20 if SUIT[c] == trump else 0), power[c])))


def _belote_contree(obs: dict, legal: list[str], rng: Rng) -> str:
    phase = obs["phase"]
    if phase == "redeal":
        return "redeal"
    if phase == "play":
        return _play_belote(obs, legal, rng)
    hand = [parse_card(c) for c in obs["hand"]]
    suit = max(range(4), key=lambda s: _trump_value(hand, s))
    # A partner brings about 40 points: bid the highest level the pair can make.
    reach = (_trump_value(hand, suit) + 40) // 10 * 10
    bids = [a for a in legal if a.startswith("bid:") and a.endswith(SUITS[suit]) and a.split(":")[1].isdigit()]
    affordable = [a for a in bids if int(a.split(":")[1]) <= reach]
    if affordable:
        return min(affordable, key=lambda a: int(a.split(":")[1]))
    return "pass"


def _belote(obs: dict, legal: list[str], rng: Rng) -> str:
    if "declare" in legal:
        return "declare"
    if obs["phase"] == "play":
        return _play_belote(obs, legal, rng)
    hand = [parse_card(c) for c in obs["hand"]]
    turn_up = parse_card(obs["turn_up"])
    if "take" in legal:
        return "take" if _trump_value([*hand, turn_up], SUIT[turn_up]) >= 60 else "pass"
    options = [a for a in legal if a.startswith("take:")]
    best = max(options, key=lambda a: _trump_value(hand, SUITS.index(a[-1])))
    return best if _trump_value(hand, SUITS.index(best[-1])) >= 52 else "pass"


_GAMES = {"german_whist": _german_whist, "belote_contree": _belote_contree, "belote": _belote}
GAMES = tuple(sorted(_GAMES))
