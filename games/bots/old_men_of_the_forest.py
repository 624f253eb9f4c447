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
from functools import lru_cache
from typing import Any

from games.bots.base import BaseBot, BotContext, Decision, Observation
from games.engine.old_men_of_the_forest import CARDS, ORANGUTAN_IDS, ORANGUTANS, TRICKS
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


# --- expert --------------------------------------------------------------------------------------

#: Orang-utan id → (points, requirement), read once from the engine's data.
_OU: dict[str, tuple[int, dict[str, int]]] = {
    ident: (int(card["points"]), dict(card["requires"])) for ident, card in ORANGUTANS.items()
}

EXPERT_OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "samples": {
            "description": (
                "Deals of the unseen cards sampled per decision; each candidate move is "
                "played out to the end of the game once per sample (the work bound)."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 200,
            "default": 8,
        }
    },
    "additionalProperties": False,
}


_SLOT = {"R": 0, "B": 1, "Y": 2, "G": 3}
#: Orang-utan id → its requirement as counts of R, B, Y, G.
_NEED: dict[str, tuple[int, int, int, int]] = {
    ident: (req.get("R", 0), req.get("B", 0), req.get("Y", 0), req.get("G", 0))
    for ident, (_, req) in _OU.items()
}


def _have(collection: Sequence[str]) -> tuple[int, int, int, int]:
    counts = [0, 0, 0, 0]
    for card in collection:
        slot = _SLOT.get(card[0])
        if slot is not None:
            counts[slot] += 1
    return (counts[0], counts[1], counts[2], counts[3])


@lru_cache(maxsize=1 << 16)
def _reach_ids(have: tuple[int, int, int, int], layout: tuple[str, ...]) -> float:
    """``reach`` over colour counts and orang-utan ids (cached: playouts repeat them)."""
    best = 0.0
    for ident in layout:
        need = _NEED[ident]
        gap = sum(n - h for n, h in zip(need, have, strict=True) if n > h)
        best = max(best, _OU[ident][0] / (1 + gap) ** 1.5)
    return best


def _gain_ids(collection: Sequence[str], card: str, layout: Sequence[str]) -> float:
    """``take_gain`` over orang-utan ids (the playouts' greedy take)."""
    have = _have(collection)
    key = tuple(layout)
    before = _reach_ids(have, key)
    slot = _SLOT.get(card[0])
    if slot is None:
        return _reach_ids(have, key) - before - DEFORESTATION_COST
    after = list(have)
    after[slot] += 1
    gain = _reach_ids((after[0], after[1], after[2], after[3]), key) - before
    if gain <= 0:
        return gain - USELESS_COST
    return gain


class _Sim:
    """The rest of one game on a determinized deal, fast: the engine's rules for play, take
    and cash-in on plain lists, every seat played by the greedy rules above."""

    def __init__(
        self,
        view: Mapping[str, Any],
        hands: list[list[str]],
        deck: list[str],
        rng: random.Random,
    ) -> None:
        self.players = len(hands)
        self.rng = rng
        self.hands = hands
        self.deck = deck
        self.layout = [entry["id"] for entry in view["layout"]]
        self.colls = [list(cards) for cards in view["collections"]]
        self.deforest = 3 if view.get("deforestation_penalty", "additional") == "additional" else 2
        self.banked = [0] * self.players
        for seat, won in enumerate(view["won"]):
            for entry in won:
                self.banked[seat] += int(entry["points"]) - sum(
                    self._penalty(card) for card in entry["under"]
                )
        self.trick: list[list[Any]] = [
            [entry["seat"], entry["card"], entry["taken_by"]] for entry in view["trick"]
        ]
        self.ranked = list(view["ranked"])
        self.phase = str(view["phase"])
        self.current = int(view["current"])
        self.trick_number = int(view["trick_number"])
        # The ranked seats still to take: those of ``ranked`` that have taken nothing yet,
        # except the one on turn.
        taken = {entry[2] for entry in self.trick if entry[2] is not None}
        self.takers = [s for s in self.ranked if s not in taken and s != self.current]

    def _penalty(self, card: str) -> int:
        return self.deforest if card[0] == DEFORESTATION else 1

    def scores(self) -> list[int]:
        return [
            self.banked[s] - sum(self._penalty(card) for card in self.colls[s])
            for s in range(self.players)
        ]

    def affordable(self, seat: int) -> list[str]:
        have = _have(self.colls[seat])
        return [i for i in self.layout if all(n <= h for n, h in zip(_NEED[i], have, strict=True))]

    def eligible(self, seat: int) -> list[str]:
        return [e[1] for e in self.trick if e[0] != seat and e[2] is None]

    def apply(self, move: Move) -> None:
        seat = self.current
        if self.phase == "play":
            card = move["play"]
            self.hands[seat].remove(card)
            self.trick.append([seat, card, None])
            if len(self.trick) < self.players:
                self.current = (seat + 1) % self.players
                return
            order = sorted(range(len(self.trick)), key=lambda i: (-_value(self.trick[i][1]), i))
            self.ranked = [self.trick[i][0] for i in order[:2]]
            self.takers = [self.ranked[1]]
            self.phase, self.current = "take", self.ranked[0]
        elif self.phase == "take":
            card = move["take"]
            for entry in self.trick:
                if entry[1] == card:
                    entry[2] = seat
            self.colls[seat].append(card)
            if self.affordable(seat):
                self.phase = "cash_in"
            else:
                self._next_taker()
        else:
            choice = move["cash_in"]
            if choice is not None:
                ident = choice["orangutan"]
                points, requires = _OU[ident]
                left = list(self.colls[seat])
                for colour, count in requires.items():
                    mine = sorted((c for c in left if c[0] == colour), key=_value)[:count]
                    for card in mine:
                        left.remove(card)
                self.banked[seat] += points - sum(self._penalty(card) for card in left)
                self.colls[seat] = []
                self.layout.remove(ident)
            self._next_taker()

    def _next_taker(self) -> None:
        if self.takers:
            self.current = self.takers.pop(0)
            self.phase = "take"
            return
        while len(self.layout) < self.players + 1 and self.deck:
            self.layout.append(self.deck.pop(0))
        self.current = self.ranked[0]
        self.trick, self.ranked, self.takers = [], [], []
        if self.trick_number >= TRICKS or not self.hands[self.current]:
            self.phase = "over"
            return
        self.trick_number += 1
        self.phase = "play"

    def greedy_move(self) -> Move:
        seat = self.current
        if self.phase == "cash_in":
            offers = self.affordable(seat)
            return {"cash_in": {"orangutan": max(offers, key=lambda i: _OU[i][0])}}
        if self.phase == "take":
            cards = self.eligible(seat)
            scored = [(_gain_ids(self.colls[seat], card, self.layout), card) for card in cards]
            best = max(score for score, _ in scored)
            return {"take": self.rng.choice([card for score, card in scored if score == best])}
        hand = self.hands[seat]
        table = [entry[1] for entry in self.trick]
        useful = any(_gain_ids(self.colls[seat], card, self.layout) > 0 for card in table)
        top = max(hand, key=lambda card: (_value(card), card[0] != DEFORESTATION))
        values = sorted((_value(card) for card in table), reverse=True)
        second = values[1] if len(values) > 1 else 0
        if useful and _value(top) > second:
            return {"play": top}
        return {"play": min(hand, key=lambda card: (_value(card), card[0] != DEFORESTATION))}

    def finish(self) -> list[int]:
        while self.phase != "over":
            self.apply(self.greedy_move())
        return self.scores()


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
        """For each legal move, the mean utility of playing it and then every seat playing
        greedily to the end of the game, over ``samples`` deals of the unseen cards to the
        other hands (and of the orang-utan deck), the same deals for every move."""
        memory = dict(ctx.memory)
        if len(ctx.legal_moves) == 1:
            return Decision(move=ctx.legal_moves[0], memory=memory)
        view, seat, rng = ctx.view, ctx.seat, ctx.rng
        seen = list(memory.get("seen", [])) if memory.get("game") == view.get("game") else []
        unseen = unseen_cards(view, seen)
        counts = list(view["hand_counts"])
        won = {entry["orangutan"] for won in view["won"] for entry in won}
        layout = {entry["id"] for entry in view["layout"]}
        deck_pool = [i for i in ORANGUTAN_IDS if i not in won and i not in layout]
        deck_size = int(view.get("orangutans_left", 0))
        samples = int(
            ctx.options.get("samples", EXPERT_OPTIONS["properties"]["samples"]["default"])
        )
        totals = [0.0] * len(ctx.legal_moves)
        for _ in range(samples):
            pool = list(unseen)
            rng.shuffle(pool)
            hands: list[list[str]] = []
            for s, size in enumerate(counts):
                if s == seat:
                    hands.append(list(view["hand"]))
                else:
                    hands.append(pool[:size])
                    pool = pool[size:]
            deck = list(deck_pool)
            rng.shuffle(deck)
            deck = deck[:deck_size]
            sim_seed = rng.random()
            for index, move in enumerate(ctx.legal_moves):
                sim = _Sim(view, [list(h) for h in hands], list(deck), random.Random(sim_seed))
                sim.apply(move)
                totals[index] += _utility(sim.finish(), seat)
        best = max(totals)
        choices = [m for m, total in zip(ctx.legal_moves, totals, strict=True) if total == best]
        return Decision(move=rng.choice(choices), memory=memory)
