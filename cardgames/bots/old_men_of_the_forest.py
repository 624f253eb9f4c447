"""Old Men of the Forest bots. ``random`` plays a uniformly random legal move. ``greedy`` plays
for the orang-utans it can reach from its collection:

- take: the card that brings its collection closest to an orang-utan in the layout, weighted
  by points (``reach``), deforestation cards and useless cards counted against it;
- cash in: always when it can, for the most valuable affordable orang-utan;
- play: when a card on the table would help it, its highest card if that can still rank it
  1st or 2nd; otherwise its lowest card, deforestation cards first (a low card rarely ranks,
  so it is rarely made to take, and a dumped deforestation card hurts whoever takes it).

It reads only its seat's view (``layout`` with points and requirements, ``collections``,
``trick``, ``hand``) and keeps no memory.

``expert`` counts the cards played face up in this game (``observe``) and picks among its legal
moves by determinized playouts: the unseen cards dealt to the other hands and the orang-utan
deck shuffled, the rest of the game played with every seat on the greedy rules
(``cardgames/bots/old_men_sim.py``, a fast copy of the engine's rules), the budget of ``samples``
playouts per legal move spent by successive halving.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from cardgames.bots.base import BaseBot, BotContext, Decision, Observation
from cardgames.bots.old_men_sim import Playout, code
from cardgames.engines.old_men_of_the_forest import CARDS, ORANGUTAN_IDS, TRICKS
from cardgames.engines.protocol import Move

DEFORESTATION = "X"
#: How much a deforestation card in the collection is held against a take.
DEFORESTATION_COST = 3.0
#: How much any other card that does not help is held against a take.
USELESS_COST = 1.0


def _value(card: str) -> int:
    return int(card[1:])


def _colours(cards: Sequence[str]) -> Counter[str]:
    return Counter(card[0] for card in cards if card[0] != DEFORESTATION)


def missing(cards: Sequence[str], requires: Mapping[str, int]) -> int:
    """How many more cards of the required colours the collection needs."""
    have = _colours(cards)
    return sum(max(0, count - have[colour]) for colour, count in requires.items())


def reach(cards: Sequence[str], layout: Sequence[Mapping[str, Any]]) -> float:
    """How close the collection is to the orang-utans of the layout: the best of the points
    discounted by the cards still missing (an affordable one counts in full)."""
    best = 0.0
    for orangutan in layout:
        gap = missing(cards, orangutan["requires"])
        best = max(best, float(orangutan["points"]) / (1 + gap) ** 1.5)
    return best


def take_gain(collection: Sequence[str], card: str, layout: Sequence[Mapping[str, Any]]) -> float:
    """What taking ``card`` is worth to a collection (may be negative)."""
    gain = reach([*collection, card], layout) - reach(collection, layout)
    if card[0] == DEFORESTATION:
        return gain - DEFORESTATION_COST
    if gain <= 0:
        return gain - USELESS_COST
    return gain


class GreedyOldMenBot(BaseBot):
    name = "greedy"

    def choose(self, ctx: BotContext) -> Decision:
        seat, view, legal_moves, rng = ctx.seat, ctx.view, ctx.legal_moves, ctx.rng
        kind = next(iter(legal_moves[0]))
        if kind == "cash_in":
            move = self._cash_in(view, legal_moves)
        elif kind == "take":
            move = self._take(seat, view, legal_moves, rng)
        else:
            move = self._play(seat, view, legal_moves, rng)
        return Decision(move=move, memory={})

    def _cash_in(self, view: Mapping[str, Any], legal_moves: list[Move]) -> Move:
        points = {entry["id"]: entry["points"] for entry in view.get("layout", [])}
        offers = [move for move in legal_moves if move["cash_in"] is not None]
        if not offers:
            return legal_moves[0]
        return max(offers, key=lambda move: points.get(move["cash_in"]["orangutan"], 0))

    def _take(
        self, seat: int, view: Mapping[str, Any], legal_moves: list[Move], rng: random.Random
    ) -> Move:
        collection: list[str] = list(view["collections"][seat])
        layout: list[Mapping[str, Any]] = view.get("layout", [])
        scored = [(take_gain(collection, move["take"], layout), move) for move in legal_moves]
        best = max(score for score, _ in scored)
        return rng.choice([move for score, move in scored if score == best])

    def _play(
        self, seat: int, view: Mapping[str, Any], legal_moves: list[Move], rng: random.Random
    ) -> Move:
        cards = [move["play"] for move in legal_moves]
        collection: list[str] = list(view["collections"][seat])
        layout: list[Mapping[str, Any]] = view.get("layout", [])
        table: list[str] = [entry["card"] for entry in view.get("trick", [])]
        useful = any(take_gain(collection, card, layout) > 0 for card in table)
        top = max(cards, key=lambda card: (_value(card), card[0] != DEFORESTATION))
        values = sorted((_value(card) for card in table), reverse=True)
        # Played later, a card must beat the table's 2nd-best value to rank 1st or 2nd.
        second = values[1] if len(values) > 1 else 0
        if useful and _value(top) > second:
            return {"play": top}
        low = min(cards, key=lambda card: (_value(card), card[0] != DEFORESTATION))
        return {"play": low}


# --- expert --------------------------------------------------------------------------------------

EXPERT_OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "samples": {
            "description": (
                "Playouts per legal move on the first trick (the work bound; later tricks, "
                "whose playouts are shorter, afford up to 20 times as many), spent by "
                "successive halving "
                "(every surviving move on the same fresh deals of the unseen cards, the "
                "worse half dropped each round)."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 200,
            "default": 8,
        }
    },
    "additionalProperties": False,
}


def unseen_cards(view: Mapping[str, Any], seen: Sequence[str]) -> list[str]:
    """The cards this seat cannot place: neither in its hand nor played in this game (the
    others' hands and the undealt cards, in canonical order)."""
    known = set(view.get("hand", [])) | set(seen)
    known |= {entry["card"] for entry in view["trick"]}
    for entry in view.get("history", []):
        if entry.get("game") == view["game"]:
            known |= {play["card"] for play in entry["plays"]}
    return [card for card in CARDS if card not in known]


def _utility(scores: Sequence[int], seat: int) -> float:
    """What a finished playout is worth to ``seat``: winning first, then the margin over the
    best other seat (a tie for the top counts half)."""
    best_other = max(score for s, score in enumerate(scores) if s != seat)
    mine = scores[seat]
    win = 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0
    return 10.0 * win + (mine - best_other)


class ExpertOldMenBot(BaseBot):
    """Card counting and determinized rollouts (see ``choose``)."""

    name = "expert"
    options_schema = EXPERT_OPTIONS

    def observe(self, obs: Observation) -> dict[str, Any]:
        """Count the cards played face up in this game (``seen``), from what each resolved
        step showed the seat."""
        game = obs.view.get("game")
        memory = dict(obs.memory)
        seen: list[str] = list(memory.get("seen", [])) if memory.get("game") == game else []
        for event in obs.events:
            if event.get("kind") == "play" and event.get("game") == game:
                card = event.get("card")
                if isinstance(card, str) and card not in seen:
                    seen.append(card)
        return {"game": game, "seen": seen}

    def choose(self, ctx: BotContext) -> Decision:
        """Successive halving over the legal moves within a budget of ``samples`` playouts per
        legal move (more in later tricks, whose playouts are shorter): each round plays every
        surviving move out on the same fresh deals of the unseen cards to the other hands (and
        of the orang-utan deck), every seat greedy to the end of the game, and keeps the better
        half by mean utility; the last two share the last round. The move with the best mean
        over all its deals is played."""
        memory = dict(ctx.memory)
        if len(ctx.legal_moves) == 1:
            return Decision(move=ctx.legal_moves[0], memory=memory)
        view, seat, rng = ctx.view, ctx.seat, ctx.rng
        seen = list(memory.get("seen", [])) if memory.get("game") == view.get("game") else []
        unseen = [code(card) for card in unseen_cards(view, seen)]
        mine = [code(card) for card in view["hand"]]
        counts = list(view["hand_counts"])
        won = {entry["orangutan"] for won in view["won"] for entry in won}
        layout = {entry["id"] for entry in view["layout"]}
        deck_pool = [i for i in ORANGUTAN_IDS if i not in won and i not in layout]
        deck_size = int(view.get("orangutans_left", 0))
        samples = int(
            ctx.options.get("samples", EXPERT_OPTIONS["properties"]["samples"]["default"])
        )

        def deal() -> tuple[list[list[int]], list[str], float]:
            pool = list(unseen)
            rng.shuffle(pool)
            hands: list[list[int]] = []
            at = 0
            for s, size in enumerate(counts):
                if s == seat:
                    hands.append(mine)
                else:
                    hands.append(pool[at : at + size])
                    at += size
            deck = list(deck_pool)
            rng.shuffle(deck)
            return hands, deck[:deck_size], rng.random()

        moves = ctx.legal_moves
        totals = [0.0] * len(moves)
        played = [0] * len(moves)
        alive = list(range(len(moves)))
        rounds = max(1, math.ceil(math.log2(len(moves))))
        # Later decisions play shorter games out, so they afford more playouts: the budget
        # grows as (10 // tricks left)², at most 20-fold, which keeps every decision's work
        # within that of the first trick's (measured: tricks 6-10 cost about as much as trick 1).
        tricks_left = max(1, TRICKS + 1 - int(view.get("trick_number", 1)))
        budget = samples * len(moves) * min(20, (TRICKS // tricks_left) ** 2)
        for round_number in range(rounds):
            per_move = max(1, budget // (rounds * len(alive)))
            if round_number == rounds - 1:
                per_move = max(per_move, (budget - sum(played)) // len(alive))
            for _ in range(per_move):
                hands, deck, sim_seed = deal()
                for index in alive:
                    playout = Playout(view, hands, deck, random.Random(sim_seed))
                    _apply(playout, moves[index])
                    totals[index] += _utility(playout.finish(), seat)
                    played[index] += 1
            if len(alive) > 2:
                alive.sort(key=lambda i: -totals[i] / played[i])
                alive = sorted(alive[: math.ceil(len(alive) / 2)])
        best = max(totals[i] / played[i] for i in alive)
        choices = [moves[i] for i in alive if totals[i] / played[i] == best]
        return Decision(move=rng.choice(choices), memory=memory)


def _apply(playout: Playout, move: Move) -> None:
    """Play one legal move of the engine's form in the playout."""
    if "play" in move:
        playout.play(code(move["play"]))
    elif "take" in move:
        playout.take(code(move["take"]))
    else:
        choice = move["cash_in"]
        playout.cash_in(None if choice is None else choice["orangutan"])
