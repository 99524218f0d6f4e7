"""colver's Belote contrée agents (the ``colver`` package, a Rust engine: IS-DD, IS-MCTS, heuristic) playing a seat of
cardtable's ``belote_contree``, for tournaments against cardtable's bots (docs/ratings.md, "colver").

The policy is named by its import path: ``cardtable tournament belote_contree --policies
pimc,envs.colver:ColverPolicy:time_ms=200``. What it compares, and where colver's rules differ from ours
(our rules file, belote_contree.md, wins), is in docs/ratings.md; in short:

- **Card play only.** Every move outside the play of the cards (weak-hand redeal answers, the auction) is ``greedy``'s,
  seeded as greedy would be in this seat, as ``pimc`` and ``ismcts`` do by default (``bids=greedy``): in a duplicate
  deal every seat arrangement sees the same auctions, so a tournament compares the card play. colver's auction differs
  from ours (a surcoinche ends it, x3 instead of x4) and its bidders need ours mapped to its rules.
- **Only what the seat knows.** Each decision builds a fresh colver deal from the seat's view: its own hand, the cards
  played so far, the final contract, and the unseen cards dealt at random as cardtable's own searches sample them
  (:meth:`engine.bots.view.SeatView.sample`: they respect the voids the play has shown). colver's ``Env`` needs four
  hands, and its agent is then told the public moves (``Agent.observe``) exactly as at a real table; the real hidden
  cards never reach it. The auction it observes is the shortest one that gives the final contract: passes to the
  declarer, the declarer's bid, the contre (and surcontre) and passes: the earlier bids are not shown (colver's
  uniform worlds, ``[worlds] source = "uniform"``, are drawn within the play's constraints, by its README).
- **Moves mapped to our rules.** colver's follow rules allow every card ours allow (checked on 9,600 positions) and
  one more case: a player void in the led suit, whose partner wins with a trump, may undertrump in colver and must
  overtrump if able in ours (rules 5.2). There the policy plays the best of colver's candidates that ours allow.
  A player holding K and Q of trump declares belote (``:belote``): colver scores belote whenever they are held.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.bots.policy import Observation, Observe, Policy
from engine.bots.view import SeatView
from engine.options import Option
from engine.rng import derive_seed

GAME = "belote_contree"
SUITS = "SHDC"  # colver's card index: suit * 8 + rank, suits spades, hearts, diamonds, clubs
RANKS = "789JQKTA"  # within a suit, in colver's order
PASS, COINCHE, SURCOINCHE = 0, 41, 42
PLAY = 1  # Env.phase() of the play of the cards
METHODS = ("isdd", "smart_ismcts", "ismcts", "heuristic")


def card_index(code: str) -> int:
    """colver's index of one of our card codes (``"JS"`` is 3, ``"AC"`` 31); a ``:belote`` suffix is ignored.

    >>> card_index("JS"), card_index("TH"), card_index("AC:belote")
    (3, 14, 31)
    """
    return SUITS.index(code[1]) * 8 + RANKS.index(code[0])


def card_code(index: int) -> str:
    """Our card code of colver's card index: ``card_code(card_index(c)) == c``.

    >>> card_code(3), card_code(31)
    ('JS', 'AC')
    """
    return RANKS[index % 8] + SUITS[index // 8]


def bid_action(value: int | str, suit: str) -> int:
    """colver's auction action for a bid of ours (``value`` 80..160 or ``"capot"``).

    >>> bid_action(80, "S"), bid_action(160, "C"), bid_action("capot", "H")
    (1, 36, 38)
    """
    if value == "capot":
        return 37 + SUITS.index(suit)
    assert isinstance(value, int)
    return 1 + (value - 80) // 10 * 4 + SUITS.index(suit)


def agent_spec(method: str, time_ms: int, worlds: int) -> str:
    """colver's bot spec (its arena's TOML) for a model-free card player: no model file, worlds sampled uniformly
    within the play's constraints, one thread (``parallel = false``: cardtable's bots search on one core)."""
    return (f'[bid]\nstrategy = "improved_v2"\n[play]\nmethod = "{method}"\ntime_ms = {time_ms}\n'
            f'determinizations = {worlds}\nparallel = false\n[worlds]\nsource = "uniform"\n')


def colver_deal(dealer: int, hands: list[list[int]], contract: Mapping[str, Any], cards: Sequence[str],
                agent: Any = None) -> Any:
    """colver's ``Env`` of a deal of ours in its card play: the four hands as dealt (colver's card indices), the
    shortest colver auction that ends in our final ``contract`` (passes to the declarer, the bid, the left-hand
    opponent's contre and the partner's surcontre if any, passes), then ``cards`` (our codes) played; ``agent``, if
    given, is started on the deal and shown every move, as colver's ``Agent`` wants."""
    import colver

    env = colver.Env.deal_with_hands(dealer, hands)
    if agent is not None:
        agent.init_deal(env)
    declarer, multiplier = contract["declarer"], contract["multiplier"]
    auction = [PASS] * ((declarer - env.current_player()) % 4)
    auction.append(bid_action(contract["value"], contract["suit"]))
    if multiplier >= 2:
        auction.append(COINCHE)
    if multiplier == 4:
        auction.append(SURCOINCHE)  # colver's auction ends there

    def step(action: int) -> None:
        if agent is not None:
            agent.observe(env, action)
        env.step(action)

    for action in auction:
        step(action)
    while env.phase() != PLAY:  # the passes that end the auction
        step(PASS)
    for card in cards:
        step(card_index(card))
    return env


class ColverPolicy(Policy):
    """colver's model-free card play (IS-DD on uniform worlds by default) in a seat of Belote contrée; greedy's bids."""

    summary = ("colver's agent (the colver package: IS-DD, IS-MCTS or heuristic, no model file) plays the cards; "
               "greedy makes the other moves.")
    searches = True  # handed a SeatView: the unseen cards it gives colver are a sample, never the real ones
    param_spec: ClassVar[tuple[Option, ...]] = (
        Option("method", str, "isdd", "colver's card player", choices=METHODS, noun="parameter"),
        Option("time_ms", int, 200, "colver's time a decision in ms (0: count mode, `worlds` worlds, repeatable)",
               minimum=0, maximum=600_000, noun="parameter"),
        Option("worlds", int, 20, "IS-DD's worlds a decision in count mode (time_ms=0)", minimum=1, maximum=10_000,
               noun="parameter"),
    )

    @classmethod
    def games(cls) -> list[str]:
        return [GAME]

    def __init__(self, game_id: str, seat: int, seed: int, params: Mapping[str, Any] | None = None) -> None:
        if game_id != GAME:
            raise ValueError(f"colver plays {GAME} only, not {game_id!r}")
        super().__init__(game_id, seat, seed, params)
        import colver  # a dev extra: imported only when the policy is built

        from engine.bots.registry import make_policy  # (the registry imports the policies)

        self._colver = colver
        self._spec = agent_spec(self.params["method"], self.params["time_ms"], self.params["worlds"])
        colver.Agent(self._spec, seat=seat, seed=0)  # a bad spec fails here, not mid-match
        self._bidder = make_policy("greedy", game_id, seat, seed)
        self._agent_seed = derive_seed(seed, seat, 2)
        self.last_hands: list[list[int]] | None = None  # the four hands colver was last given (tests look)

    def choose_id(self, legal_ids: Sequence[int], observe: Observe) -> int:
        if len(legal_ids) == 1:
            return legal_ids[0]
        if not isinstance(observe, SeatView):
            raise ValueError("envs.colver's policy samples the unseen cards: its observe must be an "
                             "engine.bots.view.SeatView (engine.bots.seat_observer builds it)")
        observation = observe()
        if observation["phase"] != "play":
            return self._bidder.choose_id(legal_ids, observe)
        state = observe.state
        legal = [state.action_string(action) for action in legal_ids]
        chosen = self._play(observation, observe, legal)
        return legal_ids[legal.index(chosen)]

    def _choose_index(self, observation: Observation) -> int:
        raise ValueError("envs.colver's policy needs a SeatView to build colver's deal: call choose_id with one "
                         "(engine.bots.seat_observer(state, seat, policy))")

    def _play(self, observation: Observation, view: SeatView, legal: list[str]) -> str:
        """The card (one of ``legal``, our action strings) colver's agent plays from this seat's view."""
        colver = self._colver
        seat = self.seat
        world = view.sample(self.rng)  # the unseen cards dealt at random, as the seat's own samples are
        played: list[list[tuple[int, str]]] = [*observation["tricks"], observation["trick"]]
        moves = [(player, card) for trick in played for player, card in trick]
        hands = [[card_index(code) for code in world.observation(player)["hand"]] for player in range(4)]
        for player, card in moves:
            hands[player].append(card_index(card))
        mine = sorted(card_index(code) for code in observation["hand"])
        assert sorted(hands[seat]) == sorted(mine + [card_index(c) for p, c in moves if p == seat])
        self.last_hands = [sorted(hand) for hand in hands]
        agent = colver.Agent(self._spec, seat=seat, seed=self.rng.below(2**31) ^ self._agent_seed)
        env = colver_deal(observation["dealer"], hands, observation["contract"], [card for _p, card in moves], agent)
        if env.phase() != PLAY or env.current_player() != seat:
            raise RuntimeError(f"colver's deal is not at seat {seat}'s card after the public moves (phase "
                               f"{env.phase()}, player {env.current_player()})")
        decision = agent.decide(env)
        return self._mapped(decision, legal)

    @staticmethod
    def _mapped(decision: Mapping[str, Any], legal: list[str]) -> str:
        """Our action for colver's decision: its card (declaring belote when offered), or, if our rules forbid it,
        the best of its candidates that they allow (colver's scores are its side's or the other's: the direction is
        the one its own choice took)."""
        allowed = {card_index(code): code for code in legal if not code.endswith(":belote")}
        action = int(decision["action"])
        if action not in allowed:
            candidates = [(int(a), float(score)) for a, score in decision.get("candidates", [])]
            scores = dict(candidates)
            lower_best = action in scores and scores[action] == min(scores.values()) != max(scores.values())
            ranked = sorted((c for c in candidates if c[0] in allowed), key=lambda c: c[1], reverse=not lower_best)
            if not ranked:
                raise RuntimeError(f"colver chose {card_code(action)}, which our rules forbid, and none of its "
                                   f"candidates is legal here: {', '.join(legal)}")
            action = ranked[0][0]
        code = allowed[action]
        return f"{code}:belote" if f"{code}:belote" in legal else code
