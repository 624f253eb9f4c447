"""bench/tail.py: a move's time split into before, inside and after the web process's Python."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from bench.tail import Sent, Span, access_spans, decompose


def _ms(value: float) -> object:
    # Wall-clock seconds near 1.8e9 as floats keep about a microsecond.
    return pytest.approx(value, abs=0.001)


def _access_line(request_id: str, end: float, duration_ms: float) -> str:
    at = datetime.fromtimestamp(end, tz=UTC).isoformat(timespec="milliseconds")
    return json.dumps(
        {
            "time": at,
            "level": "INFO",
            "logger": "facedown.access",
            "message": "POST match-moves 202",
            "request_id": request_id,
            "duration_ms": duration_ms,
        }
    )


def test_access_spans_reads_the_access_log_lines_only() -> None:
    lines = [
        "granian: listening",  # not JSON
        '{"time": "2026-11-27T07:00:00.000+00:00", "logger": "django.request", "message": "x"}',
        "{not json",
        _access_line("r1", 1_800_000_000.250, 5.0),
    ]
    spans = access_spans(lines)
    assert list(spans) == ["r1"]
    assert spans["r1"].end == pytest.approx(1_800_000_000.250)
    assert spans["r1"].start == pytest.approx(1_800_000_000.245)


def test_decompose_splits_each_move_and_finds_where_the_slowest_were_sent() -> None:
    base = 1_800_000_000.0
    sent, spans = [], {}
    # 99 quick moves spread over ten seconds: 1 ms before, 3 inside, 1 after.
    for i in range(99):
        at = base + i * 0.1
        sent.append(Sent(f"q{i}", at, at + 0.005))
        spans[f"q{i}"] = Span(at + 0.001, at + 0.004)
    # One slow move that queued 40 ms before the application started it.
    sent.append(Sent("slow", base + 3.05, base + 3.05 + 0.045))
    spans["slow"] = Span(base + 3.05 + 0.040, base + 3.05 + 0.044)
    sent.append(Sent("no-log-line", base, base + 0.002))

    result = decompose(sent, spans)

    assert result["joined"] == 100 and result["unjoined"] == 1
    assert result["total"]["p50_ms"] == _ms(5.0)
    assert result["before"]["p50_ms"] == _ms(1.0)
    assert result["inside"]["p50_ms"] == _ms(3.0)
    assert result["after"]["p50_ms"] == _ms(1.0)
    assert result["total"]["max_ms"] == _ms(45.0)
    assert result["before"]["max_ms"] == _ms(40.0)
    slowest = result["slowest_1pct"]
    assert slowest["count"] == 1
    assert slowest["total_mean_ms"] == _ms(45.0)
    assert slowest["before_mean_ms"] == _ms(40.0)
    assert slowest["inside_mean_ms"] == _ms(4.0)
    assert slowest["after_mean_ms"] == _ms(1.0)
    assert slowest["bins_100ms"] == 1


def test_decompose_counts_the_bins_of_a_tail_spread_over_the_window() -> None:
    base = 1_800_000_000.0
    sent, spans = [], {}
    for i in range(200):
        at = base + i * 0.1
        slow = i % 50 == 0  # four slow moves, each in its own 100 ms span
        sent.append(Sent(f"m{i}", at, at + (0.030 if slow else 0.004)))
        spans[f"m{i}"] = Span(at + 0.001, at + (0.029 if slow else 0.003))
    result = decompose(sent, spans)
    assert result["slowest_1pct"]["count"] == 2
    assert result["slowest_1pct"]["bins_100ms"] == 2
    assert result["slowest_1pct"]["inside_mean_ms"] == _ms(28.0)


def test_decompose_without_a_single_log_line() -> None:
    assert decompose([Sent("a", 1.0, 1.1)], {}) == {"joined": 0, "unjoined": 1}
