"""A duplicate arena for two-player GOPS: one bot against each opponent, seats swapped on
every deal, the same prize order both times.

    python -m bench.gops_arena --deals 500 --cards 13 --bot expert --against random greedy match

``bench/arena.py`` does the same for any game and line-up; this one adds CPU times and the
shifts of ``bench.gops_rules``. Prints, per opponent, the bot's mean margin per game (points,
averaged over each deal's two games) with its 95% confidence interval, and its win rate (a
shared win counts a half). Opponents: the rules of ``bench.gops_rules``, the arena-only rules
of ``bench.strategies`` and the catalogue's GOPS bots.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.gops_rules import RULES
from bench.strategies import ARENA_BOTS
from cardgames.bots.base import Bot, BotContext
from cardgames.engines.gops import ENGINE
from cardgames.engines.rng import DealRng
from games.catalog import bots_of


def bot_named(name: str) -> Bot:
    """A rule of ``bench.gops_rules``, else an arena-only rule of ``bench.strategies``, else
    a catalogue bot."""
    if name in RULES:
        return RULES[name]
    return ARENA_BOTS["gops"].get(name) or bots_of("gops")[name]


def play(
    deal: int,
    names: list[str],
    options: Mapping[str, Any],
    seat_options: list[dict[str, Any]],
    timed: int,
) -> tuple[list[int], list[float]]:
    """One game: the scores and the CPU times of seat ``timed``'s decisions (seconds: CPU,
    not wall time, which on a shared machine measures the other load as well)."""
    rng = DealRng(random.Random(deal).randbytes(32), f"gops-arena-{deal}", [None, None])
    state = ENGINE.initial_state(2, options, rng)
    bots = [bot_named(name) for name in names]
    rngs = [random.Random(deal * 2 + seat) for seat in range(2)]
    memories: list[dict[str, Any]] = [{}, {}]
    times: list[float] = []
    while (acting := ENGINE.to_act(state)) is not None:
        moves = {}
        for seat in acting.seats:
            legal = ENGINE.legal_moves(state, seat)
            if len(legal) == 1:
                moves[seat] = legal[0]  # the forced last turn
                continue
            ctx = BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=legal,
                memory=memories[seat],
                options=seat_options[seat],
                rng=rngs[seat],
            )
            started = time.process_time()
            decision = bots[seat].choose(ctx)
            if seat == timed:
                times.append(time.process_time() - started)
            moves[seat] = decision.move
            memories[seat] = decision.memory
        state = ENGINE.apply(state, moves).state
    return ENGINE.scores(state), times


Job = tuple[int, str, str, dict[str, Any], dict[str, Any]]


def duplicate(job: Job) -> tuple[float, float, list[float]]:
    """One deal played twice, seats swapped: the bot's mean margin, its win share and the
    times of its decisions."""
    deal, bot, opponent, options, bot_options = job
    first, times = play(deal, [bot, opponent], options, [bot_options, {}], 0)
    second, more = play(deal, [opponent, bot], options, [{}, bot_options], 1)
    margins = [first[0] - first[1], second[1] - second[0]]
    wins = [1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins]
    return sum(margins) / 2, sum(wins) / 2, times + more


def interval(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1)
    return mean, 1.96 * math.sqrt(var / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--against", nargs="+", default=["random", "greedy", *RULES])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--cards", type=int, default=13)
    parser.add_argument("--tie-rule", default="penguin")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--bot-option", action="append", default=[], help="NAME=INTEGER, e.g. exact_cards=5"
    )
    args = parser.parse_args()
    options = {"num_cards": args.cards, "tie_rule": args.tie_rule}
    bot_options = {k: int(v) for k, v in (o.split("=", 1) for o in args.bot_option)}
    print(
        f"{args.bot} {bot_options or ''}, {args.cards} cards, tie_rule {args.tie_rule},"
        f" {args.deals} deals x 2, seed {args.seed}"
    )
    print(f"{'opponent':<10} {'margin':>8} {'95% CI':>18} {'win rate':>9}")
    all_times: list[float] = []
    with ProcessPoolExecutor(max_workers=args.processes) as pool:
        for opponent in args.against:
            jobs = [
                (args.seed * 1_000_000 + d, args.bot, opponent, options, bot_options)
                for d in range(args.deals)
            ]
            results = list(pool.map(duplicate, jobs, chunksize=8))
            margin, half = interval([r[0] for r in results])
            win, _ = interval([r[1] for r in results])
            all_times.extend(t for r in results for t in r[2])
            print(
                f"{opponent:<10} {margin:>+8.2f} [{margin - half:>+7.2f}, {margin + half:>+7.2f}]"
                f" {win:>9.3f}",
                flush=True,
            )
    all_times.sort()
    if all_times:
        median = all_times[len(all_times) // 2]
        p99 = all_times[min(len(all_times) - 1, int(len(all_times) * 0.99))]
        print(
            f"{args.bot} decision CPU time: median {median * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms,"
            f" max {all_times[-1] * 1e3:.1f} ms over {len(all_times)} decisions"
        )


if __name__ == "__main__":
    main()
