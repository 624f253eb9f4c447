"""Refuse to start a process that is configured wrong, before it serves or runs anything.

gunicorn (``config/gunicorn.conf.py``, ``on_starting``), the Celery worker and beat
(``config/celery.py``) call ``refuse_to_start_wrong`` with the settings loaded: it runs the
system checks tagged ``facedown`` (``core/checks.py``, ``games/checks.py``) — the ones
``manage.py check`` runs too — and exits with every error, named, on stderr.
"""

from __future__ import annotations

import os
import sys

import django
from django.apps import apps
from django.core import checks

from core.checks import TAG


def configuration_errors() -> list[str]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if not apps.ready:
        # Only once: django.setup() configures logging again each time, which would undo the
        # levels Celery set meanwhile (beat's --loglevel=info, then silent at WARNING).
        django.setup()
    from django.conf import settings

    found = checks.run_checks(tags=[TAG])
    return [
        f"{m.id}: {m.msg}" + (f"\n    HINT: {m.hint}" if m.hint else "")
        for m in found
        if m.is_serious() and m.id not in settings.SILENCED_SYSTEM_CHECKS
    ]


def refuse_to_start_wrong(process: str) -> None:
    errors = configuration_errors()
    if errors:
        lines = "\n".join(f"  {error}" for error in errors)
        print(
            f"facedown: {process} refuses to start, the configuration is wrong:\n{lines}",
            file=sys.stderr,
            flush=True,
        )
        raise SystemExit(3)
