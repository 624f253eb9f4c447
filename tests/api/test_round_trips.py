"""Database round trips per request, counted at the libpq protocol level (BEGIN/COMMIT included).

The requests go through the whole HTTP stack (``APIClient`` in this thread, so on the very
connection that is traced). ``pytest -s`` prints the measured numbers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.signals import request_started
from django.db import connection, connections, transaction

from accounts.authentication import forget_cached_tokens
from games.models import Match
from tests.players import Player, make_player, start_match
from tests.roundtrips import RoundTrips, count_round_trips

# The performance targets (the foundation's budgets were 8 and 4): a move takes BEGIN with the
# match-and-seats lock, which reads the open step's recorded moves too (one psycopg pipeline,
# core/postgresql/own.py; the other seats' sealed moves are read again only when one committed
# while this move waited for the lock, games/locks.py), and one statement writing moves, events
# and the match sent with COMMIT (another pipeline); a read takes the match with its seats,
# and (200 only) its engine state.
MOVE_BUDGET = 4
READ_BUDGET = 3

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_token_cache() -> Iterator[None]:
    forget_cached_tokens()
    yield
    forget_cached_tokens()


def _measure(action: Any, *, production: bool = False) -> tuple[Any, RoundTrips]:
    """Run ``action`` and count its round trips.

    ``production`` also sends ``request_started`` as the real WSGI handler does (and the test
    client skips): ``close_old_connections`` and the kept connection's socket check
    (core/postgresql/health.py) run before the request's first query.
    """
    with count_round_trips() as trips:
        if production:
            request_started.send(sender=None)
        answer = action()
    return answer, trips


def test_the_counter_sees_begin_and_commit() -> None:
    with count_round_trips() as trips, transaction.atomic():
        Match.objects.first()
    assert [m.split()[0].strip('"') for m in trips.messages] == ["BEGIN", "SELECT", "COMMIT"]
    assert trips.count == 3

    with count_round_trips() as trips:
        Match.objects.exists()
    assert trips.count == 1  # autocommit: no BEGIN, no COMMIT


def _two_players() -> tuple[Player, Player, str]:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    return alice, bob, match_id


def _play_and_read(
    alice: Player, bob: Player, match_id: str, *, production: bool = False
) -> dict[str, RoundTrips]:
    step = alice.match(match_id)["step"]
    # Warm up: the token cache (when on) and the connection, for both players.
    assert bob.get(f"/matches/{match_id}").status_code == 200
    assert alice.get(f"/matches/{match_id}").status_code == 200

    counts: dict[str, RoundTrips] = {}
    answer, counts["move (step stays open)"] = _measure(
        lambda: alice.move(match_id, step, {"card": step}), production=production
    )
    assert answer.status_code == 202, answer.content
    answer, counts["move (resolves the step)"] = _measure(
        lambda: bob.move(match_id, step, {"card": step}), production=production
    )
    assert answer.status_code == 202, answer.content
    answer, counts["GET match (200)"] = _measure(
        lambda: alice.get(f"/matches/{match_id}"), production=production
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["step"] == step + 1
    etag = answer["ETag"]
    answer, counts["GET match (304)"] = _measure(
        lambda: alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=etag), production=production
    )
    assert answer.status_code == 304
    return counts


def _report(title: str, counts: dict[str, RoundTrips]) -> None:
    print(f"\n== {title}")
    for name, trips in counts.items():
        print(f"{name}: {trips}")


def _assert_budgets(counts: dict[str, RoundTrips], extra: int = 0) -> None:
    for name, trips in counts.items():
        budget = (MOVE_BUDGET if name.startswith("move") else READ_BUDGET) + extra
        assert trips.count <= budget, f"{name}: {trips}"


def test_round_trips_with_the_token_cache_on(settings: Any) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    # The revocation look (once a second per process) is measured on its own below.
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = 600
    alice, bob, match_id = _two_players()
    counts = _play_and_read(alice, bob, match_id)
    _report("token cache on (test client)", counts)
    _assert_budgets(counts)
    # exactly: move 2 (whether or not it resolves the step), read 1 (state with the snapshot),
    # 304 1
    assert [trips.count for trips in counts.values()] == [2, 2, 1, 1], counts
    for name in ("move (step stays open)", "move (resolves the step)"):
        # BEGIN went with the lock, the write with the COMMIT, both prepared statements
        assert counts[name].messages == ["BEGIN", "COMMIT"], counts[name]
        first, second = counts[name].trace.split("ReadyForQuery")[:2]
        assert '"_pg3_' in first and '"_pg3_' in second, counts[name]  # psycopg's names
    # No token lookup: no query touches the token table once the cache is warm.
    for trips in counts.values():
        assert not any("accounts_accesstoken" in m for m in trips.messages), trips


def test_the_revocation_look_costs_one_round_trip_at_most_once_per_interval(
    settings: Any,
) -> None:
    """Shared revocation (accounts/revocation.py): with the interval at 0 every request looks,
    the worst case; a real process looks at most once per second, on one of its requests."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = 0
    alice, bob, match_id = _two_players()
    counts = _play_and_read(alice, bob, match_id)
    _report("token cache on, revocations looked up on every request (worst case)", counts)
    assert [trips.count for trips in counts.values()] == [3, 3, 2, 2], counts
    for trips in counts.values():
        assert sum("accounts_tokenrevocation" in m for m in trips.messages) == 1, trips
        assert not any("accounts_accesstoken" in m for m in trips.messages), trips
    _assert_budgets(counts)


def test_round_trips_with_the_token_cache_off(settings: Any) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 0
    alice, bob, match_id = _two_players()
    counts = _play_and_read(alice, bob, match_id)
    _report("token cache off (test client)", counts)
    for trips in counts.values():
        assert sum("accounts_accesstoken" in m for m in trips.messages) == 1, trips
    # The token lookup is the only difference from the cached path.
    _assert_budgets(counts)


def test_round_trips_as_in_production(settings: Any) -> None:
    """Through the real handler's ``request_started``: persistent connections are kept and,
    with health checks on (the default: a connection PostgreSQL dropped is replaced before it
    fails a request, docs/reliability.md), checked without a round trip: the check asks the
    socket (core/postgresql/health.py), so no ``SELECT 1`` precedes a request."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = 600
    assert settings.FACEDOWN_DB_SOCKET_CHECKS
    assert not connection.settings_dict["CONN_HEALTH_CHECKS"]
    assert connection.settings_dict["ENGINE"] == "core.postgresql"
    alice, bob, match_id = _two_players()
    raw = connection.connection
    counts = _play_and_read(alice, bob, match_id, production=True)
    _report("token cache on, with request_started's health check (production)", counts)
    assert connection.connection is raw  # persistent connection kept across requests
    for trips in counts.values():
        assert '"SELECT 1"' not in trips.messages, trips
    assert [trips.count for trips in counts.values()] == [2, 2, 1, 1], counts
    _assert_budgets(counts)


def test_a_connection_the_server_ended_is_replaced_before_the_request(settings: Any) -> None:
    """The health check notices a kept connection that PostgreSQL terminated (as a restart,
    a failover or a pooler would) and opens a new one: the request answers normally."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    alice, _, match_id = _two_players()
    assert alice.get(f"/matches/{match_id}").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()
    time.sleep(0.2)  # the FATAL notice and the close reach the socket
    request_started.send(sender=None)
    answer = alice.get(f"/matches/{match_id}")
    assert answer.status_code == 200, answer.content
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_round_trips_of_a_move_with_an_idempotency_key(settings: Any) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = 600
    alice, bob, match_id = _two_players()
    assert bob.get(f"/matches/{match_id}").status_code == 200
    assert alice.get(f"/matches/{match_id}").status_code == 200
    key = {"HTTP_IDEMPOTENCY_KEY": "rt-1"}
    counts: dict[str, RoundTrips] = {}
    answer, counts["keyed move (step stays open)"] = _measure(
        lambda: alice.move(match_id, 1, {"card": 1}, **key)
    )
    assert answer.status_code == 202, answer.content
    answer, counts["keyed move (resolves the step)"] = _measure(
        lambda: bob.move(match_id, 1, {"card": 1}, **key)
    )
    assert answer.status_code == 202, answer.content
    answer, counts["keyed move (replay)"] = _measure(
        lambda: bob.move(match_id, 1, {"card": 1}, **key)
    )
    assert answer.status_code == 202, answer.content
    _report("token cache on, Idempotency-Key sent (test client)", counts)
    # A key adds two round trips: claiming it (one autocommitted INSERT) and storing the answer.
    assert counts["keyed move (step stays open)"].count <= MOVE_BUDGET
    assert counts["keyed move (resolves the step)"].count <= MOVE_BUDGET + 1
    assert counts["keyed move (replay)"].count <= READ_BUDGET


def test_the_compiled_lock_query_sees_what_the_orm_sees(settings: Any) -> None:
    """The match lock and the match read run SQL compiled once per process; they must return
    exactly what the querysets they were compiled from return."""
    from games.locks import match_lock_with_seats
    from games.models import Seat
    from games.services.reads import match_snapshot

    alice, bob, match_id = _two_players()
    with transaction.atomic():
        match, seats = match_lock_with_seats(match_id)
    expected = list(
        Seat.objects.select_related("match").filter(match_id=match_id).order_by("index")
    )
    assert [(s.pk, s.index, s.user_id, s.client_seed, s.bot_memory) for s in seats] == [
        (s.pk, s.index, s.user_id, s.client_seed, s.bot_memory) for s in expected
    ]
    assert match.state == expected[0].match.state and match.options == expected[0].match.options
    assert match.id == expected[0].match.id and match.deadline == expected[0].match.deadline
    snapshot = match_snapshot(match_id=match_id, user=alice.user)
    assert snapshot.you == 0
    assert [s.user.username for s in snapshot.seats] == [alice.name, bob.name]
    assert snapshot.match.created_by.username == alice.name


@pytest.mark.parametrize(
    "time_control",
    [
        {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 10, "max_seconds": 900},
        {"kind": "byoyomi", "main_seconds": 600, "periods": 3, "period_seconds": 30},
    ],
    ids=["fischer", "byoyomi"],
)
def test_a_move_on_a_banked_match_costs_no_more_round_trips_than_untimed(
    settings: Any, time_control: dict[str, Any]
) -> None:
    """The clocks live on the match row: stopping a seat's clock (a move that leaves the step
    open) and settling every clock and starting the next step's (a move that resolves it) are
    written with the match, in the same statement, so a timed move costs what an untimed one
    does."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = 600
    alice, bob, untimed = _two_players()
    timed_id = start_match(
        "gops", [alice, bob], options={"num_cards": 5}, time_control=time_control
    )
    plain = _play_and_read(alice, bob, untimed)
    timed = _play_and_read(alice, bob, timed_id)
    _report(f"{time_control['kind']} match (token cache on)", timed)
    assert Match.objects.get(pk=timed_id).clocks is not None
    for name in ("move (step stays open)", "move (resolves the step)"):
        assert timed[name].count <= plain[name].count, (name, timed[name], plain[name])
