"""Restore drill: a base backup and the WAL archive of a server under load, restored to a point
in time on a fresh cluster, must serve every finished match with a transcript that verifies and
hold every move a client was told was accepted before that point.

    .venv/bin/python bench/restore_drill.py [--pairs 4] [--gops-cards 5] [--warmup 2]
                                            [--between 2] [--after 2] [--json out.json]

What one run does (docs/reliability.md, "Restore drill", keeps the figures):

1. Starts a PostgreSQL cluster of its own on a free port in a temporary directory (the fault
   tests' ``PostgresCluster``) with WAL archiving on (``archive_command`` copies each finished
   segment into an archive directory beside it), and loads the migrated schema into it from
   bench/database.py's template on the local server (``--server``), so no migration runs.
2. Starts the web server (``config/web.py``, embedded mode: no Redis, no worker; the last card
   of a GOPS match is forced by the server) on it, and the load benchmark's players
   (bench/load.py): ``--pairs`` GOPS pairs playing match after match. Every ``202`` is recorded
   with the time the client read it.
3. After ``--warmup`` s of play, ``pg_basebackup`` (plain, WAL streamed, fast checkpoint) while
   the players keep moving: the backup time. After ``--between`` s more, a named restore point
   (``pg_create_restore_point``), the client's clock read just before it; play goes on for
   ``--after`` s; then the players stop, the segment holding the restore point is archived
   (``pg_switch_wal``) and the web server and the primary are stopped.
4. Restores on a fresh cluster (another free port and directory): the base backup copied in,
   ``restore_command`` reading the archive, ``recovery_target_name`` the restore point,
   ``recovery_target_action = promote``; the restore time runs from the copy to the end of
   recovery (``pg_is_in_recovery()`` false).
5. Starts the web server on the restored cluster and checks through it: every finished match's
   transcript (``GET /matches/{id}/audit``) verifies with the standalone verifier
   (``games.verify``); and in the restored database: every move a client got a ``202`` for
   before the restore point is there with the receipt digest the client holds, and no player
   move is there that no client was told of. Moves acknowledged after the restore point are
   counted (those absent show the recovery stopped at the point, not at the end of the WAL).

Only the clusters and the web servers this run started are stopped. Exit status 1 on any
problem. ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import django  # noqa: E402
from django.db import connections  # noqa: E402

from bench.database import PG_SERVER, copy_migrated  # noqa: E402
from bench.load import Load, Player, production_env  # noqa: E402
from games.verify import verify_transcript  # noqa: E402
from tests.faults.processes import (  # noqa: E402
    PostgresCluster,
    WebServer,
    http_call,
    service_env,
    wait_until,
)

API = "/api/v1"


@dataclass
class Figures:
    backup_seconds: float = 0.0
    backup_bytes: int = 0
    restore_seconds: float = 0.0
    archived_segments: int = 0
    matches_finished: int = 0
    transcripts_verified: int = 0
    moves_acknowledged: int = 0
    moves_before_point: int = 0
    moves_checked: int = 0
    moves_after_point_absent: int = 0
    moves_after_point_present: int = 0
    total_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def _as_owner(cluster: PostgresCluster, *command: str) -> None:
    """A command as the cluster's owner (the ``postgres`` user when this runs as root)."""
    subprocess.run([*cluster.as_user, *command], check=True, capture_output=True, timeout=120)


class ArchivingCluster(PostgresCluster):
    """A cluster that copies every finished WAL segment into ``archive`` (beside its data
    directory). Set on the command line, so a cluster restored from its backup does not
    archive into it too."""

    @property
    def archive(self) -> Path:
        return self.root / "archive"

    @property
    def options(self) -> str:
        return f'{super().options} -c archive_mode=on -c "archive_command=cp %p {self.archive}/%f"'


def prepare_primary(primary: ArchivingCluster, server: str) -> None:
    """The archiving cluster made and started, with the migrated schema."""
    _as_owner(primary, "mkdir", str(primary.archive))
    primary.init()
    copy_migrated(primary.url, server)


def web_env(cluster: PostgresCluster, signing_key: str, secret_key: str) -> dict[str, str]:
    """The production configuration in embedded mode on ``cluster``: both servers, the one on
    the primary and the one on the restored cluster, sign with the same key."""
    return service_env(
        **{
            **production_env("unused", 0),
            "DATABASE_URL": cluster.url,
            "REDIS_URL": "",
            "FACEDOWN_MODE": "embedded",
            "FACEDOWN_TASK_RUNNER": "off",
            "FACEDOWN_VAR_DIR": str(cluster.root / "var"),
            "FACEDOWN_SIGNING_KEY": signing_key,
            "DJANGO_SECRET_KEY": secret_key,
        }
    )


def take_backup(primary: PostgresCluster, into: Path) -> float:
    """``pg_basebackup`` of the running primary (WAL streamed beside it): seconds taken."""
    started = time.monotonic()
    _as_owner(
        primary,
        str(primary.bin / "pg_basebackup"),
        *("-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"),
        *("-D", str(into), "-X", "stream", "-c", "fast", "--no-sync"),
    )
    return time.monotonic() - started


def restore_point(primary: PostgresCluster, name: str) -> str:
    """A named restore point, then a switch to a new segment so the archive receives the one
    holding it: that segment's name."""
    primary.sql(f"SELECT pg_create_restore_point('{name}')")
    ((segment,),) = primary.sql("SELECT pg_walfile_name(pg_switch_wal())")
    return str(segment)


def restore(restored: PostgresCluster, backup: Path, archive: Path, target: str) -> float:
    """``restored`` (not yet initialised) made of the base backup, recovered from the archive up
    to ``target`` and promoted: the seconds from the copy to the end of recovery."""
    started = time.monotonic()
    _as_owner(restored, "cp", "-a", str(backup), str(restored.data))
    with (restored.data / "postgresql.auto.conf").open("a") as conf:
        conf.write(
            f"restore_command = 'cp {archive}/%f %p'\n"
            f"recovery_target_name = '{target}'\n"
            "recovery_target_action = 'promote'\n"
        )
    _as_owner(restored, "touch", str(restored.data / "recovery.signal"))
    restored.start()  # answers once consistent; recovery goes on to the target
    wait_until(
        lambda: restored.sql("SELECT pg_is_in_recovery()") == [(False,)], 60, "end of recovery"
    )
    return time.monotonic() - started


@dataclass
class Played:
    load: Load
    players: list[Player]
    backup: Path
    #: The client's clock just before the restore point was made, the point's name, and the
    #: WAL segment holding it.
    point: float
    target: str
    segment: str


def players_of(args: argparse.Namespace, port: int) -> tuple[Load, list[Player]]:
    """The load benchmark's driver and its players, their accounts and tokens written straight
    to the primary (no PBKDF2 before the run)."""
    load = Load(
        argparse.Namespace(
            rate=0.0,
            seed=args.seed,
            trace=False,
            poll=False,
            idempotency_keys=False,
            concurrent_joins=False,
            workers=args.workers,
            threads=args.threads,
        ),
        port,
    )
    return load, load.users_via_db(2 * args.pairs)


async def play(
    args: argparse.Namespace,
    load: Load,
    players: list[Player],
    primary: PostgresCluster,
    figures: Figures,
) -> Played:
    """The players' load with a base backup and a restore point taken under it."""
    load.rec.window = (0.0, float("inf"))
    options = {"num_cards": args.gops_cards}
    tasks = [
        asyncio.ensure_future(load.group(players[2 * i : 2 * i + 2], "gops", options))
        for i in range(args.pairs)
    ]
    await asyncio.sleep(args.warmup)
    backup = primary.root / "backup"
    figures.backup_seconds = await asyncio.to_thread(take_backup, primary, backup)
    figures.backup_bytes = sum(f.stat().st_size for f in backup.rglob("*") if f.is_file())
    await asyncio.sleep(args.between)
    target = f"drill-{uuid.uuid4().hex[:8]}"
    point = time.monotonic()  # before the restore point: a 202 read earlier committed earlier
    segment = await asyncio.to_thread(restore_point, primary, target)
    await asyncio.sleep(args.after)
    load.stop_at = time.monotonic()
    await asyncio.gather(*tasks)
    return Played(load, players, backup, point, target, segment)


#: (match id, step, seat, receipt digest) of a move.
MoveKey = tuple[str, int, int, str]


def compare_moves(
    stored: list[MoveKey], accepted: list[MoveKey], accepted_at: list[float], point: float,
    figures: Figures,
) -> list[str]:  # fmt: skip
    """Problems between the restored player moves and the ``202``s the clients read (at the
    times ``accepted_at``): every move acknowledged before ``point`` is stored with the
    client's receipt digest; no stored move is one no client was told of."""
    restored = {(m, step, seat): digest for m, step, seat, digest in stored}
    problems: list[str] = []
    for (m, step, seat, digest), at in zip(accepted, accepted_at, strict=True):
        key = (m, step, seat)
        if at >= point:
            if key in restored:
                figures.moves_after_point_present += 1
            else:
                figures.moves_after_point_absent += 1
            continue
        figures.moves_before_point += 1
        if key not in restored:
            problems.append(f"lost: {key} was acknowledged before the restore point")
        elif restored[key] != digest:
            problems.append(f"{key}: the stored receipt digest differs from the client's")
        else:
            figures.moves_checked += 1
    unknown = restored.keys() - {(m, step, seat) for m, step, seat, _ in accepted}
    problems += [f"a stored move no client was told of: {key}" for key in sorted(unknown)]
    figures.moves_acknowledged = len(accepted)
    return problems


def check_moves(restored: PostgresCluster, load: Load, point: float, figures: Figures) -> list[str]:
    """The restored cluster's player moves against every ``202`` the players read."""
    rows = restored.sql(
        "SELECT match_id::text, step, seat, receipt->>'digest' FROM games_move "
        "WHERE source = 'player'"
    )
    stored = [(str(m), int(step), int(seat), str(digest)) for m, step, seat, digest in rows]
    return compare_moves(stored, load.rec.accepted, load.rec.accepted_at, point, figures)


def check_transcripts(
    restored: PostgresCluster, web: WebServer, token: str, figures: Figures
) -> list[str]:
    """Every finished match's transcript, read through the restored server, verifies."""
    problems: list[str] = []
    finished = restored.sql("SELECT id::text FROM games_match WHERE status = 'finished'")
    figures.matches_finished = len(finished)
    for (match_id,) in finished:
        answer = http_call(web.port, "GET", f"{API}/matches/{match_id}/audit", token=token)
        if answer.status != 200:
            problems.append(f"{match_id}: GET audit answered {answer.status}")
            continue
        report = verify_transcript(answer.body)
        problems += [f"{match_id}: {problem}" for problem in report.problems]
        figures.transcripts_verified += not report.problems
    return problems


def check_a_move(restored: PostgresCluster, web: WebServer, players: list[Player]) -> list[str]:
    """The restored server takes a move: a seat of a match left active at the point that has
    not moved in its step reads the match and plays a legal card (``202``)."""
    waiting = restored.sql(
        "SELECT m.id::text, u.username FROM games_match m "
        "JOIN games_seat s ON s.match_id = m.id JOIN accounts_user u ON u.id = s.user_id "
        "WHERE m.status = 'active' AND (m.submitted_mask >> s.index) & 1 = 0 LIMIT 1"
    )
    if not waiting:
        return ["no match was left active at the restore point: no move tried"]
    ((match_id, username),) = waiting
    token = next(p.token for p in players if p.name == username)
    read = http_call(web.port, "GET", f"{API}/matches/{match_id}", token=token)
    if read.status != 200:
        return [f"{match_id}: GET answered {read.status} on the restored server"]
    card = read.body["legal_moves"][0]["card"]
    moved = http_call(
        web.port,
        "POST",
        f"{API}/matches/{match_id}/moves",
        {"step": read.body["step"], "move": {"card": card}},
        token=token,
    )
    return [] if moved.status == 202 else [f"{match_id}: a move answered {moved.status}"]


def drill(args: argparse.Namespace) -> dict[str, Any]:
    signing_key, secret_key = secrets.token_hex(32), secrets.token_hex(32)
    figures = Figures()
    started = time.monotonic()
    primary, restored = ArchivingCluster(), PostgresCluster()
    archive = primary.archive
    try:
        prepare_primary(primary, args.server)
        env = web_env(primary, signing_key, secret_key)
        web = WebServer(
            env=env,
            cwd=ROOT,
            log=primary.root / "web.log",
            workers=args.workers,
            threads=args.threads,
        )
        try:
            # While the web server starts: this process writes the players' accounts.
            os.environ.update(env)
            django.setup()
            load, players = players_of(args, web.port)
            web.ready(60)
            played = asyncio.run(play(args, load, players, primary, figures))
        finally:
            web.stop()
            connections.close_all()
        segment = archive / played.segment
        wait_until(segment.exists, 60, f"{segment} archived")
        primary.stop()
        figures.archived_segments = sum(1 for _ in archive.iterdir())
        figures.restore_seconds = restore(restored, played.backup, archive, played.target)
        figures.problems += check_moves(restored, played.load, played.point, figures)
        web = WebServer(
            env=web_env(restored, signing_key, secret_key),
            cwd=ROOT,
            log=restored.root / "web.log",
            workers=1,
            threads=2,
        )
        try:
            web.ready(60)
            token = played.players[0].token
            figures.problems += check_transcripts(restored, web, token, figures)
            figures.problems += check_a_move(restored, web, played.players)
        finally:
            web.stop()
        load = played.load
        figures.problems += [f"load: {example}" for example in load.rec.error_examples]
    finally:
        primary.destroy()
        restored.destroy()
    figures.total_seconds = time.monotonic() - started
    return asdict(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=4, help="concurrent 2-player GOPS matches")
    parser.add_argument("--gops-cards", type=int, default=5)
    parser.add_argument("--warmup", type=float, default=2.0, help="play before the backup, s")
    parser.add_argument("--between", type=float, default=2.0, help="backup to restore point, s")
    parser.add_argument("--after", type=float, default=2.0, help="play after the point, s")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--server", default=PG_SERVER, help="the server holding the migrated template"
    )
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args(argv)
    figures = drill(args)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    for name, value in figures.items():
        if name != "problems":
            print(f"{name}: {value}")
    for problem in figures["problems"]:
        print(f"PROBLEM: {problem}")
    print("restore drill: OK" if not figures["problems"] else "restore drill: FAILED")
    return 1 if figures["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
