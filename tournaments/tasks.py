"""Celery tasks of tournaments, registered as jobs with both task runners.

Imported when the app starts (``TournamentsConfig.ready``). Each takes ids and is safe to run
twice. The sweep is periodic: Celery beat runs it in the full stack (``CELERY_BEAT_SCHEDULE``),
the embedded worker in the default.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from games.embedded import worker
from games.tasks import celery_job_register
from tournaments.services.arena import arena_waves
from tournaments.services.lifecycle import match_finished, tournaments_sweep

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def tournament_match_finished_task(match_id: str) -> bool:
    return match_finished(match_id=match_id)


@shared_task(**_RETRY)
def tournaments_sweep_task() -> int:
    return tournaments_sweep()


@shared_task(**_RETRY)
def arena_waves_task() -> int:
    return arena_waves()


celery_job_register("tournament_match_finished", tournament_match_finished_task)
celery_job_register("tournaments_sweep", tournaments_sweep_task)
worker.periodic["tournaments_sweep"] = lambda: settings.FACEDOWN_TOURNAMENT_SWEEP_SECONDS
celery_job_register("arena_waves", arena_waves_task)
worker.periodic["arena_waves"] = lambda: settings.FACEDOWN_ARENA_WAVE_SECONDS
