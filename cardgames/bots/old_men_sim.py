"""A fast playout of the rest of one Old Men of the Forest game, for the ``expert``'s rollouts.

The engine's rules for play, take and cash-in on small integers, with every seat played by the
``greedy`` rules (``cardgames/bots/old_men_of_the_forest.py``). A card is ``value * 8 + kind``
(kind 0 deforestation, 1-4 red, blue, yellow, green), so sorting codes sorts by value with a
deforestation card below the coloured cards of its value, the greedy rules' order. A collection
is only counted (cards per colour, deforestation cards, all cards): which cards a cash-in hands
in never changes a score, so the playout does not track them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from cardgames.engines.old_men_of_the_forest import ORANGUTANS, TRICKS

#: How much a deforestation card in the collection is held against a take (greedy's rule).
DEFORESTATION_COST = 3.0
#: How much any other card that does not help is held against a take (greedy's rule).
USELESS_COST = 1.0

_KIND = {"X": 0, "R": 1, "B": 2, "Y": 3, "G": 4}

Have = tuple[int, int, int, int]


def code(card: str) -> int:
    """The playout's integer for a card code such as ``"Y8"``."""
    return int(card[1:]) * 8 + _KIND[card[0]]


_NAMES: dict[int, str] = {code(f"{c}{v}"): f"{c}{v}" for c in _KIND for v in range(1, 11)}


def name(card: int) -> str:
    """The card code of a playout integer."""
    return _NAMES[card]


#: Orang-utan id → points.
POINTS: dict[str, int] = {ident: int(card["points"]) for ident, card in ORANGUTANS.items()}
#: Orang-utan id → its requirement as counts of R, B, Y, G.
NEED: dict[str, Have] = {
    ident: (
        int(card["requires"].get("R", 0)),
        int(card["requires"].get("B", 0)),
        int(card["requires"].get("Y", 0)),
        int(card["requires"].get("G", 0)),
    )
    for ident, card in ORANGUTANS.items()
}

#: (orang-utan, colour counts) → its points discounted by the cards still missing.
_ONE: dict[tuple[str, Have], float] = {}


def _one(ident: str, have: Have) -> float:
    key = (ident, have)
    found = _ONE.get(key)
    if found is None:
        gap = sum(n - h for n, h in zip(NEED[ident], have, strict=True) if n > h)
        found = POINTS[ident] / (1 + gap) ** 1.5
        _ONE[key] = found
    return found


#: (colour counts, layout) → [greedy's ``reach``, its cash-in offer, its take gains or None].
_READ: dict[tuple[Have, tuple[str, ...]], list[Any]] = {}


def _entry(have: Have, layout: tuple[str, ...]) -> list[Any]:
    key = (have, layout)
    found = _READ.get(key)
    if found is not None:
        return found
    best = 0.0
    offer: str | None = None
    for ident in layout:
        value = _one(ident, have)
        if value > best:
            best = value
        # Affordable exactly when nothing is missing (the value is the full points).
        if value == POINTS[ident] and (offer is None or value > POINTS[offer]):
            offer = ident
    if len(_READ) > 1 << 17:
        _READ.clear()
    found = [best, offer, None]
    _READ[key] = found
    return found


def read(have: Have, layout: tuple[str, ...]) -> tuple[float, str | None]:
    """``reach`` of a collection with these colour counts, and the orang-utan greedy cashes in
    for (the first most valuable affordable one of the layout, or ``None``). Cached."""
    found = _entry(have, layout)
    return found[0], found[1]


def gains(have: Have, layout: tuple[str, ...]) -> list[float]:
    """Greedy's ``take_gain`` for a collection with these colour counts, of a card of each
    kind (index ``card & 7``). Cached."""
    found = _entry(have, layout)
    table: list[float] | None = found[2]
    if table is None:
        table = [-DEFORESTATION_COST]
        for kind in (1, 2, 3, 4):
            delta = _entry(_plus(have, kind), layout)[0] - found[0]
            table.append(delta if delta > 0 else delta - USELESS_COST)
        found[2] = table
    return table


def _taker(seat: int | None) -> int:
    return -1 if seat is None else seat


def _plus(have: Have, kind: int) -> Have:
    counts = list(have)
    counts[kind - 1] += 1
    return (counts[0], counts[1], counts[2], counts[3])


def gain(have: Have, card: int, layout: tuple[str, ...]) -> float:
    """Greedy's ``take_gain`` of ``card`` for a collection with these colour counts."""
    return gains(have, layout)[card & 7]


class Playout:
    """The rest of one game from a seat's view and a guess at the hidden cards."""

    __slots__ = (
        "banked",
        "current",
        "deck",
        "extra",
        "hands",
        "have",
        "layout",
        "phase",
        "players",
        "ranked",
        "rng",
        "sizes",
        "takers",
        "trick",
        "trick_number",
        "xs",
    )

    def __init__(
        self,
        view: Mapping[str, Any],
        hands: Sequence[Sequence[int]],
        deck: Sequence[str],
        rng: random.Random,
    ) -> None:
        players = len(hands)
        self.players = players
        self.rng = rng
        self.hands = [sorted(hand) for hand in hands]
        self.deck = list(deck)
        self.layout = tuple(entry["id"] for entry in view["layout"])
        self.extra = 2 if view.get("deforestation_penalty", "additional") == "additional" else 1
        self.have: list[Have] = []
        self.xs: list[int] = []
        self.sizes: list[int] = []
        for cards in view["collections"]:
            counts = [0, 0, 0, 0, 0]
            for card in cards:
                counts[_KIND[card[0]]] += 1
            self.have.append((counts[1], counts[2], counts[3], counts[4]))
            self.xs.append(counts[0])
            self.sizes.append(len(cards))
        self.banked = [0] * players
        for seat, won in enumerate(view["won"]):
            for entry in won:
                under = entry["under"]
                penalty = len(under) + self.extra * sum(1 for c in under if c[0] == "X")
                self.banked[seat] += int(entry["points"]) - penalty
        self.trick: list[list[int]] = [
            [entry["seat"], code(entry["card"]), _taker(entry["taken_by"])]
            for entry in view["trick"]
        ]
        self.ranked: list[int] = list(view["ranked"])
        self.phase = str(view["phase"])
        self.current = int(view["current"])
        self.trick_number = int(view["trick_number"])
        taken = {entry["taken_by"] for entry in view["trick"] if entry["taken_by"] is not None}
        self.takers = [s for s in self.ranked if s not in taken and s != self.current]

    def scores(self) -> list[int]:
        return [
            self.banked[s] - self.sizes[s] - self.extra * self.xs[s] for s in range(self.players)
        ]

    # --- the rules ---------------------------------------------------------------------------

    def play(self, card: int) -> None:
        seat = self.current
        self.hands[seat].remove(card)
        self.trick.append([seat, card, -1])
        if len(self.trick) < self.players:
            self.current = (seat + 1) % self.players
            return
        # Higher value first; on equal values the earlier play (value = code >> 3).
        first = second = -1
        first_seat = second_seat = -1
        for entry in self.trick:
            value = entry[1] >> 3
            if value > first:
                second, second_seat = first, first_seat
                first, first_seat = value, entry[0]
            elif value > second:
                second, second_seat = value, entry[0]
        self.ranked = [first_seat, second_seat]
        self.takers = [self.ranked[1]]
        self.phase, self.current = "take", self.ranked[0]

    def take(self, card: int) -> None:
        seat = self.current
        for entry in self.trick:
            if entry[1] == card and entry[0] != seat and entry[2] < 0:
                entry[2] = seat
                break
        kind = card & 7
        if kind == 0:
            self.xs[seat] += 1
        else:
            self.have[seat] = _plus(self.have[seat], kind)
        self.sizes[seat] += 1
        if read(self.have[seat], self.layout)[1] is not None:
            self.phase = "cash_in"
        else:
            self._next_taker()

    def cash_in(self, ident: str | None) -> None:
        seat = self.current
        if ident is not None:
            left = self.sizes[seat] - sum(NEED[ident])
            self.banked[seat] += POINTS[ident] - left - self.extra * self.xs[seat]
            self.have[seat] = (0, 0, 0, 0)
            self.xs[seat] = 0
            self.sizes[seat] = 0
            self.layout = tuple(i for i in self.layout if i != ident)
        self._next_taker()

    def _next_taker(self) -> None:
        if self.takers:
            self.current = self.takers.pop(0)
            self.phase = "take"
            return
        if len(self.layout) < self.players + 1 and self.deck:
            layout = list(self.layout)
            while len(layout) < self.players + 1 and self.deck:
                layout.append(self.deck.pop(0))
            self.layout = tuple(layout)
        self.current = self.ranked[0]
        self.trick, self.ranked, self.takers = [], [], []
        if self.trick_number >= TRICKS or not self.hands[self.current]:
            self.phase = "over"
            return
        self.trick_number += 1
        self.phase = "play"

    def eligible(self) -> list[int]:
        seat = self.current
        return [entry[1] for entry in self.trick if entry[0] != seat and entry[2] < 0]

    def offer(self) -> str | None:
        """The orang-utan greedy cashes in for (the current seat may cash in)."""
        return read(self.have[self.current], self.layout)[1]

    # --- greedy for every seat ---------------------------------------------------------------

    def greedy_choice(self) -> int | str | None:
        """The greedy rules' move for the seat on turn: a card to play or take (as an integer),
        or the orang-utan to cash in for (``None``: none)."""
        seat = self.current
        if self.phase == "cash_in":
            return self.offer()
        if self.phase == "take":
            table = gains(self.have[seat], self.layout)
            best = -1e9
            picks: list[int] = []
            for card in self.eligible():
                score = table[card & 7]
                if score > best:
                    best, picks = score, [card]
                elif score == best:
                    picks.append(card)
            return picks[0] if len(picks) == 1 else self.rng.choice(picks)
        hand = self.hands[seat]
        top = hand[-1]
        first = second = 0
        for entry in self.trick:
            value = entry[1] >> 3
            if value > first:
                first, second = value, first
            elif value > second:
                second = value
        if (top >> 3) > second:
            table = gains(self.have[seat], self.layout)
            if any(table[entry[1] & 7] > 0 for entry in self.trick):
                return top
        return hand[0]

    def step(self, choice: int | str | None) -> None:
        """Apply a move of ``greedy_choice``'s form for the seat on turn."""
        if self.phase == "cash_in":
            assert not isinstance(choice, int)
            self.cash_in(choice)
        elif self.phase == "take":
            assert isinstance(choice, int)
            self.take(choice)
        else:
            assert isinstance(choice, int)
            self.play(choice)

    def finish(self) -> list[int]:
        while self.phase != "over":
            self.step(self.greedy_choice())
        return self.scores()
