"""Determinization for search: a full state consistent with everything one seat has seen, the rest dealt at random.

``engine.determinize(state, seat, rng)`` copies the state and lets the game re-deal what ``seat`` has not seen (its
``_determinize`` hook); the match's seed and RNG are redrawn from ``rng`` as well, since no seat knows them. A game
describes the unseen cards as :class:`Slot` s (another seat's hidden hand, the unseen part of a stock, a face-down
card) holding the real cards, with the cards each slot may not hold (voids shown by failing to follow suit, cards
known to be elsewhere), and :func:`redeal` deals them again at random.

:func:`redeal` first deals the unseen cards freely (one shuffle) up to ``FREE_TRIES`` times and keeps the first deal
that respects every slot's forbidden cards and check: rejection sampling, exactly uniform over the valid deals, and
cheap where most deals are valid (the usual case). When none is, it runs a Markov chain started from a valid deal made
from what is known of the slots alone (:func:`known_start`), not from the real deal, so that samples cannot show where
the unseen cards are: it swaps two cards of different slots (or rotates three) whenever every slot still respects its
forbidden cards and its check, so it never rejects a whole deal and never loops unboundedly; since every move is as
likely as its reverse, the deals it reaches are uniform over the valid ones once the chain has mixed (a few dozen sweeps
of the cards do; ``SWEEPS``). Whatever the hidden cards really are, two states a seat cannot tell apart give it the same
samples from one ``rng``.

>>> from engine.cards import SUIT_MASK, parse_cards
>>> from engine.rng import Rng
>>> east = Slot(parse_cards(["2C", "3C", "4H"]), forbidden=SUIT_MASK[3])  # east showed out of spades
>>> west = Slot(parse_cards(["5S", "6S", "7D"]))
>>> hands = redeal([east, west], Rng(7))
>>> sorted(map(len, hands)), any(c // 13 == 3 for c in hands[0])
([3, 3], False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import BIT, CODES, cards_in
from .rng import Rng

if TYPE_CHECKING:
    from . import _cython_shim as cython
    from .state import State
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from . import _cython_shim as cython

LOW20 = (1 << 20) - 1  # (an index below 2**20 modulo n < 100 is uniform to one part in 10,000)
SWEEPS = 12  # proposals per card: the random-transposition walk on n cards mixes in about n log n / 2 moves
# Free deals (one shuffle of the unseen cards) redeal tries before its walk: the first valid one is a sample of
# exactly the uniform law over the valid deals, each at about 1/60 of the walk's cost
FREE_TRIES = 8
# The least share of free deals respecting the forbidden cards (as _free_odds reckons it, about twice the true share)
# for which they are tried: a failed one costs about 1/60 of a walk (German Whist, late voids: 1 valid in 15 saves a
# third of a sample's work, 1 in 400 costs 13% more)
FREE_LEAST = 1 / 32


@dataclass
class Slot:
    """Unseen cards in one place: ``cards`` as they really are (a valid start), the ``forbidden`` cards (a mask) and,
    for facts that are not about single cards (a seat is known to hold a declaration), a ``check`` of the content."""

    cards: list[int]
    forbidden: int = 0
    check: Callable[[list[int]], bool] | None = None


@cython.locals(plan="_Plan")
def redeal(slots: Sequence[Slot], rng: Rng, sweeps: int = SWEEPS,
           start: Sequence[Sequence[int]] | None = None) -> list[list[int]]:
    """New contents for ``slots`` (the same sizes, each list in random order), drawn from ``rng``.

    The result depends on what is known of the slots (their sizes, forbidden cards and checks, and the unseen cards
    taken together), not on where the unseen cards really are: free deals shuffle the unseen cards in sorted order,
    and the chain (when ``FREE_TRIES`` free deals are all invalid) starts from a deal made from that alone
    (:func:`known_start`), so a search that samples the hidden cards cannot read them through the samples. A caller
    dealing the same slots many times may pass that ``start`` (a valid deal) once computed; without one, the slots'
    real cards, the start of last resort, must respect their own rules (ValueError if not).

    What every deal of the same ``slots`` and ``start`` shares (the sorted unseen cards, the slots' sizes and masks,
    whether free deals are worth trying) is worked out once and kept for the next call with the same two objects
    (:func:`_plan_of`): a caller changing a slot in place between two calls must pass a new list of slots.
    """
    plan = _plan_of(slots, start)
    # nothing known of the unseen cards: one free deal, exactly uniform; else most free deals are valid (contrée: 1 in
    # 1.1 to 3): the first one is exactly uniform; not tried where the forbidden cards alone leave few valid (German
    # Whist's voids late in the play: 1 in 400 there)
    for _ in range(plan.tries):
        contents = _free_deal(plan, rng)
        if contents is not None:
            return contents
    if start is None:
        if plan.known is None:
            plan.known = known_start(slots) or [slot.cards for slot in slots]
        start = plan.known
    contents = [list(cards) for cards in start]
    if len(contents) > 1:
        _walk(contents, slots, rng, sweeps)
    for cards in contents:
        rng.shuffle(cards)
    return contents


@cython.final
@cython.cclass
class _Plan:
    """What every deal of one list of slots shares (compiled, C fields): the unseen cards sorted (``pool``), each
    slot's size, forbidden cards and check, whether any slot has a check (``checked``), the free deals worth trying
    (``tries``: one, always valid, where nothing is known) and, once needed, the walk's start made from what is known
    (``known``)."""

    cython.declare(slots=object, start=object, pool=list, sizes=list, forbidden=list, checks=list, known=object,
                   checked=cython.bint, tries=cython.Py_ssize_t)

    def __init__(self, slots: Sequence[Slot], start: Sequence[Sequence[int]] | None) -> None:
        self.slots, self.start = slots, start
        self.known: list[list[int]] | None = None
        self.checked = any(slot.check is not None for slot in slots)
        self.sizes: list[int] = [len(slot.cards) for slot in slots]
        self.forbidden: list[int] = [slot.forbidden for slot in slots]
        self.checks: list[Callable[[list[int]], bool] | None] = [slot.check for slot in slots]
        pool: list[int] = []  # known cards, not where they are
        for slot in slots:
            pool += slot.cards
        pool.sort()
        self.pool = pool
        self.tries = 1
        if _constrained(slots):
            for k in range(len(slots)):
                slot = slots[k]
                # (the check, which may cost more than a deal, only where the real cards may become the start)
                if not _respects(slot.cards, slot.forbidden) or start is None and not _passes_check(slot, slot.cards):
                    bad = [CODES[c] for c in slot.cards if BIT[c] & slot.forbidden]
                    raise ValueError(f"slot {k} does not hold a valid deal to start from (forbidden: {bad})")
            self.tries = FREE_TRIES if _free_odds(slots, pool) >= FREE_LEAST else 0


_last_plan: _Plan | None = None  # the plan of the slots last dealt (a search deals the same slots at every sample)


@cython.cfunc
@cython.locals(plan=_Plan)
def _plan_of(slots: Sequence[Slot], start: Sequence[Sequence[int]] | None) -> _Plan:
    """The plan of ``slots`` and ``start``: the last one made, when it was made for these two objects."""
    global _last_plan
    plan = _last_plan
    if plan is None or plan.slots is not slots or plan.start is not start:
        plan = _Plan(slots, start)
        _last_plan = plan
    return plan


@cython.cfunc
@cython.locals(plan=_Plan, pool=list, sizes=list, forbidden=list, checks=list, contents=list, mask=cython.ulonglong,
               card=cython.Py_ssize_t, k=cython.Py_ssize_t, i=cython.Py_ssize_t, top=cython.Py_ssize_t,
               size=cython.Py_ssize_t)
def _free_deal(plan: _Plan, rng: Rng) -> list[list[int]] | None:
    """One free deal (the unseen cards shuffled and dealt to the slots in turn), if every slot's content respects its
    forbidden cards and its check, else None. Compiled, the forbidden cards are tested in C before any list is made."""
    pool = list(plan.pool)
    rng.shuffle(pool)
    sizes, forbidden = plan.sizes, plan.forbidden
    top = 0
    for k in range(len(sizes)):
        size = sizes[k]
        mask = forbidden[k]
        if mask:
            for i in range(top, top + size):
                card = pool[i]
                if mask >> card & 1:
                    return None
        top += size
    contents = []
    top = 0
    for k in range(len(sizes)):
        size = sizes[k]
        contents.append(pool[top:top + size])
        top += size
    if plan.checked:
        checks = plan.checks
        for k in range(len(checks)):
            check = checks[k]
            if check is not None and not check(contents[k]):
                return None
    return contents


# Compiled, the walk's draws, places and masks are C integers: a proposal costs no tuple, list or set.
@cython.locals(owner=list, index=list, forbidden=list, n=cython.Py_ssize_t, p=cython.Py_ssize_t, k=cython.Py_ssize_t,
               i=cython.Py_ssize_t, _step=cython.Py_ssize_t, steps=cython.Py_ssize_t, r=cython.ulonglong,
               a=cython.Py_ssize_t, b=cython.Py_ssize_t, c=cython.Py_ssize_t, ka=cython.Py_ssize_t,
               kb=cython.Py_ssize_t, kc=cython.Py_ssize_t, checked=cython.bint)
def _walk(contents: list[list[int]], slots: Sequence[Slot], rng: Rng, sweeps: int) -> None:
    """redeal's chain on ``contents`` (a valid deal of two or more slots): ``sweeps`` proposals per card, each of two
    places (a third one time in four, from one draw, 20 bits each) in as many different slots, whose cards move on
    by one place (:func:`_swap`, :func:`_rotate3`) when every slot then respects its forbidden cards and its check."""
    owner: list[int] = []  # each place's slot and its index there, in slot order
    index: list[int] = []
    for k in range(len(contents)):
        for i in range(len(contents[k])):
            owner.append(k)
            index.append(i)
    n = len(owner)
    if n == 0 or owner[0] == owner[n - 1]:  # (every place in one slot: no proposal is of different slots)
        return
    forbidden = [slot.forbidden for slot in slots]
    checked = not all(slot.check is None for slot in slots)
    steps = sweeps * n
    for _step in range(steps):
        r = rng.next_u64()
        a = (r & LOW20) % n
        b = (r >> 20 & LOW20) % n
        ka, kb = owner[a], owner[b]
        if r >> 62 == 0:
            c = (r >> 40 & LOW20) % n
            kc = owner[c]
            if ka == kb or kc == ka or kc == kb:  # noqa: SIM109  (C integers: no tuple)
                continue
            _rotate3(contents, slots, forbidden, checked, ka, index[a], kb, index[b], kc, index[c])
        elif ka != kb:
            _swap(contents, slots, forbidden, checked, ka, index[a], kb, index[b])


@cython.cfunc
@cython.locals(x=cython.Py_ssize_t, y=cython.Py_ssize_t)
def _swap(contents: list[list[int]], slots: Sequence[Slot], forbidden: list[int], checked: bool, ka: int, ia: int,
          kb: int, ib: int) -> None:
    """Swap the cards of two places of different slots, unless a slot would then break its rules."""
    x, y = contents[ka][ia], contents[kb][ib]
    if forbidden[ka] >> y & 1 or forbidden[kb] >> x & 1:
        return
    contents[ka][ia], contents[kb][ib] = y, x
    if checked and not (_passes_check(slots[ka], contents[ka]) and _passes_check(slots[kb], contents[kb])):
        contents[ka][ia], contents[kb][ib] = x, y


@cython.cfunc
@cython.locals(x=cython.Py_ssize_t, y=cython.Py_ssize_t, z=cython.Py_ssize_t)
def _rotate3(contents: list[list[int]], slots: Sequence[Slot], forbidden: list[int], checked: bool, ka: int, ia: int,
             kb: int, ib: int, kc: int, ic: int) -> None:
    """Move the cards of three places of different slots on by one (a's to b, b's to c, c's to a), unless a slot
    would then break its rules."""
    x, y, z = contents[ka][ia], contents[kb][ib], contents[kc][ic]
    if forbidden[ka] >> z & 1 or forbidden[kb] >> x & 1 or forbidden[kc] >> y & 1:
        return
    contents[ka][ia], contents[kb][ib], contents[kc][ic] = z, x, y
    if checked and not (_passes_check(slots[ka], contents[ka]) and _passes_check(slots[kb], contents[kb])
                        and _passes_check(slots[kc], contents[kc])):
        contents[ka][ia], contents[kb][ib], contents[kc][ic] = x, y, z


START_TRIES = 64  # shuffles of the known cards tried for a start that passes the slots' checks
REPAIR_SWEEPS = 400  # then swaps per card of a walk towards one (checks are rarely that hard to meet)
# Walks tried, each from the next deal of the shuffles: a walk finds a start for checks met by few deals only by
# luck (a Thunee seat asked about a redeal holds four of the five kings and queens unseen, 5 deals in 2,380: one walk
# in fifty failed), and a caller left without one starts from the real deal, which its samples then show.
REPAIR_WALKS = 16


def known_start(slots: Sequence[Slot]) -> list[list[int]] | None:
    """A valid deal of the slots' cards made only from what is known of them: the cards in canonical order, each
    placed in the first slot with room that may hold it (moving cards placed before along augmenting paths when none
    has), then, if that deal fails a slot's check, the same from shuffles of a fixed stream, then walks of swaps
    from those deals in turn (:func:`_repair`). None if none gives a valid deal (the caller then starts from the real
    one, a last resort: its samples may then show where the unseen cards are).

    >>> from engine.cards import SUIT_MASK
    >>> known_start([Slot([0, 13], forbidden=SUIT_MASK[0]), Slot([1, 14])])
    [[13, 14], [0, 1]]
    >>> known_start([Slot([0, 1]), Slot([13, 14], check=lambda cards: sorted(cards) == [1, 14])])
    [[13, 0], [1, 14]]
    """
    pool = sorted(card for slot in slots for card in slot.cards)
    tries = Rng(len(pool))
    placed = []
    for attempt in range(START_TRIES if any(slot.check is not None for slot in slots) else 1):
        if attempt:
            tries.shuffle(pool)
        contents = _place(pool, slots)
        if contents is None:
            continue
        if all(_passes_check(slot, cards) for slot, cards in zip(slots, contents, strict=True)):
            return contents
        placed.append(contents)
    for contents in placed[:REPAIR_WALKS]:
        repaired = _repair(slots, contents, tries)
        if repaired is not None:
            return repaired
    return None


def _repair(slots: Sequence[Slot], contents: list[list[int]], rng: Rng) -> list[list[int]] | None:
    """A walk from ``contents`` (which respects the forbidden cards) towards a deal that passes every check: swaps of
    two cards of different slots, kept when no more slots then fail their checks (a level walk where no swap helps).
    None after ``REPAIR_SWEEPS`` swaps per card without one."""
    failing = [not _passes_check(slot, cards) for slot, cards in zip(slots, contents, strict=True)]
    places = [(k, i) for k, cards in enumerate(contents) for i in range(len(cards))]
    n = len(places)
    for _ in range(REPAIR_SWEEPS * n):
        if not any(failing):
            return contents
        r = rng.next_u64()
        (k, i), (m, j) = places[(r & LOW20) % n], places[(r >> 20 & LOW20) % n]
        x, y = contents[k][i], contents[m][j]
        if k == m or BIT[y] & slots[k].forbidden or BIT[x] & slots[m].forbidden:
            continue
        contents[k][i], contents[m][j] = y, x
        now = not _passes_check(slots[k], contents[k]), not _passes_check(slots[m], contents[m])
        if sum(now) <= failing[k] + failing[m]:
            failing[k], failing[m] = now
        else:
            contents[k][i], contents[m][j] = x, y
    return None if any(failing) else contents


def _place(pool: Sequence[int], slots: Sequence[Slot]) -> list[list[int]] | None:
    """The cards of ``pool`` in order into slots of the same sizes, none in a slot that forbids it (a bipartite
    matching with capacities, grown by augmenting paths); None when there is none."""
    contents: list[list[int]] = [[] for _ in slots]

    def seat(card: int, visited: set[int]) -> bool:
        for k, slot in enumerate(slots):
            if k in visited or BIT[card] & slot.forbidden:
                continue
            visited.add(k)
            if len(contents[k]) < len(slot.cards):
                contents[k].append(card)
                return True
            held = contents[k]
            for i, other in enumerate(held):
                held[i] = card  # in the place of a card that can move to another slot
                if seat(other, visited):
                    return True
                held[i] = other
        return False

    for card in pool:
        if not seat(card, set()):
            return None
    return contents


def _passes_check(slot: Slot, content: list[int]) -> bool:
    return slot.check is None or slot.check(content)


# Compiled, the masks are C integers and the odds a C double (the same divisions of small integers as Python's).
@cython.locals(unseen=cython.ulonglong, one=cython.ulonglong, forbidden=cython.ulonglong, card=cython.Py_ssize_t,
               n=cython.Py_ssize_t, allowed=cython.Py_ssize_t, k=cython.Py_ssize_t, i=cython.Py_ssize_t,
               odds=cython.double)
def _free_odds(slots: Sequence[Slot], pool: Sequence[int]) -> float:
    """About what share of the free deals of ``pool`` respect the slots' forbidden cards (as if each slot's were
    dealt independently), from what is known of the slots alone.

    >>> from engine.cards import SUIT_MASK
    >>> round(_free_odds([Slot([0, 1, 39], forbidden=SUIT_MASK[3]), Slot([2, 13, 40])], [0, 1, 2, 13, 39, 40]), 3)
    0.2
    """
    unseen, one = 0, 1
    for card in pool:
        unseen |= one << card
    n, odds = len(pool), 1.0
    for k in range(len(slots)):
        forbidden = slots[k].forbidden
        if forbidden:
            allowed = n - _bits(unseen & forbidden)
            for i in range(len(slots[k].cards)):
                odds *= max(allowed - i, 0) / (n - i)
    return odds


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.locals(mask=cython.ulonglong, count=cython.Py_ssize_t)
@cython.returns(cython.Py_ssize_t)
def _bits(mask: int) -> int:
    """How many cards a mask holds (a few: a loop per card)."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@cython.locals(k=cython.Py_ssize_t)
def _constrained(slots: Sequence[Slot]) -> bool:
    """Whether some slot has forbidden cards or a check."""
    for k in range(len(slots)):  # noqa: SIM110  (any() of a generator: a generator object a call, compiled too)
        if slots[k].forbidden or slots[k].check is not None:
            return True
    return False


# Compiled, the forbidden cards are a C mask (a card mask fits 64 bits) and each card a C integer.
@cython.cfunc
@cython.locals(forbidden=cython.ulonglong, card=cython.Py_ssize_t, i=cython.Py_ssize_t)
@cython.returns(cython.bint)
def _respects(content: list[int], forbidden: int) -> bool:
    """Whether ``content`` holds none of the ``forbidden`` cards."""
    for i in range(len(content)):
        card = content[i]
        if forbidden >> card & 1:
            return False
    return True


WHOLE_TRIES = 16  # independent deals tried by redeal_consistent before it walks from the real deal
WHOLE_SWEEPS = 24  # the walk's proposals per card (each one a check of the whole sample)
GLOBAL_MOVE = 16  # one proposal in this many is a whole new deal (redeal), to cross between regions swaps do not join


def redeal_consistent(slots: Sequence[Slot], rng: Rng, consistent: Callable[[list[list[int]]], bool],
                      tries: int = WHOLE_TRIES, sweeps: int = WHOLE_SWEEPS,
                      start: Sequence[Sequence[int]] | None = None) -> list[list[int]]:
    """As :func:`redeal`, for facts that no single slot can check: new contents that ``consistent`` accepts as a
    whole (a game replays its deal's moves on them), each slot's list in the order the check saw.

    First up to ``tries`` independent deals of :func:`redeal`, the first accepted one kept (uniform over the accepted
    deals). When none is accepted (few deals are), a Markov chain from an accepted deal made from what is known of
    the slots (:func:`_consistent_start`; the real deal, always accepted, only when that finds none): each
    proposal swaps two places or rotates three (any slots, a slot's own places too, its order may matter) or, one time
    in ``GLOBAL_MOVE``, is a whole new deal of :func:`redeal`, and is kept only when every slot's rules and
    ``consistent`` hold. Every proposal is as likely as its reverse, so the chain's deals are uniform over the
    accepted ones it can reach; ``sweeps`` proposals per card mix it, so the real deal is not favoured. ``start`` is
    :func:`redeal`'s.

    >>> from engine.cards import SUIT_MASK
    >>> slots = [Slot([0, 1, 13]), Slot([2, 14, 15])]
    >>> two_clubs = lambda contents: sum(c < 13 for c in contents[0]) == 2  # a fact about one slot, for brevity
    >>> dealt = redeal_consistent(slots, Rng(3), two_clubs, tries=0)
    >>> sorted(map(len, dealt)), sum(c < 13 for c in dealt[0])
    ([3, 3], 2)
    """
    if start is None:
        start = known_start(slots) or [slot.cards for slot in slots]  # (made once: it can take many tries)
    for _ in range(tries):
        contents = redeal(slots, rng, SWEEPS, start)  # (positional: a keyword call costs more, compiled too)
        if consistent(contents):
            return contents
    real = [list(slot.cards) for slot in slots]
    if not consistent(real):
        raise ValueError("the slots' real cards are not a consistent deal")
    contents = _consistent_start(slots, start, consistent) or real
    places = [(k, i) for k, cards in enumerate(contents) for i in range(len(cards))]
    n = len(places)
    if n < 2:
        return contents
    for _ in range(sweeps * n):
        r = rng.next_u64()  # as in redeal: two places (a third one time in four), 20 bits each
        if r % GLOBAL_MOVE == 0:
            proposal = redeal(slots, rng, SWEEPS, start)
            if consistent(proposal):
                contents = proposal
            continue
        chosen = [places[(r >> 3 & LOW20) % n], places[(r >> 23 & LOW20) % n]]
        if r >> 62 == 0:
            chosen.append(places[(r >> 43 & LOW20) % n])
        if len(set(chosen)) == len(chosen):
            _rotate_consistent(contents, slots, chosen, consistent)
    return contents


CONSISTENT_START_TRIES = 256  # deals from a fixed stream tried for the chain's start


def _consistent_start(slots: Sequence[Slot], start: Sequence[Sequence[int]],
                      consistent: Callable[[list[list[int]]], bool]) -> list[list[int]] | None:
    """The first deal of :func:`redeal` from a fixed stream that ``consistent`` accepts: a start for the chain made
    from what is known of the slots alone, as :func:`known_start` is (None if none of the tries is)."""
    stream = Rng(len(start))
    for _ in range(CONSISTENT_START_TRIES):
        contents = redeal(slots, stream, SWEEPS, start)
        if consistent(contents):
            return contents
    return None


@cython.locals(j=cython.Py_ssize_t, m=cython.Py_ssize_t, k=cython.Py_ssize_t, before=list, moved=list)
def _rotate_consistent(contents: list[list[int]], slots: Sequence[Slot], places: list[tuple[int, int]],
                       consistent: Callable[[list[list[int]]], bool]) -> None:
    """Move each chosen card to the next chosen place, unless a slot's rules or ``consistent`` then fail."""
    m = len(places)
    before = [contents[k][i] for k, i in places]
    moved = before[-1:] + before[:-1]
    for j in range(m):  # (index loops: zip(..., strict=True) is a keyword call, compiled too)
        if BIT[moved[j]] & slots[places[j][0]].forbidden:
            return
    for j in range(m):
        k, i = places[j]
        contents[k][i] = moved[j]
    if not (all(_passes_check(slots[k], contents[k]) for k, _ in places) and consistent(contents)):
        for j in range(m):
            k, i = places[j]
            contents[k][i] = before[j]


def in_deck_order(deck: Sequence[int]) -> Callable[[Iterable[int]], list[int]]:
    """A slot's cards listed by their place in ``deck`` (the deal's order), not by card: :func:`relabeling` puts a
    slot's new cards into those places in order, so a sample's deck depends on where the slot's places are, never on
    which of them holds which real card.

    >>> in_deck_order([5, 9, 2])([2, 5])
    [5, 2]
    """
    place = {card: i for i, card in enumerate(deck)}
    return lambda cards: sorted(cards, key=place.__getitem__)


_IDENTITY = list(range(len(BIT)))  # every card itself: relabeling's start


# Compiled, the loops' indices are C integers and the slots' lists typed (a sample relabels twice or more: its check
# and its deal).
@cython.locals(new=list, olds=list, cards=list, k=cython.Py_ssize_t, i=cython.Py_ssize_t, old=cython.Py_ssize_t,
               size=cython.Py_ssize_t)
def relabeling(slots: Sequence[Slot], dealt: Sequence[Sequence[int]]) -> list[int]:
    """The card each card becomes (``new[card]``, itself when not in a slot) when ``slots`` are dealt ``dealt``."""
    new = list(_IDENTITY)  # (a copy: no range object, no int conversions)
    if len(slots) != len(dealt):
        raise ValueError(f"{len(dealt)} contents for {len(slots)} slots")
    for k in range(len(slots)):
        olds, cards = list_of(slots[k].cards), list_of(dealt[k])
        size = len(olds)
        if size != len(cards):
            raise ValueError(f"slot {k} holds {size} cards, dealt {len(cards)}")
        for i in range(size):
            old = olds[i]
            new[old] = cards[i]
    return new


@cython.cfunc
@cython.inline
def list_of(cards: Sequence[int]) -> list[int]:
    """``cards`` as a list (itself when it is one)."""
    return cards if isinstance(cards, list) else list(cards)


@cython.locals(rest=cython.ulonglong, out=cython.ulonglong, one=cython.ulonglong, card=cython.Py_ssize_t,
               target=cython.Py_ssize_t, names=list)
def relabel_mask(mask: int, new: Sequence[int]) -> int:
    """A card mask with every card replaced by ``new[card]``."""
    if cython.compiled:  # the same in C integers (a card mask fits 64 bits): no list of the cards, no Python ints
        names = list_of(new)
        rest, out, one, card = mask, 0, 1, 0
        while rest:
            if rest & 1:
                target = names[card]
                out |= one << target
            rest >>= 1
            card += 1
        return out
    out = 0
    for card in cards_in(mask):
        out |= BIT[new[card]]
    return out


@cython.locals(out=list, k=cython.Py_ssize_t)
def relabel_masks(masks: list[int], new: list[int]) -> list[int]:
    """Each of ``masks`` relabeled (:func:`relabel_mask`): a state's hands, in one call."""
    out = []
    for k in range(len(masks)):
        out.append(relabel_mask(masks[k], new))
    return out


# Compiled, each card and its new name are C integers: only the places whose card changes are written.
@cython.locals(out=list, i=cython.Py_ssize_t, card=cython.Py_ssize_t, target=cython.Py_ssize_t)
def relabel_cards(cards: list[int], new: list[int]) -> list[int]:
    """A new list of ``cards`` with every card replaced by ``new[card]`` (a deck, a stock)."""
    out = list(cards)
    for i in range(len(cards)):
        card = cards[i]
        target = new[card]
        if target != card:
            out[i] = new[card]
    return out


def determinize(state: State, seat: int, rng: Rng, memo: dict[str, Any] | None = None) -> State:
    """A copy of ``state`` that ``seat`` cannot tell from it, with every card it has not seen dealt at random.

    A caller drawing many samples of one position for one seat may pass the same ``memo`` (an empty dict at first,
    a new one for another position or seat): the game's hook may keep there what every sample shares (the
    unseen slots, the chain's start), so that the samples are the same, drawn with less work.

    >>> import engine
    >>> from engine.rng import Rng
    >>> state = engine.new_match("tablanette", seed=3)
    >>> sample = engine.determinize(state, 0, Rng(1))
    >>> sample.observation(0) == state.observation(0), sample.to_position() != state.to_position()
    (True, True)
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be 0..{state.players - 1}, got {seat!r}")
    sample = state.clone()
    # The game's hook: it deals again, at random, what ``seat`` has not seen.
    redeal_unseen: Callable[[int, Rng, dict[str, Any] | None], None] | None = getattr(sample, "_determinize", None)
    if redeal_unseen is None:
        raise ValueError(f"{state.game_id} does not say what a seat has not seen (its state has no _determinize)")
    if not sample.is_terminal:
        redeal_unseen(seat, rng, memo)
    # No seat knows the seed or the RNG: the match's later deals are drawn afresh too.
    sample.seed = rng.next_u64()
    sample.rng = Rng(rng.next_u64())
    sample._legal = None
    return sample
