"""Where a request's time went: before, inside and after the web process's Python.

``bench/load.py --trace`` keeps, for every move in the window, the client's wall-clock send and
answer times and the answer's ``X-Request-ID``; the web server's access log (one JSON line per
request) gives the same request's end and ``duration_ms``. Joined on the request id:

- *before*: from the client's send to the application's start (the socket, the web server's
  queue for its worker, the host's scheduling);
- *inside*: the access log's ``duration_ms`` (the application's own handling, its database
  round trips included);
- *after*: from the application's end to the client's reading of the answer.

The access log's times are to the millisecond, so *before* and *after* are each within about a
millisecond; both clocks are the same host's. The slowest 1% are also counted by the 100 ms of
the window they were sent in: a tail in a few bursts is queueing behind a stall, one spread over
the whole window is the ordinary cost of some requests.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

ACCESS_LOGGER = "facedown.access"


@dataclass(frozen=True)
class Sent:
    request_id: str
    sent: float  # the client's wall clock (time.time()) before writing the request
    answered: float  # ... after reading the whole answer


@dataclass(frozen=True)
class Span:
    start: float
    end: float


def access_spans(lines: Iterable[str]) -> dict[str, Span]:
    """Every access log line's request id and its span in the web process (other lines skipped)."""
    spans = {}
    for line in lines:
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("logger") != ACCESS_LOGGER or "request_id" not in record:
            continue
        end = datetime.fromisoformat(record["time"]).timestamp()
        spans[record["request_id"]] = Span(end - record["duration_ms"] / 1000, end)
    return spans


def percentile(values: list[float], q: float) -> float:
    """The value at quantile ``q`` (nearest rank), NaN when there is none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def decompose(sent: list[Sent], spans: dict[str, Span]) -> dict[str, Any]:
    """p50 / p99 / max of each part in milliseconds, what the slowest 1% spent on average, and in
    how many 100 ms bins of their send times they fall."""
    parts: dict[str, list[float]] = {"total": [], "before": [], "inside": [], "after": []}
    joined = []
    for s in sent:
        span = spans.get(s.request_id)
        if span is None:
            continue
        row = {
            "total": (s.answered - s.sent) * 1000,
            "before": (span.start - s.sent) * 1000,
            "inside": (span.end - span.start) * 1000,
            "after": (s.answered - span.end) * 1000,
        }
        for name, value in row.items():
            parts[name].append(value)
        joined.append((row, s.sent))
    if not joined:
        return {"joined": 0, "unjoined": len(sent)}
    result: dict[str, Any] = {"joined": len(joined), "unjoined": len(sent) - len(joined)}
    for name, values in parts.items():
        result[name] = {
            "p50_ms": percentile(values, 0.5),
            "p99_ms": percentile(values, 0.99),
            "max_ms": max(values),
        }
    joined.sort(key=lambda pair: pair[0]["total"])
    slowest = joined[int(0.99 * len(joined)) :]
    result["slowest_1pct"] = {
        "count": len(slowest),
        **{
            f"{name}_mean_ms": sum(row[name] for row, _ in slowest) / len(slowest)
            for name in ("total", "before", "inside", "after")
        },
        "bins_100ms": len(Counter(int(at * 10) for _, at in slowest)),
    }
    return result
