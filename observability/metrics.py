"""The Prometheus metrics (docs/observability.md lists them).

Counters and histograms are updated in the process that sees the event: a web request, or a
change to a match once its transaction committed. Under gunicorn every worker process writes
them to files in ``PROMETHEUS_MULTIPROC_DIR`` (config/gunicorn.conf.py sets and cleans it),
and a scrape adds all processes up. Gauges that need a query are computed at scrape time
(``observability.collector``), in the scraping process only.

Labels hold only finite, public values: the URL route's name (never the raw path, which holds
match ids), the HTTP method and status, the game, a move's source. Never a move, a card, a
user or a match.
"""

from __future__ import annotations

import os
from collections import Counter as Tally
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

from games import events
from games.services.unit_of_work import MatchChange

# The ``*_created`` series double the output and nothing here reads them.
disable_created_metrics()  # type: ignore[no-untyped-call]

HTTP_REQUESTS = Counter(
    "facedown_http_requests",
    "HTTP requests answered, by route name, method and status.",
    ["route", "method", "status"],
)
HTTP_LATENCY = Histogram(
    "facedown_http_request_duration_seconds",
    "Time from the request reaching the application to its answer, by route name and method.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
MOVES_ACCEPTED = Counter(
    "facedown_moves_accepted",
    "Moves recorded (players, bots, stand-ins for late or forfeited seats), by game and source.",
    ["game", "source"],
)
STEPS_RESOLVED = Counter("facedown_steps_resolved", "Steps resolved, by game.", ["game"])

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


# The labelled children by (route, method, status): ``labels()`` costs more than the update
# itself, and the set of routes, methods and statuses is small and fixed.
_request_series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}


def request_observe(route: str, method: str, status: int, seconds: float) -> None:
    key = (route, method if method in _METHODS else "other", status)
    series = _request_series.get(key)
    if series is None:
        series = (
            HTTP_REQUESTS.labels(route, key[1], str(status)),
            HTTP_LATENCY.labels(route, key[1]),
        )
        _request_series[key] = series
    series[0].inc()
    series[1].observe(seconds)


def _changes_count(moves: Tally[tuple[str, str]], steps: int, game: str) -> None:
    for (game_name, source), count in moves.items():
        MOVES_ACCEPTED.labels(game_name, source).inc(count)
    if steps:
        STEPS_RESOLVED.labels(game).inc(steps)


def change_count(change: MatchChange, **_: Any) -> None:
    """``change_committed``'s receiver: count the change's new moves and resolved steps once
    its transaction committed (a rolled-back change counts nothing, and the match lock is not
    held while the counters' files are written)."""
    tx = change
    game = tx.match.game
    moves = Tally((game, str(move.source)) for move in tx.moves)
    steps = sum(1 for event in tx.events if event.type == events.STEP_RESOLVED.name)
    if moves or steps:
        _changes_count(moves, steps, game)


def multiprocess_mode() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def exposition() -> bytes:
    """The text a scrape reads: every process's counters plus the scrape-time gauges."""
    from observability.collector import StateCollector

    if multiprocess_mode():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(StateCollector())
        return generate_latest(registry)
    scrape = CollectorRegistry()
    scrape.register(StateCollector())
    return generate_latest(REGISTRY) + generate_latest(scrape)
