"""The tests' PgBouncer (bench/pooler.py): skipped, saying why, where it is not installed."""

from __future__ import annotations

import pytest

from bench.pooler import PgBouncer, pgbouncer_binary


def pgbouncer(*, host: str, port: int, users: list[str], pool_size: int = 4) -> PgBouncer:
    if pgbouncer_binary() is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    return PgBouncer(host=host, port=port, users=users, pool_size=pool_size)
