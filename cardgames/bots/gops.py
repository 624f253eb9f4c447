"""GOPS bots. ``greedy`` bids close to what the pot is worth, scaled to the cards in play;
``expert`` plays the equilibrium (``cardgames.bots.gops_solver``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardgames.bots import gops_solver
from cardgames.bots.base import BaseBot, BotContext, Decision, nearest_card


class GreedyGopsBot(BaseBot):
    name = "greedy"

    def choose(self, ctx: BotContext) -> Decision:
        # A prize of value v is worth about the v-th highest bid card; a carried pot more.
        pot_value = sum(ctx.view.get("pot", []))
        top = max(move["card"] for move in ctx.legal_moves)
        target = min(pot_value, top)
        move = nearest_card(ctx.legal_moves, target, ctx.rng)
        return Decision(move=move, memory=dict(ctx.memory))


class ExpertGopsBot(BaseBot):
    """Equilibrium play: exact for the last ``exact_cards`` turns of a two-player game (the
    subgame recursion, one matrix game per state), one-turn equilibrium over a value estimate
    before that and with three players (``gops_solver``)."""

    name = "expert"
    options_schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "exact_cards": {
                "description": (
                    "Solve the game exactly once this many cards are left in hand. The work "
                    "grows about eightfold per card: the first exact decision of a 13-card "
                    "game takes some 150-190 ms of CPU at 6, 20-30 ms at 5."
                ),
                "type": "integer",
                "minimum": 1,
                "maximum": 8,
                "default": 6,
            },
            "tie_rule": {
                "description": (
                    "The match's tie rule, which the view does not show; a resolved tie in the "
                    "history overrides it."
                ),
                "enum": ["penguin", "carry", "discard"],
                "default": "penguin",
            },
            "final_tie": {
                "description": "The match's final_tie option.",
                "enum": ["discard", "to_game_winner"],
                "default": "discard",
            },
        },
    }

    def choose(self, ctx: BotContext) -> Decision:
        filled = options_filled(self.options_schema, ctx.options)
        strategy = self.policy(ctx.view, ctx.seat, filled)
        legal = {move["card"] for move in ctx.legal_moves}
        cards = [card for card in sorted(strategy) if card in legal and strategy[card] > 0]
        if not cards:  # pragma: no cover - the policy only names cards in hand
            return Decision(move=ctx.rng.choice(ctx.legal_moves), memory=dict(ctx.memory))
        draw = ctx.rng.random() * sum(strategy[card] for card in cards)
        chosen = cards[-1]
        for card in cards:
            draw -= strategy[card]
            if draw < 0:
                chosen = card
                break
        return Decision(move={"card": chosen}, memory=dict(ctx.memory))

    def policy(
        self, view: Mapping[str, Any], seat: int, options: Mapping[str, Any]
    ) -> dict[int, float]:
        """The probability of each card of the hand: a pure function of the view and options."""
        filled = options_filled(self.options_schema, options)
        hand = list(view["hand"])
        if len(hand) == 1:
            return {hand[0]: 1.0}
        rules = rules_seen(view, filled)
        stock = tuple(view["remaining_prizes"])
        pot = sum(view["pot"])
        others = other_hands(view, seat)
        if len(others) == 1 and len(hand) <= filled["exact_cards"]:
            scores = view["scores"]
            pattern, cards = gops_solver.pattern_of(hand, others[0])
            solver = solver_for(rules)
            diff = solver.clip(stock, pot, scores[seat] - scores[1 - seat])
            _, strategy = solver.solve(pattern, stock, pot, diff)
        else:
            # Three players: the highest competing bid decides, so the two other hands are
            # folded into one holding, rank by rank, the higher of their cards.
            rival = [max(pair) for pair in zip(*(sorted(h) for h in others), strict=True)]
            pattern, cards = gops_solver.pattern_of(hand, rival)
            matrix = gops_solver.estimated_matrix(pattern, cards, stock, pot, rules)
            _, strategy = gops_solver.solve_matrix(matrix)
        mine = gops_solver.positions(pattern, gops_solver.MINE)
        return {cards[i]: round(p, 12) for i, p in zip(mine, strategy, strict=True)}


def options_filled(schema: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    defaults = {key: spec["default"] for key, spec in schema["properties"].items()}
    return defaults | dict(options)


def rules_seen(view: Mapping[str, Any], options: Mapping[str, Any]) -> gops_solver.Rules:
    """The rules as the bot's options give them, corrected by any tie already resolved."""
    carry = options["tie_rule"] != "discard"
    for turn in view["history"]:
        if turn["outcome"] == "carried":
            carry = True
        elif turn["outcome"] == "discarded" and turn["step"] < view["turns"]:
            carry = False
    return gops_solver.Rules(carry=carry, to_leader=options["final_tie"] == "to_game_winner")


def other_hands(view: Mapping[str, Any], seat: int) -> list[list[int]]:
    """The other seats' hands, which follow from the public bids."""
    players = len(view["scores"])
    full = set(range(1, int(view["turns"]) + 1))
    hands = []
    for other in range(players):
        if other != seat:
            spent = {turn["bids"][other] for turn in view["history"]}
            hands.append(sorted(full - spent))
    return hands


_SOLVERS: dict[gops_solver.Rules, gops_solver.Solver] = {}


def solver_for(rules: gops_solver.Rules) -> gops_solver.Solver:
    """One solver per set of rules per process: its cache is shared by every match."""
    solver = _SOLVERS.get(rules)
    if solver is None:
        solver = _SOLVERS[rules] = gops_solver.Solver(rules)
    return solver
