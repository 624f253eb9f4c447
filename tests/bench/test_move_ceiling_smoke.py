"""Smoke test of the move ceiling benchmark (bench/move_ceiling.py): a real move captured from
the server's log on a cluster of its own, replayed by pgbench for a second at two client counts,
every transaction a new move (no unique key hit, none failed) with its WAL counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_move_ceiling_smoke(tmp_path: Path) -> None:
    out, script = tmp_path / "ceiling.json", tmp_path / "move.sql"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "move_ceiling.py"),
         *("--clients", "1,2", "--seconds", "1", "--matches-per-client", "5"),
         *("--script", str(script), "--json", str(out))],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(out.read_text())
    # The locking read and the one writing statement, for each seat's move.
    assert result["statements_per_move"] == [2, 2]
    for level in result["levels"]:
        assert level["moves"] > 0 and level["failed"] == 0
        assert level["wal_bytes_per_move"] > 0 and level["postgres_cpu_ms_per_move"] > 0
    text = script.read_text()
    assert "FOR UPDATE OF s, m" in text and 'INSERT INTO "games_move"' in text
    assert "md5('fd-ceiling-' || :mi)::uuid" in text


def test_a_captured_write_is_replayed_as_a_new_move_of_the_script_s_match() -> None:
    """The identity of the move (match, step, seat, event numbers, seat row) comes from the
    script's variables; every other value is the captured one, inlined."""
    from bench.move_ceiling import Statement, replayable

    sql = (
        'WITH write_0 AS (INSERT INTO "games_move" ("match_id", "step", "seat", "payload") '
        'VALUES ($1, $2, $3, $4)), write_1 AS (INSERT INTO "games_matchevent" ("match_id", '
        '"seq", "type") VALUES ($5, $6, $7), ($8, $9, $10)), write_2 AS (UPDATE "games_seat" '
        'SET "awaiting_move" = $11 WHERE "games_seat"."id" = $12), write_3 AS (UPDATE '
        '"games_match" SET "step" = $13, "version" = $14 WHERE "games_match"."id" = $15 '
        "RETURNING 1) SELECT 1"
    )
    match = "'0e1f'"
    values = [match, "'1'", "'1'", "'{\"card\": 2}'", match, "'6'", "'move_submitted'", match]
    values += ["'7'", "'step_resolved'", "'t'", "'1'", "'2'", "'4'", match]
    replayed = replayable(Statement(sql, {n: v for n, v in enumerate(values, start=1)}))
    uuid = "md5('fd-ceiling-' || :mi)::uuid"
    assert replayed == (
        'WITH write_0 AS (INSERT INTO "games_move" ("match_id", "step", "seat", "payload") '
        f"VALUES ({uuid}, :step, :seat, '{{\"card\": 2}}')), write_1 AS (INSERT INTO "
        f'"games_matchevent" ("match_id", "seq", "type") VALUES ({uuid}, (4 * :step + :seat + 0), '
        f"'move_submitted'), ({uuid}, (4 * :step + :seat + 1), 'step_resolved')), write_2 AS "
        '(UPDATE "games_seat" SET "awaiting_move" = \'t\' WHERE "games_seat"."id" = '
        '(10000000 + 2 * :mi + :seat)), write_3 AS (UPDATE "games_match" SET "step" = '
        f':step + 1, "version" = \'4\' WHERE "games_match"."id" = {uuid} RETURNING 1) SELECT 1'
    )
