"""Several machines sharing one deployment: two web servers, two Celery workers and beat, each
started in its own empty working directory with its own ``FACEDOWN_VAR_DIR`` (no shared file:
as on separate machines), all on the production settings against one PostgreSQL database (the
test database, so this test commits; it is emptied afterwards) and one Redis of the test's own.

Players reach the web tier as through a load balancer: every request goes to the next server in
turn. Humans and bots play GOPS and Hols der Geier, one match with a short deadline that a
player lets pass (a timeout stand-in moves). Mid-run one web server and one worker are killed
with SIGKILL, whole process groups, as when a machine dies; the others carry on (an unanswered
move is re-sent to the other server under the same ``Idempotency-Key`` — or without it, if the
dead server had claimed the key: the identical move is then answered with its original receipt;
the sweeps of the surviving worker and of beat take over the killed worker's deadlines and bot
moves).

Then every match has finished, every audit transcript verifies with the standalone verifier
against ``GET /fairness/key`` of either server, and the player moves in each transcript are
exactly the ones a client holds a receipt for (same signed receipt): none lost, none doubled.
Before play, a token rotated and then logged out on one server, and an account deactivated from
the operator console of a third process, are refused by the other server within
``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS`` (1 s), though it answers from a token cache.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis as redis_client
from django.contrib.admin import helpers
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.test import Client

from accounts.models import User
from games.verify import verify_transcript
from tests.faults.processes import (
    Answer,
    CeleryBeat,
    CeleryWorker,
    Gunicorn,
    RedisServer,
    Service,
    WebServer,
    http_call,
    service_env,
    wait_until,
)
from tests.players import make_player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

API = "/api/v1"
SIGNING_KEY = "6b" * 32
REVOCATION_BOUND = 1.0  # FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS
PLAY_SECONDS = 75  # every match must be over by then
KILL_AFTER_MOVES = 12  # accepted player moves before a web server and a worker die


@dataclass
class Machines:
    web: list[WebServer]
    workers: list[CeleryWorker]
    beat: CeleryBeat
    homes: list[Path]  # each machine's working directory
    redis_url: str

    def services(self) -> list[Service]:
        return [*self.web, *self.workers, self.beat]


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[Machines]:
    redis = RedisServer()
    redis.start()
    db = connection.settings_dict
    shared = {
        "DJANGO_SETTINGS_MODULE": "config.settings",  # production settings, DEBUG off
        "DJANGO_SECRET_KEY": "several-machines-" + "x" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": redis.url,
        "FACEDOWN_SIGNING_KEY": SIGNING_KEY,
        "FACEDOWN_TASK_RUNNER": "celery",
        "FACEDOWN_SWEEP_SECONDS": "1",
        "FACEDOWN_BOT_STALL_SECONDS": "2",
        "FACEDOWN_MIN_STEP_SECONDS": "1",
        **{
            f"FACEDOWN_THROTTLE_{scope}": "100000/min"
            for scope in ("ANON", "USER", "LOGIN", "MOVES", "READS", "MATCH_CREATE")
        },
    }

    def machine(name: str) -> dict[str, Any]:
        home = tmp_path / name
        home.mkdir()
        env = service_env(**shared, FACEDOWN_VAR_DIR=str(home / "var"))
        return {"env": env, "cwd": home, "log": tmp_path / f"{name}.log"}

    started: list[Service] = []
    try:
        # The production web server on one machine, the supported alternative on the other: a
        # fleet mid-way from one to the other serves the same players.
        web = [
            WebServer(**machine("web1"), workers=1, threads=2),
            Gunicorn(**machine("web2"), workers=1, threads=2),
        ]
        started += web
        workers = [CeleryWorker(**machine(f"worker{i}"), name=f"worker{i}") for i in (1, 2)]
        started += workers
        beat = CeleryBeat(**machine("beat"))
        started.append(beat)
        for service in [*web, *workers]:
            service.ready()
        homes = [tmp_path / n for n in ("web1", "web2", "worker1", "worker2", "beat")]
        yield Machines(web, workers, beat, homes, redis.url)
    finally:
        for service in started:
            service.terminate()
        for service in started:
            service.stop(10)
        redis.stop()
        for service in started:
            if "Traceback" in service.output():
                print(f"--- {service.log.name}\n{service.output()[-3000:]}")


class WebTier:
    """What a load balancer does: each request to the next server, skipping one that is down."""

    def __init__(self, web: list[WebServer]) -> None:
        self.ports = [server.port for server in web]
        self.turn = 0
        self.served = [0] * len(web)
        self.failovers = 0  # requests re-sent because a server was down or died answering

    def call(self, method: str, path: str, body: Any = None, **options: Any) -> Answer:
        for _ in range(60):
            self.turn += 1
            index = self.turn % len(self.ports)
            try:
                answer = http_call(self.ports[index], method, API + path, body, **options)
            except (OSError, http.client.HTTPException):
                self.failovers += 1
                time.sleep(0.02)  # down, or died mid-request: the next server
                continue
            self.served[index] += 1
            return answer
        raise AssertionError(f"{method} {path}: no server answered")


@dataclass
class Seat:
    name: str
    token: str
    skip: set[int] = field(default_factory=set)  # steps this player lets time out


@dataclass
class Game:
    id: str
    humans: list[Seat]
    over: bool = False


@dataclass
class Play:
    tier: WebTier
    rng: random.Random
    games: list[Game] = field(default_factory=list)
    # (match, step, seat) → the receipt the server gave
    receipts: dict[tuple[str, int, int], dict[str, Any]] = field(default_factory=dict)
    sent: set[tuple[str, str, int]] = field(default_factory=set)
    # moves the server said it recorded, whose answer (and receipt) was lost with its server
    unanswered: set[tuple[str, int, int]] = field(default_factory=set)
    keyless: int = 0  # moves re-sent without their Idempotency-Key

    def create(self, body: dict[str, Any], humans: list[Seat]) -> Game:
        host, *guests = humans
        created = self.tier.call("POST", "/matches", body, token=host.token)
        assert created.status == 201, created.body
        match_id = created.body["id"]
        for guest in guests:
            joined = self.tier.call("POST", f"/matches/{match_id}/join", {}, token=guest.token)
            assert joined.status == 200, joined.body
        game = Game(match_id, humans)
        self.games.append(game)
        return game

    def move(self, game: Game, seat: Seat, you: int, step: int, move: dict[str, Any]) -> None:
        path, body = f"/matches/{game.id}/moves", {"step": step, "move": move}
        key = {"Idempotency-Key": f"{game.id}-{step}-{seat.name}"}  # the same on every re-send
        for _ in range(20):
            answer = self.tier.call("POST", path, body, token=seat.token, headers=key)
            if answer.code != "idempotency_in_progress":
                break
            time.sleep(0.05)
        else:
            # The server holding the key died answering (the claim stays for
            # FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS): the identical move sent without a key is
            # answered at once, with the original receipt if it was recorded.
            answer = self.tier.call("POST", path, body, token=seat.token)
            self.keyless += 1
        where = (game.id, step, you)
        if answer.status in (200, 202):
            assert answer.body["seat"] == you
            receipt = answer.body["receipt"]
            assert self.receipts.setdefault(where, receipt) == receipt, "two receipts, one move"
        elif answer.code == "stale_step" and answer.body["recorded"]:
            # Recorded by the server that died before answering; the step resolved since.
            self.unanswered.add(where)
        else:  # the deadline passed first: nothing of this player's is recorded for the step
            assert answer.code == "stale_step", answer.body

    def round(self) -> None:
        for game in self.games:
            if game.over:
                continue
            for seat in game.humans:
                answer = self.tier.call("GET", f"/matches/{game.id}", token=seat.token)
                assert answer.status == 200, answer.body
                view = answer.body
                if view["status"] != "active":
                    game.over = True
                    break
                step = view["step"]
                if not view["legal_moves"] or step in seat.skip:
                    continue
                if (game.id, seat.name, step) in self.sent:
                    continue
                self.sent.add((game.id, seat.name, step))
                self.move(game, seat, view["you"], step, self.rng.choice(view["legal_moves"]))


def _revocation_reaches_the_other_server(web: list[WebServer]) -> list[float]:
    """Rotate then log out through the first server, deactivate from this process, while the
    second server, which has the token in its cache, is asked again and again. Returns, per
    revocation, how long after it was answered the second server still accepted the token
    (measured when that request was sent)."""
    first, second = (server.port for server in web)
    frank = make_player()
    # Rotation needs the password, checked by the servers' own hasher (not the tests' MD5).
    hasher = PBKDF2PasswordHasher()
    frank.user.password = hasher.encode("correct-horse-battery", hasher.salt())
    frank.user.save(update_fields=["password"])
    accepted_for: list[float] = []

    def refused_by_second(token: str) -> None:
        done = time.monotonic()
        last_accepted = 0.0
        while True:
            sent = time.monotonic() - done
            if http_call(second, "GET", f"{API}/accounts/me", token=token).status != 200:
                break
            last_accepted = sent
            assert sent < REVOCATION_BOUND + 2, "still accepted"
            time.sleep(0.02)
        accepted_for.append(last_accepted)

    assert http_call(second, "GET", f"{API}/accounts/me", token=frank.token).status == 200
    rotated = http_call(
        first,
        "POST",
        f"{API}/accounts/token/rotate",
        {"current_password": "correct-horse-battery"},
        token=frank.token,
    )
    assert rotated.status == 200
    refused_by_second(frank.token)
    new = rotated.body["token"]
    assert http_call(second, "GET", f"{API}/accounts/me", token=new).status == 200
    assert http_call(first, "POST", f"{API}/accounts/logout", token=new).status == 204
    refused_by_second(new)
    # An operator deactivates an account from a third process (this one's operator console).
    gina = make_player()
    assert http_call(second, "GET", f"{API}/accounts/me", token=gina.token).status == 200
    operator = User.objects.create_superuser("operator", password="operator-password-1")
    console = Client()
    console.force_login(operator)
    answer = console.post(
        "/admin/accounts/user/",
        {"action": "deactivate_users", helpers.ACTION_CHECKBOX_NAME: [str(gina.user.pk)]},
    )
    assert answer.status_code == 302
    refused_by_second(gina.token)
    return accepted_for


def _problems(play: Play, transcripts: dict[str, dict[str, Any]]) -> list[str]:
    """Receipts the clients hold against the player moves of every transcript."""
    problems: list[str] = []
    in_transcripts: dict[tuple[str, int, int], Any] = {}
    for match_id, transcript in transcripts.items():
        for step in transcript["steps"]:
            for seat, source in enumerate(step["sources"]):
                if source == "player":
                    in_transcripts[(match_id, step["step"], seat)] = step["receipts"][seat]
    told = set(play.receipts) | play.unanswered
    for where in sorted(told - set(in_transcripts)):
        problems.append(f"lost: {where} was accepted but is not in the transcript")
    for where in sorted(set(in_transcripts) - told):
        problems.append(f"a player move {where} no client was told of")
    for where in sorted(set(play.receipts) & set(in_transcripts)):
        if play.receipts[where] != in_transcripts[where]:
            problems.append(f"{where}: the transcript's receipt differs from the client's")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT match_id, step, seat FROM games_move GROUP BY match_id, step, seat"
            " HAVING count(*) > 1"
        )
        problems += [f"doubled: {row}" for row in cursor.fetchall()]
    return problems


def test_two_web_servers_two_workers_and_beat_lose_one_of_each(machines: Machines) -> None:
    began = time.monotonic()
    web, workers = machines.web, machines.workers
    keys = [http_call(s.port, "GET", f"{API}/fairness/key").body for s in web]
    assert keys[0]["public_key"] == keys[1]["public_key"]  # one key, from the environment

    # No request sent a second after the revocation was answered is accepted (a request
    # sent just before may still be: it authenticates before the other server's next look).
    delays = _revocation_reaches_the_other_server(web)
    assert max(delays) < REVOCATION_BOUND, delays

    tier = WebTier(web)
    play = Play(tier, random.Random(12))
    people = {name: make_player() for name in ("alice", "bob", "carol", "dave", "erin")}
    seat = {name: Seat(p.name, p.token) for name, p in people.items()}
    seat["erin"].skip = {1, 4}  # erin lets two deadlines pass: the timeout stand-in moves
    gops = {"game": "gops", "options": {"num_cards": 5}}
    play.create({**gops, "seats": ["me", {"user": seat["bob"].name}]}, [seat["alice"], seat["bob"]])
    play.create({**gops, "seats": ["me", {"bot": "greedy"}]}, [seat["carol"]])
    play.create(
        {
            "game": "hols-der-geier",
            "seats": ["me", {"user": seat["erin"].name}, {"bot": "greedy"}],
            "time_control": {"per_step_seconds": 2, "on_timeout": "auto_move"},
        },
        [seat["dave"], seat["erin"]],
    )
    play.create(
        {"game": "hols-der-geier", "seats": ["me", {"bot": "random"}, {"bot": "greedy"}]},
        [seat["bob"]],
    )

    killed: dict[str, float] = {}

    def kill_mid_run() -> None:
        wait_until(lambda: len(play.receipts) >= KILL_AFTER_MOVES, 60, "moves before the kill")
        web[0].kill()
        workers[0].kill()
        killed["at"] = time.monotonic() - began
        # acks_late: what the dead worker held (and the other's tasks in hand) waits in Redis
        killed["unacked"] = redis_client.Redis.from_url(machines.redis_url).hlen("unacked")

    killer = threading.Thread(target=kill_mid_run, daemon=True)
    killer.start()
    end = time.monotonic() + PLAY_SECONDS
    while not all(game.over for game in play.games):
        assert time.monotonic() < end, [(g.id, g.over) for g in play.games]
        play.round()
        time.sleep(0.05)
    killer.join(5)
    assert "at" in killed, "the matches ended before the kill"
    assert not web[0].alive and not workers[0].alive
    assert web[1].alive and workers[1].alive and machines.beat.alive
    served_before_kill = tier.served[0]
    assert served_before_kill > 0 and tier.served[1] > served_before_kill

    transcripts: dict[str, dict[str, Any]] = {}
    for game in play.games:
        answer = tier.call("GET", f"/matches/{game.id}/audit", token=game.humans[0].token)
        assert answer.status == 200, answer.body
        transcripts[game.id] = answer.body
        assert answer.body["status"] == "finished", answer.body["status"]
        for key in keys:  # the dead server's key (fetched before) and the survivor's: one key
            report = verify_transcript(answer.body, public_keys=[key["public_key"]])
            assert report.ok, (game.id, report.problems)
    live_key = http_call(web[1].port, "GET", f"{API}/fairness/key").body
    assert live_key["public_key"] == keys[0]["public_key"]

    sources = {
        source
        for transcript in transcripts.values()
        for step in transcript["steps"]
        for source in step["sources"]
    }
    assert {"player", "bot", "timeout"} <= sources, sources
    assert _problems(play, transcripts) == []
    # Every machine signed with the key from the environment: none wrote a key file of its own.
    assert not [p for home in machines.homes for p in home.rglob("signing-key*")]
    print(
        f"\nthe other server accepted a revoked token until {[round(d, 3) for d in delays]} s; "
        f"{len(play.receipts)} player moves; killed at {killed['at']:.1f} s; "
        f"requests served {tier.served}, {tier.failovers} re-sent to the other server, "
        f"{play.keyless} moves re-sent without their key, {len(play.unanswered)} recorded "
        "without an answer; "
        f"tasks done by the killed worker {workers[0].output().count('succeeded in')}, "
        f"by the other {workers[1].output().count('succeeded in')}; {killed['unacked']} messages "
        "unacknowledged in Redis just after the kill; "
        f"total {time.monotonic() - began:.1f} s"
    )
