"""Every strength target of the expert bots, from one command, with pass or fail.

    .venv/bin/python bench/bot_targets.py --jobs 2                 # every target, full size
    .venv/bin/python bench/bot_targets.py --jobs 2 --only gops      # one game's targets
    .venv/bin/python bench/bot_targets.py --scale 0.1               # a quick look (wider CIs)

Each target is one arena run (``bench/arena.py``: duplicate deals, seats rotated, fixed seed)
and a check of the expert's figures; docs/bots.md keeps the tables. GOPS's exploitability
target is measured by ``python -m bench.gops_exploitability --bots expert --cards 5 6``.
``--json PATH`` writes every result. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.arena import Config, lineup_of, run, summary  # noqa: E402

Figures = Mapping[str, Any]
HOLS_HEURISTIC = "bench.hols_rules:RankHolsBot"
GOPS_RULES = ("match", "prize+1", "prize+2", "prize+3", "prize-1", "reversed", "counter", "greedy")


@dataclass(frozen=True)
class Target:
    game: str
    bots: tuple[str, ...]
    players: int
    deals: int
    goal: str
    check: Callable[[Figures], bool]
    options: Mapping[str, Any] = field(default_factory=dict)


def not_beaten(figures: Figures) -> bool:
    return bool(figures["margin_ci"][1] >= 0 and figures["margin"] >= -1)


def margin_at_least(points: float) -> Callable[[Figures], bool]:
    return lambda figures: bool(figures["margin"] >= points)


def wins_at_least(rate: float) -> Callable[[Figures], bool]:
    return lambda figures: bool(figures["win_rate"] >= rate)


def interval_above_zero(figures: Figures) -> bool:
    return bool(figures["margin_ci"][0] > 0)


GOPS_13 = {"num_cards": 13}

TARGETS: tuple[Target, ...] = (
    *(
        Target("gops", ("expert", rule), 2, 500, "CI high ≥ 0, mean ≥ -1", not_beaten, GOPS_13)
        for rule in GOPS_RULES
    ),
    Target("gops", ("expert", "random"), 2, 500, "margin ≥ +10", margin_at_least(10), GOPS_13),
    Target("hols-der-geier", ("expert", HOLS_HEURISTIC), 2, 100, "margin ≥ +3", margin_at_least(3)),
    Target("hols-der-geier", ("expert", HOLS_HEURISTIC), 4, 60, "wins ≥ 0.35", wins_at_least(0.35)),
    Target("hols-der-geier", ("expert", HOLS_HEURISTIC), 5, 60, "wins ≥ 0.30", wins_at_least(0.30)),
    Target("hols-der-geier", ("expert", "greedy"), 4, 40, "wins ≥ 0.50", wins_at_least(0.50)),
    Target("hols-der-geier", ("expert", "greedy"), 5, 30, "wins ≥ 0.45", wins_at_least(0.45)),
    Target("xato", ("expert", "greedy"), 4, 100, "wins ≥ 0.40", wins_at_least(0.40)),
    Target(
        "xato",
        ("expert", "greedy"),
        4,
        20,
        "wins ≥ 0.40",
        wins_at_least(0.40),
        {"history": "table_only"},
    ),
    Target(
        "old-men-of-the-forest", ("expert", "greedy"), 3, 40, "wins ≥ 0.483", wins_at_least(0.483)
    ),
    Target(
        "old-men-of-the-forest", ("expert", "greedy"), 4, 40, "wins ≥ 0.40", wins_at_least(0.40)
    ),
    Target("memory", ("expert", "greedy"), 2, 100, "CI low > 0", interval_above_zero),
)


def measure(target: Target, *, scale: float, seed: int, jobs: int) -> dict[str, Any]:
    config = Config(
        game=target.game,
        lineup=lineup_of(target.bots, target.players),
        deals=max(2, round(target.deals * scale)),
        seed=seed,
        options=dict(target.options),
    )
    result = summary(config, run(config, jobs=jobs))
    expert = next(bot for bot in result["bots"] if bot["bot"] == "expert")
    return {**result, "goal": target.goal, "met": target.check(expert), "expert": expert}


def line(result: Mapping[str, Any]) -> str:
    expert = result["expert"]
    low, high = expert["margin_ci"]
    options = json.dumps(result["options"]) if result["options"] else ""
    return (
        f"{'MET ' if result['met'] else 'MISS'} {result['game']:<22} "
        f"{'/'.join(dict.fromkeys(result['lineup'])):<38} {result['players']}p "
        f"{result['deals']:>4} deals {options:<24} margin {expert['margin']:+7.2f} "
        f"[{low:+.2f}, {high:+.2f}]  wins {expert['win_rate']:.3f}  goal: {result['goal']}  "
        f"choose ms p50/p99 {expert['choose_ms_median']:.1f}/{expert['choose_ms_p99']:.1f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", help="one game's slug")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every deal count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = []
    for target in TARGETS:
        if args.only and target.game != args.only:
            continue
        result = measure(target, scale=args.scale, seed=args.seed, jobs=args.jobs)
        print(line(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    missed = sum(not result["met"] for result in results)
    print(f"{len(results) - missed} of {len(results)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
