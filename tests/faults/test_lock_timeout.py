"""A match row held by another session: a move is answered ``503 service_unavailable`` with
``Retry-After`` once the web's lock timeout passes (core/postgresql/session.py), nothing of it is
recorded, the watchdog names the waiting request by route and request id meanwhile, and once
the lock is released the same move is accepted."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest
from django.db import connection, connections

from games.models import Match, Move
from observability.watchdog import watchdog
from tests.players import make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)

LOCK_TIMEOUT_MS = 400


def _dsn() -> str:
    db = connection.settings_dict
    return (
        f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} "
        f"user={db['USER']} dbname={db['NAME']}"
    )


def _blocked(holder: psycopg.Connection[Any]) -> bool:
    """Whether some backend waits on a lock the holder has."""
    with psycopg.connect(_dsn(), autocommit=True) as probe:
        rows = probe.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
            (holder.info.backend_pid,),
        ).fetchone()
    return bool(rows and rows[0])


def test_a_move_on_a_match_locked_elsewhere_is_answered_503_within_the_lock_timeout(
    settings: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.FACEDOWN_WEB_LOCK_TIMEOUT_MS = LOCK_TIMEOUT_MS
    settings.FACEDOWN_REQUEST_WATCHDOG_SECONDS = 60
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    view = alice.match(match_id)
    move = view["legal_moves"][0]
    before = Match.objects.values_list("version", "step").get(pk=match_id)

    dog = watchdog()
    assert dog is not None
    now = [0.0]
    # A controlled clock: the watchdog's bound passes when the test says so.
    monkeypatch.setattr(dog, "clock", lambda: now[0])
    answer: dict[str, Any] = {}

    def send() -> None:
        began = time.monotonic()
        try:
            answer["response"] = alice.move(match_id, view["step"], move)
        finally:
            answer["seconds"] = time.monotonic() - began
            connections.close_all()

    with psycopg.connect(_dsn()) as holder:
        holder.execute("SELECT 1 FROM games_match WHERE id = %s FOR UPDATE", (match_id,))
        sender = threading.Thread(target=send)
        sender.start()
        deadline = time.monotonic() + 5
        while not _blocked(holder) and sender.is_alive():
            assert time.monotonic() < deadline, "the move never waited for the lock"
            time.sleep(0.02)
        now[0] = 61.0
        late = dog.look()
        sender.join(10)
        holder.rollback()

    response = answer["response"]
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "service_unavailable"
    assert response["Retry-After"] == "1"
    # It waited for the lock, and no longer than the lock timeout and a margin for a busy machine.
    assert LOCK_TIMEOUT_MS / 1000 <= answer["seconds"] < LOCK_TIMEOUT_MS / 1000 + 1.5
    assert Match.objects.values_list("version", "step").get(pk=match_id) == before
    assert not Move.objects.filter(match_id=match_id).exists()
    # The watchdog saw the request in flight: its route and the id its answer carries.
    assert [(route, rid) for route, rid, _ in late] == [("match-moves", response["X-Request-ID"])]
    assert any("still running" in r.getMessage() for r in caplog.records)

    accepted = alice.move(match_id, view["step"], move)
    assert accepted.status_code in (200, 202), accepted.content
    assert Move.objects.filter(match_id=match_id).count() == 1


def test_a_worker_change_waits_the_worker_lock_timeout_not_the_webs(settings: Any) -> None:
    """A Celery worker says so at start (config/celery.py); its changes then carry the worker's
    limits with their BEGIN."""
    from django.db import OperationalError

    from config.celery import database_timeouts
    from core.postgresql import session
    from games.services.unit_of_work import match_change

    settings.FACEDOWN_WEB_LOCK_TIMEOUT_MS = 60_000  # would hold the test for a minute
    settings.FACEDOWN_WORKER_LOCK_TIMEOUT_MS = LOCK_TIMEOUT_MS
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    database_timeouts()
    try:
        assert session.kind() == "worker"
        with psycopg.connect(_dsn()) as holder:
            holder.execute("SELECT 1 FROM games_match WHERE id = %s FOR UPDATE", (match_id,))
            began = time.monotonic()
            with pytest.raises(OperationalError, match="lock timeout"), match_change(match_id):
                pass
            took = time.monotonic() - began
            holder.rollback()
    finally:
        session.use("web")
    assert LOCK_TIMEOUT_MS / 1000 <= took < LOCK_TIMEOUT_MS / 1000 + 1.5
