"""A PgBouncer of one's own: transaction pooling, trust authentication for the users named, on
a free port of 127.0.0.1, in front of a PostgreSQL; its configuration, log and pid file in a
temporary directory, stopped by ``stop()``. Debian's package (1.18); the system's pgbouncer
service is never touched. bench/load.py (``--db-mode pooled``) and tests/machines/ use it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg


def pgbouncer_binary() -> str | None:
    return shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgBouncer:
    def __init__(
        self, *, host: str, port: int, users: list[str], pool_size: int = 4, listen: int = 0
    ) -> None:
        """``listen``: its port (0: a free one)."""
        binary = pgbouncer_binary()
        if binary is None:
            raise RuntimeError("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
        self.binary = binary
        self.port = listen or _free_port()
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
        deadline = time.monotonic() + 20
        while not self._answers():
            if time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer did not answer: {self.output()}")
            time.sleep(0.05)

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
            cursor = admin.execute(command)
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
