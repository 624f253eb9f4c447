"""Exact end-of-deal search for the Xato ``expert``.

Once every card's owner is known, the cards of a seat are interchangeable: what matters is how
many hand and life cards each seat holds. So the rest of the deal is a small game over counts
(per seat: hand cards, life cards, out or not, sacrificed or not, calls made), the scores and
the seat on turn. The others are modelled as calling a card of their intended target (which
of its cards is a life card is a uniform chance, as it is for everyone who cannot see life
cards) and always sacrificing when they may; the searching seat maximizes its expected share
of the win, a tiny weight on its margin breaking ties. The work is bounded by ``budget``
positions: beyond it the search gives up (:class:`OutOfBudget`) and the caller decides
otherwise. No randomness: the same inputs give the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

_HIT, _KILL, _MISS, _CRIT = 5, (10, 20), -3, (3, 6)

#: A seat: (hand cards, life cards, out, sacrificed, calls made).
SeatCounts = tuple[int, int, bool, bool, int]


class OutOfBudget(Exception):
    """The search met more positions than its budget allows."""


@dataclass(frozen=True)
class Option:
    """One choice of the searching seat: call a card of ``seat`` (``own`` = its own hand
    card), or on a sacrifice step ``sacrifice`` yes or no; ``value`` = expected win share."""

    kind: str
    seat: int
    value: float


class Endgame:
    def __init__(
        self, me: int, players: int, starting_hand: int, direction: int, budget: int
    ) -> None:
        self.me, self.n, self.start_hand = me, players, starting_hand
        self.direction, self.budget = direction, budget
        self.memo: dict[tuple[object, ...], float] = {}
        self.nodes = 0

    # --- rules over counts ----------------------------------------------------------------

    def target(self, seats: Sequence[SeatCounts], caller: int) -> int:
        right = [(caller - k) % self.n for k in range(1, self.n)]
        candidates = [s for s in right if not seats[s][2]]
        return candidates[seats[caller][4] % len(candidates)]

    def next_turn(self, seats: Sequence[SeatCounts], caller: int) -> int:
        for k in range(1, self.n + 1):
            other = (caller + self.direction * k) % self.n
            if not seats[other][2]:
                return other
        return caller

    def terminal(self, seats: Sequence[SeatCounts], scores: Sequence[int]) -> float | None:
        active = sum(1 for s in seats if not s[2])
        if active >= 2 and any(s[0] or s[1] for s in seats):
            return None
        mine = scores[self.me]
        best_other = max(v for i, v in enumerate(scores) if i != self.me)
        top = max(scores)
        share = 1.0 / sum(1 for v in scores if v == top) if mine == top else 0.0
        return share + 1e-4 * (mine - best_other)

    # --- search ---------------------------------------------------------------------------

    def value(self, seats: tuple[SeatCounts, ...], scores: tuple[int, ...], turn: int) -> float:
        """The searching seat's expected win share with ``turn`` about to call."""
        key = (seats, scores, turn)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise OutOfBudget
        if turn == self.me:
            result = max(option.value for option in self.call_options(seats, scores))
        else:
            result = self.chance_call(seats, scores, turn, self.target(seats, turn))
        self.memo[key] = result
        return result

    def call_options(self, seats: tuple[SeatCounts, ...], scores: tuple[int, ...]) -> list[Option]:
        """Every call the searching seat may make that can score, with its value."""
        me = self.me
        target = self.target(seats, me)
        options = []
        for s in range(self.n):
            if s == me or seats[s][2] or not (seats[s][0] or seats[s][1]):
                continue
            options.append(Option("seat", s, self.chance_call(seats, scores, me, s, target)))
        if seats[me][0]:
            options.append(Option("own", me, self.own_call(seats, scores)))
        return options

    def chance_call(
        self,
        seats: tuple[SeatCounts, ...],
        scores: tuple[int, ...],
        caller: int,
        victim: int,
        target: int | None = None,
    ) -> float:
        """``caller`` calls a card of ``victim`` (a life card with the chance the counts
        give)."""
        if target is None:
            target = victim
        hand, life = seats[victim][0], seats[victim][1]
        total = hand + life
        value = 0.0
        if life:
            value += life / total * self.resolve(seats, scores, caller, victim, target, True)
        if hand:
            value += hand / total * self.resolve(seats, scores, caller, victim, target, False)
        return value

    def own_call(self, seats: tuple[SeatCounts, ...], scores: tuple[int, ...]) -> float:
        me = self.me
        h, life, out, sac, calls = seats[me]
        after = list(seats)
        after[me] = (h - 1, life, out, sac, calls + 1)
        points = list(scores)
        points[me] += _MISS
        return self.after_call(tuple(after), tuple(points), me)

    def resolve(
        self,
        seats: tuple[SeatCounts, ...],
        scores: tuple[int, ...],
        caller: int,
        victim: int,
        target: int,
        on_life: bool,
    ) -> float:
        after = list(seats)
        h, life, out, sac, calls = after[caller]
        after[caller] = (h, life, out, sac, calls + 1)
        h, life, out, sac, calls = after[victim]
        points = list(scores)
        if not on_life:
            after[victim] = (h - 1, life, out, sac, calls)
            points[caller] += _HIT if victim == target else _MISS
            return self.after_call(tuple(after), tuple(points), caller)
        life -= 1
        table = _KILL if victim == target else _CRIT
        points[caller] += table[1 if life == 0 else 0]
        if life:
            after[victim] = (h, life, out, sac, calls)
            return self.after_call(tuple(after), tuple(points), caller)
        if not sac and 2 * h > self.start_hand:
            kept = list(after)
            kept[victim] = (h - 1, 1, False, True, calls)
            keep = self.after_call(tuple(kept), tuple(points), caller)
            if victim != self.me:
                return keep  # the others always sacrifice
            after[victim] = (0, 0, True, True, calls)
            return max(keep, self.after_call(tuple(after), tuple(points), caller))
        after[victim] = (0, 0, True, sac, calls)
        return self.after_call(tuple(after), tuple(points), caller)

    def after_call(
        self, seats: tuple[SeatCounts, ...], scores: tuple[int, ...], caller: int
    ) -> float:
        done = self.terminal(seats, scores)
        if done is not None:
            return done
        return self.value(seats, scores, self.next_turn(seats, caller))

    def sacrifice_options(
        self, seats: tuple[SeatCounts, ...], scores: tuple[int, ...], caller: int
    ) -> list[Option]:
        """The searching seat's sacrifice step (its life count is 0): keep playing with one
        hand card as its life card, or be out."""
        me = self.me
        h, _, _, _, calls = seats[me]
        kept, out = list(seats), list(seats)
        kept[me] = (h - 1, 1, False, True, calls)
        out[me] = (0, 0, True, True, calls)
        return [
            Option("sacrifice", me, self.after_call(tuple(kept), scores, caller)),
            Option("decline", me, self.after_call(tuple(out), scores, caller)),
        ]
