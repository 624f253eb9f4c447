"""Settings, commands and the compose file, as a deployment sees them."""

from __future__ import annotations

import os
import runpy
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
# What the environment of a test run sets for the suite; a deployment starts without them.
_OURS = ("DJANGO_", "FACEDOWN_", "CELERY_", "GUNICORN_", "WEB_", "PYTEST", "DB_")


def clean_env(**extra: str) -> dict[str, str]:
    """This machine's environment without any Facedown or Django setting, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_OURS) and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    return env | {"DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT)} | extra


def settings_from(env: dict[str, str]) -> dict[str, Any]:
    """config/settings.py evaluated under ``env`` (and nothing else of this process's)."""
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        return runpy.run_path(str(ROOT / "config" / "settings.py"))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def manage(env: dict[str, str], *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def compose_web_env(tmp: Path) -> dict[str, str]:
    """The environment docker-compose.yml gives the web service, its secrets written to
    ``tmp`` (as the operator's files would be mounted under /run/secrets)."""
    web = compose()["services"]["web"]
    env = {name: str(value) for name, value in web["environment"].items()}
    values = {"django_secret_key": secrets.token_urlsafe(50), "signing_key": secrets.token_hex(32)}
    for name, value in env.items():
        if value.startswith("/run/secrets/"):
            secret = value.removeprefix("/run/secrets/")
            assert secret in web["secrets"], (name, secret)
            path = tmp / secret
            path.write_text(values[secret] + "\n")
            env[name] = str(path)
    return env
