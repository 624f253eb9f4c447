"""Smoke test of the tournament scale benchmark (bench/tournament_scale.py), pure part, small."""

from __future__ import annotations

import pytest

from bench import tournament_scale


def test_the_pure_benchmark_prints_a_row_per_round(capsys: pytest.CaptureFixture[str]) -> None:
    tournament_scale.main(["--players", "41", "--rounds", "3", "--seed", "2"])
    printed = capsys.readouterr().out.splitlines()
    heads = "played matches swiss_round s standings s crosstable s"
    assert printed[0].split() == heads.split()
    # 41 players: 20 matches and a bye a round; a row before each round and after the last.
    assert [line.split()[:2] for line in printed[1:]] == [
        ["0", "0"],
        ["1", "20"],
        ["2", "40"],
        ["3", "60"],
    ]
