"""Celery tasks: each takes ids, calls one idempotent service, and is safe to run twice.

Imported when the app starts (``GamesConfig.ready``): each task is registered with
``games.dispatch`` as a job, and Celery as the runner named ``celery``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import shared_task
from django.db import OperationalError

from games import dispatch
from games.services.bot_seats import bot_moves_play, stalled_bots_sweep
from games.services.conditional import conditional_moves_play, stalled_conditional_sweep
from games.services.deadlines import overdue_sweep, step_expire
from games.services.purge import data_purge
from games.services.vacations import vacation_apply

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def bot_moves_task(match_id: str, step: int) -> int:
    return bot_moves_play(match_id=match_id, step=step)


@shared_task(**_RETRY)
def conditional_moves_task(match_id: str, step: int) -> int:
    return conditional_moves_play(match_id=match_id, step=step)


@shared_task(**_RETRY)
def step_expire_task(match_id: str, step: int) -> bool:
    return step_expire(match_id=match_id, step=step)


@shared_task(**_RETRY)
def overdue_sweep_task() -> int:
    return overdue_sweep() + stalled_bots_sweep() + stalled_conditional_sweep()


@shared_task(**_RETRY)
def vacation_apply_task(user_id: int) -> int:
    return vacation_apply(user_id=user_id)


@shared_task(**_RETRY)
def data_purge_task() -> dict[str, int]:
    return data_purge()


TASKS = {
    "bot_moves": bot_moves_task,
    "conditional_moves": conditional_moves_task,
    "step_expire": step_expire_task,
    "overdue_sweep": overdue_sweep_task,
    "data_purge": data_purge_task,
    "vacation_apply": vacation_apply_task,
}


def _celery(name: str, args: tuple[Any, ...], eta: datetime | None) -> None:
    TASKS[name].apply_async(args=args, eta=eta)


def celery_job_register(name: str, task: Any) -> None:
    """A job of an app above ``games`` (its own Celery task), run by either runner."""
    TASKS[name] = task
    dispatch.job_register(name, task.run)


for _name, _task in TASKS.items():
    dispatch.job_register(_name, _task.run)
dispatch.runner_register("celery", _celery)
