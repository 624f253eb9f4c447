"""Celery tasks of the ladder, registered as jobs with both task runners.

Imported when the app starts (``LadderConfig.ready``). Each is safe to run twice. The wave
and the verifier are periodic: Celery beat runs them in the full stack
(``CELERY_BEAT_SCHEDULE``), the embedded worker in the default; a wave is also enqueued after
each ladder match is recorded and after an entry.
"""

from __future__ import annotations

import uuid
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from games.embedded import worker
from games.tasks import celery_job_register
from ladder.services.pairing import ladder_pair
from ladder.services.results import match_finished, stalled_sweep
from ladder.services.verification import ladder_verify

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def ladder_match_finished_task(match_id: str) -> bool:
    return match_finished(uuid.UUID(match_id))


@shared_task(**_RETRY)
def ladder_pair_task() -> int:
    """A lost ``ladder_match_finished`` job is caught up here before the wave."""
    stalled_sweep()
    return ladder_pair()


@shared_task(**_RETRY)
def ladder_verify_task() -> int:
    return ladder_verify()


celery_job_register("ladder_match_finished", ladder_match_finished_task)
celery_job_register("ladder_pair", ladder_pair_task)
celery_job_register("ladder_verify", ladder_verify_task)
worker.periodic["ladder_pair"] = lambda: settings.FACEDOWN_LADDER_PAIR_SECONDS
worker.periodic["ladder_verify"] = lambda: settings.FACEDOWN_LADDER_VERIFY_SECONDS
