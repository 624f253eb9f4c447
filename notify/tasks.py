"""Celery tasks of notifications, registered as jobs with both task runners.

Imported when the app starts (``NotifyConfig.ready``). Each takes JSON arguments (ids and
notifications, nothing hidden) and is safe to run twice: mail and webhook deliveries are
recorded once per notification. The deadline scan is periodic: Celery beat runs it in the full
stack (``CELERY_BEAT_SCHEDULE``), the embedded worker in the default.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from games.embedded import worker
from games.tasks import celery_job_register
from notify.account import password_reset_send
from notify.deadlines import deadline_soon_scan
from notify.mail import email_verify_send, your_move_digest
from notify.outbound import notifications_outbound
from notify.webhooks import webhook_deliver

_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**_RETRY)
def deadline_soon_scan_task() -> int:
    return len(deadline_soon_scan())


@shared_task(**_RETRY)
def notifications_outbound_task(items: list[dict[str, Any]]) -> dict[str, int]:
    return notifications_outbound(items)


@shared_task(**_RETRY)
def mail_your_move_digest_task(user_id: int) -> int:
    return your_move_digest(user_id)


@shared_task(**_RETRY)
def email_verify_send_task(user_id: int) -> bool:
    return email_verify_send(user_id)


@shared_task(**_RETRY)
def password_reset_send_task(email: str) -> int:
    return password_reset_send(email)


@shared_task(**_RETRY)
def webhook_deliver_task(delivery_id: int) -> str:
    return webhook_deliver(delivery_id)


for _name, _task in {
    "deadline_soon_scan": deadline_soon_scan_task,
    "notifications_outbound": notifications_outbound_task,
    "mail_your_move_digest": mail_your_move_digest_task,
    "email_verify_send": email_verify_send_task,
    "password_reset_send": password_reset_send_task,
    "webhook_deliver": webhook_deliver_task,
}.items():
    celery_job_register(_name, _task)
worker.periodic["deadline_soon_scan"] = lambda: settings.FACEDOWN_DEADLINE_SOON_SCAN_SECONDS
