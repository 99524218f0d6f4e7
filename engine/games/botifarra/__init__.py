"""Botifarra (``botifarra``), exactly as ``shared/rules/botifarra.md`` says; section numbers cite it.

Four players in partnerships, the Spanish 48-card pack (no tens), the manilla (9) highest in every suit (2.1). The
dealer names trump or botifarra (no trump), or hands the choice to his partner (4.1, 4.2); the other side may
contro, the makers recontro, the other side sant vicenç (4.4). Twelve tricks under the Manille rule: win the trick
if you can, else play your lowest card (5.5); the side over 36 of the 72 points scores the excess, multiplied (7.2).
A game is played to ``target_score``; with ``three_game_rotation`` three games, partners changing (8).

>>> import engine
>>> state = engine.new_match("botifarra", seed=1, first_dealer=0)
>>> state.phase, state.current_player, state.legal_actions()[-2:]
('choice', 0, ['trump:S', 'trump:none'])
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ...auction import DELEGATE, NO_TRUMP_WORD, PASS, DoublingRounds, TrumpChoice, replay_auction
from ...cards import BIT, SUIT, SUITS, make_deck
from ...clone import LIST, UNTIL_OVER
from ...dealing import deal_round
from ...errors import PositionError
from ...options import Option
from ...phases import DecisionPhase, Loading, Phase
from ...registry import register
from ...scoring import highest_once_target_reached, leaders, point_table
from ...state import GameInfo, MatchLength, Partnerships
from ...trickgame import TRICK_PLAY, TrickGame, TrickRules
from ...tricks import NO_TRUMP, CardActions, MustWinRule, Ranking
from .rules import draw_by_suit, over_half

DECK = tuple(make_deck("23456789JQKA"))  # 1.3: the four tens removed
RANKING = Ranking("9AKQJ8765432")  # 2.1: the same order in every suit, trump included
POINTS = point_table({"9": 5, "A": 4, "K": 3, "Q": 2, "J": 1})  # 2.2
POINT_CARDS = sum(BIT[c] for c in DECK if POINTS[NO_TRUMP][c])  # 2.5
TRICKS = 12
HALF = 36  # 2.3: 60 card points and 12 trick points
PLAY_RULES = {"seed": MustWinRule(RANKING, lowest=True, loads=POINT_CARDS),  # 5.5
              "relaxed": MustWinRule(RANKING, lowest=False)}  # 5.6
# 5.3; the legal cards by the option play_rules (the trick loop applies the rule)
RULES_OF = {name: TrickRules(RANKING, tricks=TRICKS, points=POINTS, must_win=rule) for name, rule in PLAY_RULES.items()}
RULES = RULES_OF["seed"]
DOUBLE_WORDS = ("contro", "recontro", "santvicenc")  # 4.4
MAX_LEVEL = {"none": 0, "contro": 1, "recontro": 2, "santvicenc": 3}  # option max_double
DOUBLE_VALUES = {"2-4-8": (1, 2, 4, 8), "2-3-4": (1, 2, 3, 4)}  # option double_values: per level said
# 8 three_game_rotation: each game's teams (seat -> team; team 0 holds seat 0): {0,2}/{1,3}, {0,1}/{2,3}, {0,3}/{1,2}
PAIRINGS = ((0, 1, 0, 1), (0, 0, 1, 1), (0, 1, 1, 0))
TRUMP_WORDS = (*(f"trump:{s}" for s in SUITS), f"trump:{NO_TRUMP_WORD}")
ACTIONS = CardActions(words=[*TRUMP_WORDS, DELEGATE, PASS, *DOUBLE_WORDS])
CARD_OF = ACTIONS.card_of
PASS_ID = ACTIONS.word_id(PASS)
CHOICE_IDS = {delegated: sorted(ACTIONS.word_id(w) for w in (*TRUMP_WORDS, *(() if delegated else (DELEGATE,))))
              for delegated in (False, True)}  # 4.1, 4.2: the partner cannot delegate again
DOUBLE_IDS = tuple(sorted((ACTIONS.word_id(w), PASS_ID)) for w in DOUBLE_WORDS)  # 4.4: the next word or pass
TIED_DEALS = 10  # 36-36 deals score nothing (7.2): deals a game may add for them

OPTIONS = (
    Option("target_score", int, 101, "game target (7.4)", minimum=1, maximum=1000),
    Option("max_double", str, "santvicenc", "highest doubling word allowed (4.4)", choices=tuple(MAX_LEVEL)),
    Option("double_values", str, "2-4-8", "multipliers for contro / recontro / santvicenc (7.2)",
           choices=tuple(DOUBLE_VALUES)),
    Option("botifarra_multiplier", int, 2, "multiplier of a no-trump deal (7.2)", minimum=1, maximum=16),
    Option("play_rules", str, "seed", "seed: the legal-card rule 5.5; relaxed: 5.6", choices=tuple(PLAY_RULES)),
    Option("three_game_rotation", bool, False, "three games, partners changing so that each player partners each "
           "other once; a player's result is the games his team won (8)"),
)


class Games(Phase["Botifarra"]):
    """The game in play and its points so far (``game_index``, ``game_points_0``, ``game_points_1``), which must fit
    the match scores (7.4, 8); the deal passes to the right (3.2)."""

    KEYS = ("game_index", "game_points_0", "game_points_1")

    def save(self, game: Botifarra) -> dict[str, Any]:
        return {"game_index": game.game, "game_points_0": game.game_points[0], "game_points_1": game.game_points[1]}

    def observe(self, game: Botifarra, seat: int, obs: dict[str, Any]) -> None:
        obs["deal_points"] = game.deal_points()
        obs["game_index"] = game.game
        obs["game_points"] = list(game.game_points)
        obs["partners"] = [game.partner_of(s) for s in range(4)]

    def load(self, game: Botifarra, loading: Loading) -> None:
        p = loading.position
        if game.dealer != (game.first_dealer + game.deal_index) % 4:
            raise PositionError("dealer must be first_dealer + deal_index (mod 4): the deal passes to the right (3.2)")
        index, points = p["game_index"], [p["game_points_0"], p["game_points_1"]]
        if any(type(v) is not int or v < 0 for v in (index, *points)):
            raise PositionError("game_index, game_points_0 and game_points_1 are non-negative integers, got "
                                f"{index!r}, {points}")
        target, over = game.options["target_score"], game.phase == "over"
        if not over and max(points) >= target:
            raise PositionError(f"a game ends as soon as a team has {target} points: game points {points}")
        if not game.rotation:
            if index != 0 or points != game.side_scores:
                raise PositionError("without three_game_rotation the match is one game: game_index is 0 and the game "
                                    "points are the scores")
            game.game_points = points
            return
        if index >= len(PAIRINGS) or index > game.deal_index:
            raise PositionError(f"game_index is the index of the game in play, 0..2, at most deal_index, got {index}")
        game.game, game.teams, game.game_points = index, PAIRINGS[index], points
        finished = index + (1 if max(points) >= target else 0)
        results = [[sum(1 for k, team in enumerate(won) if PAIRINGS[k][seat] == team) for seat in range(4)]
                   for won in itertools.product((0, 1), repeat=finished)]
        if game.side_scores not in results:
            raise PositionError(f"scores must count the games each player's team won of the {finished} finished "
                                f"(8), got {game.side_scores}")


class Calls(DecisionPhase["Botifarra"]):
    """The trump choice and the doubling (4), each call ``[seat, word]``, replayed from the deal."""

    KEYS = ("choice", "doubling")
    NAMES = ("choice", "doubling")

    def legal(self, game: Botifarra) -> list[int]:
        if game.phase == "choice":
            return CHOICE_IDS[game.choice.delegated]
        return DOUBLE_IDS[game.level]

    def apply(self, game: Botifarra, action: int) -> None:
        if game.phase == "choice":
            game._choose(ACTIONS.strings[action])
        else:
            game._double(ACTIONS.strings[action])

    def speaker(self, game: Botifarra) -> int | None:
        return game.choice.turn if game.phase == "choice" else game.doubling.turn if game.doubling else None  # 4

    def save(self, game: Botifarra) -> dict[str, Any]:
        return game._calls()

    def observe(self, game: Botifarra, seat: int, obs: dict[str, Any]) -> None:
        obs.update(game._calls(), maker=game.maker, multiplier=game.multiplier)

    def load(self, game: Botifarra, loading: Loading) -> None:
        p = loading.position
        game.choice = game._trump_choice()
        replay_auction(game.choice, p["choice"])
        game.doubling = None
        if game.choice.maker is not None and game.max_level:
            game.doubling = DoublingRounds(DOUBLE_WORDS[:game.max_level], game.choice.maker, game.teams)
            replay_auction(game.doubling, p["doubling"])
        elif p["doubling"] != []:
            raise PositionError("doubling is [] until trump is named, and always with max_double 'none'")
        expected = "choice" if not game.choice.over else "doubling" if game.doubling and not game.doubling.over \
            else "play"
        if game.phase not in (expected, "over") or (game.phase == "over" and expected != "play"):
            raise PositionError(f"phase {game.phase!r} does not fit the trump choice and doubling ({expected!r})")

    def trump(self, game: Botifarra) -> tuple[int, str]:
        named = game.choice.trump
        trump = None if named in (None, NO_TRUMP_WORD) else named
        return (NO_TRUMP if trump is None else SUITS.index(trump),
                f"trump must be {trump!r}, the suit named (null before and for botifarra)")

    def deal_again(self, game: Botifarra, trump: int) -> bool:
        game._deal_hands(game.deal_deck)  # (the calls as loaded)
        game.trump = trump
        return True


class Deal(Phase["Botifarra"]):
    """The deal itself: the hands (3), then the trump choice (4.1)."""

    def deal(self, game: Botifarra, deck: list[int]) -> None:
        if game.rotation and max(game.game_points) >= game.options["target_score"]:  # 8: the next game begins
            game.game += 1
            game.teams, game.game_points = PAIRINGS[game.game], [0, 0]
        game._deal_hands(deck)
        game.choice = game._trump_choice()
        game.doubling = None
        game.phase, game.current_player = "choice", game.dealer  # 4.1

    def first_dealer(self, game: Botifarra) -> int:
        return draw_by_suit(game.rng, DECK)  # 3.1


@register
class Botifarra(TrickGame):
    RULES = RULES
    ACTIONS = ACTIONS
    DECK = DECK
    PHASES = ("choice", "doubling", "play", "over")
    DEAL_PHASES = (Deal(), Games(), Calls(), TRICK_PLAY)
    OBSERVED = ("tricks",)  # every card was seen as it was played (5.7)
    COPY = {"choice": UNTIL_OVER, "doubling": UNTIL_OVER, "game_points": LIST}
    CARRIED = (*TrickGame.CARRIED, "game_index", "game_points_0", "game_points_1")
    INFO = GameInfo(
        id="botifarra",
        name="Botifarra",
        player_counts=(4,),
        default_players=4,
        options=OPTIONS,
        summary="Catalan partnership game: the dealer names trump or botifarra (no trump), contro and recontro "
                "double it, the manilla (9) ranks highest; win the trick if you can, else play low.",
    )

    rotation: bool  # option three_game_rotation
    max_level: int  # option max_double: how many doubling words may be said (4.4)
    values: tuple[int, ...]  # option double_values: the multiplier per doubling level (7.2)
    game = 0  # the index of the game in play (0 without three_game_rotation)
    game_points: list[int]  # that game's points per team (without rotation: the match scores)
    choice: TrumpChoice
    doubling: DoublingRounds | None  # None until trump is named, and with max_double none

    SETTINGS = {"rotation": "three_game_rotation", "RULES": ("play_rules", RULES_OF),
                "max_level": ("max_double", MAX_LEVEL), "values": ("double_values", DOUBLE_VALUES),
                "game_points": lambda n, o: [0, 0]}
    # 1.2: fixed partnerships (``teams``: the game in play's, PAIRINGS); with three_game_rotation each player keeps
    # his own result (the games he won)
    PARTNERSHIPS = Partnerships(apart="three_game_rotation")
    # Only one team scores a deal, at least 1 point unless 36-36 (7.2): a game is over within 2 x (target - 1) + 1
    # scoring deals, TIED_DEALS more for ties. Moves: the choice and its delegation, two answers per doubling word, 48
    # cards.
    LENGTH = MatchLength(
        deals=lambda n, o: (3 if o["three_game_rotation"] else 1) * (2 * o["target_score"] - 1 + TIED_DEALS),
        moves=lambda n, o: 2 + 2 * MAX_LEVEL[o["max_double"]] + len(DECK))

    # ---- the deal (3) and the trump choice (4) ------------------------------------------------------------------

    def _deal_hands(self, deck: list[int]) -> None:
        hands = [0] * 4
        deal_round(deck, 0, hands, self.seats_from_dealer(), (4, 4, 4))  # 3.4: three rounds of 4, the right first
        self._reset_tricks(hands, NO_TRUMP)

    def _trump_choice(self) -> TrumpChoice:
        """4.1, 4.2: the dealer names trump or hands the choice to his partner."""
        partner = self.partner_of(self.dealer)
        assert partner is not None  # four players, two by two
        return TrumpChoice(self.dealer, partner)

    @property
    def maker(self) -> int | None:
        """The seat that named trump (4.3), None before."""
        return self.choice.maker

    @property
    def level(self) -> int:
        """The doubling words said (4.4): 0 none, 1 contro, 2 recontro, 3 santvicenc."""
        return 0 if self.doubling is None else self.doubling.level

    @property
    def multiplier(self) -> int:
        """7.2: botifarra_multiplier for no trump, times the doubling's value."""
        base = self.options["botifarra_multiplier"] if self.choice.trump == NO_TRUMP_WORD else 1
        return base * self.values[self.level]

    def _choose(self, word: str) -> None:
        choice = self.choice
        choice.apply(word)
        if not choice.over:
            self.current_player = choice.turn  # 4.2: the partner names it
            return
        assert choice.trump is not None and choice.maker is not None  # named once over
        self.trump = NO_TRUMP if choice.trump == NO_TRUMP_WORD else SUITS.index(choice.trump)
        if self.max_level:
            self.doubling = DoublingRounds(DOUBLE_WORDS[:self.max_level], choice.maker, self.teams)
            self.phase, self.current_player = "doubling", self.doubling.turn
        else:
            self._begin_play()

    def _double(self, word: str) -> None:
        doubling = self.doubling
        assert doubling is not None  # the doubling phase has its rounds
        doubling.apply(word)
        if doubling.over:
            self._begin_play()
        else:
            self.current_player = doubling.turn

    def _begin_play(self) -> None:
        self.phase, self.current_player = "play", self._first_leader()  # 5.1: the dealer's right leads

    # ---- legal actions and play (5) -----------------------------------------------------------------------------

    def _lacking(self, before: Sequence[tuple[int, int]], seat: int, card: int, best_seat: int, best: int) -> int:
        """Any card that, held with ``card``, would have made its play illegal: a card of the led suit, one that
        wins the trick, or a lower one of its suit where the lowest was due (5.5)."""
        led, partner, second = SUIT[before[0][1]], self.teams[best_seat] == self.teams[seat], len(before) == 1
        rule = self.RULES.must_win
        assert rule is not None  # (every match's RULES: RULES_OF)
        legal, lacking = rule.legal, 0
        for x in DECK:
            if not legal(BIT[card] | BIT[x], led, self.trump, best, partner, second) & BIT[card]:
                lacking |= BIT[x]
        return lacking

    # ---- scoring and the match (7, 8) ---------------------------------------------------------------------------

    def deal_points(self) -> list[int]:
        """7.1: each team's card points and tricks so far (they add up to 72 after the 12th trick)."""
        points, teams, side_of = [0, 0], self.teams, self.side_of
        cards, tricks = self.card_points, self.tricks_won
        for side in range(len(cards)):  # (a loop on indices: every rollout's deal is scored)
            points[teams[side_of.index(side)]] += cards[side] + tricks[side]
        return points

    def _score_deal(self) -> None:
        points = self.deal_points()
        choice, level, multiplier = self.choice, self.level, self.multiplier  # (each read once)
        score = over_half(points, HALF, multiplier)  # 7.2, 7.3
        maker = choice.maker
        assert maker is not None and choice.trump is not None  # a deal is played under a named trump
        counters: dict[str, Any] = {
            "trump": choice.trump, "maker": maker, "delegated": choice.delegated,
            "doubling": DOUBLE_WORDS[level - 1] if level else "none", "multiplier": multiplier,
            "deal_points": points, "made": points[self.teams[maker]] > HALF,
        }
        for team in (0, 1):
            self.game_points[team] += score[team]
        if not self.rotation:
            self._deal_over(score, **counters)
            return
        won = [team for team in (0, 1) if self.game_points[team] >= self.options["target_score"]]
        games_won = [1 if won and self.teams[seat] == won[0] else 0 for seat in range(4)]  # 8: a game for each
        self._deal_over(games_won, game_index=self.game, deal_score=score, **counters)

    def _match_winners(self) -> list[int] | None:
        if self.rotation:  # 8: after three games, the players who won the most of them
            return leaders(self.side_scores) if sum(self.side_scores) == 2 * len(PAIRINGS) else None
        return highest_once_target_reached(self.side_scores, self.options["target_score"])  # 7.4

    # ---- what a seat sees ---------------------------------------------------------------------------------------

    def _calls(self) -> dict[str, Any]:
        """The trump choice and the doubling so far (4), each call ``[seat, word]``: seen by all, and in positions."""
        return {"choice": [[s, w] for s, w in self.choice.actions],
                "doubling": [] if self.doubling is None else [[s, w] for s, w in self.doubling.actions]}
