"""Table settings the hot queries rely on (docs/data.md)."""

import pytest
from django.db import connection


@pytest.mark.django_db
def test_seat_scans_are_never_parallel():
    # A parallel plan's worker start-up cost the stalled-bots sweep ~25 ms for ~1 ms of work.
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_seat'")
        (options,) = cursor.fetchone()
    assert "parallel_workers=0" in (options or [])
