"""The arithmetic and parsing of bench/compare.py (the run itself needs Node and the peer)."""

from __future__ import annotations

import json
import math

import pytest

from bench.compare import (
    Row,
    busy_cores,
    cpu_times,
    facedown_row,
    medians,
    order,
    parse_peer_output,
    peer_row,
    ratios,
    table,
    verdict,
)

LOADGEN = {
    "pairs": 8,
    "window_s": 20.0,
    "bids_per_s": 200.0,
    "p50_ms": 69.0,
    "p99_ms": 118.0,
    "errors": {"timeout": 1},
    "cpu_pct": {"server": 100.0, "loadgen": 30.0, "pg_bgio_backends": 40.0, "pg_all": 50.0},
}
AUDIT = {"rows": 10, "finished": 9, "finished_ok": 9, "problems": {}, "examples": []}


def test_proc_stat_line_and_busy_cores() -> None:
    # user nice system idle iowait irq softirq steal guest
    a = cpu_times("cpu  100 0 50 800 50 0 0 0 0 0")
    b = cpu_times("cpu  200 0 100 1000 100 0 0 0 0 0")
    assert a == (150, 1000)
    assert b == (300, 1400)
    # 150 busy of 400 ticks on 2 cores = 0.75 cores.
    assert busy_cores(a, b, 2) == pytest.approx(0.75)
    assert busy_cores(a, a, 2) == 0.0


def test_peer_output_is_picked_out_of_run_sh_text() -> None:
    text = "\n".join(
        [
            "pre-run box busy (of 200%): 12%  loadavg: 0.5 0.4 0.3",
            json.dumps(LOADGEN),
            json.dumps(AUDIT),
            "server ERROR lines: 0",
            "{not json",
        ]
    )
    loadgen, audit = parse_peer_output(text)
    assert loadgen["bids_per_s"] == 200.0
    assert audit["finished_ok"] == 9
    with pytest.raises(ValueError):
        parse_peer_output("server ERROR lines: 3")


def test_rows_per_move_and_ratios() -> None:
    peer = peer_row(LOADGEN, AUDIT)
    # 100% of a core over 200 bids/s = 5 ms per bid; 40% = 2 ms.
    assert peer.server_ms == pytest.approx(5.0)
    assert peer.database_ms == pytest.approx(2.0)
    assert peer.postgres_all_ms == pytest.approx(2.5)
    assert peer.total_ms == pytest.approx(7.0)
    assert peer.errors == 1 and peer.audit_ok
    ours = facedown_row(
        {
            "moves": 8000,
            "moves_per_s": 400.0,
            "endpoints": {"POST moves": {"p50_ms": 20.0, "p99_ms": 60.0}},
            "cpu": {"server": 24.0, "celery": 0.8, "postgres_db": 8.0, "postgres": 12.0},
            "errors": {},
            "audit_ok": True,
        }
    )
    assert ours.server_ms == pytest.approx(3.0)
    assert ours.worker_ms == pytest.approx(0.1)
    assert ours.database_ms == pytest.approx(1.0)
    assert ours.total_ms == pytest.approx(4.1)
    r = ratios(ours, peer)
    assert r["throughput"] == pytest.approx(2.0)
    assert r["cpu_per_move"] == pytest.approx(4.1 / 7.0)
    assert [line.endswith("met") for line in verdict(r)] == [True, True]
    assert "**4.10 ms**" in table([ours, peer])
    bad_audit = peer_row(LOADGEN, {**AUDIT, "problems": {"winner_wrong": 2}})
    assert not bad_audit.audit_ok
    assert "missed by" in verdict(ratios(bad_audit, peer))[0]
    assert math.isnan(ratios(ours, peer_row({**LOADGEN, "bids_per_s": 0.0}, AUDIT))["throughput"])


def _row(name: str, moves_per_s: float, total_ms: float) -> Row:
    return Row(name, moves_per_s, 1.0, 2.0, total_ms, 0.0, 0.0, 0.0, 0, True)


def test_rounds_alternate_who_goes_first() -> None:
    assert order(1) == [("peer", "facedown")]
    assert order(4) == [
        ("peer", "facedown"),
        ("facedown", "peer"),
        ("peer", "facedown"),
        ("facedown", "peer"),
    ]


def test_the_summary_is_the_median_of_ratios_taken_within_each_round() -> None:
    # A host twice as fast in round 2: within-round ratios stay 1.5 and 0.8; pooled figures
    # across rounds would say otherwise.
    runs = [
        (_row("Facedown", 300, 4.0), _row("peer", 200, 5.0)),
        (_row("Facedown", 600, 2.0), _row("peer", 400, 2.5)),
        (_row("Facedown", 100, 9.0), _row("peer", 100, 9.0)),
    ]
    summary = medians(runs)
    assert summary["throughput"] == pytest.approx(1.5)
    assert summary["cpu_per_move"] == pytest.approx(0.8)
