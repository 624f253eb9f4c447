"""Two production web servers, each with its token cache on: an address written through one is
what the other answers, and a PATCH never answers 200 with a value the database does not hold."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from accounts.models import User
from accounts.tokens import token_issue
from tests.faults.processes import WebServer, http_call, service_env

API = "/api/v1"
PASSWORD = "correct-horse-battery"
ADDRESSES = ("a@example.com", "b@example.com", "c@example.com")
TRIALS = 12  # each change checks the password with the production hasher (~0.2 s)


@pytest.fixture
def two_servers(transactional_db: None, tmp_path: Path) -> Iterator[list[WebServer]]:
    db = connection.settings_dict
    shared = {
        "DJANGO_SETTINGS_MODULE": "config.settings",  # production settings: the cache is on
        "DJANGO_SECRET_KEY": "two-servers-" + "x" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": "",
        "FACEDOWN_MODE": "embedded",  # no Redis needed: nothing here is counted across servers
        "FACEDOWN_TASK_RUNNER": "off",
        "FACEDOWN_SIGNING_KEY": "5a" * 32,
        "FACEDOWN_TOKEN_CACHE_SECONDS": "30",
    }
    servers = []
    try:
        for name in ("web1", "web2"):
            home = tmp_path / name
            home.mkdir()
            env = service_env(**shared, FACEDOWN_VAR_DIR=str(home / "var"))
            servers.append(WebServer(env=env, cwd=home, log=tmp_path / f"{name}.log"))
        for server in servers:
            server.ready()
        yield servers
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.stop(10)


def test_an_address_written_on_one_server_is_read_on_the_other(
    two_servers: list[WebServer],
) -> None:
    user = User.objects.create_user("alice")
    hasher = PBKDF2PasswordHasher()  # the servers' own hasher (the tests' MD5 is not theirs)
    user.password = hasher.encode(PASSWORD, hasher.salt())
    user.save(update_fields=["password"])
    token = token_issue(user, name="tests")[1]
    ports = [server.port for server in two_servers]
    for port in ports:  # both caches hold the token from here on
        assert http_call(port, "GET", f"{API}/accounts/me", token=token).status == 200
    rng = random.Random(11)
    stale: list[str] = []
    for trial in range(TRIALS):
        writer, reader = rng.sample(ports, 2)
        email = rng.choice(ADDRESSES)
        body = {"email": email, "current_password": PASSWORD}
        written = http_call(writer, "PATCH", f"{API}/accounts/me", body, token=token)
        assert written.status == 200, written.body
        stored = User.objects.values_list("email", flat=True).get(pk=user.pk)
        if written.body["email"] != stored:
            stale.append(f"trial {trial}: PATCH answered {written.body['email']}, stored {stored}")
        for port in (reader, writer):
            read = http_call(port, "GET", f"{API}/accounts/me", token=token).body["email"]
            if read != stored:
                stale.append(f"trial {trial}: GET on {port} answered {read}, stored {stored}")
    patches = sum(1 for line in stale if "PATCH" in line)
    reads = len(stale) - patches
    summary = f"{patches} of {TRIALS} PATCHes and {reads} of {2 * TRIALS} reads stale"
    assert not stale, "\n".join([summary, *stale])
