"""The probes: ``/healthz`` (the process answers) and ``/readyz`` (it can serve: PostgreSQL
answers and every migration this code knows is applied). Redis is reported but never makes
the server unready: without it the API keeps serving (throttles count per process, the sweep
catches up on bots and deadlines; docs/reliability.md).
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import redis
from django.conf import settings
from django.db import DatabaseError, ProgrammingError
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

log = logging.getLogger(__name__)


@cache
def known_migrations() -> frozenset[tuple[str, str]]:
    """The migrations on disk (read once per process: the code does not change under it)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return frozenset(loader.graph.nodes)


def applied_migrations() -> set[tuple[str, str]]:
    """The migrations the database records: one query (the recorder's own check for its
    table would be a second one). No table yet means nothing is applied."""
    try:
        return set(MigrationRecorder.Migration.objects.values_list("app", "name"))
    except ProgrammingError:
        return set()


def migrations_missing() -> list[str]:
    """The known migrations the database has not applied."""
    return sorted(f"{app}.{name}" for app, name in known_migrations() - applied_migrations())


def _redis_urls() -> list[str]:
    urls: list[Any] = []
    cache_conf = settings.CACHES.get("default", {})
    if "redis" in str(cache_conf.get("BACKEND", "")).lower():
        location = cache_conf.get("LOCATION")
        urls += location if isinstance(location, list) else [location]
    broker = str(getattr(settings, "CELERY_BROKER_URL", ""))
    if broker.startswith(("redis://", "rediss://")):
        urls.append(broker)
    return list(dict.fromkeys(str(url) for url in urls if url))


def redis_status() -> str:
    """``ok``, ``degraded`` (a Redis the settings name does not answer) or ``not_configured``
    (the embedded default)."""
    urls = _redis_urls()
    if not urls:
        return "not_configured"
    for url in urls:
        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            client.ping()
        except redis.RedisError as exc:
            log.warning("readiness: Redis does not answer (%s)", type(exc).__name__)
            return "degraded"
        finally:
            client.close()
    return "ok"


def readiness() -> tuple[bool, dict[str, Any]]:
    """Whether this process is ready to serve, and the checks that say so."""
    checks: dict[str, Any] = {}
    try:
        missing = migrations_missing()
        checks["database"] = "ok"
        checks["migrations"] = "ok" if not missing else "pending"
        if missing:
            checks["migrations_pending"] = missing
    except DatabaseError as exc:
        log.warning("readiness: the database does not answer (%s)", type(exc).__name__)
        checks["database"] = "unavailable"
        checks["migrations"] = "unknown"
    checks["redis"] = redis_status()
    ready = checks["database"] == "ok" and checks["migrations"] == "ok"
    return ready, checks
