"""The read-replica router (games/routers.py), with a ``replica`` alias added for the test.

What this proves, and what it does not: the happy path points ``replica`` at the test
database itself (a second connection), so it proves which reads the router sends to the
replica alias and which stay on the primary (every query is captured per connection), and
that the compiled hot queries follow the alias; it cannot show replication lag. The fallback
points ``replica`` at a separate, migrated but empty database, standing in for a replica that
has not received a match yet: the audit must still answer, from the primary, exactly as
without a replica.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Match
from games.replica_gate import wrote_key
from games.routers import read_alias, replica_reads
from games.services import reads
from live.bus import RedisBus, bus
from tests.players import Player, play_to_end, start_match
from tests.tournaments import driver
from tournaments.models import Tournament

# The alias exists for the whole module, before each test's database setup, so the test
# case may use it like any configured database.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "replica"])


def _point_replica_at(name: str) -> None:
    if "replica" in connections.settings:
        connections["replica"].close()
        del connections["replica"]  # a new connection object reads the new settings
    connections.settings["replica"] = {**connections.settings["default"], "NAME": name}


@pytest.fixture(autouse=True, scope="module")
def _replica_alias() -> Iterator[None]:
    """``replica`` is a second connection to the test database itself (the happy path)."""
    _point_replica_at(connections.settings["default"]["NAME"])
    yield
    connections["replica"].close()
    del connections["replica"]
    del connections.settings["replica"]


@pytest.fixture
def empty_replica() -> Iterator[None]:
    """``replica`` is a separate database with the schema and no rows (a lagging replica)."""
    test_database = connections["default"].settings_dict["NAME"]
    name = f"{test_database}_replica"
    server = dict(connections["default"].get_connection_params())
    server["dbname"] = "postgres"
    with psycopg.connect(**server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    _point_replica_at(name)
    call_command("migrate", database="replica", verbosity=0)
    yield
    _point_replica_at(test_database)
    with psycopg.connect(**server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _finished(alice: Player, bob: Player, *, ago: timedelta) -> str:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(match_id, [alice, bob])
    Match.objects.filter(pk=match_id).update(finished_at=timezone.now() - ago)
    return match_id


def _tables(queries: CaptureQueriesContext) -> str:
    return " ".join(query["sql"] for query in queries.captured_queries)


def _on_each(action: Any) -> tuple[Any, str, str]:
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        answer = action()
    return answer, _tables(primary), _tables(replica)


def test_without_a_replica_every_read_stays_on_the_primary() -> None:
    with replica_reads() as alias:
        assert alias == read_alias() == "replica"
    configured = connections.settings.pop("replica")
    try:
        with replica_reads() as alias:
            assert alias == read_alias() == "default"
    finally:
        connections.settings["replica"] = configured


def test_finished_lists_and_old_audits_read_from_the_replica(alice: Player, bob: Player) -> None:
    old = _finished(alice, bob, ago=timedelta(minutes=2))
    audit, primary, replica = _on_each(lambda: alice.get(f"/matches/{old}/audit"))
    assert audit.status_code == 200
    assert "games_matchevent" in replica and "games_move" in replica
    assert "games_matchevent" not in primary and "games_move" not in primary

    listed, primary, replica = _on_each(lambda: alice.get("/matches?status=finished"))
    assert [m["id"] for m in listed.json()["results"]] == [old]
    assert "games_match" in replica and "games_match" not in primary


def test_live_reads_recent_audits_and_writes_stay_on_the_primary(
    alice: Player, bob: Player
) -> None:
    recent = _finished(alice, bob, ago=timedelta(seconds=5))
    live = start_match("gops", [alice, bob], options={"num_cards": 4})
    actions = [
        lambda: alice.get(f"/matches/{recent}/audit"),
        lambda: alice.get(f"/matches/{live}"),
        lambda: alice.get(f"/matches/{live}/events"),
        lambda: alice.get("/matches"),
        lambda: alice.get("/matches?status=active"),
        lambda: alice.move(live, 1, alice.match(live)["legal_moves"][0]),
    ]
    for number, action in enumerate(actions):
        answer, primary, replica = _on_each(action)
        assert answer.status_code in (200, 202)
        if number == 0:  # the audit asks the replica how old the match is, and no more
            assert "games_matchevent" not in replica and "games_matchevent" in primary
        else:
            assert replica == "" and "games_" in primary


def test_the_compiled_hot_queries_follow_the_alias(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})

    def snapshot() -> Any:
        return reads.match_snapshot(match_id=match_id, user=alice.user)

    _, primary, replica = _on_each(snapshot)
    assert "games_seat" in primary and replica == ""
    with replica_reads():
        read, primary, replica = _on_each(snapshot)
    assert "games_seat" in replica and "games_seat" not in primary
    assert read.match._state.db == "replica" and read.you == 0


def test_an_audit_the_replica_lacks_falls_back_to_the_primary(
    alice: Player, bob: Player, empty_replica: None
) -> None:
    old = _finished(alice, bob, ago=timedelta(minutes=2))
    configured = connections.settings.pop("replica")
    expected = alice.get(f"/matches/{old}/audit").content  # as without a replica
    connections.settings["replica"] = configured
    answer, primary, replica = _on_each(lambda: alice.get(f"/matches/{old}/audit"))
    assert answer.status_code == 200 and answer.content == expected
    assert "games_match" in replica  # asked the replica first, which lacks the match
    assert "games_matchevent" in primary  # then read everything from the primary


def test_profiles_and_leaderboards_read_from_the_replica(alice: Player, bob: Player) -> None:
    _finished(alice, bob, ago=timedelta(minutes=2))
    profile, primary, replica = _on_each(lambda: alice.get("/players/bob"))
    assert profile.status_code == 200 and profile.json()["recent"]
    assert "games_seat" in replica and "games_seat" not in primary
    board, primary, replica = _on_each(lambda: alice.get("/games/gops/leaderboard"))
    assert board.status_code == 200
    assert "games_rating" in replica and "games_rating" not in primary


def test_only_finished_tournaments_read_from_the_replica(alice: Player) -> None:
    players = driver.users(4)
    cup = driver.tournament(players[0], players, rounds=1)
    path = f"/tournaments/{cup.pk}"
    for url in (f"{path}/standings", f"{path}/export", f"{path}/export?format=csv"):
        # Not finished: the replica is asked for its status only, the rest is the primary's.
        answer, primary, replica = _on_each(lambda url=url: alice.get(url))
        assert answer.status_code == 200
        assert "tournaments_entry" in primary and "tournaments_entry" not in replica
    now = timezone.now() + timedelta(days=2)
    assert driver.play_out(cup.pk, now=now).status == Tournament.Status.FINISHED
    for url in (f"{path}/standings", f"{path}/export", f"{path}/export?format=csv"):
        answer, primary, replica = _on_each(lambda url=url: alice.get(url))
        assert answer.status_code == 200
        assert "tournaments_entry" in replica and "tournaments_entry" not in primary


def test_a_write_that_succeeded_notes_its_accounts_moment(alice: Player, bob: Player) -> None:
    shared = bus()
    assert isinstance(shared, RedisBus)
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})  # bob's join, noted
    shared.client.delete(wrote_key(alice.user.pk), wrote_key(bob.user.pk))
    before = time.time()
    alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0])
    assert bob.move(match_id, 9, {"card": 1}).status_code >= 400  # refused: changes nothing
    # Sent without waiting for Redis's reply, before the answer: there by the next request.
    noted = shared.client.get(wrote_key(alice.user.pk))
    assert noted is not None and before <= float(noted) <= time.time()
    assert shared.client.get(wrote_key(bob.user.pk)) is None
