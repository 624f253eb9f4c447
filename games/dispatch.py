"""Hand a job to whichever task runner this deployment uses.

Jobs are named; ``games.tasks.TASKS`` maps each name to a Celery task whose body calls one
service. Under the full stack the job goes to Celery (Redis broker); on the embedded default it
goes to the worker thread of ``games.embedded``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings


def enqueue(name: str, *args: Any, eta: datetime | None = None) -> None:
    runner = settings.FACEDOWN_TASK_RUNNER
    if runner == "celery":
        from games.tasks import TASKS

        TASKS[name].apply_async(args=args, eta=eta)
    elif runner == "embedded":
        from games.embedded import worker

        worker.submit(name, args, eta=eta)
    elif runner != "off":
        raise ValueError(f"unknown FACEDOWN_TASK_RUNNER {runner!r}")
