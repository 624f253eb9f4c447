"""Hand a job to whichever task runner this deployment uses.

Jobs are named (``bot_moves``, ``conditional_moves``, ``step_expire``, ``overdue_sweep``).
Runners register themselves when the app starts (``GamesConfig.ready``): ``games.tasks``
registers Celery (Redis broker) and ``games.embedded`` the worker thread of the SQLite default.
This module imports neither, so the services that enqueue jobs never depend on the tasks that
call them.

Enqueueing happens after a change has committed, so it must never fail the request that made
the change: a runner that cannot take the job (the broker is down or refuses) is logged and
the job is left for the periodic sweep, which finds every overdue deadline and every bot seat
still waiting from the match rows themselves (``overdue_sweep``, ``stalled_bots_sweep``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

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


def enqueue(name: str, *args: Any, eta: datetime | None = None) -> bool:
    """Hand job ``name`` to the configured runner; returns whether it took the job.

    Never raises for a runner that fails: the job's arguments are ids and step numbers only
    (nothing hidden), and they are logged so an operator can see what the sweep will redo.
    """
    runner = settings.FACEDOWN_TASK_RUNNER
    if runner == "off":
        return False
    if runner not in _runners:
        raise ValueError(f"unknown FACEDOWN_TASK_RUNNER {runner!r}")
    try:
        _runners[runner](name, args, eta)
    except Exception as exc:
        log.warning(
            "could not enqueue job %s%r on the %s runner (%s: %s); the sweep will do it",
            name,
            args,
            runner,
            type(exc).__name__,
            exc,
        )
        return False
    return True
