"""``python -m tests.serial_database``: the test database of a run without workers (the serial
phase's), created anew and migrated as pytest-django would at that run's first database test.

scripts/test runs it in the background during the workers' phase and then gives the serial
phase ``--reuse-db``: the migrations, about a minute of one core on a busy machine, leave that
phase's critical path. ``--drop`` removes it again at the run's end (pytest-django keeps a
reused database)."""

from __future__ import annotations

import os
import sys

import django


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    assert not os.environ.get("PYTEST_XDIST_WORKER"), "the serial phase runs without workers"
    django.setup()
    if argv == ["--drop"]:
        _drop()
        return
    from django.test.utils import setup_databases

    # keepdb=False: an old one of that name is destroyed first, as at any run's start. Nothing
    # serialized: this process ends here.
    setup_databases(verbosity=0, interactive=False, keepdb=False, serialized_aliases=set())


def _drop() -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"] and db["ENGINE"] != "core.postgresql":
        return
    name = (db.get("TEST") or {}).get("NAME") or f"test_{db['NAME']}"
    dsn = f"host={db['HOST']} port={db['PORT']} user={db['USER']} dbname=postgres"
    if db.get("PASSWORD"):
        dsn += f" password={db['PASSWORD']}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


if __name__ == "__main__":
    main(sys.argv[1:])
