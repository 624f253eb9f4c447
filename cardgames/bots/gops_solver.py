"""Equilibrium play for two-player GOPS: the exact subgame recursion and its approximation.

The state of a two-player GOPS game, as both players know it, is (my hand, the other hand,
the prizes still in the stock, the pot's total, the score difference); only the order of the
stock is hidden, and it is uniformly random. Each turn is a zero-sum matrix game whose payoff
is what the pot moves now plus the expected value of the next state over the next prize, so
the game is solved backwards: one matrix game per state, solved as a linear programme by HiGHS
(``scipy.optimize.linprog``), every state's value cached.

Who wins a turn depends only on how the two bids compare, so the hands are kept as their
*pattern*: the union of both hands in ascending order, each card marked as mine (1), the
other's (2) or both (3). States with the same pattern, prizes, pot and score difference are
one state, whatever the card values; swapping the players negates the value.

Above the exact horizon the turn is still solved as a matrix game, with the next state's value
estimated by ``estimate``: hands and prizes matched rank by rank, fitted to exact values.

Payoffs are margins (my points minus the other's), the measure the arena and the exploitability
script use. The score difference matters only under ``final_tie = to_game_winner`` with a tie
rule that carries the pot; elsewhere it is dropped from the state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

Pattern = tuple[int, ...]
MINE, THEIRS, BOTH = 1, 2, 3

#: The fitted scale and softness of the rank-matched value estimate (``estimate``).
ESTIMATE_SCALE = 1.81
SOFTNESS = 8.0


@dataclass(frozen=True)
class Rules:
    """The two rules that change a two-player game's values."""

    carry: bool  # a tie for highest carries the pot over (``penguin`` and ``carry``)
    to_leader: bool  # a tied last turn goes to the leader (``final_tie = to_game_winner``)

    @property
    def needs_difference(self) -> bool:
        return self.carry and self.to_leader


def pattern_of(mine: Sequence[int], theirs: Sequence[int]) -> tuple[Pattern, list[int]]:
    """The pattern of two hands and the card at each of its positions."""
    a, b = set(mine), set(theirs)
    cards = sorted(a | b)
    return tuple((MINE if c in a else 0) | (THEIRS if c in b else 0) for c in cards), cards


def swapped(pattern: Pattern) -> Pattern:
    return tuple(((code & MINE) << 1) | ((code & THEIRS) >> 1) for code in pattern)


def without(pattern: Pattern, i: int, j: int) -> Pattern:
    """The pattern after I bid at position ``i`` and the other at position ``j``."""
    codes = list(pattern)
    codes[i] &= ~MINE
    codes[j] &= ~THEIRS
    return tuple(code for code in codes if code)


def positions(pattern: Pattern, owner: int) -> list[int]:
    return [i for i, code in enumerate(pattern) if code & owner]


def solve_matrix(matrix: Sequence[Sequence[float]]) -> tuple[float, list[float]]:
    """The value of a zero-sum matrix game for the row player and an optimal row strategy.

    A saddle point is read off directly; otherwise the game's linear programme is solved by a
    small dense simplex (the classical tableau for matrix games) in plain Python, exact up to
    rounding and far faster than a solver call on these 2 to 13 row games, which are solved
    thousands of times per decision. Should it not converge (it never has), HiGHS solves the
    same programme (``solve_matrix_highs``); the tests check the two agree.
    """
    rows = len(matrix)
    row_min = [min(row) for row in matrix]
    col_max = [max(column) for column in zip(*matrix, strict=True)]
    lower, upper = max(row_min), min(col_max)
    if upper - lower <= 1e-12:  # a saddle point: a pure strategy is optimal
        strategy = [0.0] * rows
        strategy[row_min.index(lower)] = 1.0
        return lower, strategy
    solved = _simplex(matrix)
    return solved if solved is not None else solve_matrix_highs(matrix)


def _simplex(matrix: Sequence[Sequence[float]]) -> tuple[float, list[float]] | None:
    """Column player's programme on the shifted game A = M + shift > 0: maximise sum y subject
    to A y <= 1, y >= 0. Its optimum is 1 / value(A); the row player's strategy is its dual."""
    rows, cols = len(matrix), len(matrix[0])
    shift = 1.0 - min(min(row) for row in matrix)
    width = cols + rows + 1
    tableau = []
    for r, row in enumerate(matrix):
        line = [value + shift for value in row] + [0.0] * rows + [1.0]
        line[cols + r] = 1.0
        tableau.append(line)
    objective = [-1.0] * cols + [0.0] * (rows + 1)
    basis = list(range(cols, cols + rows))
    for _ in range(10 * (rows + cols)):
        entering = min(range(width - 1), key=objective.__getitem__)
        if objective[entering] >= -1e-12:
            total = objective[-1]
            strategy = [max(0.0, objective[cols + r]) for r in range(rows)]
            mass = sum(strategy)
            if total <= 0 or mass <= 0:
                return None
            return 1.0 / total - shift, [x / mass for x in strategy]
        leaving, best = -1, 0.0
        for r in range(rows):
            coefficient = tableau[r][entering]
            if coefficient > 1e-12:
                ratio = tableau[r][-1] / coefficient
                if (
                    leaving < 0
                    or ratio < best - 1e-12
                    or (ratio <= best + 1e-12 and basis[r] < basis[leaving])
                ):
                    leaving, best = r, ratio
        if leaving < 0:
            return None
        pivot = tableau[leaving]
        scale = pivot[entering]
        pivot = [value / scale for value in pivot]
        tableau[leaving] = pivot
        for r in range(rows):
            factor = tableau[r][entering]
            if r != leaving and factor:
                tableau[r] = [a - factor * b for a, b in zip(tableau[r], pivot, strict=True)]
        factor = objective[entering]
        objective = [a - factor * b for a, b in zip(objective, pivot, strict=True)]
        basis[leaving] = entering
    return None


def solve_matrix_highs(matrix: Sequence[Sequence[float]]) -> tuple[float, list[float]]:
    """The same game solved by HiGHS (``scipy.optimize.linprog``): the reference solver."""
    game = np.asarray(matrix, dtype=float)
    rows, cols = game.shape
    # maximise v subject to: for every column j, sum_i x_i M_ij >= v; sum x = 1; x >= 0.
    cost = np.zeros(rows + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-game.T, np.ones((cols, 1))])
    a_eq = np.ones((1, rows + 1))
    a_eq[0, -1] = 0.0
    bounds = [(0.0, None)] * rows + [(None, None)]
    result = linprog(
        cost, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs"
    )
    if result.status != 0:  # pragma: no cover - HiGHS solves every bounded matrix game
        raise RuntimeError(f"matrix game not solved: {result.message}")
    strategy = np.clip(result.x[:rows], 0.0, None)
    return float(-result.fun), [float(x) for x in strategy / strategy.sum()]


def estimate(pattern: Pattern, cards: Sequence[int], prizes: Sequence[float]) -> float:
    """Estimated margin still to come, ``prizes`` being the values left to contest.

    Both hands and the prizes are ranked and matched rank by rank: the r-th highest prize goes
    to whoever holds the higher r-th highest card, softened by ``tanh(difference / SOFTNESS)``
    and scaled by ``ESTIMATE_SCALE``. The scale is the least-squares fit to exact values of
    4- and 5-card states reached in play (R^2 = 0.87); the softness was chosen among 1 … 12
    by arena play on a tuning seed (a softer estimate keeps more cards in reserve; docs/bots.md).
    """
    mine = sorted((cards[i] for i in positions(pattern, MINE)), reverse=True)
    theirs = sorted((cards[i] for i in positions(pattern, THEIRS)), reverse=True)
    ranked = sorted(prizes, reverse=True)
    return ESTIMATE_SCALE * sum(
        prize * math.tanh((a - b) / SOFTNESS)
        for a, b, prize in zip(mine, theirs, ranked, strict=True)
    )


@dataclass
class Solver:
    """The exact values of two-player GOPS states under one set of rules, cached."""

    rules: Rules
    max_states: int = 2_000_000
    values: dict[tuple[Pattern, tuple[int, ...], int, int], float] = field(default_factory=dict)

    def value(self, pattern: Pattern, stock: tuple[int, ...], pot: int, diff: int) -> float:
        """My expected margin from here on (excluding ``diff``, the margin so far)."""
        diff = self.clip(stock, pot, diff)
        key = (pattern, stock, pot, diff)
        known = self.values.get(key)
        if known is not None:
            return known
        value, _ = self.solve(pattern, stock, pot, diff)
        if len(self.values) >= self.max_states:
            self.values.clear()
        self.values[key] = value
        self.values[(swapped(pattern), stock, pot, -diff)] = -value
        return value

    def clip(self, stock: tuple[int, ...], pot: int, diff: int) -> int:
        """The score difference as far as it matters: not at all, or up to what is left."""
        if not self.rules.needs_difference:
            return 0
        reach = pot + sum(stock) + 1
        return max(-reach, min(reach, diff))

    def solve(
        self, pattern: Pattern, stock: tuple[int, ...], pot: int, diff: int
    ) -> tuple[float, list[float]]:
        """The value of this state and my optimal strategy over my positions in ``pattern``."""
        return solve_matrix(self.matrix(pattern, stock, pot, diff))

    def matrix(
        self, pattern: Pattern, stock: tuple[int, ...], pot: int, diff: int
    ) -> list[list[float]]:
        mine, theirs = positions(pattern, MINE), positions(pattern, THEIRS)
        if not stock:  # the last turn: only the comparison counts
            lead = (diff > 0) - (diff < 0) if self.rules.needs_difference else 0
            return [
                [float(pot if i > j else -pot if i < j else lead * pot) for j in theirs]
                for i in mine
            ]
        draws = [(stock[:k] + stock[k + 1 :], prize) for k, prize in enumerate(stock)]
        share = 1.0 / len(stock)
        known = self.values.get
        solve = self.value
        keep_diff = self.rules.needs_difference
        carry = pot if self.rules.carry else 0
        matrix = []
        for i in mine:
            row = []
            for j in theirs:
                now = pot if i > j else -pot if i < j else 0
                carried = carry if i == j else 0
                rest = without(pattern, i, j)
                total = 0.0
                if keep_diff:
                    for left, prize in draws:
                        total += solve(rest, left, carried + prize, diff + now)
                else:
                    for left, prize in draws:
                        value = known((rest, left, carried + prize, 0))
                        total += (
                            value if value is not None else solve(rest, left, carried + prize, 0)
                        )
                row.append(now + total * share)
            matrix.append(row)
        return matrix


def estimated_matrix(
    pattern: Pattern, cards: Sequence[int], stock: tuple[int, ...], pot: int, rules: Rules
) -> list[list[float]]:
    """This turn's payoffs with the rest of the game estimated (``estimate``)."""
    mine, theirs = positions(pattern, MINE), positions(pattern, THEIRS)
    matrix = [[0.0] * len(theirs) for _ in mine]
    for r, i in enumerate(mine):
        for c, j in enumerate(theirs):
            if i > j:
                now, bonus = float(pot), 0.0
            elif i < j:
                now, bonus = -float(pot), 0.0
            else:  # a carried pot is contested again, spread over the prizes left
                now, bonus = 0.0, float(pot) if rules.carry and stock else 0.0
            rest = without(pattern, i, j)
            prizes = [prize + bonus / len(stock) for prize in stock] if stock else []
            matrix[r][c] = now + estimate(rest, _cards_after(pattern, cards, i, j), prizes)
    return matrix


def _cards_after(pattern: Pattern, cards: Sequence[int], i: int, j: int) -> list[int]:
    """The card values of ``without(pattern, i, j)``'s positions."""
    result = []
    for k, code in enumerate(pattern):
        if k == i:
            code &= ~MINE
        if k == j:
            code &= ~THEIRS
        if code:
            result.append(cards[k])
    return result
