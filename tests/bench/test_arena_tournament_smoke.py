"""Smoke test of the arena tournament benchmark (bench/arena_tournament.py), tiny."""

from __future__ import annotations

import pytest

from bench import arena_tournament


def test_pair_wave_is_timed_for_each_count(capsys: pytest.CaptureFixture[str]) -> None:
    arena_tournament.main(["--pair-only", "--waiting", "40", "41"])
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in printed] == ["40", "41"]


@pytest.mark.django_db
def test_a_tiny_arena_runs_its_window_and_finishes() -> None:
    report = arena_tournament.simulate(players=6, minutes=2, move_seconds=5, seed=3)
    assert report["status"] == "finished" and report["running_left"] == 0
    assert report["paired_twice"] == 0
    # Three steps of 5 s a match, a wave at most 2 s after its end: several matches each.
    assert report["matches"] >= 6
    assert report["median_wait_s"] is not None and report["median_wait_s"] <= 2
