"""CFR+ on OpenSpiel's own goofspiel: how close to an equilibrium it gets, for comparison with
``bench/gops_exploitability.py`` (which measures Facedown's bots the same way, in points).

    .venv/bin/python -m bench.openspiel_cfr --cards 4 --iterations 50
    .venv/bin/python -m bench.openspiel_cfr --cards 5 --order descending --iterations 50

Two players, ``imp_info`` on (each sees the bids only once revealed, as on Facedown), ties
discard the prize (Facedown's ``tie_rule: discard``), ``returns_type = point_difference`` (a
zero-sum game, so NashConv is twice the exploitability in points per game). goofspiel is a
simultaneous-move game; OpenSpiel's CFR walks turn-based games, so it is converted with
``convert_to_turn_based`` (the second mover does not see the first's bid: the same game).
The C++ solver runs through pyspiel: OpenSpiel's Python CFR took ten times as long here.
Random prize orders with 5 cards make a tree too large for a quick run here; 4 cards take a
few seconds on the 2-core test machine, 5 cards in descending order about as long.
"""

from __future__ import annotations

import argparse
import time

import pyspiel


def solve(cards: int, order: str, iterations: int, report_every: int) -> None:
    game = pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": cards,
            "players": 2,
            "points_order": order,
            "imp_info": True,
            "returns_type": "point_difference",
        },
    )
    turn_based = pyspiel.convert_to_turn_based(game)
    solver = pyspiel.CFRPlusSolver(turn_based)
    began = time.perf_counter()
    for iteration in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if iteration % report_every == 0 or iteration == iterations:
            nash_conv = pyspiel.nash_conv(turn_based, solver.average_policy())
            print(
                f"{iteration:5d} iterations  NashConv {nash_conv:.4f}  "
                f"exploitability {nash_conv / 2:.4f} points/game  "
                f"{time.perf_counter() - began:.1f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--order", default="random", choices=("random", "descending", "ascending"))
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--report-every", type=int, default=10)
    arguments = parser.parse_args()
    solve(arguments.cards, arguments.order, arguments.iterations, arguments.report_every)


if __name__ == "__main__":
    main()
