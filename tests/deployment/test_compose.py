"""docker-compose.yml and the Dockerfile, parsed: the production shape the deployment guide
describes (``docker compose config`` needs a Docker engine, which the test machine has not)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.deployment.helpers import ROOT, clean_env, compose, compose_web_env, manage

APP = ("migrate", "web", "worker", "beat")
LONG_RUNNING = ("web", "worker", "beat")


def command(service: str) -> str:
    value = compose()["services"][service]["command"]
    return " ".join(value) if isinstance(value, list) else str(value)


def test_every_service_is_there() -> None:
    services = compose()["services"]
    assert set(services) >= {
        "postgres",
        "redis-broker",
        "redis-cache",
        "migrate",
        "web",
        "worker",
        "beat",
        "proxy",
    }
    for name in services:
        assert "healthcheck" in services[name] or name in {"migrate", "proxy"}, name


def test_migrations_run_once_before_the_rest() -> None:
    services = compose()["services"]
    assert command("migrate") == "python manage.py migrate --noinput"
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in LONG_RUNNING:
        assert "migrate" not in command(name), name
        needs = services[name]["depends_on"]
        assert needs["migrate"]["condition"] == "service_completed_successfully", name
        assert needs["redis-broker"]["condition"] == "service_healthy", name


def test_long_running_services_restart_and_stop_gracefully() -> None:
    services = compose()["services"]
    for name in LONG_RUNNING:
        assert services[name]["restart"] == "unless-stopped", name
        assert re.fullmatch(r"\d+s", services[name]["stop_grace_period"]), name
    assert command("web") == "python -m config.web"
    assert services["web"]["sysctls"]["net.ipv4.tcp_migrate_req"] == "1"
    assert command("worker").startswith("celery -A config worker")
    assert command("beat").startswith("celery -A config beat")
    assert "config.healthcheck" in " ".join(services["web"]["healthcheck"]["test"])


def test_broker_and_cache_are_separate_and_the_broker_persists() -> None:
    services = compose()["services"]
    env = services["web"]["environment"]
    assert env["REDIS_URL"].startswith("redis://redis-cache:")
    assert env["CELERY_BROKER_URL"].startswith("redis://redis-broker:")
    broker = " ".join(services["redis-broker"]["command"])
    assert "--appendonly yes" in broker and "noeviction" in broker
    assert "/data" in services["redis-broker"]["volumes"][0]


def test_one_signing_key_for_every_container_from_a_secret() -> None:
    data = compose()
    for name in APP:
        service = data["services"][name]
        assert service["environment"]["FACEDOWN_SIGNING_KEY_FILE"] == "/run/secrets/signing_key"
        assert "FACEDOWN_SIGNING_KEY" not in service["environment"], name
        assert set(service["secrets"]) == {"signing_key", "django_secret_key"}, name
    assert set(data["secrets"]) == {"signing_key", "django_secret_key"}


def test_the_image_runs_unprivileged_with_its_web_server() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    users = re.findall(r"^USER (\S+)", dockerfile, re.M)
    assert users and users[-1] not in {"root", "0"}
    assert re.search(r"^HEALTHCHECK .*\n?.*config\.healthcheck", dockerfile, re.M)
    assert "collectstatic --noinput" in dockerfile
    cmd = re.findall(r"^CMD (.+)$", dockerfile, re.M)[-1]
    assert cmd == '["python", "-m", "config.web"]'
    copied = set(re.findall(r"^COPY (\S+) ", dockerfile, re.M))
    packages = re.search(r"include = \[(.*)\]", (ROOT / "pyproject.toml").read_text())
    assert packages
    for package in re.findall(r'"(\w+)\*"', packages.group(1)):
        assert package in copied, f"the image lacks {package}/"


@pytest.mark.slow
def test_check_deploy_with_the_compose_settings_finds_nothing(tmp_path: Path) -> None:
    result = manage(
        clean_env(**compose_web_env(tmp_path)), "check", "--deploy", "--fail-level", "WARNING"
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_every_environment_variable_is_in_the_deployment_guide() -> None:
    guide = (ROOT / "docs" / "deployment.md").read_text()
    names: set[str] = set()
    for source in ("config/settings.py", "config/gunicorn.conf.py", "config/web.py"):
        text = (ROOT / source).read_text()
        names |= set(
            re.findall(r'(?:environ\.get|_env_bool|_env_secret|_int)\(\s*"([A-Z_]+)"', text)
        )
    assert len(names) > 40
    assert sorted(name for name in names if f"`{name}`" not in guide) == []


def test_the_health_check_asks_this_machine_with_an_allowed_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from config import healthcheck
    from tests.faults.processes import free_port

    port = free_port()
    monkeypatch.setenv("GUNICORN_BIND", "0.0.0.0:1")  # WEB_BIND wins, as in config/web.py
    monkeypatch.setenv("WEB_BIND", f"0.0.0.0:{port}")
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "*,.facedown.example,localhost")
    assert healthcheck.health_url() == (f"http://127.0.0.1:{port}/healthz", "facedown.example")
    # Nothing listens there: unhealthy, not a crash.
    assert healthcheck.main() == 1


def test_the_proxy_sends_streams_and_long_polls_to_the_asgi_server() -> None:
    services = compose()["services"]
    proxy = services["proxy"]
    caddyfile_mount = next(v for v in proxy["volumes"] if v.endswith("/etc/caddy/Caddyfile:ro"))
    caddyfile = (ROOT / caddyfile_mount.split(":")[0]).read_text()
    assert "/etc/caddy/Caddyfile" in command("proxy")
    assert proxy["depends_on"]["asgi"]["condition"] == "service_healthy"
    assert "uvicorn config.asgi:application" in command("asgi")
    # The two stream paths and the waiting long-poll go to asgi:8001, the rest to web:8000.
    streams = re.search(r"@streams path (.+)\n", caddyfile)
    assert streams is not None
    assert set(streams.group(1).split()) == {
        "/api/v1/matches/*/stream",
        "/api/v1/accounts/me/stream",
    }
    assert re.search(r"handle @streams \{\s*reverse_proxy asgi:8001", caddyfile)
    assert re.search(r"query wait=\*", caddyfile)
    assert re.search(r"handle @long_poll \{\s*reverse_proxy asgi:8001", caddyfile)
    assert re.search(r"handle \{\s*reverse_proxy web:8000", caddyfile)


def test_slow_request_headers_are_bounded_by_the_proxy_in_front_of_uvicorn() -> None:
    """uvicorn waits for a request's headers as long as the client likes: only the proxy may
    reach it (no published port), and the proxy closes a connection whose headers take longer
    than 10 s."""
    services = compose()["services"]
    assert "ports" not in services["asgi"]
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    timeout = re.search(r"^\{.*servers \{.*timeouts \{.*read_header (\d+)s", caddyfile, re.S | re.M)
    assert timeout is not None and 0 < int(timeout.group(1)) <= 10


def test_the_app_reaches_postgresql_through_a_transaction_pooler() -> None:
    """PgBouncer (deploy/pgbouncer) in transaction mode in front of PostgreSQL: the long-running
    services go through it with FACEDOWN_DB_POOLER=transaction; migrations go directly."""
    import configparser

    services = compose()["services"]
    pooler = services["pgbouncer"]
    assert pooler["build"] == "deploy/pgbouncer"
    assert pooler["depends_on"]["postgres"]["condition"] == "service_healthy"
    ini = configparser.ConfigParser(comment_prefixes=(";", "#"))
    ini.read(ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini")
    assert ini["pgbouncer"]["pool_mode"] == "transaction"
    assert ini["pgbouncer"]["listen_port"] == "6432"
    assert ini["databases"]["facedown"].startswith("host=postgres port=5432")
    assert "pgbouncer" in (ROOT / "deploy" / "pgbouncer" / "Dockerfile").read_text()
    for name in (*LONG_RUNNING, "asgi"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://facedown:facedown@pgbouncer:6432/"), name
        assert env["FACEDOWN_DB_POOLER"] == "transaction", name
        assert services[name]["depends_on"]["pgbouncer"]["condition"] == "service_healthy", name
    migrate = services["migrate"]["environment"]
    assert migrate["DATABASE_URL"].startswith("postgres://facedown:facedown@postgres:5432/")
    assert migrate["FACEDOWN_DB_POOLER"] == ""


def test_every_project_app_is_packaged_and_copied_into_the_image() -> None:
    """An app in INSTALLED_APPS that the wheel or the image leaves out fails only at start."""
    import tomllib

    from django.conf import settings

    ours = {a.split(".")[0] for a in settings.INSTALLED_APPS if (ROOT / a.split(".")[0]).is_dir()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    included = {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = set(re.findall(r"^COPY (\w+) \./\1$", (ROOT / "Dockerfile").read_text(), re.M))
    assert ours and ours <= included, ours - included
    assert ours <= copied, ours - copied
