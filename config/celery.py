"""The Celery application; tasks live in each app's ``tasks`` module.

Two things every worker does besides running tasks (docs/reliability.md, "Redis and workers"):

- it sweeps: every ``FACEDOWN_SWEEP_SECONDS`` it expires overdue steps and plays stalled bot
  seats itself (``SweepStep``), so beat is not the only thing that ever expires a deadline;
  sweeps in several workers share the work (``games.locks.overdue_step_claim``);
- its database sessions have a ``statement_timeout`` and a ``lock_timeout`` (the worker's, not
  a web request's), so a stuck query or a lock held too long fails the task (which retries)
  instead of hanging the worker.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, bootsteps, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

log = logging.getLogger(__name__)

app = Celery("facedown")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Celery's Django fix-up closes every database connection before and after each task unless
# this is set: a new PostgreSQL backend per task (a fork and its catalogue warm-up: a large share
# of the server CPU per move under load, docs/benchmarks-history.md). It then closes them only every
# 2 x this many tasks; ``connections_tidy`` below closes the broken and the aged ones instead,
# as Django does between requests (CONN_MAX_AGE, CONN_HEALTH_CHECKS).
app.conf.CELERY_DB_REUSE_MAX = 1_000_000
app.autodiscover_tasks()


def worker_sweep() -> None:
    """One sweep, as the worker runs it between tasks: overdue deadlines, then stalled bots."""
    from django.db import close_old_connections

    from games import dispatch

    close_old_connections()
    try:
        dispatch.job("overdue_sweep")()
    except Exception:
        log.exception("the worker's sweep failed; it runs again in the next interval")
    finally:
        close_old_connections()


class SweepStep(bootsteps.StartStopStep):
    """Run ``worker_sweep`` on the consumer's timer (the event loop's, with a Redis broker).

    A consumer step, started again after every reconnect: a lost broker connection resets
    the event loop and drops its timer entries (ETA tasks held in memory too; their messages
    come back after the visibility timeout, and the sweep does their work meanwhile)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.entry: Any = None

    def start(self, parent: Any) -> None:
        from django.conf import settings

        if settings.FACEDOWN_WORKER_SWEEPS and self.entry is None:
            self.entry = parent.timer.call_repeatedly(settings.FACEDOWN_SWEEP_SECONDS, worker_sweep)

    def stop(self, parent: Any) -> None:
        if self.entry is not None:
            self.entry.cancel()
            self.entry = None

    shutdown = stop


app.steps["consumer"].add(SweepStep)


def _stamp(**kwargs: Any) -> None:
    from observability.collector import task_publish_stamp

    task_publish_stamp(**kwargs)


# Every task message carries its publish time: the console and the metrics show the age of the
# queue's oldest task (observability/collector.py).
signals.before_task_publish.connect(_stamp, weak=False)


@signals.task_prerun.connect
@signals.task_postrun.connect
def connections_tidy(task: Any = None, **_: Any) -> None:
    """Close the database connections that failed or outlived ``CONN_MAX_AGE``, around every
    task, as Django does around every request; the healthy ones are reused."""
    if task is not None and getattr(task.request, "is_eager", False):
        return  # run inside the caller's request or transaction: not ours to close
    from django.db import close_old_connections

    close_old_connections()


@signals.worker_init.connect
def refuse_to_start_wrong(**_: Any) -> None:
    """A worker configured wrong exits at start with the settings named (config/startup.py)."""
    from config.startup import refuse_to_start_wrong

    refuse_to_start_wrong("the Celery worker")


@signals.beat_init.connect
def beat_refuses_to_start_wrong(**_: Any) -> None:
    from config.startup import refuse_to_start_wrong

    refuse_to_start_wrong("Celery beat")


@signals.worker_init.connect
@signals.worker_process_init.connect
def database_timeouts(**_: Any) -> None:
    """The worker's PostgreSQL sessions get the worker's statement and lock timeouts.

    Sent with each change's ``BEGIN`` (``SET LOCAL``) and kept as the worker role's defaults
    (``manage.py database_role_timeouts worker``), never as startup options, which a
    transaction-mode pooler refuses (core/postgresql/session.py).
    """
    from core.postgresql import session

    session.use("worker")
