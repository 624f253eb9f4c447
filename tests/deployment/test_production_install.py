"""The production install runs: a virtualenv with exactly what the image installs (``pip
install .``, no development extras; tests/deployment/production_venv.py) starts every service
of docker-compose.yml with the commands written there — migrations with its ``manage.py``, the
web server (granian, config/web.py), the ASGI server (uvicorn with uvloop and httptools), a
Celery worker and Celery beat — on the compose file's settings, against a PostgreSQL database
and a Redis of this test's own. A player then plays GOPS to the end over HTTP against a bot
seat that only the worker moves, while a long-poll on the ASGI server waits for the next event;
beat must send its sweep, and the worker run it.

A module the production install lacks (kombu's Redis transport needs ``packaging``, which only
the ``redis`` extras bring) kills the worker and beat at start: this test then fails on their
output. The first run builds the virtualenv (about 20 s with a local package index); later runs
reuse it while pyproject.toml is unchanged. scripts/test builds or refreshes it in the
background before this test's phase (tests/deployment/production_venv.py).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.http import HttpResponse

from games.verify import verify_transcript
from tests.deployment.helpers import compose, compose_web_env
from tests.deployment.production_venv import (
    ProductionVenv,
    dockerfile_env,
    dockerfile_install,
    production_venv,
    stage,
)
from tests.faults.processes import Answer, RedisServer, Service, free_port, http_call, wait_until
from tests.schema_guard import session_guard

pytestmark = pytest.mark.slow

API = "/api/v1"
ONE_OFF = ("collectstatic", "migrate")
WAIT = 20  # seconds the long-poll may wait; the event comes much sooner
# What the test run sets for the suite and a fresh machine has not (the venv's python must
# import the installed project, not this repository).
_OURS = ("DJANGO_", "FACEDOWN_", "CELERY_", "GUNICORN_", "WEB_", "PYTEST", "DB_")
_NOT_INHERITED = {"DATABASE_URL", "REDIS_URL", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}


def call(port: int, method: str, path: str, body: Any = None, **options: Any) -> Answer:
    """A request to a server of the stack; the answer checked against the OpenAPI schema."""
    answer = http_call(port, method, API + path, body, **options)
    response = HttpResponse(
        answer.raw, status=answer.status, content_type=answer.headers.get("content-type")
    )
    session_guard().check(method, API + path.partition("?")[0], response)
    return answer


def command(service: str) -> list[str]:
    value = compose()["services"][service]["command"]
    assert isinstance(value, list), service
    return [str(part) for part in value]


def option(words: list[str], name: str, value: str) -> list[str]:
    """``words`` with the value after ``name`` replaced."""
    at = words.index(name)
    return [*words[: at + 1], value, *words[at + 2 :]]


@dataclass
class Stack:
    web_port: int
    asgi_port: int
    services: dict[str, Service]
    seconds: dict[str, float]  # how long each phase of the set-up took

    def logs(self) -> str:
        return "".join(
            f"\n--- {name} ---\n{service.output()[-4000:]}"
            for name, service in self.services.items()
            if name not in ONE_OFF
        )


@contextlib.contextmanager
def own_database() -> Iterator[str]:
    """A database of this test's own on the suite's PostgreSQL server, dropped afterwards."""
    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        pytest.skip("the production stack needs the suite's PostgreSQL server")
    name = f"{db['NAME']}_production_install"
    dsn = f"host={db['HOST']} port={db['PORT']} user={db['USER']} dbname=postgres"
    if db.get("PASSWORD"):
        dsn += f" password={db['PASSWORD']}"

    def run(statement: str) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    run(f'CREATE DATABASE "{name}"')
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    try:
        yield f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{name}"
    finally:
        run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def installed() -> Iterator[tuple[ProductionVenv, Path]]:
    with tempfile.TemporaryDirectory(prefix="facedown-image-") as directory:
        app = stage(Path(directory) / "app")
        yield production_venv(app), app


@pytest.fixture
def stack(installed: tuple[ProductionVenv, Path], tmp_path: Path) -> Iterator[Stack]:
    venv, app = installed
    step = "pip install" if venv.built else "project reinstall"
    seconds = {step if venv.reinstalled else "installed ahead": venv.install_seconds}
    began = time.monotonic()
    redis = RedisServer()
    redis.start()
    base = {
        k: v for k, v in os.environ.items() if not k.startswith(_OURS) and k not in _NOT_INHERITED
    }
    base["PATH"] = f"{venv.path / 'bin'}{os.pathsep}{base.get('PATH', '')}"
    services: dict[str, Service] = {}
    try:
        with own_database() as database_url:
            shared = {
                **base,
                **dockerfile_env(),  # the image's own (unbuffered output, among others)
                **compose_web_env(tmp_path),  # the compose file's settings and secret files
                "DATABASE_URL": database_url,
                "REDIS_URL": redis.url,
                "CELERY_BROKER_URL": redis.url.removesuffix("/0") + "/1",  # a broker apart
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
                # Plain HTTP, no proxy in front: nothing to redirect, no forwarded headers.
                "DJANGO_SECURE_SSL_REDIRECT": "0",
                "FACEDOWN_TRUSTED_PROXY_HOPS": "0",
                "FACEDOWN_SWEEP_SECONDS": "1",  # beat sends its sweep within a second
                "DJANGO_STATIC_ROOT": str(tmp_path / "staticfiles"),
            }

            def run_as(name: str, words: list[str], cwd: Path, **extra: str) -> Service:
                home = tmp_path / name
                (home / "var").mkdir(parents=True)  # as the image's /app/var
                env = {**shared, "FACEDOWN_VAR_DIR": str(home / "var"), **extra}
                # The venv's own python and console scripts, as on the image's PATH.
                argv = [str(venv.bin(words[0])), *words[1:]]
                service = Service(argv, env=env, cwd=cwd, log=tmp_path / f"{name}.log")
                services[name] = service
                return service

            # The image's build step and the compose file's one-off migrations (side by side:
            # they share nothing), both with the image's manage.py.
            collect = ["python", "manage.py", "collectstatic", "--noinput", "-v", "0"]
            once = [
                run_as("collectstatic", collect, app),
                run_as("migrate", command("migrate"), app),
            ]
            for step in once:
                step.process.wait(180)
                assert step.process.returncode == 0, step.output()
            seconds["collectstatic and migrate"] = time.monotonic() - began
            began = time.monotonic()

            web_port, asgi_port = free_port(), free_port()
            # Every long-running process in a directory of its own: it imports the installed
            # project, not a copy of the sources next to it.
            web = run_as(
                "web", command("web"), tmp_path, WEB_BIND=f"127.0.0.1:{web_port}",
                WEB_CONCURRENCY="1", WEB_THREADS="2",
            )  # fmt: skip
            asgi_words = option(command("asgi"), "--host", "127.0.0.1")
            asgi = run_as("asgi", option(asgi_words, "--port", str(asgi_port)), tmp_path)
            # One pool process: the test machine is small.
            worker = run_as("worker", [*command("worker"), "--concurrency=1"], tmp_path)
            schedule = str(tmp_path / "beat" / "var" / "celerybeat-schedule")
            beat = run_as("beat", option(command("beat"), "--schedule", schedule), tmp_path)
            stack = Stack(web_port, asgi_port, services, seconds)

            def up() -> bool:
                dead = [name for name, s in services.items() if name not in ONE_OFF and not s.alive]
                assert not dead, f"{dead} died at start:{stack.logs()}"
                return (
                    "ready." in worker.output()
                    and "beat: Starting" in beat.output()
                    and all(_answers(s) for s in (web_port, asgi_port))
                )

            wait_until(up, 90, "the services to start")
            seconds["services up"] = time.monotonic() - began
            assert web.alive and asgi.alive
            yield stack
    finally:
        for service in services.values():
            service.terminate()
        # One of the services outlasts a graceful wait on SIGTERM (15 s were spent waiting
        # on every run): nothing is asserted after the test, so a short grace, then a kill.
        for service in services.values():
            service.stop(5)
        redis.stop()


def _answers(port: int) -> bool:
    try:
        return http_call(port, "GET", f"{API}/games").status == 200
    except OSError:
        return False


def test_the_image_installs_without_extras() -> None:
    """What the image runs: ``pip install .`` of the copied sources, not editable, no extras."""
    words = dockerfile_install().split()
    assert words[:2] == ["pip", "install"] and words[-1] == ".", words
    assert all(w.startswith("--") and w != "--editable" for w in words[2:-1]), words


def test_the_production_install_plays_a_bot_match(
    stack: Stack, record_property: Callable[[str, object], None]
) -> None:
    began = time.monotonic()
    web, asgi = stack.web_port, stack.asgi_port
    registered = call(web, "POST", "/accounts/register", {"username": "ada", "password": "x" * 16})
    assert registered.status == 201, registered.body
    token = registered.body["token"]
    created = call(
        web, "POST", "/matches",
        {"game": "gops", "options": {"num_cards": 5}, "seats": ["me", {"bot": "greedy"}]},
        token=token,
    )  # fmt: skip
    assert created.status == 201, created.body
    match = created.body["id"]
    after = call(web, "GET", f"/matches/{match}/events", token=token).body["last_seq"]

    polled: dict[str, Any] = {}

    def long_poll() -> None:
        sent = time.monotonic()
        path = f"/matches/{match}/events?after={after}&wait={WAIT}"
        polled["answer"] = call(asgi, "GET", path, token=token)
        polled["seconds"] = time.monotonic() - sent

    waiting = threading.Thread(target=long_poll, daemon=True)
    waiting.start()

    moved: set[int] = set()
    end = time.monotonic() + 60
    while True:
        assert time.monotonic() < end, f"the match did not end{stack.logs()}"
        view = call(web, "GET", f"/matches/{match}", token=token).body
        if view["status"] != "active":
            break
        if view["legal_moves"] and view["step"] not in moved:
            body = {"step": view["step"], "move": view["legal_moves"][0]}
            answer = call(web, "POST", f"/matches/{match}/moves", body, token=token)
            assert answer.status in (200, 202), answer.body
            moved.add(view["step"])
        time.sleep(0.05)
    played = time.monotonic() - began

    waiting.join(WAIT + 5)
    answer = polled["answer"]
    assert answer.status == 200, answer.body
    assert answer.body["results"] and answer.body["results"][0]["seq"] == after + 1
    assert polled["seconds"] < WAIT, "the long-poll was not woken by the event"

    audit = call(web, "GET", f"/matches/{match}/audit", token=token)
    assert audit.status == 200 and audit.body["status"] == "finished", audit.body
    sources = {source for step in audit.body["steps"] for source in step["sources"]}
    assert {"player", "bot"} <= sources, sources  # (the last card of each is "forced")
    key = call(web, "GET", "/fairness/key").body["public_key"]
    report = verify_transcript(audit.body, public_keys=[key])
    assert report.ok, report.problems

    beat, worker = stack.services["beat"], stack.services["worker"]
    assert "games.tasks.bot_moves_task" in worker.output()  # the bot seat: moved by the worker
    # Beat sends its sweep (every FACEDOWN_SWEEP_SECONDS), the worker receives it.
    sweep = "games.tasks.overdue_sweep_task["
    wait_until(lambda: "Sending due task" in beat.output(), 10, f"beat's sweep:{stack.logs()}")
    wait_until(lambda: sweep in worker.output(), 10, f"the sweep on the worker:{stack.logs()}")
    for name, service in stack.services.items():
        assert name in ONE_OFF or service.alive, f"{name} died:{stack.logs()}"
        assert "Traceback" not in service.output(), f"{name}:{stack.logs()}"
    phases = ", ".join(f"{name} {value:.1f} s" for name, value in stack.seconds.items())
    # In the run's closing summary (tests/conftest.py): the set-up apart from the test's time.
    record_property(
        "timing",
        f"production install: {phases}; match played in {played:.1f} s; "
        f"long-poll answered in {polled['seconds']:.2f} s",
    )
