"""Hand a job to whichever task runner this deployment uses.

Jobs are named (``bot_moves``, ``step_expire``, ``overdue_sweep``). Runners register themselves
when the app starts (``GamesConfig.ready``): ``games.tasks`` registers Celery (Redis broker) and
``games.embedded`` the worker thread of the SQLite default. This module imports neither, so the
services that enqueue jobs never depend on the tasks that call them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings

#: ``runner(name, args, eta)`` puts a job on its queue.
Runner = Callable[[str, tuple[Any, ...], datetime | None], None]
#: A job's body: the service call, with the job's arguments.
Job = Callable[..., Any]

_runners: dict[str, Runner] = {}
_jobs: dict[str, Job] = {}


def runner_register(name: str, runner: Runner) -> None:
    _runners[name] = runner


def job_register(name: str, body: Job) -> None:
    _jobs[name] = body


def job(name: str) -> Job:
    """The body of job ``name``, for a runner that calls it in process."""
    return _jobs[name]


def enqueue(name: str, *args: Any, eta: datetime | None = None) -> None:
    runner = settings.FACEDOWN_TASK_RUNNER
    if runner == "off":
        return
    if runner not in _runners:
        raise ValueError(f"unknown FACEDOWN_TASK_RUNNER {runner!r}")
    _runners[runner](name, args, eta)
