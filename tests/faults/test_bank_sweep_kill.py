"""Fischer and byo-yomi banks under several sweeping processes, one killed with SIGKILL
mid-sweep: every seat whose own clock ran out is timed out exactly once, the seats whose clocks
still run are left alone, and each match's deadline is then its next clock's expiry.

3-player GOPS, seat 0 has moved. In most matches seat 1's bank ran out and seat 2's still runs
(each a different time left); in the others both ran out, at different moments, and the step
resolves. The sweeps are real processes (``tests/faults/sweeper.py``) given the same ``now``.
They are caught mid-sweep deterministically: the test holds the overdue matches' seat rows
locked from its own connection, so a sweep that has claimed a match waits inside its unit of
work (``pg_blocking_pids`` shows it). One is killed, process group and all; the lock is let go;
the others and a later sweep finish.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from games.models import Match, MatchEvent, Move
from games.services.deadlines import overdue_sweep
from tests.clocks import runs_out_at
from tests.faults.processes import ROOT, Service, wait_until
from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FISCHER = {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 30, "max_seconds": 900}
BYOYOMI = {"kind": "byoyomi", "main_seconds": 600, "periods": 3, "period_seconds": 20}
#: What a timed-out seat's clock holds for the next step: the increment, or one period.
KEPT = {"fischer": timedelta(seconds=30), "byoyomi": timedelta(seconds=20)}
ONE_OUT = 5  # matches where seat 1 ran out and seat 2 still runs
BOTH_OUT = 2  # matches where seats 1 and 2 both ran out
SWEEPERS = 3


def _dsn() -> str:
    db = django_settings.DATABASES["default"]
    return (
        f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} "
        f"user={db['USER']} dbname={db['NAME']}"
    )


class Sweeper(Service):
    def __init__(self, now: datetime, log: Path) -> None:
        db = django_settings.DATABASES["default"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.update(
            DJANGO_SETTINGS_MODULE="config.test_settings",
            DATABASE_URL=(
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
                f"/{db['NAME']}"
            ),
            FACEDOWN_TASK_RUNNER="off",
            PYTHONPATH=str(ROOT),
        )
        super().__init__(
            [sys.executable, "-m", "tests.faults.sweeper", now.isoformat()],
            env=env,
            cwd=ROOT,
            log=log,
        )

    def backend(self) -> int | None:
        for line in self.output().splitlines():
            if line.startswith("backend "):
                return int(line.split()[1])
        return None

    def changed(self) -> int:
        [line] = [line for line in self.output().splitlines() if line.startswith("changed ")]
        return int(line.split()[1])


@pytest.fixture
def sweepers(tmp_path: Path) -> Iterator[list[Sweeper]]:
    started: list[Sweeper] = []
    yield started
    for sweeper in started:
        sweeper.kill()


def _waiting() -> set[int]:
    with psycopg.connect(_dsn(), autocommit=True) as probe:
        rows = probe.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND cardinality(pg_blocking_pids(pid)) > 0"
        ).fetchall()
    return {pid for (pid,) in rows}


def _players() -> list[Player]:
    players = [make_player() for _ in range(3)]
    for player in players:  # plain timeouts, no automatic vacation
        player.user.auto_vacation = False
        player.user.save(update_fields=["auto_vacation"])
    return players


@pytest.mark.parametrize("time_control", [FISCHER, BYOYOMI], ids=["fischer", "byoyomi"])
def test_sweeps_with_one_killed_time_out_each_expired_bank_once(
    sweepers: list[Sweeper], tmp_path: Path, time_control: dict[str, object]
) -> None:
    players = _players()
    now = timezone.now()
    runs_out: dict[str, dict[int, datetime]] = {}
    for i in range(ONE_OUT + BOTH_OUT):
        match_id = start_match(
            "gops", players, options={"num_cards": 5}, time_control=dict(time_control)
        )
        assert players[0].move(match_id, 1, {"card": 1}).status_code == 202
        if i < ONE_OUT:  # seat 1 out some seconds ago, seat 2 with minutes left (each its own)
            at = {1: now - timedelta(seconds=5 + i), 2: now + timedelta(minutes=3 + i)}
        else:  # both out, seat 2 first
            at = {1: now - timedelta(seconds=2), 2: now - timedelta(seconds=9 + i)}
        runs_out_at(match_id, at)
        runs_out[match_id] = at
    before = {str(m.pk): m.clocks for m in Match.objects.filter(pk__in=runs_out)}

    holder = psycopg.connect(_dsn())
    try:
        holder.execute(
            "SELECT 1 FROM games_seat WHERE match_id = ANY(%s) FOR UPDATE",
            ([str(match_id) for match_id in runs_out],),
        )
        for n in range(SWEEPERS):
            sweepers.append(Sweeper(now, tmp_path / f"sweeper-{n}.log"))
        # each sweep claims a match of its own (SKIP LOCKED) and waits inside its expiry
        wait_until(
            lambda: (
                all(s.backend() for s in sweepers) and {s.backend() for s in sweepers} <= _waiting()
            ),
            60,
            "every sweep to wait inside a claimed match",
        )
        victim, *survivors = sweepers
        victim.kill()  # SIGKILL to its process group, mid-sweep
    finally:
        holder.rollback()
        holder.close()
    for sweeper in survivors:
        sweeper.process.wait(60)
        assert sweeper.process.returncode == 0, sweeper.output()
    assert victim.process.returncode == -9
    assert "changed" not in victim.output()
    # The killed sweep's claim ends with its connection; a later sweep finds what it left.
    wait_until(lambda: victim.backend() not in _waiting(), 30, "the killed sweep's backend")
    late = overdue_sweep(now=now)
    assert sum(s.changed() for s in survivors) + late == ONE_OUT + BOTH_OUT
    assert overdue_sweep(now=now) == 0  # nothing left, nothing redone

    for match_id, at in runs_out.items():
        match = Match.objects.get(pk=match_id)
        timeouts = sorted(
            (e.data or {})["seat"]
            for e in MatchEvent.objects.filter(match_id=match_id, type="timeout", step=1)
        )
        sources = dict(Move.objects.filter(match_id=match_id, step=1).values_list("seat", "source"))
        clocks = match.clocks
        assert clocks is not None
        if at[2] > now:  # only seat 1 ran out
            assert timeouts == [1], (match_id, timeouts)
            assert sources == {0: "player", 1: "timeout"}
            assert match.step == 1 and match.submitted_mask == 0b011
            assert clocks[1]["out"] and clocks[1]["stop"] == [0, 0]
            assert clocks[0] == before[match_id][0]  # stopped when it moved: untouched
            assert clocks[2] == before[match_id][2]  # still running: untouched
            assert match.deadline == at[2]
        else:  # both ran out: one timeout each, the step resolved, the next one runs
            assert timeouts == [1, 2], (match_id, timeouts)
            assert sources == {0: "player", 1: "timeout", 2: "timeout"}
            assert match.step == 2
            assert [c["out"] for c in clocks] == [False, False, False]
            # a timed-out seat keeps only the increment (or one period): the earliest expiry
            assert match.deadline == now + KEPT[str(time_control["kind"])]
        resolved = MatchEvent.objects.filter(match_id=match_id, type="step_resolved", step=1)
        assert resolved.count() == (0 if at[2] > now else 1)
