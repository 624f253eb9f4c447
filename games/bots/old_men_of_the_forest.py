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
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.bots.base import BaseBot, BotContext, Decision
from games.engine.protocol import Move

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
