"""A production process refuses to start while a setting every machine must share is missing.

The settings module is evaluated under each environment (``settings_from``) and the checks of
core/checks.py and games/checks.py run on what it gives; a few real ``manage.py check``, web
server (config/web.py, gunicorn) and Celery starts show the same refusal end to end.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from core.checks import production_settings
from games.checks import signing_key_configured
from games.signing import _load
from tests.deployment.helpers import ROOT, clean_env, manage, settings_from

FULL = {
    "DATABASE_URL": "postgres://facedown:secret@db.internal:5432/facedown",
    "REDIS_URL": "redis://cache.internal:6379/0",
    "DJANGO_SECRET_KEY": "k" * 20 + "-a-long-random-value-shared-by-every-machine",
    "DJANGO_ALLOWED_HOSTS": "facedown.example",
    "FACEDOWN_SIGNING_KEY": "3c" * 32,
}
CHECKED = (
    "SECRET_KEY",
    "DEVELOPMENT_SECRET_KEY",
    "DATABASES",
    "REDIS_URL",
    "ALLOWED_HOSTS",
    "FACEDOWN_MODE",
    "FACEDOWN_RELAXED",
    "FACEDOWN_TASK_RUNNER",
    "FACEDOWN_SIGNING_KEY",
    "FACEDOWN_SIGNING_KEY_FILE",
    "FACEDOWN_SIGNING_KEY_GENERATE",
    "FACEDOWN_SIGNING_OLD_PUBLIC_KEYS",
)


def errors(env: dict[str, str]) -> dict[str, str]:
    """The facedown checks' errors (id → message) for settings made from ``env``."""
    made = settings_from(clean_env(**env))
    _load.cache_clear()  # a new process: nothing loaded yet
    with warnings.catch_warnings():
        # The checks only read DATABASES; no connection is made while it is overridden.
        warnings.filterwarnings("ignore", "Overriding setting DATABASES")
        with override_settings(**{name: made[name] for name in CHECKED}):
            found: list[Any] = [*production_settings(), *signing_key_configured()]
    return {message.id: message.msg for message in found}


def test_a_complete_production_configuration_passes() -> None:
    assert errors(FULL) == {}


@pytest.mark.parametrize(
    ("missing", "error"),
    [
        ("DJANGO_SECRET_KEY", "facedown.E001"),
        ("DATABASE_URL", "facedown.E002"),
        ("REDIS_URL", "facedown.E003"),
        ("DJANGO_ALLOWED_HOSTS", "facedown.E004"),
        ("FACEDOWN_SIGNING_KEY", "facedown.E005"),
    ],
)
def test_each_missing_setting_is_refused_by_name(missing: str, error: str) -> None:
    env = {name: value for name, value in FULL.items() if name != missing}
    found = errors(env)
    assert list(found) == [error]
    assert missing in found[error]


def test_the_embedded_mode_and_debug_need_no_settings(tmp_path: Path) -> None:
    assert errors({"FACEDOWN_MODE": "embedded", "FACEDOWN_VAR_DIR": str(tmp_path)}) == {}
    assert errors({"DJANGO_DEBUG": "1", "FACEDOWN_VAR_DIR": str(tmp_path)}) == {}
    # The relaxed modes generate a signing key under var/; nothing else writes there.
    assert [p.name for p in tmp_path.iterdir()] == ["signing-key"]


def test_an_unknown_mode_is_refused() -> None:
    assert list(errors({**FULL, "FACEDOWN_MODE": "prod"})) == ["facedown.E007"]


def test_the_embedded_runner_is_refused_in_production() -> None:
    found = errors({**FULL, "FACEDOWN_TASK_RUNNER": "embedded"})
    assert list(found) == ["facedown.E008"]


def test_secrets_come_from_mounted_files(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("s" * 60 + "\n")
    (tmp_path / "signing_key").write_text("7d" * 32 + "\n")
    env = {
        **{k: v for k, v in FULL.items() if k not in {"DJANGO_SECRET_KEY", "FACEDOWN_SIGNING_KEY"}},
        "DJANGO_SECRET_KEY_FILE": str(tmp_path / "secret_key"),
        "FACEDOWN_SIGNING_KEY_FILE": str(tmp_path / "signing_key"),
    }
    assert settings_from(clean_env(**env))["SECRET_KEY"] == "s" * 60
    (tmp_path / "database_url").write_text(FULL["DATABASE_URL"] + "\n")
    from_file = {k: v for k, v in env.items() if k != "DATABASE_URL"}
    from_file["DATABASE_URL_FILE"] = str(tmp_path / "database_url")
    assert settings_from(clean_env(**from_file))["DATABASES"]["default"]["HOST"] == "db.internal"
    assert errors(env) == {}
    (tmp_path / "signing_key").unlink()
    found = errors(env)
    assert list(found) == ["facedown.E005"]
    assert (
        f"FACEDOWN_SIGNING_KEY_FILE={tmp_path / 'signing_key'} cannot be read"
        in found["facedown.E005"]
    )
    assert not (tmp_path / "signing_key").exists()  # production never generates one
    (tmp_path / "secret_key").unlink()
    with pytest.raises(ImproperlyConfigured, match=r"DJANGO_SECRET_KEY_FILE=.* cannot be read"):
        settings_from(clean_env(**env))


def test_a_malformed_signing_key_is_refused() -> None:
    found = errors({**FULL, "FACEDOWN_SIGNING_KEY": "not-hex"})
    assert list(found) == ["facedown.E005"]
    found = errors({**FULL, "FACEDOWN_SIGNING_OLD_PUBLIC_KEYS": "abcd"})
    assert "FACEDOWN_SIGNING_OLD_PUBLIC_KEYS" in found["facedown.E005"]


def test_forwarded_proto_is_trusted_only_behind_trusted_proxy_hops() -> None:
    assert "SECURE_PROXY_SSL_HEADER" not in settings_from(clean_env(**FULL))
    behind = settings_from(clean_env(**FULL, FACEDOWN_TRUSTED_PROXY_HOPS="1"))
    assert behind["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    production = settings_from(clean_env(**FULL))
    assert production["SESSION_COOKIE_SECURE"] and production["CSRF_COOKIE_SECURE"]
    assert production["SECURE_HSTS_SECONDS"] == 31536000
    embedded = settings_from(clean_env(FACEDOWN_MODE="embedded"))
    assert not embedded["SESSION_COOKIE_SECURE"] and embedded["SECURE_HSTS_SECONDS"] == 0


@pytest.mark.slow
def test_manage_py_check_names_every_missing_setting() -> None:
    result = manage(clean_env(), "check")
    assert result.returncode == 1
    for error, setting in [
        ("facedown.E001", "DJANGO_SECRET_KEY"),
        ("facedown.E002", "DATABASE_URL"),
        ("facedown.E003", "REDIS_URL"),
        ("facedown.E004", "DJANGO_ALLOWED_HOSTS"),
        ("facedown.E005", "FACEDOWN_SIGNING_KEY"),
    ]:
        assert f"({error}) {setting} " in result.stderr or (
            error == "facedown.E005" and f"({error}) No receipt-signing key" in result.stderr
        ), result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("process", "command"),
    [
        ("web", ["-m", "config.web"]),
        ("gunicorn", ["-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi"]),
        ("the Celery worker", ["-m", "celery", "-A", "config", "worker", "--pool", "solo"]),
    ],
)
def test_servers_refuse_to_start_wrong(process: str, command: list[str]) -> None:
    env = clean_env(**{k: v for k, v in FULL.items() if k != "DJANGO_SECRET_KEY"})
    env["GUNICORN_BIND"] = env["WEB_BIND"] = "127.0.0.1:0"
    result = subprocess.run(
        [sys.executable, *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert result.returncode == 3, result.stderr[-2000:]
    assert f"facedown: {process} refuses to start" in result.stderr
    assert "facedown.E001: DJANGO_SECRET_KEY is not set" in result.stderr
