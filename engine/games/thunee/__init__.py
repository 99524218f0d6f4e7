"""Thunee (``thunee``), exactly as ``shared/rules/thunee.md`` says; section numbers cite it.

Four players in partnerships ({0,2} against {1,3}), or six three against three (8.2); 24 cards ranked J 9 A T K Q.
Dealt in two rounds around a trump call: the holders' opponents call the trumper's right away in tens (4), the
trumper lays a trump card face down (4.5) that is turned up after the first card of play (5.3). Calls during the
deal: thunee and royals (a lone player to take every trick, 6.4, 6.5), jodi (king and queen, 6.1), double (6.2),
kanak (6.3), and with six players trip and mooney (8.2). A deal gives balls to one team (7); the match is to
``target_balls`` (7.4).

>>> import engine
>>> state = engine.new_match("thunee", seed=1, first_dealer=0)
>>> state.phase, state.current_player, state.legal_actions()
('calling', 2, ['call:10', 'pass'])
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import cache
from operator import mod
from typing import TYPE_CHECKING, Any, ClassVar

from ...auction import PASS
from ...cards import BIT, CODES, SUIT, SUIT_MASK, SUITS, cards_in, codes_of, make_deck, mask_of, parse_card
from ...clone import LIST, SHARED, SHARED_UNTIL_WRITTEN
from ...dealing import deal_round, seats_from
from ...determinize import Slot, in_deck_order, redeal_consistent, relabeling
from ...errors import PositionError
from ...options import Option
from ...phases import DecisionPhase, Loading, Phase
from ...registry import register
from ...rng import GOLDEN, MASK64, THRESHOLDS, Rng, outputs
from ...scoring import PlusMinusCards, point_table, sides_at_or_over
from ...state import GameInfo, MatchLength, Partnerships
from ...trickgame import FULL_MASK, TRICK_PLAY, PlayPart, TrickGame, TrickRules, same_json
from ...tricks import NO_TRUMP, CardActions, Ranking, cut
from .rules import Marriage, RaiseForRight, marriages, tiered_ranking

if TYPE_CHECKING:
    from ... import _cython_shim as cython
else:
    try:
        import cython  # compiled: Cython's own (C types); from source: its plain-Python module
    except ImportError:  # Cython is a build requirement only
        from ... import _cython_shim as cython

DECK = tuple(make_deck("9TJQKA"))  # 1.3
RANKINGS = {
    "normal": Ranking("J9ATKQ"),  # 2.1: the same order in trumps and plain suits
    "royals": Ranking("QKTA9J"),  # 2.4, 6.5: reversed
    "trip": tiered_ranking(("9AT", "J", "K", "Q")),  # 8.2: tricks 1..3 of a trip, 9 = A = T
}
POINTS = point_table({"J": 30, "9": 20, "A": 11, "T": 10, "K": 3, "Q": 2})  # 2.1: whatever the trump
CARD_POINTS = POINTS[NO_TRUMP]
LAST_TRICK = 10  # 2.3
TARGET = 105  # 7.2: the counting team wins the deal with 105 or more
CALLS = (*range(10, 101, 10), 104)  # 4.2
JODI = {"KQ": (20, 40), "JKQ": (30, 50)}  # 6.1.1: (plain, trump)
JODI_AFTER = (1, 3)  # 6.1.2: after tricks 1 and 3
BLACK_JACKS = (parse_card("JC"), parse_card("JS"))  # 3.1
JACK = parse_card("JC") % 13  # the jack's place within its suit's 13 card ids
FIRST_ROUND = {4: 16, 6: 18}  # 3.3, 8.2.1: cards dealt before the calling
ROUNDS = {n: ((1,) * (dealt // n), (1,) * ((len(DECK) - dealt) // n)) for n, dealt in FIRST_ROUND.items()}  # singly
# The seats from each dealer's left (3.3), in the order they are dealt to and asked.
ORDERS = {n: [tuple(seats_from(dealer + 1, n)) for dealer in range(n)] for n in FIRST_ROUND}
SOLO = ("thunee", "royals", "mooney")  # a lone caller must win every trick (6.4, 6.5, 8.2.3)
DOUBLE_BALLS, KANAK_BALLS, FAILED_BALLS = 2, 3, 4  # 6.2.2, 6.3.3 (failure: 4 to the other team either way)
MOONEY_BALLS, MOONEY_LOST_TO_OPPONENT = 4, 8  # 8.2.3
TRIP_BALLS, TRIP_FAILED = 3, 6  # 8.2.2

JODI_WORDS = {m.cards: "jodi:" + m.code() for m in marriages(mask_of(DECK), NO_TRUMP, JODI)}
WORDS = ["redeal", "keep", PASS, *(f"call:{c}" for c in CALLS), *(f"trump:{CODES[c]}" for c in DECK), "trump:last",
         *SOLO, "trip", *JODI_WORDS.values(), "double", "kanak"]
ACTIONS = CardActions(words=WORDS)
WORD = {word: ACTIONS.word_id(word) for word in WORDS}
PASS_ID, KEEP, REDEAL, LAST_ID, KANAK = WORD[PASS], WORD["keep"], WORD["redeal"], WORD["trump:last"], WORD["kanak"]
TRUMP_ID = {card: WORD[f"trump:{CODES[card]}"] for card in DECK}
TRUMP_CARD = {action: card for card, action in TRUMP_ID.items()}
JODI_ID = {cards: WORD[word] for cards, word in JODI_WORDS.items()}
JODI_CARDS = {action: cards for cards, action in JODI_ID.items()}
CALL_ID = {f"call:{c}": WORD[f"call:{c}"] for c in CALLS}
CARD_OF = ACTIONS.card_of
FIRST_WORD = ACTIONS.first_word

OPTIONS = (
    Option("target_balls", int, 12, "balls needed to win the match (7.4; some clubs play 13)", minimum=1, maximum=99),
    Option("royals", bool, True, "the royals call: reversed ranking, the caller alone takes every trick (6.5)"),
    Option("royals_balls", int, 8, "balls for royals made or lost (6.5.2)", minimum=1, maximum=99),
    Option("thunee_balls", int, 4, "balls for thunee made or lost (6.4.3)", minimum=1, maximum=99),
    Option("call_jump", bool, False, "a call may be any multiple of 10 above the standing call, or 104 (4.2)"),
    Option("redeal_max_points", int, 10, "a first-round hand of at most this many card points may ask a redeal (3.4)",
           minimum=0, maximum=120),
    Option("last_card_trump", bool, False, "the trumper may answer trump:last: trump is the suit of the last card he "
           "is dealt, face down (4.5)"),
    Option("six_trip", bool, True, "6 players: the dealer may call trip (8.2.2)"),
    Option("six_mooney", bool, True, "6 players: a hand of one suit with its jack may call mooney (8.2.3)"),
)


# 5.5: follow suit, nothing more; card points and the last trick's 10 (2.1, 2.3). The rules of every ranking and
# deal length (24 // players) are built here, once: a deal switches between them (royals, trip) by a look-up, and a
# clone shares them (RULES is not in COPY).
RULES_FOR: dict[tuple[str, int], TrickRules] = {
    (name, len(DECK) // n): TrickRules(ranking, tricks=len(DECK) // n, points=POINTS, last_trick=LAST_TRICK,
                                       extras=True)  # extras: kanak
    for name, ranking in RANKINGS.items() for n in FIRST_ROUND
}


HAND_POINTS = PlusMinusCards({CODES[c]: CARD_POINTS[c] for c in DECK})  # all plus: a hand's points in 4 look-ups


NORMAL_RULES = {n: RULES_FOR["normal", len(DECK) // n] for n in FIRST_ROUND}


def hand_points(hand: int) -> int:
    """The card points of a hand (a mask), 2.1."""
    return HAND_POINTS.pile_points(hand)


@cache
def worth_more(points: int) -> int:
    """The cards (a mask) worth more than ``points`` card points."""
    return mask_of(c for c in DECK if CARD_POINTS[c] > points)


@cache
def special_ids(royals: bool, mooney: bool) -> list[int]:
    """6.4.1: pass, thunee, royals (option ``royals``) and mooney (a six-player hand of one suit with its jack,
    8.2.3), as sorted ids."""
    words = [PASS_ID, WORD["thunee"], *([WORD["royals"]] if royals else []), *([WORD["mooney"]] if mooney else [])]
    return sorted(words)


@cache
def calling_ids(call: int, jump: bool) -> list[int]:
    """4.2: pass and the calls above ``call`` (the next only, or with ``call_jump`` every one), as sorted ids."""
    higher = [c for c in CALLS if c > call]
    return sorted([PASS_ID, *(CALL_ID[f"call:{c}"] for c in (higher if jump else higher[:1]))])


class Call(DecisionPhase["Thunee"]):
    """A phase of calls outside the play (each recorded in ``calls`` as it is made; the replayed ``deal_actions``
    hold them in positions): ``answer`` is its effect."""

    def apply(self, game: Thunee, action: int) -> None:
        seat = game.current_player
        assert seat is not None  # State.apply_id applies only a legal action
        game.calls.append((game.n_players * len(game.tricks) + len(game.trick), seat, action))
        self.answer(game, seat, action)

    @abstractmethod
    def answer(self, game: Thunee, seat: int, action: int) -> None:
        """The call's effect."""


class RedealQuestion(Call):
    """3.4: each seat whose first round is weak may ask for a redeal."""

    NAMES = ("redeal",)

    def legal(self, game: Thunee) -> list[int]:
        return [KEEP, REDEAL]

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._answer_redeal(action)


class Trip(Call):
    """8.2.2: the dealer's trip, or pass."""

    NAMES = ("trip",)

    def legal(self, game: Thunee) -> list[int]:
        return sorted([PASS_ID, WORD["trip"]])

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._answer_trip(seat, action)


class Calling(Call):
    """4.2 - 4.5: the calling for trump."""

    NAMES = ("calling",)

    def legal(self, game: Thunee) -> list[int]:
        auction = game.auction
        assert auction is not None
        return calling_ids(auction.call, auction.jump)

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._speak(ACTIONS.strings[action])


class TrumpCard(Call):
    """4.5: the trumper lays a trump card face down (or, 8.1, takes the last card dealt to him)."""

    NAMES = ("trump",)

    def legal(self, game: Thunee) -> list[int]:
        seat = game.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        ids = [TRUMP_ID[c] for c in cards_in(game.hands[seat])]
        return sorted(ids + [LAST_ID] if game.options["last_card_trump"] else ids)

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._choose_trump(seat, action)

    def seen_as(self, game: Thunee, viewer: int | None, actor: int, action: str) -> str:
        """4.5: the trump card is laid face down: the other seats see ``trump``, not the card."""
        if viewer != actor and action.startswith("trump:") and action != "trump:last":
            return "trump"
        return action


class SpecialCalls(Call):
    """6.4, 6.5, 8.2.3: thunee, royals or mooney before the first lead, or pass."""

    NAMES = ("special",)

    def legal(self, game: Thunee) -> list[int]:
        seat = game.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        return special_ids(game.options["royals"], game.n_players == 6 and game.options["six_mooney"] and
                           game._mooney_suit(seat) is not None)

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._answer_special(seat, ACTIONS.strings[action])


class Jodi(Call):
    """6.1: jodi called after a trick won, then pass."""

    NAMES = ("jodi",)

    def legal(self, game: Thunee) -> list[int]:
        seat = game.current_player
        assert seat is not None  # legal actions are listed only while someone is to act
        return sorted([PASS_ID, *(JODI_ID[m.cards] for m in game._jodis_open(seat))])

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game._answer_jodi(seat, action)


class Double(Call):
    """6.2: a double before the last trick, or pass."""

    NAMES = ("double",)

    def legal(self, game: Thunee) -> list[int]:
        return sorted([PASS_ID, WORD["double"]])

    def answer(self, game: Thunee, seat: int, action: int) -> None:
        game.doubler = seat if action == WORD["double"] else None
        game.phase = "play"


class DealActions(Phase["Thunee"]):
    """A Thunee deal in a position: the moves of this dealing (``deal_actions``) replayed from deal_deck, and every
    key they decide (the hands and tricks, the stock, the calls, jodis, double and kanak, the points), which must then
    say what the replay gives; ``redealt`` always written (3.4, 5.9: deals dealt again are common here)."""

    KEYS = (*TRICK_PLAY.KEYS, "stock", "trump_card", "trump_by_last", "to_ask", "trumper", "call", "contract", "caller",
            "jodi", "double", "kanak", "card_points", "tricks_won", "deal_actions", "redealt")

    def save(self, game: Thunee) -> dict[str, Any]:
        return {
            **TRICK_PLAY.save(game),
            "stock": [CODES[c] for c in game.stock],
            "trump_card": None if game.trump_card is None else CODES[game.trump_card],
            "trump_by_last": game.by_last,
            "to_ask": list(game.queue),
            **game._deal_keys(),
            "deal_actions": [[s, ACTIONS.strings[a]] for s, a in game.deal_moves()],
            "redealt": game.dealings - game.deal_index - 1,
        }

    def observe(self, game: Thunee, seat: int, obs: dict[str, Any]) -> None:
        obs["trump"] = game._trump_seen_by(seat)
        down = game.trump_card is not None and seat == game.trumper and not game.by_last
        obs["trump_card"] = CODES[game.trump_card] if down and game.trump_card is not None else None
        obs["stock_size"] = len(game.stock)
        obs["tricks"] = game._tricks_codes()
        others = 0
        for other, hand in enumerate(game.hands):
            if other != seat:
                others |= hand
        obs["known_cards"] = codes_of(cards_in(others & game._public_cards()))
        obs.update(game._deal_keys())

    def load(self, game: Thunee, loading: Loading) -> None:
        """Load and check a position: this dealing dealt again from deal_deck and its deal_actions replayed, each
        legal when made; every other key must then be what the replay gives (complete validation by construction)."""
        p = loading.position
        phase, to_act, winners = game.phase, game.current_player, game.winners
        if phase not in game.PHASES:
            raise PositionError(f"phase must be one of {game.PHASES}, got {phase!r}")
        if "redealt" not in p:
            raise PositionError("a thunee position writes redealt, the deals dealt again since deal_index began")
        game._replaying, game._replay_over = True, False
        game._start_deal(list(game.deal_deck))
        game._replay_actions(p["deal_actions"], "deal_actions", lambda: game._replay_over)
        over = game._replay_over
        del game._replaying, game._replay_over
        if over != (phase == "over"):
            raise PositionError("phase is 'over' exactly when deal_actions end the deal (the match's last)")
        if over:
            game.phase, game.current_player, game.winners = "over", None, winners
        elif (phase, to_act) != (game.phase, game.current_player):
            raise PositionError(f"phase and current_player must be {game.phase!r} and {game.current_player} after "
                                "deal_actions")
        keys = game._position_keys()
        for name, value in keys.items():
            if not same_json(p[name], value):
                raise PositionError(f"{name} must be {value!r} after deal_actions, got {p[name]!r}")
        game._legal = None


class Deal(Phase["Thunee"]):
    """The deal itself: the first round (3.3), then the redeal questions (3.4) or the calling."""

    def deal(self, game: Thunee, deck: list[int]) -> None:
        n, first = game.n_players, (game.dealer + 1) % game.n_players
        dealt = FIRST_ROUND[n]
        hands = [0] * n
        order = ORDERS[n][game.dealer]
        deal_round(deck, 0, hands, order, ROUNDS[n][0])  # 3.3: deck card k to seat dealer + 1 + k
        game._reset_tricks(hands, NO_TRUMP)
        game.__dict__["RULES"] = NORMAL_RULES[n]
        game.stock = deck[dealt:]
        game.calls = []
        game.auction = None
        game.trumper, game.call, game.trump_card, game.by_last, game.shown = first, 0, None, False, 0
        game.contract, game.caller, game.doubler, game.kanak, game.voided = "normal", None, None, None, False
        game.jodis, game.used, game.leader = [], 0, first
        limit, points = game.options["redeal_max_points"], HAND_POINTS.pile_points
        over = worth_more(limit)  # a hand holding one of these holds more than the limit
        game.queue = [s for s in order if not hands[s] & over and points(hands[s]) <= limit]  # 3.4
        if game.queue:
            game.phase, game.current_player = "redeal", game.queue[0]
        else:
            game._after_redeal_answers()

    def next_dealer(self, game: Thunee) -> int:
        """3.8: the deal passes on when the dealer's team has at least as many balls as the other."""
        if game.voided:
            return game.dealer
        side = game.side_of[game.dealer]
        ahead = game.side_scores[side] >= game.side_scores[1 - side]
        return (game.dealer + 1) % game.n_players if ahead else game.dealer

    def first_dealer(self, game: Thunee) -> int:
        """3.1: cards turned up to seats 0, 1, ... from a shuffled pack (top first); the first black jack deals.

        The draws of the first deal's shuffle and cut (3.2), which come next, are computed in the same batch and
        its deck remembered (``_deck_after``)."""
        rng = game.rng
        start = rng.state
        draws = _batch(start, 2 * SHUFFLE_DRAWS + 1)
        # a draw below() would reject (or, compiled, no batch was drawn): the plain way
        if draws is None or min(draws) < len(DECK) or draws[-1] < CUT_THRESHOLD:
            pack = list(DECK)
            rng.shuffle(pack)
        else:
            pack = _shuffled(draws)
            after = (start + SHUFFLE_DRAWS * GOLDEN) & MASK64
            _DECK_AFTER.clear()
            _DECK_AFTER[after] = (cut(_shuffled(draws[SHUFFLE_DRAWS:]), 1 + draws[-1] % CUT_BOUND),
                                  (after + (SHUFFLE_DRAWS + 1) * GOLDEN) & MASK64)
            rng.state = after
        return min(map(pack.index, BLACK_JACKS)) % game.n_players  # the first black jack turned up

    def sample(self, game: Thunee, seat: int, rng: Rng, memo: dict[str, Any]) -> bool:
        """Deal the unseen cards again (each hand keeping its shown voids and, once known, whether its first round
        could ask a redeal) so that this dealing's moves replay on the sample, every one legal, and the seat sees the
        same (no redeal nor void deal came instead): ``redeal_consistent``, never the real deal for want of one."""
        slots = self.slots(game, seat)
        seen = game.observation(seat, history=False)

        def sample_of(contents: list[list[int]]) -> Thunee | None:
            new = relabeling(slots, contents)
            sample = game._replayed_on([new[c] for c in game.deal_deck], new)
            return sample if sample is not None and sample.observation(seat, history=False) == seen else None

        sample = sample_of(redeal_consistent(slots, rng, lambda contents: sample_of(contents) is not None))
        assert sample is not None  # redeal_consistent returns a deal the check accepted
        for name in getattr(type(sample), "FIELDS", ()):  # (compiled, TrickCore's typed fields: not in __dict__)
            setattr(game, name, getattr(sample, name))
        game.__dict__.update(sample.__dict__)
        return True

    def slots(self, game: Thunee, seat: int) -> list[Slot]:
        """The unseen cards of ``seat``: each other hand's (its first round apart, with its redeal check once
        known), the face-down trump card to its trumper when taken last, and the undealt stock."""
        known = game.hands[seat] | game._public_cards()
        if seat == game.trumper and game.trump_card is not None and not game.by_last:
            known |= BIT[game.trump_card]
        lacks, ordered = game._shown_lacking(), in_deck_order(game.deal_deck)
        if game.contract == "mooney" and game.caller is not None and game.caller != seat:
            # 8.2.3: the caller's hand was of the trump suit alone, its jack among it, which every seat knows: drawn
            # for, not found by rejection (a six-player deal meets it rarely at random, and the chain would then start
            # from the real deal)
            lacks[game.caller].append((0, FULL_MASK & ~SUIT_MASK[game.trump]))
            known |= game.hands[game.caller] & BIT[13 * game.trump + JACK]
        first_round = game._first_round_cards()
        eligible = game._redeal_eligibility()
        limit = game.options["redeal_max_points"]
        slots = []
        for other in range(game.n_players):
            if other == seat:
                continue
            hidden = game._held(other) & ~known
            forbidden = 0
            for _k, mask in lacks[other]:
                forbidden |= mask
            first = first_round[other]
            check = None
            if other in eligible:
                kept, asked = hand_points(first & ~hidden), eligible[other]
                check = _redeal_check(kept, limit, asked)
            for part, part_check in ((hidden & first, check), (hidden & ~first, None)):
                if part:
                    slots.append(Slot(ordered(cards_in(part)), forbidden, part_check))
        if game.trump_card is not None and seat == game.trumper and game.by_last:
            slots.append(Slot([game.trump_card]))
        return slots + ([Slot(list(game.stock))] if game.stock else [])


class Play(PlayPart["Thunee"]):
    """Thunee's events of the card play: kanak called before a card of the last trick (6.3.1), the deal's first card
    (5.3, 6.4.2) and each trick's end (6.1 - 6.4, 8.2)."""

    def moves(self, game: Thunee, seat: int, ids: list[int]) -> list[int]:
        return ids + [KANAK] if game._may_kanak() else ids

    def moving(self, game: Thunee) -> int:
        """Any hand while kanak may be called, else none: what _may_kanak reads changes only as a trick is taken, by
        a call into this part or with the phase (the trick loop reads this again after each)."""
        return -1 if game._may_kanak() else 0

    def plays(self, game: type[Thunee]) -> tuple[int, ...]:
        return (KANAK,)

    def play(self, game: Thunee, seat: int, action: int) -> int | None:
        """Kanak (6.3.1): the same seat then plays its card."""
        game.calls.append((game.n_players * len(game.tricks) + len(game.trick), seat, action))
        game.kanak = seat
        return None

    def watched(self, game: Thunee) -> int:
        return 0 if game.tricks or game.trick else FULL_MASK  # the deal's first card (5.3, 6.4.2)

    def card_played(self, game: Thunee, seat: int, card: int) -> None:
        """The deal's first card."""
        if game.contract == "normal":  # 5.3: the trump card turned up, back to the trumper's hand
            assert game.trump_card is not None and game.trumper is not None
            game.shown = BIT[game.trump_card]
            game._return_trump_card()
        elif game.contract in SOLO:
            if game.contract != "mooney":
                game.trump = SUIT[card]  # 6.4.2, 6.5.1: the suit of the caller's first card
            if game._void(game.side_of[seat]):  # 5.9: checked after the caller's first lead
                game._void_deal()

    def trick_taken(self, game: Thunee, winner: int) -> None:
        game.leader = winner
        done = len(game.tricks)
        if game.contract in SOLO:
            if winner != game.caller and done < game.RULES.tricks:  # 6.4.3: play stops at once (after the last
                game._score_deal()  # trick the base scores it)
            return
        if game.contract == "trip":
            if done == game.RULES.tricks - 1:  # 8.2.2: the normal order in the last trick
                game.__dict__["RULES"] = RULES_FOR["normal", game.RULES.tricks]
            return
        if done in JODI_AFTER:  # 6.1.3: the winner, then his partners in turn order
            side = game.side_of[winner]
            n = game.n_players
            game.queue = [s for s in ((winner + k) % n for k in range(n)) if game.side_of[s] == side]
            game.phase, game.current_player = "jodi", winner
            return
        game._resume_play()


@register
class Thunee(TrickGame):
    RULES = RULES_FOR["normal", 6]  # per deal: RULES_FOR[contract's ranking, 24 // players]
    DOUBLE_DUMMY = True  # card points
    ACTIONS = ACTIONS
    DECK = DECK
    # (the stock, the queue and the jodis are only ever replaced whole)
    COPY = {"queue": SHARED, "auction": SHARED_UNTIL_WRITTEN, "jodis": SHARED, "calls": LIST, "stock": SHARED}
    POSITION_CARD_PILES = ("trump_card",)
    PHASES = ("redeal", "trip", "calling", "trump", "special", "play", "jodi", "double", "over")
    DEAL_PHASES = (Deal(), RedealQuestion(), Trip(), Calling(), TrumpCard(), SpecialCalls(), Jodi(), Double(),
                   DealActions(), Play())
    INFO = GameInfo(
        id="thunee",
        name="Thunee",
        aliases=("Thuni", "Tani", "サニー"),
        player_counts=(4, 6),
        default_players=4,
        options=OPTIONS,
        summary="South African partnership game of 24 cards: call for trump, take 105 of the 304 points, call "
                "thunee, jodi, double and kanak; the first team to 12 balls wins.",
        deck_size=len(DECK),
        face_down=True, shown_every_move=True,
    )
    # The phases whose words, while the phase goes on, change nothing ``shown_cards`` and ``trump_seen`` answer: a
    # bid or pass of the calling (no trump yet: it is laid after), a seat's answer that passes the question on (the
    # redeal question, the special calls); the others end the phase. Numeric encoders (envs/encoding.py) ask the two
    # again after such a word only when it ended its phase (tests/envs/test_pettingzoo.py checks the claim).
    QUIET_WORD_PHASES: ClassVar[frozenset[str]] = frozenset({"redeal", "trip", "calling", "special", "double"})

    # What a deal holds besides the trick base's hands and tricks.
    stock: list[int]  # the cards of the second round while undealt (3.6)
    # This dealing's moves that play no card, (cards played before it, seat, action) in order; its card plays are its
    # tricks (``deal_moves``). Kept apart from ``moves``, which a service may clear.
    calls: list[tuple[int, int, int]]
    queue: list[int]  # seats still to answer the question of the phase (redeal, special call, jodi)
    auction: RaiseForRight | None  # the calling (4), None before it
    trumper: int | None  # the trumper, or while calling the holder of the right (4.1); None in a trip
    call: int  # the call value C (4.4)
    trump_card: int | None  # the trump card (4.5) while it lies face down
    by_last: bool  # trump:last: nobody has seen the trump card (8 last_card_trump)
    shown: int  # the trump card once turned up (5.3): known where it is
    contract: str  # normal, thunee, royals, mooney or trip
    caller: int | None  # who called thunee, royals, mooney or trip
    jodis: list[tuple[int, tuple[int, ...], int, int]]  # (seat, cards, value, trick) in order (6.1)
    used: int  # the cards of the jodi called (6.1.4)
    leader: int  # the winner of the last trick, who leads the next
    doubler: int | None  # 6.2
    kanak: int | None  # 6.3
    voided: bool  # 5.9: the deal was void
    _replaying = False  # a position's deal_actions are being replayed: a deal's end is noted, not scored
    _replay_over = False

    PARTNERSHIPS = Partnerships()  # 1.2: the team of seat s is s mod 2
    # Each scored deal gives at least one ball to one team, so the match ends within 2 (target - 1) + 1 deals; redeals
    # (3.4) and void deals (5.9) are spare dealings. Moves: the redeal answers, a trip, the calling (each of the 11
    # calls after fewer than n/2 passes, and n/2 passes), the trump, the special calls, two jodi windows (a pass each
    # and at most one jodi per suit), a double, a kanak and the 24 cards.
    LENGTH = MatchLength(
        deals=lambda n, o: 2 * o["target_balls"] - 1,
        moves=lambda n, o: n + 1 + len(CALLS) * (n // 2) + n // 2 + 1 + n + 2 * (n // 2) + 4 + 1 + 1 + len(DECK),
        redeals=True)

    # ---- the deal (3) -------------------------------------------------------------------------------------------

    def _shuffled_deck(self) -> list[int]:
        """3.2: shuffle, then a cut (the same draws as ``Rng.shuffle`` and ``Rng.below``, in one batch)."""
        rng = self.rng
        known = _DECK_AFTER.pop(rng.state, None)  # the deck a first-dealer draw computed for this state
        if known is not None:
            rng.state = known[1]
            return list(known[0])
        start = rng.state
        draws = _batch(start, SHUFFLE_DRAWS + 1)
        if draws is None or min(draws) < len(DECK) or draws[-1] < CUT_THRESHOLD:
            deck = super()._shuffled_deck()
            return cut(deck, 1 + rng.below(len(deck) - 1))
        rng.state = (start + (SHUFFLE_DRAWS + 1) * GOLDEN) & MASK64
        return cut(_shuffled(draws), 1 + draws[-1] % CUT_BOUND)

    def _after_redeal_answers(self) -> None:
        if self.n_players == 6 and self.options["six_trip"]:  # 8.2.2: the dealer is asked first
            self.phase, self.current_player = "trip", self.dealer
            return
        self._open_calling()

    def _open_calling(self) -> None:
        holder = (self.dealer + 1) % self.n_players  # 4.1
        self.auction = RaiseForRight(CALLS, self.side_of, holder, self.n_players // 2, jump=self.options["call_jump"])
        self.phase, self.current_player = "calling", self.auction.turn

    def _deal_second_round(self) -> None:
        """3.6: the rest of the deck one card at a time in the same order."""
        n = self.n_players
        deal_round(self.stock, 0, self.hands, ORDERS[n][self.dealer], ROUNDS[n][1])  # FIRST_ROUND[n] % n == 0
        self.stock = []

    def _dealt_again_now(self) -> None:
        """A redeal (3.4): no score, the same dealer deals again."""
        if self._replaying:
            raise PositionError("deal_actions: here the deal is dealt again at once, so no position holds it")
        self._begin_deal(None)

    def _void_deal(self) -> None:
        """5.9: a void deal ends with no balls; the same dealer deals the next (recorded as a deal: cards were seen)."""
        self.voided = True
        if self._replaying:
            self._replay_over = True
            return
        self._deal_over([0, 0], contract="void", call=self.call)

    def deal_moves(self) -> list[tuple[int, int]]:
        """This dealing's moves, (seat, action) in order: its calls among its cards played."""
        cards = [(s, ACTIONS.plain_id[c]) for trick in [*self.tricks, self.trick] for s, c in trick]
        moves: list[tuple[int, int]] = []
        done = 0
        for before, seat, action in self.calls:
            moves += cards[done:before]
            moves.append((seat, action))
            done = before
        return moves + cards[done:]

    # ---- legal actions --------------------------------------------------------------------------------------------

    def _held(self, seat: int) -> int:
        """The seat's cards, the trumper's face-down trump card counted (3.6)."""
        down = self.trump_card if seat == self.trumper and self.trump_card is not None else None
        return self.hands[seat] | (0 if down is None else BIT[down])

    def _mooney_suit(self, seat: int) -> int | None:
        held = self._held(seat)
        for suit in range(4):
            if held & ~SUIT_MASK[suit] == 0 and held & BIT[13 * suit + JACK]:  # 8.2.3: one suit, its jack among them
                return suit
        return None

    def _jodis_open(self, seat: int) -> list[Marriage]:
        """6.1.4: jodi of the seat's hand and the card it played to the trick just won, no card used twice."""
        played = next(c for s, c in self.tricks[-1] if s == seat)
        return marriages(self.hands[seat] | BIT[played], self.trump, JODI, self.used)

    def _may_kanak(self) -> bool:
        """6.3.1: in the last trick, before a card, once a deal, not after a double nor in a lone call."""
        return (len(self.tricks) == self.RULES.tricks - 1 and self.contract == "normal" and self.kanak is None
                and self.doubler is None)

    # ---- actions --------------------------------------------------------------------------------------------------

    def _answer_redeal(self, action: int) -> None:
        if action == REDEAL:  # 3.4: the first redeal ends the deal at once
            self._dealt_again_now()
            return
        if not self._ask_next():
            self._after_redeal_answers()

    def _ask_next(self) -> bool:
        """The seat asked has answered: the next of ``queue`` is asked; False when every seat has answered."""
        queue = self.queue = self.queue[1:]
        if queue:
            self.current_player = queue[0]
        return bool(queue)

    def _answer_trip(self, seat: int, action: int) -> None:
        if action == PASS_ID:
            self._open_calling()
            return
        self.contract, self.caller, self.trumper = "trip", seat, None  # 8.2.2: no trump, no calling
        self.__dict__["RULES"] = RULES_FOR["trip", self.RULES.tricks]
        self._deal_second_round()
        self._begin_play(seat)

    def _speak(self, word: str) -> None:
        auction = self.auction
        assert auction is not None  # calling
        if auction.shared:  # (still a clone's too)
            auction = self.auction = auction.copy()
        auction.apply(word)
        self.trumper, self.call = auction.holder, auction.call
        if auction.over:  # 4.4, 4.5: the trumper lays a trump card face down
            self.phase, self.current_player = "trump", auction.holder
        else:
            self.current_player = auction.turn

    def _choose_trump(self, seat: int, action: int) -> None:
        if action == LAST_ID:  # 8.1 last_card_trump: the last card dealt to the trumper, unseen
            first, dealt = (self.dealer + 1) % self.n_players, FIRST_ROUND[self.n_players]
            card = [c for k, c in enumerate(self.stock, start=dealt) if (first + k) % self.n_players == seat][-1]
            self.by_last = True
        else:
            card = TRUMP_CARD[action]
        self._deal_second_round()
        self.hands[seat] ^= BIT[card]
        self.trump_card, self.trump = card, SUIT[card]
        self.queue = [(seat + k) % self.n_players for k in range(self.n_players)]  # 6.4.1: the trumper first
        self.phase, self.current_player = "special", seat

    def _answer_special(self, seat: int, word: str) -> None:
        if word == PASS:
            if self._ask_next():
                return
            trumper = self.trumper
            assert trumper is not None  # a normal deal has its trumper
            if self._void(self.side_of[trumper]):  # 5.9: checked before the first lead
                self._void_deal()
            else:
                self._begin_play((trumper + 1) % self.n_players)  # 5.2
            return
        self.contract, self.caller = word, seat
        self._return_trump_card()  # 6.4.2: the trumper takes his card back; the call no longer matters
        if word == "royals":
            self.__dict__["RULES"] = RULES_FOR["royals", self.RULES.tricks]
        suit = self._mooney_suit(seat) if word == "mooney" else None
        self.trump = NO_TRUMP if suit is None else suit  # thunee, royals: the caller's first lead names it
        self._begin_play(seat)

    def _return_trump_card(self) -> None:
        if self.trump_card is not None and self.trumper is not None:
            self.hands[self.trumper] |= BIT[self.trump_card]
        self.trump_card = None

    def _begin_play(self, leader: int) -> None:
        self.queue = []
        self.phase, self.current_player, self.leader = "play", leader, leader

    def _void(self, holders: int) -> bool:
        """5.9: whether the team other than ``holders`` holds no trump (the deal is void)."""
        held = 0
        for seat in range(1 - holders, self.n_players, 2):  # the other team's seats (1.2: team of seat s is s mod 2)
            held |= self.hands[seat]
        return not held & SUIT_MASK[self.trump]

    def _answer_jodi(self, seat: int, action: int) -> None:
        if action != PASS_ID:  # 6.1.3: any number of jodi, then pass
            jodi = next(m for m in self._jodis_open(seat) if m.cards == JODI_CARDS[action])
            self.used |= mask_of(jodi.cards)
            self.jodis = [*self.jodis, (seat, jodi.cards, jodi.value, len(self.tricks))]
            return
        if not self._ask_next():
            self._resume_play()

    # ---- after a trick (6.1 - 6.4, 8.2: Play.trick_taken) -----------------------------------------------------------

    def _resume_play(self) -> None:
        """After a trick (and its jodi): the winner leads, asked first about a double after winning every trick but
        the last (6.2.1)."""
        done, leader = len(self.tricks), self.leader
        if done == self.RULES.tricks - 1 and self.tricks_won[self.side_of[leader]] == done:
            self.phase, self.current_player = "double", leader
        else:
            self.phase, self.current_player = "play", leader

    # ---- scoring and the match (7) ------------------------------------------------------------------------------

    def deal_result(self) -> tuple[list[int], dict[str, Any]]:
        """The finished deal's balls per team (7.1: the first rule that applies) and its facts."""
        balls = [0, 0]
        facts: dict[str, Any] = {"contract": self.contract, "call": self.call}
        last_side = self.side_of[self.leader]
        if self.contract in SOLO or self.contract == "trip":
            made, to = self._lone_result()
            balls[to[0]] = to[1]
        elif self.doubler is not None:  # 6.2.2: the doubler himself must win the last trick
            side = self.side_of[self.doubler]
            made = self.leader == self.doubler
            if made:
                balls[side] = DOUBLE_BALLS
            else:
                balls[1 - side] = FAILED_BALLS
            facts["contract"] = "double"
        elif self.kanak is not None:
            side = self.side_of[self.kanak]
            made = self.kanak_made()
            if made:
                balls[side] = KANAK_BALLS
            else:
                balls[1 - side] = FAILED_BALLS
            facts["contract"] = "kanak"
        else:
            counting = self._counting()
            total = self.counting_total()
            made = total >= TARGET  # the counting team's made: it wins the deal
            if made:
                balls[counting] = 2 if self.call else 1  # 7.3
            else:
                balls[1 - counting] = 1
            facts["counting"] = counting
        facts.update(made=made, card_points=list(self.card_points), last_trick=last_side,
                     jodi=[self._jodi_of(side) for side in (0, 1)])
        return balls, facts

    def double_dummy_refusal(self) -> str | None:
        if self.contract in SOLO:
            return f"a {self.contract} deal ends at the caller's first lost trick (6.4, 6.5, 8.2.3), not on card points"
        if self.contract == "trip":
            return "a trip's tricks rank 9 = A = T and the dealer's trick 4 decides it (8.2.2), not card points"
        return None

    def _lone_result(self) -> tuple[bool, tuple[int, int]]:
        """(made, (team, balls)) of thunee, royals, mooney (6.4.3, 6.5.2, 8.2.3) or trip (8.2.2)."""
        caller = self.caller
        assert caller is not None  # a lone call has its caller
        side = self.side_of[caller]
        if self.contract == "trip":
            made = self.leader == caller
            return made, (side, TRIP_BALLS) if made else (1 - side, TRIP_FAILED)
        made = len(self.tricks) == self.RULES.tricks and self.leader == caller  # play stopped at any other's trick
        if self.contract == "mooney":
            lost_to = MOONEY_BALLS if self.side_of[self.leader] == side else MOONEY_LOST_TO_OPPONENT
            return made, (side, MOONEY_BALLS) if made else (1 - side, lost_to)
        stake = self.options["royals_balls" if self.contract == "royals" else "thunee_balls"]
        return made, (side, stake) if made else (1 - side, stake)

    def _jodi_of(self, side: int) -> int:
        return sum(value for seat, _cards, value, _k in self.jodis if self.side_of[seat] == side)

    def counting_total(self) -> int:
        """7.2: S = P + L + C + Jc - Jt of the counting team (L once the last trick is played)."""
        counting = self._counting()
        done = len(self.tricks) == self.RULES.tricks
        last = LAST_TRICK if done and self.side_of[self.leader] == counting else 0
        return self.card_points[counting] + last + self.call + self._jodi_of(counting) - self._jodi_of(1 - counting)

    def kanak_made(self) -> bool:
        """6.3.2: the caller won the last trick, his opponents some trick, and their X is below zero."""
        assert self.kanak is not None
        opp = 1 - self.side_of[self.kanak]
        winners = self.trick_winner_seats(self.leader)
        before_last = sum(CARD_POINTS[c] for trick, winner in zip(self.tricks[:-1], winners, strict=False)
                          if self.side_of[winner] == opp for _s, c in trick)
        x = before_last - self._jodi_of(1 - opp) - LAST_TRICK + (self.call if opp == self._counting() else -self.call)
        return self.leader == self.kanak and self.tricks_won[opp] > 0 and x < 0

    def _counting(self) -> int:
        """4.4: the counting team, the trumper's opponents."""
        assert self.trumper is not None  # a normal deal has its trumper
        return 1 - self.side_of[self.trumper]

    def _score_deal(self) -> None:
        if self._replaying:
            self._replay_over = True
            return
        balls, facts = self.deal_result()
        self._deal_over(balls, **facts)

    def _match_winners(self) -> list[int] | None:
        return sides_at_or_over(self.side_scores, self.options["target_balls"]) or None  # 7.4

    # ---- what a seat sees -----------------------------------------------------------------------------------------

    def _trump_seen_by(self, seat: int) -> str | None:
        """The trump suit as ``seat`` knows it (the observation's ``trump``): see ``trump_seen``."""
        trump = self.trump_seen(seat)
        return None if trump == NO_TRUMP else SUITS[trump]

    def trump_seen(self, seat: int) -> int:
        """The trump suit as ``seat`` knows it (NO_TRUMP: none known): the trumper's own (unless dealt blind) until
        it is turned up (5.3); a lone caller's from his first card (6.4.2), a mooney caller's own suit."""
        trump, contract = self.trump, self.contract  # (each read once: the encoders ask at every move)
        if trump == NO_TRUMP:
            return NO_TRUMP
        if self.shown or (contract != "normal" and (self.tricks or self.trick)):  # public
            return trump
        own = (seat == self.trumper and not self.by_last) if contract == "normal" else seat == self.caller
        return trump if own else NO_TRUMP

    def shown_cards(self, seat: int) -> tuple[int, int, int]:
        """``known_cards`` (the public cards in other hands) and ``stock_size`` of the observation, as masks
        (TrickGame.shown_cards); nothing lies face up (the trump card is laid face down, and back in hand once turned
        up). With ``trump_seen``, as they change at any move."""
        public = self.shown | self.used  # (_public_cards, inline: the encoders ask at every move)
        if not public:  # (most moves: no trump card turned up, no jodi called)
            return 0, 0, len(self.stock)
        hands = self.hands
        return 0, public & (sum(hands) ^ hands[seat]), len(self.stock)

    def _public_cards(self) -> int:
        """Cards every seat knows the place of: the turned-up trump card and the jodi cards, while in hand."""
        return self.shown | self.used

    # ---- determinization (Deal.sample): unseen hands, the face-down trump card and the undealt cards ----------

    def _first_round_cards(self) -> list[int]:
        cards = [0] * self.n_players
        deal_round(self.deal_deck, 0, cards, self.seats_from_dealer(), ROUNDS[self.n_players][0])
        return cards

    def _redeal_eligibility(self) -> dict[int, bool]:
        """Per seat whose first round every seat can tell: whether it was asked about a redeal (3.4)."""
        asked = {s for s, a in self.deal_moves() if a == KEEP}
        order = self.seats_from_dealer()
        if self.phase == "redeal":
            assert self.current_player is not None
            order = order[:order.index(self.current_player) + 1]
            asked.add(self.current_player)
        return {s: s in asked for s in order}

    def _replayed_on(self, deck: list[int], new: Sequence[int]) -> Thunee | None:
        """This dealing dealt from ``deck`` and its moves (their cards renamed by ``new``) played again, or None if
        one of them is not legal there or the deal is dealt again on the way."""
        sample = self.clone()
        moves = self.deal_moves()
        sample.moves = self.moves[:max(0, len(self.moves) - len(moves))]
        sample.deal_deck = deck
        sample._legal = None
        sample._start_deal(list(deck))
        for s, action in moves:
            renamed = _renamed(action, new)
            if sample.deal_deck is not deck or sample.current_player != s or \
                    renamed not in sample.legal_action_ids():
                return None
            sample.apply_id(renamed)
        return sample if sample.deal_deck is deck else None

    # ---- positions (docs/positions/thunee.md) --------------------------------------------------------------------

    def _deal_keys(self) -> dict[str, Any]:
        return {
            "trumper": self.trumper,
            "call": self.call,
            "contract": self.contract,
            "caller": self.caller,
            "jodi": [[s, ACTIONS.strings[JODI_ID[cards]], k] for s, cards, _v, k in self.jodis],
            "double": self.doubler,
            "kanak": self.kanak,
            "card_points": list(self.card_points),
            "tricks_won": list(self.tricks_won),
        }



SHUFFLE_DRAWS, CUT_BOUND = len(DECK) - 1, len(DECK) - 1  # Rng.shuffle's draws for the deck; the cut's bound
CUT_THRESHOLD = THRESHOLDS[CUT_BOUND]  # Rng.below's rejection threshold for the cut
FISHER_YATES = tuple(range(len(DECK) - 1, 0, -1)), range(len(DECK), 1, -1)  # Rng.shuffle's steps and bounds
# The deck the next shuffle and cut give from an RNG state (a pure function of it): the first deal's, computed with
# the first-dealer draw. One entry at most.
_DECK_AFTER: dict[int, tuple[list[int], int]] = {}


def _batch(state: int, count: int) -> tuple[int, ...] | None:
    """The next ``count`` draws from ``state``, computed at once (``outputs``) from source; compiled, None: each draw
    is SplitMix64's step in C (``Rng``), cheaper than a batch of Python integers, so the plain way is taken."""
    return None if cython.compiled else outputs(state, count)


def _shuffled(draws: Sequence[int]) -> list[int]:
    """The deck as ``Rng.shuffle`` leaves it with these draws (none of them a rejected one)."""
    pack = list(DECK)
    steps, bounds = FISHER_YATES
    for i, j in zip(steps, map(mod, draws, bounds), strict=False):
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def _redeal_check(kept: int, limit: int, asked: bool) -> Callable[[list[int]], bool]:
    """A first round's hidden cards keep it asked about a redeal, or not (3.4)."""
    return lambda cards: (kept + sum(CARD_POINTS[c] for c in cards) <= limit) == asked


def _renamed(action: int, new: Sequence[int]) -> int:
    """An action with its cards renamed by ``new``."""
    card = CARD_OF[action]
    if card is not None:
        return ACTIONS.plain_id[new[card]]
    if action in TRUMP_CARD:
        return TRUMP_ID[new[TRUMP_CARD[action]]]
    if action in JODI_CARDS:
        return JODI_ID[tuple(sorted(new[c] for c in JODI_CARDS[action]))]
    return action
