"""The arena: bots against each other over the pure engine, in duplicate format.

    .venv/bin/python bench/arena.py --game gops --bots expert,greedy --players 2 \\
        --deals 500 --seed 1 --options '{"num_cards": 13}' --jobs 2

No Django and no database: the engine and the bots come from ``games.catalog``. Every deal is
drawn from the fixed seed and played once per seat rotation, so each bot of the line-up sits in
each seat with the same cards (``--players`` games per deal). The line-up is ``--bots`` in seat
order, its last name repeated to fill the seats (``expert,greedy`` at 4 players: one expert
among three greedy seats). A name is a bot of the game's catalogue, else an arena-only rule of
``bench/strategies.py`` (``ARENA_BOTS``), or ``package.module:ClassName`` for any ``BaseBot``.

Bots are fed as the server feeds them: ``observe`` after the start and after every resolved
step for every seat (``cardgames.bots.observe.observation_for``), ``choose`` when a seat must act
and some acting seat has a choice (a step where every acting seat has one move is played
without asking), and every memory goes through a JSON round trip, as the seat row does. Each
bot's randomness is its own ``random.Random``, seeded from the seed, the deal, the rotation and
the seat, so the figures are the same whatever ``--jobs``.

Per bot name: the mean margin (its score minus the mean of the other seats' scores; in
2-player games, minus the opponent's) and the win rate (a shared win counts 1/k to each of the
k winners), each with a 95% confidence interval over deal groups (the mean of a bot's seats
over the deal's rotations is one sample; normal approximation), and its decision time
(``choose``) median and p99, with the p99 of ``observe``. ``--json PATH`` writes it all.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.strategies import ARENA_BOTS  # noqa: E402
from cardgames.bots.base import Bot, BotContext  # noqa: E402
from cardgames.bots.observe import observation_for  # noqa: E402
from cardgames.engines.protocol import Engine, Move, State, is_template  # noqa: E402
from cardgames.engines.rng import DealRng  # noqa: E402
from games.catalog import bots_of, get_engine  # noqa: E402

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Config:
    game: str
    #: The bot name of each seat in rotation 0 (the line-up), one per player.
    lineup: tuple[str, ...]
    deals: int = 100
    seed: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Options per bot name; each bot's schema defaults fill the rest.
    bot_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def players(self) -> int:
        return len(self.lineup)


@dataclass
class GameResult:
    """One rotation of one deal."""

    rotation: int
    #: The line-up entry sitting in each seat.
    seating: list[int]
    #: SHA-256 of the initial state (the deal), canonical JSON.
    deal_digest: str
    scores: list[int]
    winners: list[int]
    steps: int


@dataclass
class DealResult:
    deal: int
    games: list[GameResult]
    #: Milliseconds per call, by bot name.
    choose_ms: dict[str, list[float]]
    observe_ms: dict[str, list[float]]


def lineup_of(names: Sequence[str], players: int) -> tuple[str, ...]:
    """``names`` in seat order, the last repeated to fill ``players`` seats."""
    if not names or len(names) > players:
        raise ValueError(f"give 1 to {players} bot names for {players} players")
    return tuple(names) + (names[-1],) * (players - len(names))


def bot_named(game: str, name: str) -> Bot:
    """A catalogue bot, else an arena-only rule, else ``package.module:ClassName``."""
    bot = bots_of(game).get(name) or ARENA_BOTS.get(game, {}).get(name)
    if bot is not None:
        return bot
    if ":" in name:
        module, _, attr = name.partition(":")
        made: Bot = getattr(importlib.import_module(module), attr)()
        return made
    known = sorted({*bots_of(game), *ARENA_BOTS.get(game, {})})
    raise ValueError(f"no bot {name!r} for {game}; known: {', '.join(known)}")


def bot_options_filled(bot: Bot, options: Mapping[str, Any]) -> dict[str, Any]:
    defaults = {
        key: spec["default"]
        for key, spec in bot.options_schema.get("properties", {}).items()
        if "default" in spec
    }
    return defaults | dict(options)


def deal_rng(config: Config, deal: int) -> DealRng:
    seed = hashlib.sha256(f"arena:{config.seed}:{deal}".encode()).digest()
    return DealRng(seed, f"arena-{config.seed}-{deal}", [None] * config.players)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def json_round_trip(value: Any) -> dict[str, Any]:
    """Memory as the seat row stores it."""
    result: dict[str, Any] = json.loads(json.dumps(value))
    return result


def _ms_since(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def play_game(
    config: Config,
    engine: Engine,
    options: dict[str, Any],
    deal: int,
    rotation: int,
    choose_ms: dict[str, list[float]],
    observe_ms: dict[str, list[float]],
) -> GameResult:
    """Deal ``deal`` with the line-up rotated by ``rotation`` seats."""
    n = config.players
    seating = [(seat + rotation) % n for seat in range(n)]
    names = [config.lineup[entry] for entry in seating]
    bots = [bot_named(config.game, name) for name in names]
    bot_opts = [
        bot_options_filled(bot, config.bot_options.get(name, {}))
        for bot, name in zip(bots, names, strict=True)
    ]
    rngs = [random.Random(f"arena:{config.seed}:{deal}:{rotation}:{seat}") for seat in range(n)]
    memories: list[dict[str, Any]] = [{} for _ in range(n)]

    state: State = engine.initial_state(n, options, deal_rng(config, deal))
    digest = hashlib.sha256(canonical(state).encode()).hexdigest()

    def observe(resolution: Any) -> None:
        for seat in range(n):
            obs = observation_for(engine, state, seat, resolution, memories[seat], bot_opts[seat])
            start = time.perf_counter_ns()
            memory = bots[seat].observe(obs)
            observe_ms[names[seat]].append(_ms_since(start))
            memories[seat] = json_round_trip(memory)

    observe(None)
    steps = 0
    while (to_act := engine.to_act(state)) is not None:
        legal = {seat: engine.legal_moves(state, seat) for seat in to_act.seats}
        moves: dict[int, Move] = {}
        if all(len(ms) == 1 and not is_template(ms[0]) for ms in legal.values()):
            moves = {seat: ms[0] for seat, ms in legal.items()}  # forced: nobody is asked
        else:
            for seat in to_act.seats:
                if not legal[seat]:
                    moves[seat] = engine.timeout_move(state, seat)
                    continue
                ctx = BotContext(
                    seat=seat,
                    view=engine.view(state, seat),
                    legal_moves=legal[seat],
                    memory=memories[seat],
                    options=bot_opts[seat],
                    rng=rngs[seat],
                )
                start = time.perf_counter_ns()
                decision = bots[seat].choose(ctx)
                choose_ms[names[seat]].append(_ms_since(start))
                engine.check_move(state, seat, decision.move)
                moves[seat] = decision.move
                memories[seat] = json_round_trip(decision.memory)
        resolution = engine.apply(state, moves)
        state = resolution.state
        steps += 1
        observe(resolution)
    outcome = engine.outcome(state)
    assert outcome is not None
    return GameResult(
        rotation=rotation,
        seating=seating,
        deal_digest=digest,
        scores=list(outcome.scores),
        winners=list(outcome.winners),
        steps=steps,
    )


def play_deal(config: Config, deal: int) -> DealResult:
    """Every rotation of one deal."""
    engine = get_engine(config.game)
    if engine is None:
        raise ValueError(f"no game {config.game!r}")
    options = engine.validate_options(dict(config.options), config.players)
    choose_ms: dict[str, list[float]] = defaultdict(list)
    observe_ms: dict[str, list[float]] = defaultdict(list)
    games = [
        play_game(config, engine, options, deal, rotation, choose_ms, observe_ms)
        for rotation in range(config.players)
    ]
    return DealResult(deal, games, dict(choose_ms), dict(observe_ms))


def run(config: Config, jobs: int = 1) -> list[DealResult]:
    """Every deal, in deal order whatever ``jobs``."""
    for name in set(config.lineup):
        bot_named(config.game, name)  # fail early on a bad name
    work = partial(play_deal, config)
    if jobs <= 1:
        return [work(deal) for deal in range(config.deals)]
    chunk = max(1, config.deals // (jobs * 8))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return list(pool.imap(work, range(config.deals), chunksize=chunk))


# --- statistics ---------------------------------------------------------------------------------


def margin(scores: Sequence[int], seat: int) -> float:
    others = [score for other, score in enumerate(scores) if other != seat]
    return scores[seat] - sum(others) / len(others)


def win_share(winners: Sequence[int], seat: int) -> float:
    return 1 / len(winners) if seat in winners else 0.0


def mean_ci(samples: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal approximation; NaN bounds with one sample)."""
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return mean, math.nan, math.nan
    half = Z95 * statistics.stdev(samples) / math.sqrt(len(samples))
    return mean, mean - half, mean + half


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(config: Config, results: Sequence[DealResult]) -> dict[str, Any]:
    names = list(dict.fromkeys(config.lineup))
    margins: dict[str, list[float]] = {name: [] for name in names}
    wins: dict[str, list[float]] = {name: [] for name in names}
    choose: dict[str, list[float]] = {name: [] for name in names}
    observe: dict[str, list[float]] = {name: [] for name in names}
    for result in results:
        for name in names:
            m: list[float] = []
            w: list[float] = []
            for game in result.games:
                for seat, entry in enumerate(game.seating):
                    if config.lineup[entry] == name:
                        m.append(margin(game.scores, seat))
                        w.append(win_share(game.winners, seat))
            margins[name].append(statistics.fmean(m))
            wins[name].append(statistics.fmean(w))
            choose[name].extend(result.choose_ms.get(name, []))
            observe[name].extend(result.observe_ms.get(name, []))
    bots = []
    for name in names:
        mm, mlo, mhi = mean_ci(margins[name])
        wm, wlo, whi = mean_ci(wins[name])
        wlo, whi = max(0.0, wlo), min(1.0, whi)  # a rate's interval stays within [0, 1]
        bots.append(
            {
                "bot": name,
                "seats": config.lineup.count(name),
                "margin": mm,
                "margin_ci": [mlo, mhi],
                "win_rate": wm,
                "win_rate_ci": [wlo, whi],
                "decisions": len(choose[name]),
                "choose_ms_median": statistics.median(choose[name]) if choose[name] else math.nan,
                "choose_ms_p99": percentile(choose[name], 0.99),
                "observe_ms_p99": percentile(observe[name], 0.99),
            }
        )
    return {
        "game": config.game,
        "players": config.players,
        "lineup": list(config.lineup),
        "deals": config.deals,
        "games": sum(len(r.games) for r in results),
        "seed": config.seed,
        "options": dict(config.options),
        "bot_options": {k: dict(v) for k, v in config.bot_options.items()},
        "bots": bots,
    }


def interval(bounds: Sequence[float], spec: str) -> str:
    low, high = bounds
    return f"[{low:{spec}}, {high:{spec}}]"


def report(result: Mapping[str, Any]) -> str:
    head = (
        f"{result['game']}, {result['players']} players, line-up {','.join(result['lineup'])}, "
        f"{result['deals']} duplicate deals ({result['games']} games), seed {result['seed']}, "
        f"options {json.dumps(result['options'])}"
    )
    lines = [
        head,
        f"{'bot':<12} {'seats':>5} {'margin':>8} {'95% CI':>18} {'win rate':>9} {'95% CI':>16}"
        f" {'choose ms median':>17} {'p99':>8} {'observe p99':>12}",
    ]
    for b in result["bots"]:
        lines.append(
            f"{b['bot']:<12} {b['seats']:>5} {b['margin']:>+8.2f} "
            f"{interval(b['margin_ci'], '+.2f'):>18} {b['win_rate']:>9.3f} "
            f"{interval(b['win_rate_ci'], '.3f'):>16} {b['choose_ms_median']:>17.3f} "
            f"{b['choose_ms_p99']:>8.3f} {b['observe_ms_p99']:>12.3f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--game", required=True)
    parser.add_argument("--bots", required=True, help="comma-separated, in seat order")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--options", default="{}", help="the game's options, JSON")
    parser.add_argument("--bot-options", default="{}", help='JSON: {"expert": {...}, ...}')
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    config = Config(
        game=args.game,
        lineup=lineup_of([n.strip() for n in args.bots.split(",") if n.strip()], args.players),
        deals=args.deals,
        seed=args.seed,
        options=json.loads(args.options),
        bot_options=json.loads(args.bot_options),
    )
    result = summary(config, run(config, jobs=args.jobs))
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
