"""A PgBouncer of the test's own: transaction pooling, trust authentication for the users
named, on a free port of 127.0.0.1, in front of the test's PostgreSQL; its configuration, log
and pid file in a temporary directory. Debian's package (1.18) is used; without it the tests
skip and say so. The system's pgbouncer service is never touched."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.processes import free_port, wait_until


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")
    if found is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    return found


class PgBouncer:
    def __init__(self, *, host: str, port: int, users: list[str], pool_size: int = 4) -> None:
        self.binary = pgbouncer_binary()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="facedown-pgbouncer-"))
        self.log = self.root / "pgbouncer.log"
        (self.root / "users.txt").write_text("".join(f'"{user}" ""\n' for user in users))
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={host} port={port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.root / 'users.txt'}\n"
            f"admin_users = {users[0]}\n"
            f"pool_mode = transaction\ndefault_pool_size = {pool_size}\nmax_client_conn = 100\n"
            f"logfile = {self.log}\npidfile = {self.root / 'pgbouncer.pid'}\n"
        )
        # PgBouncer refuses to run as root: it switches to the postgres user then (``-u``).
        as_user: list[str] = []
        if os.geteuid() == 0:
            as_user = ["-u", "postgres"]
            for path in [self.root, *self.root.iterdir()]:
                shutil.chown(path, "postgres")
        self.process = subprocess.Popen(
            [self.binary, *as_user, str(self.root / "pgbouncer.ini")],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        wait_until(self._answers, 20, "pgbouncer")

    def dsn(self, database: str, user: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={user} dbname={database}"

    def url(self, database: str, user: str) -> str:
        return f"postgres://{user}@127.0.0.1:{self.port}/{database}"

    def _answers(self) -> bool:
        assert self.process.poll() is None, self.output()
        try:
            self.admin("SHOW VERSION")
        except psycopg.OperationalError:
            return False
        return True

    def admin(self, command: str) -> list[dict[str, Any]]:
        """A command of PgBouncer's admin console (simple protocol: no parameters)."""
        with psycopg.connect(
            self.dsn("pgbouncer", "postgres"), autocommit=True, connect_timeout=2
        ) as admin:
            cursor = admin.execute(command)  # type: ignore[call-overload]
            names = [column.name for column in cursor.description or []]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            # SIGINT: PgBouncer's "safe shutdown" waits for clients; SIGTERM stops at once.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        with contextlib.suppress(OSError):
            shutil.rmtree(self.root)
