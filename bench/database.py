"""A benchmark's fresh, migrated PostgreSQL database in about a second instead of a migrate.

``fresh_database(name)`` drops ``name`` and creates it as a copy (``CREATE DATABASE ...
TEMPLATE``) of ``facedown_template_<digest>``: a database migrated once for each state of the
migrations (the digest covers every migration file, ``pyproject.toml`` and Django's version),
kept on the server for the next run. The template is built under a name of its own and renamed
when migrated, so a concurrent run never copies a half-migrated one; old templates are left for
``DROP DATABASE`` (docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_SERVER = "postgresql://postgres@127.0.0.1:5432"


def migrations_digest() -> str:
    """What decides a migrated schema: the migration files, the dependencies, Django."""
    import django

    digest = hashlib.sha256(django.__version__.encode())
    for path in [ROOT / "pyproject.toml", *sorted(ROOT.glob("*/migrations/*.py"))]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def template_database(server: str = PG_SERVER) -> str:
    """The migrated template's name, migrating it first when this state has none yet."""
    import psycopg

    name = f"facedown_template_{migrations_digest()}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as c:
        if c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return name
        building = f"{name}_{os.getpid()}"
        c.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{building}"')
    # A process of its own: this one may already have Django set up on another database.
    env = {
        **os.environ,
        "DATABASE_URL": f"{server}/{building}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_hex(32),
        "FACEDOWN_SIGNING_KEY": secrets.token_hex(32),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    }
    # --skip-checks: the deployment checks (Redis and the like) are not the schema's business.
    migrate = [sys.executable, "-m", "django", "migrate", "--skip-checks", "--verbosity=0"]
    migrated = subprocess.run(migrate, cwd=ROOT, env=env).returncode == 0
    with psycopg.connect(f"{server}/postgres", autocommit=True) as c:
        try:
            if migrated:
                c.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        except psycopg.errors.DuplicateDatabase:  # a concurrent run made it first
            migrated = True
        finally:
            c.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
    if not migrated:
        raise RuntimeError(f"could not migrate the template database {building}")
    return name


def fresh_database(name: str, server: str = PG_SERVER) -> None:
    """Drop ``name`` and create it migrated, as a copy of the template."""
    import psycopg

    template = template_database(server)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


def copy_migrated(target_url: str, server: str = PG_SERVER) -> None:
    """Load the migrated template (schema and the migrations' own rows) into the database at
    ``target_url``, on a cluster of a benchmark's own: no migration runs there."""
    dump = subprocess.run(
        ["pg_dump", "--no-owner", "--no-acl", "-d", f"{server}/{template_database(server)}"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", target_url],
        input=dump.stdout,
        check=True,
        capture_output=True,
        timeout=120,
    )
