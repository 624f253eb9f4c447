"""A real streaming replica under lag: nobody reads older data than they wrote, a replica too far
behind or stopped is passed over, and no request fails for it.

The module starts its own primary (initdb + pg_ctl on a free port), migrates it, makes a
replica of it with ``pg_basebackup -R`` streaming on another port, its own Redis, and two
production web servers (config/web.py) on both databases: one lets a replica lag up to an hour
(``FACEDOWN_REPLICA_MAX_LAG_SECONDS=3600``), the other not at all (0). Replay is paused with
``pg_wal_replay_pause()``; then alice and bob take turns at finishing matches (create, join,
resign: each finished match is the writer's own write), each read back by its writer on the
reads the replica may serve (the finished list, the player's profile, the audit) while carol,
who writes nothing, reads the same profiles. Every writer's read shows every match it finished
(0 older than its own writes); carol, on the lenient server, sees the replica's older data
(which proves the replica served her), and on the strict one never does. After
``pg_wal_replay_resume()`` carol's reads catch up. With the replica stopped while the last
measurement still says it is fine, the next read fails there and is answered from the primary,
the replica noted unusable; every read after is answered, from the primary, up to date.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis as redis_client

from tests.faults.processes import (
    Answer,
    PostgresCluster,
    RedisServer,
    WebServer,
    http_call,
    service_env,
    wait_until,
)

pytestmark = pytest.mark.slow

API = "/api/v1"
ROUNDS = 26  # finished matches while replay is paused: a few hundred reads in all
STATUS_KEY = "facedown:replica:status"  # games/replica_gate.py


@dataclass
class Deployment:
    primary: PostgresCluster
    replica: PostgresCluster
    redis_url: str
    lenient: WebServer  # FACEDOWN_REPLICA_MAX_LAG_SECONDS=3600
    strict: WebServer  # FACEDOWN_REPLICA_MAX_LAG_SECONDS=0


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    home = tmp_path_factory.mktemp("replica")
    primary = PostgresCluster()
    replica: PostgresCluster | None = None
    redis = RedisServer()
    servers: list[WebServer] = []
    try:
        primary.init()
        env = service_env(
            DJANGO_SETTINGS_MODULE="config.settings",
            DJANGO_SECRET_KEY="replica-lag-" + "x" * 40,
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DATABASE_URL=primary.url,
            FACEDOWN_SIGNING_KEY="7c" * 32,
            FACEDOWN_TASK_RUNNER="off",  # people only: no bot, no deadline
            FACEDOWN_REPLICA_MIN_AGE_SECONDS="0",  # every finished match's audit may go there
            FACEDOWN_REPLICA_CHECK_SECONDS="0.2",
            FACEDOWN_INVITATIONS_PER_HOUR="1000",
            DB_CONNECT_TIMEOUT="2",
            **{
                f"FACEDOWN_THROTTLE_{scope}": "100000/min"
                for scope in ("ANON", "USER", "REGISTER", "MOVES", "READS", "MATCH_CREATE")
            },
        )
        # The servers start (imports, workers) while the primary is migrated and copied.
        replica = PostgresCluster()
        redis.start()
        served = {**env, "DATABASE_REPLICA_URL": replica.url, "REDIS_URL": redis.url}
        for name, lag in (("lenient", "3600"), ("strict", "0")):
            (home / name).mkdir()
            servers.append(
                WebServer(
                    env={
                        **served,
                        "FACEDOWN_REPLICA_MAX_LAG_SECONDS": lag,
                        "FACEDOWN_VAR_DIR": str(home / name / "var"),
                    },
                    cwd=home / name,
                    log=home / f"{name}.log",
                    workers=1,
                    threads=2,
                )
            )
        primary.migrate()
        primary.standby(replica)
        for server in servers:
            server.ready()
        yield Deployment(primary, replica, redis.url, *servers)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.stop(10)
            assert "Traceback" not in server.output(), server.output()[-3000:]
        redis.stop()
        if replica is not None:
            replica.destroy()
        primary.destroy()


class Player:
    def __init__(self, port: int, name: str) -> None:
        self.port, self.name, self.token = port, name, ""
        answer = self.call(
            "POST", "/accounts/register", {"username": name, "password": f"{name}-pw-7f3k2q"}
        )
        assert answer.status == 201, answer.raw
        self.token = answer.body["token"]

    def call(self, method: str, path: str, body: Any = None, port: int | None = None) -> Answer:
        answer = http_call(port or self.port, method, API + path, body, token=self.token)
        assert answer.status < 300, (method, path, answer.status, answer.raw[:300])
        return answer

    def finish_match(self, opponent: Player) -> str:
        """A match with ``opponent`` that this player resigns: finished by its own write."""
        seats = ["me", {"user": opponent.name}]
        body = {"game": "gops", "seats": seats, "options": {"num_cards": 4}}
        created = self.call("POST", "/matches", body)
        match_id: str = created.body["id"]
        opponent.call("POST", f"/matches/{match_id}/join")
        self.call("POST", f"/matches/{match_id}/resign")
        return match_id

    def recent(self, name: str, port: int | None = None) -> list[str]:
        profile = self.call("GET", f"/players/{name}", port=port).body
        return [match["id"] for match in profile["recent"]]

    def finished(self) -> list[str]:
        listed = self.call("GET", "/matches?status=finished&mine=true&page_size=100").body
        return [match["id"] for match in listed["results"]]


def _replica_caught_up(deployment: Deployment) -> bool:
    (flushed,) = deployment.primary.sql("SELECT pg_current_wal_flush_lsn()::text")[0]
    query = f"SELECT pg_last_wal_replay_lsn() >= '{flushed}'::pg_lsn"
    return bool(deployment.replica.sql(query)[0][0])


def test_no_read_older_than_the_readers_own_writes(deployment: Deployment) -> None:
    lenient, strict = deployment.lenient.port, deployment.strict.port
    alice, bob, carol = (Player(lenient, name) for name in ("alice", "bob", "carol"))
    alice.finish_match(bob)
    wait_until(lambda: _replica_caught_up(deployment), 10, "the replica to catch up")

    deployment.replica.sql("SELECT pg_wal_replay_pause()")
    finished: dict[str, list[str]] = {"alice": [], "bob": []}
    reads = own_stale = carol_stale_lenient = carol_stale_strict = 0
    for number in range(ROUNDS):
        writer, other = (alice, bob) if number % 2 == 0 else (bob, alice)
        match_id = writer.finish_match(other)
        finished[writer.name].insert(0, match_id)
        # The writer reads back what it wrote, on each server: never older.
        for port in (lenient, strict):
            writer.port = port
            own = writer.finished()
            own_stale += not set(finished[writer.name]) <= set(own)
            own_stale += writer.recent(writer.name)[0] != match_id
            audit = writer.call("GET", f"/matches/{match_id}/audit").body
            own_stale += audit["status"] != "finished"
            reads += 3
        writer.port = lenient
        # Carol wrote nothing: the lenient server may show her the replica's older profile.
        carol_stale_lenient += carol.recent(writer.name)[0] != match_id
        carol_stale_strict += carol.recent(writer.name, port=strict)[0] != match_id
        reads += 2
    print(
        f"\n{reads} reads while replay was paused: {own_stale} older than the reader's own "
        f"writes; carol (no writes) saw older data {carol_stale_lenient} times on the lenient "
        f"server, {carol_stale_strict} on the strict one"
    )
    assert reads >= 200
    assert own_stale == 0
    assert carol_stale_lenient == ROUNDS  # the replica served her, from before the pause
    assert carol_stale_strict == 0  # too far behind for a bound of 0: the primary served

    # Replay resumed: once the replica has caught up, carol's reads are up to date again.
    deployment.replica.sql("SELECT pg_wal_replay_resume()")
    wait_until(lambda: _replica_caught_up(deployment), 10, "the replica to catch up")
    latest = finished["bob"][0]
    wait_until(lambda: carol.recent("bob")[0] == latest, 5, "carol's read of the new state")


def test_reads_fall_back_to_the_primary_when_the_replica_stops(deployment: Deployment) -> None:
    dave, erin = Player(deployment.lenient.port, "dave"), Player(deployment.lenient.port, "erin")
    match_id = dave.finish_match(erin)
    deployment.replica.stop()
    try:
        # The last measurement still says all is well: the next read finds out by failing,
        # is answered from the primary, and notes the replica unusable.
        shared = redis_client.Redis.from_url(deployment.redis_url)
        shared.set(STATUS_KEY, f"{time.time() + 5!r} 0.0", px=60_000)
        assert erin.recent("dave")[0] == match_id
        assert shared.get(STATUS_KEY) in (b"-inf inf", None)  # None: noted, and expired since
        assert "a read failed on the replica" in deployment.lenient.output()
        for port in (deployment.lenient.port, deployment.strict.port):
            for _ in range(5):  # every answer 200 (asserted in ``call``), up to date
                assert erin.recent("dave", port=port)[0] == match_id
                dave.port = port
                assert match_id in dave.finished()
                assert erin.call("GET", f"/matches/{match_id}/audit").status == 200
        status = shared.get(STATUS_KEY)
        assert status is None or status == b"-inf inf", status  # unusable, or not measured
    finally:
        deployment.replica.start()
