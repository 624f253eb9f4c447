"""The periodic job of moderation, registered with both task runners (imported when the app
starts): sanctions whose end passed are marked over and logged. A check never waits for it:
it compares the end with the time (docs/moderation.md)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from games.embedded import worker
from games.tasks import celery_job_register
from moderation.sanctions import sanctions_running_out

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def sanctions_running_out_task() -> int:
    return sanctions_running_out()


celery_job_register("sanctions_running_out", sanctions_running_out_task)
worker.periodic["sanctions_running_out"] = lambda: settings.FACEDOWN_SANCTIONS_SWEEP_SECONDS
