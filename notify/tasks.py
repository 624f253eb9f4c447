"""Celery tasks of notifications, registered as jobs with both task runners.

Imported when the app starts (``NotifyConfig.ready``). The deadline scan is periodic: Celery
beat runs it in the full stack (``CELERY_BEAT_SCHEDULE``), the embedded worker in the default.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from games.embedded import worker
from games.tasks import celery_job_register
from notify.deadlines import deadline_soon_scan

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def deadline_soon_scan_task() -> int:
    return len(deadline_soon_scan())


celery_job_register("deadline_soon_scan", deadline_soon_scan_task)
worker.periodic["deadline_soon_scan"] = lambda: settings.FACEDOWN_DEADLINE_SOON_SCAN_SECONDS
