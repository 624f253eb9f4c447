"""/healthz and /readyz: no authentication, no throttle, no allowed Host needed, cheap; the
database and its migrations decide readiness, Redis is only reported."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from observability import health

PROBLEM = "application/problem+json"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens


@pytest.fixture
def anon_rate(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, "anon": "3/min"}
    )
    cache.clear()
    yield
    cache.clear()


def test_healthz_answers_without_touching_the_database(db, django_assert_num_queries):
    client = APIClient()
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"
    assert response["X-Request-ID"]


def test_probes_are_neither_throttled_nor_authenticated_nor_host_checked(db, anon_rate, settings):
    settings.ALLOWED_HOSTS = ["facedown.example"]
    client = APIClient()
    # An orchestrator probes by address, with no credentials, as often as it likes.
    answers = [client.get(path, HTTP_HOST="10.1.2.3:8000") for path in ["/healthz", "/readyz"] * 4]
    assert [a.status_code for a in answers] == [200] * 8
    # The same client on the API is throttled after 3 requests (and refused the Host).
    api = [client.get("/api/v1/games", HTTP_HOST="facedown.example").status_code for _ in range(5)]
    assert api == [200, 200, 200, 429, 429]
    assert client.get("/", HTTP_HOST="10.1.2.3:8000").status_code == 400


def test_readyz_reports_each_check(db, django_assert_max_num_queries):
    health.known_migrations()  # read from disk once per process, not per probe
    with django_assert_max_num_queries(1):
        response = APIClient().get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "migrations": "ok", "redis": "ok"},
    }


def test_a_redis_that_does_not_answer_degrades_but_stays_ready(db, settings):
    down = f"redis://127.0.0.1:{_closed_port()}/0"
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": down}
    }
    settings.CELERY_BROKER_URL = down
    response = APIClient().get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "migrations": "ok", "redis": "degraded"}


def test_the_embedded_default_has_no_redis_to_report(db, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.CELERY_BROKER_URL = "memory://"
    assert APIClient().get("/readyz").json()["checks"]["redis"] == "not_configured"


def test_an_unapplied_migration_makes_the_server_unready(db):
    # Forget the newest games migration, as a database not yet migrated to this code would.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM django_migrations WHERE app = 'games' AND name = ("
            " SELECT max(name) FROM django_migrations WHERE app = 'games') RETURNING name"
        )
        (forgotten,) = cursor.fetchone()
    response = APIClient().get("/readyz")
    assert response.status_code == 503
    assert response["Content-Type"] == PROBLEM
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["code"] == "not_ready" and body["status"] == 503
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["migrations"] == "pending"
    assert body["checks"]["migrations_pending"] == [f"games.{forgotten}"]
    # The probe that follows readiness needs nothing of the database.
    assert APIClient().get("/healthz").status_code == 200


def test_a_database_that_does_not_answer_makes_the_server_unready(db, monkeypatch):
    # A connection that fails as a stopped PostgreSQL does (tests/faults covers real restarts).
    from django.db import OperationalError

    def refused(*_: Any, **__: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(health, "applied_migrations", refused)
    response = APIClient().get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == "unavailable"


def test_other_methods_on_probe_paths_are_not_probes(db):
    response = APIClient().post("/healthz", {}, format="json")
    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
